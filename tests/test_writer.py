"""The farm's batch writer: chunks stored in batches, each batch in one transaction, each chunk
once; the file attached only while a batch is written; a kill inside a batch's transaction
leaves nothing of it, and the resumed run equals an uninterrupted one."""
import os
import signal
import subprocess
import sys
import time

import pytest

from reports import db
from tests.conftest import ROOT, run_cli
from workbench import farm
from workbench.chunk import init_worker, play_chunk
from workbench.commands.simulate import create, new_run
from workbench.farm import default_workers, run_chunks
from workbench.store import Store
from workbench.writer import ArrivedChunk, BatchWriter

DECKS = ["goblin-gold-gang", "lawmen-posse"]


def small_run(tmp_path, matches=40, chunk_size=4):
    store = Store(tmp_path / "w.duckdb")
    spec, payload = new_run("frontier", "base", DECKS, ["random"], matches=matches, seed=3, swap=True, events=1.0,
                            chunk_size=chunk_size, workers=1)
    run_id = create(store, spec, payload)
    return store, spec, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, run_id


def played(payload, chunks):
    """The chunks played here, as the farm receives them."""
    init_worker(payload)
    return [ArrivedChunk(c, tables, seconds, 0.5, events) for c, tables, seconds, events in map(play_chunk, chunks)]


def q(path, sql):
    return db.query(path, sql).rows()


def test_a_batch_is_stored_once_in_one_transaction(tmp_path):
    store, spec, payload, run_id = small_run(tmp_path)
    first, second = played(payload, [0, 1, 2]), played(payload, [2, 3])
    with BatchWriter(store.path) as writer:
        assert [a.chunk for a in writer.store(run_id, first)] == [0, 1, 2]
        # chunk 2 is in already, and a rerun task may bring a chunk twice in one batch
        assert [a.chunk for a in writer.store(run_id, second + second)] == [3]
        assert writer.store(run_id, first) == []
        # the file is free between batches: another process reads it while the writer lives
        other = subprocess.run([sys.executable, "-c", "import duckdb, sys; con = duckdb.connect(sys.argv[1], read_only=True);"
                                "print(con.execute('SELECT count(*) FROM chunks').fetchall()[0][0])", str(store.path)],
                               capture_output=True, text=True)
        assert other.stdout.strip() == "4", other.stderr
    assert q(store.path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(16, 16)]
    assert q(store.path, "SELECT count(*) FROM match_seats") == [(32,)]
    assert q(store.path, "SELECT chunk, matches FROM chunks ORDER BY chunk") == [(c, 4) for c in range(4)]
    assert q(store.path, "SELECT matches_done, wall_seconds FROM runs") == [(16, 2.0)]
    (events,), = q(store.path, "SELECT count(*) FROM events")
    assert events == q(store.path, "SELECT sum(events_rows) FROM chunks")[0][0] > 0


def test_a_reader_holding_the_file_makes_the_writer_wait_then_fail_in_one_line(tmp_path):
    store, spec, payload, run_id = small_run(tmp_path)
    chunks = played(payload, [0])
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1], read_only=True);"
                               "print('held', flush=True); time.sleep(float(sys.argv[2]))", str(store.path), "1.0"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    started = time.monotonic()
    with BatchWriter(store.path, wait=30) as writer:
        assert [a.chunk for a in writer.store(run_id, chunks)] == [0]  # waited for the reader to go
    assert time.monotonic() - started > 0.3
    holder.wait()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1], read_only=True);"
                               "print('held', flush=True); time.sleep(float(sys.argv[2]))", str(store.path), "5"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with BatchWriter(store.path, wait=0.3) as writer, pytest.raises(db.StoreError, match="held the database"):
            writer.store(run_id, played(payload, [1]))
    finally:
        holder.kill()
        holder.wait()
    assert q(store.path, "SELECT count(*) FROM chunks") == [(1,)]


def test_the_farm_stores_fast_chunks_in_fewer_batches_and_reports_its_writer_cpu(tmp_path):
    store, spec, payload, run_id = small_run(tmp_path, matches=60, chunk_size=2)
    seen = []
    report = run_chunks(store, run_id, payload, list(range(spec.n_chunks)), 1, on_chunk=lambda c, n: seen.append((c, n)))
    assert report.chunks_stored == len(seen) == spec.n_chunks == 30 and report.matches_stored == 60
    assert sorted(seen) == [(c, 2) for c in range(30)]
    assert 1 <= report.batches < report.chunks_stored  # 2-match chunks come back far faster than farm.FLUSH_SECONDS
    assert 0 < report["writer_cpu_s"] == report.writer_cpu_s < report.parent_cpu_s
    assert q(store.path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(60, 60)]
    assert q(store.path, "SELECT matches_done FROM runs") == [(60,)]


def test_workers_default_to_the_clusters_threads():
    assert default_workers("local:3") == 3
    assert default_workers() == len(os.sched_getaffinity(0))


KILLED_INSIDE_A_BATCH = """
import os, signal, sys
from pathlib import Path
from workbench.commands.simulate import create, new_run
from workbench.farm import run_chunks
from workbench.store import Store
from workbench import farm, writer

farm.BATCH_UNITS = 8  # several batches in a short run

batches = []
record = writer.BatchWriter._record_chunks
def record_then_die(self, run_id, fresh):
    batches.append(len(fresh))
    if len(batches) == 2:  # the second batch's rows are in, its chunks rows not yet, nothing committed
        os.kill(os.getpid(), signal.SIGKILL)
    record(self, run_id, fresh)
writer.BatchWriter._record_chunks = record_then_die
store = Store(Path(sys.argv[1]))
spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["random"], matches=80, seed=5,
                        swap=True, events=1.0, chunk_size=4, workers=1)
run_id = create(store, spec, payload)
run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, list(range(spec.n_chunks)), 2)
"""


@pytest.mark.slow
def test_a_kill_inside_a_batch_leaves_nothing_of_it_and_the_resume_equals_a_clean_run(tmp_path):
    killed, clean = tmp_path / "killed.duckdb", tmp_path / "clean.duckdb"
    res = subprocess.run([sys.executable, "-c", KILLED_INSIDE_A_BATCH, str(killed)], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == -signal.SIGKILL, res.stderr
    (stored, matches), = q(killed, "SELECT count(*), coalesce(sum(matches), 0) FROM chunks")
    assert 0 < stored < 20  # the first batch is in, the second left nothing
    assert q(killed, "SELECT count(*) FROM matches") == [(matches,)]
    assert q(killed, "SELECT count(*) FROM match_seats") == [(2 * matches,)]
    assert q(killed, "SELECT matches_done FROM runs") == [(matches,)]
    res = run_cli("simulate", "--resume", "1", "--db", str(killed), "--quiet")
    assert res.returncode == 0, res.stderr
    res = run_cli("simulate", "frontier", "--decks", ",".join(DECKS), "--matches", "80", "--pilots", "random",
                  "--seed", "5", "--chunk-size", "4", "--db", str(clean), "--quiet")
    assert res.returncode == 0, res.stderr
    same = ("SELECT (SELECT list(row(match_no, seed, winner_seat, turns, decisions) ORDER BY match_no) FROM matches),"
            " (SELECT count(*) FROM card_games), (SELECT count(*) FROM events),"
            " (SELECT list(row(chunk, matches, events_rows) ORDER BY chunk) FROM chunks),"
            " (SELECT matches_done FROM runs)")
    assert q(killed, same) == q(clean, same)
    assert q(killed, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(20, 20)]


WAIT = 1.0  # FLUSH_SECONDS in the next test


def play_slowly_after_the_first(chunk):
    if chunk > 0:
        time.sleep(3 * WAIT)
    return play_chunk(chunk)


def test_a_chunk_is_stored_within_flush_seconds_even_when_no_other_comes(tmp_path, monkeypatch):
    monkeypatch.setattr(farm, "FLUSH_SECONDS", WAIT)
    store, spec, payload, run_id = small_run(tmp_path, matches=4, chunk_size=2)
    stored_at = {}
    run_chunks(store, run_id, payload, [0, 1], 1, on_chunk=lambda c, n: stored_at.setdefault(c, time.monotonic()),
               worker=(init_worker, play_slowly_after_the_first))
    assert stored_at[1] - stored_at[0] > WAIT  # chunk 0 did not wait for chunk 1's batch
