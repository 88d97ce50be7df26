"""The farm and the store: tables, seat swapping, chunks stored once across a kill and a resume,
a reader beside a writing run, flat writer memory, exports a spreadsheet opens."""
import csv
import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from reports import db
from tests.cli_server import user_env
from tests.conftest import ROOT, cli_here, run_cli

PAIR = "goblin-gold-gang,lawmen-posse"  # the foundation's two decks: these tests are about the farm


def q(path, sql):
    return db.query(path, sql).rows()


def test_run_fills_every_table(small_store):
    (matches,), = q(small_store, "SELECT count(*) FROM matches WHERE run_id = 1")
    assert matches == 60
    assert q(small_store, "SELECT count(*) FROM match_seats WHERE run_id = 1") == [(120,)]
    # one card_games row per match x seat x distinct card of that seat's deck (or played)
    assert q(small_store, """SELECT count(*) FROM (SELECT match_no, seat, count(*) n FROM card_games
                             WHERE run_id = 1 GROUP BY ALL HAVING n < 18)""") == [(0,)]
    assert q(small_store, "SELECT sum(copies) FROM card_games WHERE run_id = 1") == [(60 * 2 * 52,)]
    (events,), = q(small_store, "SELECT count(*) FROM events WHERE run_id = 1")
    (logged,), = q(small_store, "SELECT sum(events_rows) FROM chunks WHERE run_id = 1")
    assert events == logged > 60 * 50
    from cardsdb.loader import load_ruleset
    assert q(small_store, "SELECT count(*) FROM cards") == [(len(load_ruleset("frontier", "base")[1].cards),)]
    run = db.query(small_store, "SELECT * FROM runs WHERE run_id = 1").row(0, named=True)
    assert (run["status"], run["matches_done"], run["errors"], run["decks"]) == ("done", 60, 0, "goblin-gold-gang,lawmen-posse")
    assert run["rules_hash"] and run["code_version"]


def test_each_seed_is_played_from_both_seats(small_store):
    rows = q(small_store, """SELECT m.match_no, m.seed, m.swapped, s.deck FROM matches m
                             JOIN match_seats s USING (run_id, match_no)
                             WHERE run_id = 1 AND s.seat = 0 ORDER BY m.match_no""")
    for (n0, seed0, sw0, deck0), (n1, seed1, sw1, deck1) in zip(rows[::2], rows[1::2]):
        assert n1 == n0 + 1 and seed0 == seed1 and (sw0, sw1) == (False, True) and deck0 != deck1


def test_runs_and_export_for_a_spreadsheet(small_store, tmp_path):
    res = cli_here("runs", "--db", str(small_store))
    assert res.returncode == 0 and "goblin-gold-gang" in res.stdout
    for table in ("matches", "card_games", "cards", "runs", "events", "keywords", "matchups", "cost_curve"):
        out = tmp_path / f"{table}.csv"
        res = cli_here("export", table, "--run", "1", "--csv", str(out), "--parquet", str(tmp_path / f"{table}.parquet"),
                      "--db", str(small_store))
        assert res.returncode == 0, res.stderr
        rows = list(csv.DictReader(out.open(encoding="utf-8")))
        assert rows and "" not in rows[0] and "index" not in rows[0]
        assert duckdb.sql(f"SELECT count(*) FROM '{tmp_path / (table + '.parquet')}'").fetchall()[0][0] == len(rows)
    runs = list(csv.DictReader((tmp_path / "runs.csv").open(encoding="utf-8")))
    assert len(runs[0]["created_at"]) == 19 and runs[0]["created_at"][10] == "T"  # ISO date-time
    stats = list(csv.DictReader((tmp_path / "cards.csv").open(encoding="utf-8")))
    assert {"card", "games", "gih_wr", "gih_wr_lo", "gih_wr_hi", "played_wr"} <= set(stats[0])
    res = cli_here("export", "nonsense", "--csv", str(tmp_path / "x.csv"), "--db", str(small_store))
    assert res.returncode == 2 and "unknown table" in res.stderr


def _start(args, env=None):
    return subprocess.Popen([sys.executable, "-m", "workbench.cli", *args], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**user_env(), **(env or {})})


def _wait_for_chunks(path, n, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"run ended before it could be killed: {proc.stderr.read()}")
        try:
            if db.has_tables(path, "chunks") and q(path, "SELECT count(*) FROM chunks")[0][0] >= n:
                return
        except db.StoreError:
            pass
        time.sleep(0.05)
    raise AssertionError("no chunks stored in time")


@pytest.mark.slow
def test_resume_after_sigkill_stores_every_chunk_once(tmp_path):
    path = tmp_path / "killed.duckdb"
    args = ["simulate", "frontier", "--decks", PAIR, "--matches", "1200", "--pilots", "random", "--chunk-size", "10",
            "--workers", "2", "--db", str(path), "--quiet", "--seed", "5"]
    proc = _start(args)
    _wait_for_chunks(path, 3, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (stored,), = q(path, "SELECT count(*) FROM chunks")
    assert 3 <= stored < 120, "killed mid-run"
    assert q(path, "SELECT status FROM runs") == [("running",)]
    res = run_cli("simulate", "--resume", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert q(path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(120, 120)]
    assert q(path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(1200, 1200)]
    assert q(path, "SELECT status, matches_done FROM runs") == [("done", 1200)]
    (events,), = q(path, "SELECT count(*) FROM events")
    assert events == q(path, "SELECT sum(events_rows) FROM chunks")[0][0]
    assert q(path, "SELECT count(*) FROM (SELECT DISTINCT match_no, seq FROM events)") == [(events,)]
    # the same run uninterrupted gives the same matches
    clean = tmp_path / "clean.duckdb"
    assert run_cli(*[a if a != str(path) else str(clean) for a in args]).returncode == 0
    assert q(path, "SELECT match_no, winner_seat, turns FROM matches ORDER BY 1") == \
        q(clean, "SELECT match_no, winner_seat, turns FROM matches ORDER BY 1")
    # a finished run cannot be resumed again
    res = run_cli("simulate", "--resume", "1", "--db", str(path))
    assert res.returncode == 2 and "already done" in res.stderr


def test_resume_refuses_changed_rules(tmp_path):
    import shutil
    data = tmp_path / "data"
    shutil.copytree(ROOT / "cardsdb" / "frontier", data / "frontier", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    path = tmp_path / "s.duckdb"
    env = {"WORKBENCH_DATA_DIR": str(data)}
    proc = _start(["simulate", "frontier", "--decks", PAIR, "--matches", "2000", "--pilots", "random", "--chunk-size", "20",
                   "--db", str(path), "--quiet"], env)
    _wait_for_chunks(path, 1, proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    base = data / "frontier" / "rules" / "base.yaml"
    base.write_text(base.read_text().replace("starting_hp: 30", "starting_hp: 25"))
    res = run_cli("simulate", "--resume", "1", "--db", str(path), env=env)
    assert res.returncode == 2 and "rules version 'base' changed" in res.stderr and "since the run started" in res.stderr


@pytest.mark.slow
def test_a_reader_beside_a_writing_run(tmp_path):
    """Another process queries the store while a run writes: every query answers within
    seconds, never sees half a chunk, and the run is not stalled."""
    path = tmp_path / "busy.duckdb"
    from workbench.farm import BATCH_UNITS

    # three batches: the writer stores one every BATCH_UNITS matches, so after the first the reader
    # has a whole batch's play to get in before the run ends (with 1,200 matches a loaded machine
    # wrote the last 200 before the reader's next query, and the test saw no growth)
    matches = 3 * BATCH_UNITS
    proc = _start(["simulate", "frontier", "--decks", PAIR, "--matches", str(matches), "--pilots", "random", "--chunk-size", "40",
                   "--workers", "1", "--db", str(path), "--quiet"])
    _wait_for_chunks(path, 1, proc)
    latencies, seen = [], []
    while proc.poll() is None:
        t = time.perf_counter()
        (matches, chunked), = q(path, "SELECT (SELECT count(*) FROM matches), (SELECT coalesce(sum(matches), 0) FROM chunks)")
        latencies.append(time.perf_counter() - t)
        assert matches == chunked  # a chunk is all in or all out
        seen.append(matches)
    assert proc.returncode == 0, proc.stderr.read()
    # the reader got in again and again while the run wrote, and saw it grow (how many times
    # depends on the machine's load)
    assert seen == sorted(seen) and len(seen) >= 4 and seen[0] < seen[-1], seen
    assert max(latencies) < 5.0, max(latencies)
    assert q(path, "SELECT status, matches_done FROM runs") == [("done", matches)]


PEAK_RSS = """
import resource, sys, tempfile
from pathlib import Path
from cardsdb.loader import Ruleset
from workbench.commands.simulate import card_rows, new_run
from workbench.farm import run_chunks
from workbench.store import Store
n = int(sys.argv[1])
store = Store(Path(sys.argv[2])); store.init()
spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["random"], matches=n, seed=1,
                        swap=True, events=1.0, chunk_size=50, workers=1)
run = store.create_run(spec.to_json(), spec.spec_hash(), card_rows(Ruleset.from_payload(payload["ruleset"])), spec.n_chunks, "t")
run_chunks(store, run, {**payload, "run_id": run, "events_dir": str(store.events_dir)}, list(range(spec.n_chunks)), 1)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.mark.slow
def test_writer_memory_stays_flat(tmp_path):
    peaks = []
    for n in (300, 1500):
        res = subprocess.run([sys.executable, "-c", PEAK_RSS, str(n), str(tmp_path / f"m{n}.duckdb")],
                             capture_output=True, text=True, cwd=ROOT)
        assert res.returncode == 0, res.stderr
        peaks.append(int(res.stdout.strip().splitlines()[-1]) / 1024)
    assert peaks[1] - peaks[0] < 40, f"writer peak RSS grew from {peaks[0]:.0f} MB to {peaks[1]:.0f} MB"
