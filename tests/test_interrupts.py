"""Stops and failures of a run, from an audit with kill scripts: a stop (Ctrl-C, SIGTERM) wherever
it lands, in a DuckDB query (the writer's commit, the making of a run) or outside the play loop,
leaves the run ``stopped`` with one line naming the command that finishes it and exit 130; a run
that stops on an error stores every chunk that finished first; a full disk is said to be one; a
stopped or failed run is finished by the same command again, whatever --workers it is given; an
event-log part deleted from a stored chunk is written back when its run is reused or resumed."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from rich.console import Console

from reports import db
from reports.event_parts import part_name
from tests.conftest import ROOT
from tests.test_worker_death import die_on_chunk_3, gone, workers_of
from workbench import farm
from workbench.chunk import init_worker, play_chunk
from workbench.commands.simulate import create, execute, new_run
from workbench.errors import UserError
from workbench.farm import run_chunks
from workbench.store import Store
from workbench.writer import BatchWriter

PAIR = "goblin-gold-gang,lawmen-posse"
QUIET = Console(file=open(os.devnull, "w"))


def q(path, sql):
    return db.query(path, sql).rows()


def simulate_args(path: Path, *extra: str, matches: int = 16, workers: int = 1) -> list[str]:
    return ["simulate", "frontier", "--decks", PAIR, "--pilots", "random", "--matches", str(matches), "--seed", "4",
            "--workers", str(workers), "--db", str(path), "--quiet", *extra]


def main(args: list[str], capsys) -> tuple[int, list[str]]:
    """The command in this process: (exit code, the lines it printed on stderr and stdout)."""
    from workbench.cli import main as cli_main

    with pytest.raises(SystemExit) as exit_info:
        cli_main(args)
    out = capsys.readouterr()
    code = exit_info.value.code
    return code if isinstance(code, int) else 0, [line for line in (out.err + out.out).splitlines() if line.strip()]


@pytest.fixture
def ctrl_c_raises():
    """SIGINT as a terminal gives it (a test worker may have inherited it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@contextmanager
def ctrl_c_pressed_meanwhile():
    """Ctrl-C at this process every 10 ms, from 50 ms on, until the block (a DuckDB query that
    takes longer) ends: one lands in the query, where DuckDB turns it into 'Query interrupted'."""
    done = threading.Event()

    def press():
        if not done.wait(0.05):
            while not done.wait(0.01):
                os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    try:
        yield
    finally:
        done.set()
        presser.join()


def slow_query(con) -> None:
    """A second or so of DuckDB work on one thread."""
    con.execute("SELECT count(*) FROM range(60000000) t(i) WHERE hash(i) % 7 = 0").fetchall()


def then_ctrl_c_in_a_query(method, connection):
    """``method``, then a slow query on the connection ``connection(self, *args)`` names with
    Ctrl-C pressed meanwhile: a stop that lands in a DuckDB query right after that step."""
    def stopped(self, *args):
        method(self, *args)
        with ctrl_c_pressed_meanwhile():
            slow_query(connection(self, *args))
    return stopped


# --- 1. a stop that lands in a DuckDB query ----------------------------------------------------

def test_the_deferral_holds_ctrl_c_until_the_block_ends(ctrl_c_raises):
    from workbench.store import interrupts_deferred

    reached = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler would have run by now
            reached.append(True)
    assert reached == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_in_the_writers_commit_stops_the_run(tmp_path, capsys, monkeypatch, ctrl_c_raises):
    path = tmp_path / "commit.duckdb"
    record = BatchWriter._record_chunks
    monkeypatch.setattr(BatchWriter, "_record_chunks",
                        then_ctrl_c_in_a_query(record, lambda writer, _run_id, _fresh: writer.con))
    code, lines = main(simulate_args(path), capsys)
    assert (code, lines) == (130, [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"])
    (status, note, stored), = q(path, "SELECT status, note, (SELECT count(*) FROM chunks) FROM runs")
    assert (status, note) == ("stopped", "interrupted") and stored > 0  # the batch was committed whole
    monkeypatch.setattr(BatchWriter, "_record_chunks", record)
    code, lines = main(simulate_args(path), capsys)
    assert code == 0 and lines[0] == "finishing stopped run 1 (base)", lines
    assert q(path, "SELECT run_id, status, note, matches_done FROM runs") == [(1, "done", None, 16)]


def test_ctrl_c_while_the_run_is_made_is_one_line_and_the_run_stopped(tmp_path, capsys, monkeypatch, ctrl_c_raises):
    path = tmp_path / "made.duckdb"
    monkeypatch.setattr(Store, "_insert_cards", then_ctrl_c_in_a_query(Store._insert_cards, lambda _store, con, _rows: con))
    code, lines = main(simulate_args(path), capsys)
    assert (code, lines) == (130, [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"])
    assert q(path, "SELECT status, pid FROM runs") == [("stopped", None)]


def test_a_failed_run_is_finished_by_the_same_command(tmp_path, capsys):
    path = tmp_path / "failed.duckdb"
    store = Store(path)
    spec, payload = new_run("frontier", "base", PAIR.split(","), ["random"], matches=16, seed=4, swap=True, events=1.0,
                            chunk_size=None, workers=1)
    run_id = create(store, spec, payload)
    run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, [0], 1)
    store.set_status(run_id, "failed", note="OSError: [Errno 28] No space left on device", pid=None)
    code, lines = main(simulate_args(path), capsys)
    assert code == 0 and lines[0] == "finishing failed run 1 (base)", lines
    assert q(path, "SELECT run_id, status, note, matches_done FROM runs") == [(1, "done", None, 16)]


# --- 2. a run that stops on an error stores what finished ---------------------------------------

def new_store(tmp_path, name, matches=24, chunk_size=4):
    store = Store(tmp_path / f"{name}.duckdb")
    spec, payload = new_run("frontier", "base", PAIR.split(","), ["random"], matches=matches, seed=5, swap=True,
                            events=1.0, chunk_size=chunk_size, workers=1)
    run_id = create(store, spec, payload)
    return store, spec, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, run_id


def full_disk_on_chunk_5(chunk):
    if chunk == 5:
        raise OSError(errno.ENOSPC, "No space left on device", "chunk-000005.parquet")
    return play_chunk(chunk)


def test_a_run_that_fails_stores_the_chunks_waiting_for_their_batch(tmp_path, monkeypatch):
    monkeypatch.setattr(farm, "FLUSH_SECONDS", 600.0)  # nothing is written before the run ends
    store, spec, payload, run_id = new_store(tmp_path, "full")
    with pytest.raises(UserError) as failed:
        execute(store, run_id, spec, payload, 1, True, QUIET, worker=(init_worker, full_disk_on_chunk_5))
    line = str(failed.value)
    assert "\n" not in line and "no space left on the disk" in line and f"--resume {run_id} --db" in line, line
    assert q(store.path, "SELECT list(chunk ORDER BY chunk) FROM chunks") == [([0, 1, 2, 3, 4],)]
    assert q(store.path, "SELECT status, matches_done FROM runs") == [("failed", 20)]


def test_a_chunk_that_kills_its_workers_leaves_every_finished_chunk_stored(tmp_path, monkeypatch):
    monkeypatch.setattr(farm, "FLUSH_SECONDS", 600.0)
    store, spec, payload, run_id = new_store(tmp_path, "deadly")
    with pytest.raises(UserError, match="chunk 3 died 3 times.*every other chunk finished is stored"):
        execute(store, run_id, spec, payload, 2, True, QUIET, worker=(init_worker, die_on_chunk_3))
    (stored,), = q(store.path, "SELECT coalesce(list(chunk ORDER BY chunk), []) FROM chunks")
    assert {0, 1, 2} <= set(stored) and 3 not in stored, stored  # 0-2 came back before 3 was played alone


# --- 3. a stop outside the play loop ------------------------------------------------------------

def test_ctrl_c_before_the_play_loop_marks_the_run_stopped_and_says_how_to_finish_it(tmp_path, capsys, monkeypatch):
    path = tmp_path / "before.duckdb"

    def ctrl_c(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "done_chunks", ctrl_c)
    code, lines = main(simulate_args(path), capsys)
    assert (code, lines) == (130, [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"])
    assert q(path, "SELECT status, note, pid FROM runs") == [("stopped", "interrupted", None)]


def test_ctrl_c_of_a_resume_before_it_plays_names_the_run(tmp_path, capsys, monkeypatch):
    path = tmp_path / "resumed.duckdb"
    store, _spec, _payload, run_id = new_store(tmp_path, "resumed")
    store.set_status(run_id, "stopped", note="interrupted")

    def ctrl_c(*_args, **_kw):
        raise KeyboardInterrupt

    monkeypatch.setattr("workbench.commands.simulate.resumed_run", ctrl_c)
    code, lines = main(["simulate", "--resume", "1", "--db", str(path), "--quiet"], capsys)
    assert (code, lines) == (130, [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"])


def test_ctrl_c_in_a_batchs_reports_stops_the_batch(tmp_path, capsys, monkeypatch):
    spec = tmp_path / "b.yaml"
    spec.write_text("name: night\nsuites:\n  - {name: a, game: frontier, decks: [goblin-gold-gang, lawmen-posse], "
                    "pilots: [random], matches: 8, seed: 2}\n")
    path = tmp_path / "b.duckdb"

    def ctrl_c(*_args, **_kw):
        raise KeyboardInterrupt

    monkeypatch.setattr("workbench.batch.run._suite_reports", ctrl_c)
    code, lines = main(["batch", str(spec), "--db", str(path), "--out", str(tmp_path / "out"), "--workers", "1",
                        "--day", "2026-12-07"], capsys)
    assert code == 130 and lines[-1] == ("error: batch night stopped in suite a; run the same batch command again "
                                         "to finish it (its runs resume)"), lines
    assert q(path, "SELECT status FROM batches") == [("stopped",)]
    # the day's folder says it is not finished (it had some suites' files and no summary)
    folder = tmp_path / "out" / "night" / "2026-12-07"
    summary = (folder / "summary.md").read_text()
    assert summary.startswith("# Batch night, 2026-12-07: stopped\n") and "Suites not reported: a." in summary, summary
    assert "run the same batch command again" in summary.lower() and not (folder / "alerts.csv").exists()
    monkeypatch.undo()
    code, lines = main(["batch", str(spec), "--db", str(path), "--out", str(tmp_path / "out"), "--workers", "1",
                        "--day", "2026-12-07"], capsys)
    assert code == 0, lines
    assert (folder / "summary.md").read_text().startswith("# Batch night, 2026-12-07\n\n**No alerts.**")
    assert (folder / "alerts.csv").exists()


# --- 4. SIGTERM takes the Ctrl-C path -----------------------------------------------------------

def run_folder_has_parts(path: Path, proc: subprocess.Popen) -> None:
    parts = Path(str(path) + ".events") / "run-1"
    deadline = time.monotonic() + 120
    while not (parts.is_dir() and any(parts.glob("chunk-*.parquet"))):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended or never played"
        time.sleep(0.05)


def test_sigterm_stops_the_run_as_ctrl_c_does(tmp_path):
    private = tmp_path / "tmp"  # the run's temporary folder is looked for here
    private.mkdir()
    path = tmp_path / "term.duckdb"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}, "TMPDIR": str(private)}
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli", *simulate_args(path, "--chunk-size", "10",
                                                                                   matches=100000, workers=2)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        run_folder_has_parts(path, proc)
        workers = workers_of(proc.pid)
        proc.send_signal(signal.SIGTERM)  # the process alone, as kill and timeout send it
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and "Traceback" not in err
    assert err.strip().splitlines() == [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"]
    assert q(path, "SELECT status, note, pid FROM runs") == [("stopped", "interrupted", None)]
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in workers):
        assert time.monotonic() < deadline, "workers left behind"
        time.sleep(0.1)
    assert not list(private.glob(f"workbench-chunks-{proc.pid}-*")), "its temporary folder was left behind"


# --- 5. a full disk is no damage ----------------------------------------------------------------

def test_a_full_disk_is_said_to_be_full_not_damaged(tmp_path):
    full = duckdb.IOException('IO Error: Could not write file "x.duckdb": No space left on device')
    line = str(db.store_error(tmp_path / "x.duckdb", full))
    assert "no space left on its disk" in line and "(damaged?)" not in line and "free some space" in line, line
    read_only = duckdb.IOException('IO Error: Cannot open file "x.duckdb": Read-only file system')
    line = str(db.store_error(tmp_path / "x.duckdb", read_only))
    assert "read-only" in line and "(damaged?)" not in line, line


def test_a_run_whose_store_disk_is_full_fails_saying_so_and_how_to_finish_it(tmp_path, monkeypatch):
    store, spec, payload, run_id = new_store(tmp_path, "nospace")

    def no_space(self, run_id, fresh):
        raise duckdb.IOException('IO Error: Could not write file "nospace.duckdb": No space left on device')

    monkeypatch.setattr(BatchWriter, "_record_chunks", no_space)
    with pytest.raises(UserError) as failed:
        execute(store, run_id, spec, payload, 1, True, QUIET)
    line = str(failed.value)
    assert "no space left on its disk" in line and "(damaged?)" not in line and f"--resume {run_id}" in line, line
    assert store.run(run_id)["status"] == "failed"


# --- 6. a deleted event-log part is written back ------------------------------------------------

def test_a_deleted_part_is_written_back_as_it_was_when_the_run_is_reused(tmp_path, capsys):
    path = tmp_path / "parts.duckdb"
    assert main(simulate_args(path, "--chunk-size", "4"), capsys)[0] == 0
    part = Path(str(path) + ".events") / "run-1" / part_name(2)
    before = pq.read_table(part)
    part.unlink()
    code, lines = main(simulate_args(path, "--chunk-size", "4"), capsys)
    assert code == 0 and "reusing run 1" in lines[0] and "1 of its event-log parts are missing" in lines[1], lines
    assert pq.read_table(part).equals(before)
    assert q(path, "SELECT count(*) FROM events") == q(path, "SELECT sum(events_rows) FROM chunks")
    assert q(path, "SELECT count(*), matches_done FROM runs GROUP BY ALL") == [(1, 16)]


def test_a_resume_writes_back_the_parts_of_its_stored_chunks(tmp_path, capsys):
    store, spec, payload, run_id = new_store(tmp_path, "resume", matches=16)
    run_chunks(store, run_id, payload, [0, 1], 1)
    store.set_status(run_id, "stopped", note="interrupted")
    part = store.events_dir / "run-1" / part_name(1)
    before = pq.read_table(part)
    part.unlink()
    code, lines = main(["simulate", "--resume", "1", "--db", str(store.path), "--quiet"], capsys)
    assert code == 0, lines
    assert pq.read_table(part).equals(before)
    assert q(store.path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(4, 4)]
    assert q(store.path, "SELECT status, note, matches_done FROM runs") == [("done", None, 16)]


# --- 7. a stopped run is found by its matches, not its chunk size ------------------------------

def test_a_stopped_run_rerun_with_other_workers_goes_on_with_its_own_chunks(tmp_path, capsys):
    path = tmp_path / "workers.duckdb"
    store = Store(path)
    spec, payload = new_run("frontier", "base", PAIR.split(","), ["random"], matches=64, seed=4, swap=True, events=1.0,
                            chunk_size=None, workers=1)
    assert spec.chunk_size == 8  # 64 matches on 1 worker; 2 workers would cut chunks of 4
    run_id = create(store, spec, payload)
    run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, [0, 1], 1)
    store.set_status(run_id, "stopped", note="interrupted", pid=None)
    code, lines = main(simulate_args(path, matches=64, workers=2), capsys)
    assert code == 0 and lines[0] == "finishing stopped run 1 (base)", lines
    assert q(path, "SELECT run_id, status, note, matches_done FROM runs") == [(1, "done", None, 64)]
    assert q(path, "SELECT count(*), max(matches) FROM chunks") == [(8, 8)]


@pytest.mark.parametrize("where", ["between its runs", "in a run"])
def test_a_stopped_diff_says_to_run_the_diff_again(tmp_path, monkeypatch, capsys, where):
    """The stop audit: a diff stopped after its runs said only "interrupted", and one stopped in
    a run named `workbench simulate --resume N`, which finishes the run but leaves no diff and
    no CSV. The line now says to run the same command again (it reuses what finished)."""
    import workbench.commands.diff as diff_command
    from workbench.cli import main

    def stop(*_args, **_kwargs):
        raise KeyboardInterrupt

    if where == "between its runs":
        monkeypatch.setattr(diff_command, "version_diff", stop)
    else:
        import workbench.farm as farm_module
        monkeypatch.setattr(farm_module, "make_executor", stop)
    db = tmp_path / "d.duckdb"
    with pytest.raises(SystemExit) as ended:
        main(["diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--matches", "4",
              "--decks", PAIR, "--pilots", "random", "--workers", "1", "--quiet", "--db", str(db)])
    err = capsys.readouterr().err
    assert ended.value.code == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: diff stopped; run the same command again to finish it"), err
    assert ("run 1 stopped" in lines[0]) == (where == "in a run"), err


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_command_line_loads_is_one_line(tmp_path, stop):
    """The stop audit: Ctrl-C in the first few tenths of a second, while the command line imports
    typer, polars and DuckDB, printed a 20-line traceback from inside an import (exit -2), and
    SIGTERM killed it without a word (exit -15). The `workbench` entry point (workbench/entry.py,
    as pyproject.toml's script runs it) makes either one line and exit 130, and nothing is made."""
    db = tmp_path / "never.duckdb"
    proc = subprocess.Popen([sys.executable, "-c", "from workbench.entry import main; main()", "simulate", "frontier",
                             "--matches", "40", "--pilots", "random", "--db", str(db)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)])
    deadline = time.monotonic() + 30
    # the entry point has set its handlers (SIGTERM's last; Python itself catches SIGINT from its
    # start): the command line's imports come next
    while not catches(proc.pid, signal.SIGTERM):
        assert proc.poll() is None and time.monotonic() < deadline, "the command ended before it caught a stop"
        time.sleep(0.002)
    os.kill(proc.pid, stop)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("error: "), err
    assert "Traceback" not in err and not db.exists(), err


def catches(pid: int, sig: int) -> bool:
    """Has the process set a handler of its own for ``sig`` (/proc's SigCgt)?"""
    try:
        with open(f"/proc/{pid}/status") as fh:
            caught = next(line for line in fh if line.startswith("SigCgt:"))
    except (FileNotFoundError, StopIteration):
        return False
    return bool(int(caught.split()[1], 16) & (1 << (sig - 1)))


def test_a_command_stopped_in_process_puts_the_signal_handlers_back(tmp_path, monkeypatch, capsys):
    """Tests (and any caller) run ``workbench.cli.main`` in their own process: a stop by a real
    SIGTERM there must leave the process's handlers as they were. Leaving them ignored (as an
    earlier form of workbench/stops.py did after a stop) made a later test's child inherit an
    ignored SIGTERM and play on through it."""
    import workbench.commands.diff as diff_command
    from workbench.cli import main

    monkeypatch.setattr(diff_command, "version_diff", lambda *_a, **_k: signal.raise_signal(signal.SIGTERM))
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(SystemExit) as ended:
        main(["diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--matches", "4",
              "--decks", PAIR, "--pilots", "random", "--workers", "1", "--quiet", "--db", str(tmp_path / "d.duckdb")])
    assert ended.value.code == 130, capsys.readouterr().err
    assert {sig: signal.getsignal(sig) for sig in before} == before


def test_a_stopped_sequential_diff_says_stopped_in_its_status_file(tmp_path, monkeypatch, capsys):
    """The stop audit: `diff --until-decided --status FILE` stopped by Ctrl-C wrote
    "state": "failed", "message": "KeyboardInterrupt" for a diff that goes on when run again."""
    import json

    import workbench.commands.sequential_diff as sequential
    from workbench.cli import main

    def stop(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sequential, "_rounds", stop)
    status = tmp_path / "status.json"
    with pytest.raises(SystemExit) as ended:
        main(["diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--until-decided",
              "--max-matches", "100", "--decks", PAIR, "--pilots", "random", "--workers", "1", "--quiet",
              "--db", str(tmp_path / "d.duckdb"), "--status", str(status)])
    assert ended.value.code == 130, capsys.readouterr().err
    written = json.loads(status.read_text(encoding="utf-8"))
    assert written["state"] == "stopped" and "run the same command again" in written["message"], written
