"""One writer per run, one player per set of matches: a resume refuses only while another process
writes the run, two resumes at once play it once, a lock dies with its process (not with its
forked workers), and identical simulates or diffs at once wait and reuse instead of playing the
same matches twice."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports import db
from tests.conftest import ROOT, run_cli
from workbench import locks
from workbench.commands.simulate import create, new_run, writer_lock
from workbench.store import Store

PAIR = ["goblin-gold-gang", "lawmen-posse"]


def q(path, sql):
    return db.query(path, sql).rows()


def unplayed_run(path: Path, matches: int) -> tuple[Store, int]:
    """A run recorded as running by this (live, not writing) process, with nothing stored."""
    store = Store(path)
    spec, payload = new_run("frontier", "base", PAIR, ["random"], matches=matches, seed=3, swap=True, events=0.0,
                            chunk_size=20, workers=2)
    return store, create(store, spec, payload)


def start(*args: str, stderr=subprocess.PIPE) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    return subprocess.Popen([sys.executable, "-m", "workbench.cli", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=stderr)


def test_a_resume_refuses_only_while_another_process_writes_the_run(tmp_path):
    store, run_id = unplayed_run(tmp_path / "held.duckdb", 40)
    with writer_lock(store, run_id):  # this process is writing run 1
        res = run_cli("simulate", "--resume", str(run_id), "--db", str(store.path), "--quiet")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == f"error: run {run_id} is still being written by process {os.getpid()}"
    # the run's recorded pid is alive (this process, or init) but writes nothing: no refusal
    store.set_status(run_id, "running", pid=1)
    res = run_cli("simulate", "--resume", str(run_id), "--db", str(store.path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert q(store.path, "SELECT status, matches_done FROM runs") == [("done", 40)]


@pytest.mark.slow
def test_two_resumes_at_once_play_the_run_once(tmp_path):
    store, run_id = unplayed_run(tmp_path / "twice.duckdb", 600)
    resumes = [start("simulate", "--resume", str(run_id), "--db", str(store.path), "--quiet", "--workers", "1")
               for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in resumes]
    played = [err for rc, err in results if rc == 0]
    refused = [err for rc, err in results if rc == 2]
    assert len(played) == 1 and len(refused) == 1, results
    assert "600 now at" in played[0]
    assert ("still being written by process" in refused[0] or "already done" in refused[0]), refused[0]
    assert q(store.path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(30, 30)]
    assert q(store.path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(600, 600)]


HOLD_AND_FORK = """
import os, sys, time
from workbench import locks
with locks.exclusive(locks.lock_file(sys.argv[1], "run-1")):
    child = os.fork()
    if child == 0:  # a worker that outlives its parent
        time.sleep(60)
        os._exit(0)
    print(child, flush=True)
    time.sleep(60)
"""


def test_a_lock_dies_with_its_process_not_with_its_forked_workers(tmp_path):
    path = locks.lock_file(tmp_path / "s.duckdb", "run-1")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_AND_FORK, str(tmp_path / "s.duckdb")], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    child = int(holder.stdout.readline())
    try:
        assert is_held(path)
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        assert os.path.exists(f"/proc/{child}")  # the fork lives on...
        # ...but the lock went with its process: the child closes its inherited copy as it
        # starts (an at-fork hook), which on a loaded machine may come a moment after its pid
        # was printed, so the lock is given a few seconds to be free
        deadline = time.monotonic() + 10
        while is_held(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not is_held(path)
    finally:
        os.kill(child, signal.SIGKILL)


def is_held(path: Path) -> bool:
    try:
        with locks.exclusive(path, busy=lambda who: RuntimeError(who)):
            return False
    except RuntimeError:
        return True


def wait_for_line(files: list[Path], text: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not all(text in f.read_text() for f in files):
        assert time.monotonic() < deadline, [f.read_text() for f in files]
        time.sleep(0.1)


def run_together(tmp_path, args: list[str], held: Path, n: int = 2) -> list[str]:
    """Start ``n`` identical commands while this process holds ``held`` (the lock they play
    under), so all of them are waiting before any plays; release it; their stderr."""
    logs = [tmp_path / f"err{i}.txt" for i in range(n)]
    with locks.exclusive(held):
        procs = [start(*args, stderr=log.open("w")) for log in logs]
        wait_for_line(logs, f"waiting for process {os.getpid()}")
    for p in procs:
        assert p.wait(timeout=600) == 0, [log.read_text() for log in logs]
    return [log.read_text() for log in logs]


def test_identical_simulates_at_once_play_the_matches_once(tmp_path):
    path = tmp_path / "same.duckdb"
    spec, _ = new_run("frontier", "base", PAIR, ["random"], matches=100, seed=4, swap=True, events=1.0, chunk_size=None,
                      workers=2)
    errs = run_together(tmp_path, ["simulate", "frontier", "--decks", ",".join(PAIR), "--pilots", "random",
                                   "--matches", "100", "--seed", "4", "--db", str(path), "--quiet"],
                        locks.lock_file(path, f"matches-{spec.result_hash()}"))
    assert q(path, "SELECT count(*) FROM runs") == [(1,)]
    assert q(path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(100, 100)]
    assert sum(e.count("reusing run 1") for e in errs) == 1, errs
    assert not any("Traceback" in e for e in errs)


@pytest.mark.slow
def test_identical_diffs_at_once_make_two_runs_not_four(tmp_path):
    path = tmp_path / "diffs.duckdb"
    spec, _ = new_run("frontier", "base", PAIR, ["random"], matches=60, seed=2, swap=True, events=0.0, chunk_size=None,
                      workers=2)
    errs = run_together(tmp_path, ["diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw",
                                   "--decks", ",".join(PAIR), "--pilots", "random", "--matches", "60", "--seed", "2",
                                   "--db", str(path), "--quiet"],
                        locks.lock_file(path, f"matches-{spec.result_hash()}"))
    assert q(path, "SELECT rules_version, count(*) FROM runs GROUP BY ALL ORDER BY 1") == \
        [("base", 1), ("first-player-skips-draw", 1)]
    assert q(path, "SELECT count(*) FROM diffs") == [(2,)]
    assert sorted(e.count("reusing run") for e in errs) == [0, 2], errs
