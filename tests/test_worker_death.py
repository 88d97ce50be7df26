"""A farm that cannot hang: a worker process that dies has its chunks played again, a chunk that
kills its worker again and again stops the run by name, a worker whose setup fails fails the run,
and Ctrl-C stops a run in one line."""
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console

from reports import db
from tests.conftest import ROOT
from workbench import farm
from workbench.chunk import init_worker, play_chunk
from workbench.commands.simulate import create, execute, new_run
from workbench.errors import UserError
from workbench.farm import run_chunks
from workbench.store import Store

PAIR = ["goblin-gold-gang", "lawmen-posse"]
SAME = ("SELECT (SELECT list(row(match_no, seed, winner_seat, reason, turns, decisions) ORDER BY match_no) FROM matches),"
        " (SELECT list(row(chunk, matches, events_rows) ORDER BY chunk) FROM chunks),"
        " (SELECT count(*) FROM events), (SELECT count(*) FROM card_games)")


def q(path, sql):
    return db.query(path, sql).rows()


def new_store(tmp_path, name, matches=80, chunk_size=4):
    store = Store(tmp_path / f"{name}.duckdb")
    spec, payload = new_run("frontier", "base", PAIR, ["random"], matches=matches, seed=5, swap=True, events=1.0,
                            chunk_size=chunk_size, workers=2)
    run_id = create(store, spec, payload)
    return store, spec, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}, run_id


@contextmanager
def failing_after(seconds: int):
    def hung(signum, frame):
        raise TimeoutError(f"the run did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_killed_worker_has_its_chunks_played_again_and_each_stored_once(tmp_path, monkeypatch):
    monkeypatch.setattr(farm, "BATCH_UNITS", 1)  # each chunk stored as it comes: the kill lands mid-run
    store, spec, payload, run_id = new_store(tmp_path, "killed")
    killed, others = [], set(workers_of(os.getpid()))  # children of this process not of this run

    def kill_a_worker_after_the_first_chunk(chunk, n):
        if not killed:
            victim = min(set(workers_of(os.getpid())) - others)
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    with failing_after(180):  # a farm that waits for the lost chunk forever fails here, not hangs
        report = run_chunks(store, run_id, payload, list(range(spec.n_chunks)), 2,
                            on_chunk=kill_a_worker_after_the_first_chunk)
    assert killed and report.pool_breaks == 1
    assert report.chunks_stored == spec.n_chunks == 20
    assert q(store.path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(20, 20)]
    assert q(store.path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(80, 80)]
    clean, _, clean_payload, clean_run = new_store(tmp_path, "clean")
    run_chunks(clean, clean_run, clean_payload, list(range(spec.n_chunks)), 2)
    assert q(store.path, SAME) == q(clean.path, SAME)


def die_on_chunk_3(chunk):
    if chunk == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer would
    return play_chunk(chunk)


def test_a_chunk_that_kills_its_worker_every_time_stops_the_run_naming_it(tmp_path, monkeypatch):
    monkeypatch.setattr(farm, "BATCH_UNITS", 1)
    store, spec, payload, run_id = new_store(tmp_path, "deadly", matches=24)
    console = Console(file=open(os.devnull, "w"))
    with pytest.raises(UserError) as stopped:
        execute(store, run_id, spec, payload, 2, True, console, worker=(init_worker, die_on_chunk_3))
    message = str(stopped.value)
    assert "chunk 3 died 3 times" in message and f"--resume {run_id}" in message and "\n" not in message
    run = store.run(run_id)
    assert run["status"] == "stopped" and "chunk 3" in run["note"]
    (stored, distinct, has_3), = q(store.path, "SELECT count(*), count(DISTINCT chunk), bool_or(chunk = 3) FROM chunks")
    assert stored == distinct and not has_3
    # once the cause is gone the run resumes and every chunk is there once
    execute(store, run_id, spec, payload, 2, True, console)
    assert q(store.path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(spec.n_chunks, spec.n_chunks)]
    assert store.run(run_id)["status"] == "done"


def setup_that_fails(payload):
    raise ValueError("no such engine")


def test_a_worker_whose_setup_fails_fails_the_run_instead_of_hanging(tmp_path):
    store, spec, payload, run_id = new_store(tmp_path, "nosetup", matches=8)
    with pytest.raises(ValueError, match="no such engine"):
        run_chunks(store, run_id, payload, list(range(spec.n_chunks)), 2, worker=(setup_that_fails, play_chunk))


@pytest.mark.parametrize("where", [[], pytest.param(["--cluster", "local:2"], marks=pytest.mark.slow, id="local-cluster")],
                         ids=lambda where: "local-processes" if not where else None)
def test_ctrl_c_stops_the_run_in_one_line(tmp_path, where):
    stopped_by_ctrl_c(tmp_path, where, presses=1)


def test_ctrl_c_pressed_three_times_still_stops_the_run_in_one_line(tmp_path):
    """People press Ctrl-C more than once: the second landed in the middle of the stop (the run
    being marked stopped, an unused store being looked at) and ended it in a traceback, or, after
    the handlers were put back, killed the process on its way out (exit -2, not 130)."""
    stopped_by_ctrl_c(tmp_path, [], presses=3)


def stopped_by_ctrl_c(tmp_path, where: list[str], presses: int) -> None:
    path = tmp_path / "interrupted.duckdb"
    # Ctrl-C as a terminal gives it: SIGINT at its default in the run, whatever pytest inherited
    # (an ignored SIGINT, as in a script's background job, passes on to children)
    proc = start_a_long_run(path, *where, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        wait_for_parts(path, proc)  # chunks are being played
        workers = workers_of(proc.pid)
        for press in range(presses):
            if press:
                time.sleep(0.3)  # a person's second press
            os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130  # an interrupt, as a shell reads it (2 is a mistake in the input)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().splitlines() == [f"error: run 1 stopped; finish it with: workbench simulate --resume 1 --db {path}"]
    assert q(path, "SELECT status, note FROM runs") == [("stopped", "interrupted")]
    # the workers end on their own once their parent has: a local cluster's nannies notice it on
    # their next heartbeat, which a loaded machine may delay by a few seconds
    deadline = time.monotonic() + 20
    while not all(gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert workers and all(gone(pid) for pid in workers), "workers left behind"


def wait_for_parts(path, proc: subprocess.Popen) -> None:
    """Until a worker has written an event-log part of run 1."""
    parts = Store(path).events_dir / "run-1"
    deadline = time.monotonic() + 180
    while not (parts.is_dir() and any(parts.glob("chunk-*.parquet"))):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended or never played"
        time.sleep(0.1)


def start_a_long_run(path, *args: str, **popen) -> subprocess.Popen:
    """``workbench simulate`` of far more matches than a test waits for, on two workers."""
    return subprocess.Popen([sys.executable, "-m", "workbench.cli", "simulate", "frontier", "--decks", ",".join(PAIR),
                             "--matches", "100000", "--pilots", "random", "--chunk-size", "20", "--workers", "2",
                             "--db", str(path), "--quiet", *args], cwd=ROOT, **popen)


def wait_for_workers(proc: subprocess.Popen) -> list[int]:
    """The pids of a run's two worker processes, once they exist (the run is playing)."""
    deadline = time.monotonic() + 120
    while len(workers_of(proc.pid)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended or never started its workers"
        time.sleep(0.1)
    return workers_of(proc.pid)


def workers_of(pid: int) -> list[int]:
    """The pids of a process's children (its worker processes), from any of its threads."""
    pids = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                pids |= {int(p) for p in fh.read().split()}
    except FileNotFoundError:  # it ended
        pass
    return sorted(pids)


def gone(pid: int) -> bool:
    """Ended (a zombie waiting for its new parent to reap it counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_the_workers_of_a_killed_parent_end_and_free_the_run_for_a_resume(tmp_path, monkeypatch):
    # a temp folder of this test's own: any run another test starts meanwhile clears the result
    # folders of dead runs in the shared one (as it should), which this test looks for
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    path = tmp_path / "orphans.duckdb"
    proc = start_a_long_run(path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = wait_for_workers(proc)
    proc.kill()  # the parent only: its workers are orphaned mid-chunk
    proc.wait()
    deadline = time.monotonic() + 10
    while not all(gone(pid) for pid in workers):
        assert time.monotonic() < deadline, "orphaned workers still running"
        time.sleep(0.1)
    from workbench.commands.simulate import writer_lock
    with writer_lock(Store(path), 1):  # nobody holds the run any more: a resume would start
        pass
    # the results its workers left in files go with the next run's start
    from workbench.local_pool import LocalExecutor
    left = list(Path(tempfile.gettempdir()).glob(f"workbench-chunks-{proc.pid}-*"))
    assert left, "the killed run kept its results in no folder"
    LocalExecutor(1, {}, (setup_that_fails, play_chunk)).close()
    assert not any(d.exists() for d in left)


def _late_worker(spill_dir: str, parent: int) -> None:
    from workbench import local_pool
    local_pool._start_worker(lambda payload: None, {}, spill_dir, parent)
    time.sleep(60)  # a worker waiting for work that never comes
    os._exit(0)


def test_a_worker_whose_parent_died_before_its_setup_ends(tmp_path):
    """The parent killed between the fork and the worker's setup: the worker has already been
    left to another parent, so it must watch the pid the pool was made by (taken before the
    fork), not whatever parent it finds at setup, which would never die. Found as a rare
    "orphaned workers still running" above, on a loaded CI machine."""
    import multiprocessing

    dead = subprocess.Popen(["true"])
    dead.wait()
    worker = multiprocessing.get_context("fork").Process(target=_late_worker, args=(str(tmp_path), dead.pid))
    worker.start()
    worker.join(10)
    ended = worker.exitcode is not None
    if not ended:
        worker.kill()
        worker.join()
    assert ended and worker.exitcode == 1, "a worker whose parent was already gone kept running"


def die_once_after_the_first_write_of_its_result(chunk):
    """Chunk 1, the first time it is played: the worker dies right after the first write of its
    result into the pool's pipe (SIGKILL, as the OOM killer would); once a message is larger than
    the pipe, that write is only its length."""
    result = play_chunk(chunk)
    if chunk == 1 and not os.path.exists(KILLED_ONCE[0]):
        open(KILLED_ONCE[0], "w").close()
        sys.setprofile(_die_when_a_send_returns)
    return result


def _die_when_a_send_returns(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "_send":
        os.kill(os.getpid(), signal.SIGKILL)


KILLED_ONCE = [""]


def _run_with_a_worker_killed_halfway_through_a_message(path: str, payload: dict, run_id: int, chunks: int,
                                                       killed_once: str) -> None:
    KILLED_ONCE[0] = killed_once  # read by the run's workers, forked from this process
    report = run_chunks(Store(path), run_id, payload, list(range(chunks)), 2,
                        worker=(init_worker, die_once_after_the_first_write_of_its_result))
    sys.exit(0 if report.chunks_stored == chunks and report.pool_breaks == 1 else 1)


def test_a_worker_killed_halfway_through_sending_its_result_does_not_hang_the_run(tmp_path):
    """A worker killed while its result was half-written into the pool's pipe left the pool's
    reader waiting for the rest forever: the run hung, and Ctrl-C with it."""
    killed_once = str(tmp_path / "killed-once")
    store, spec, payload, run_id = new_store(tmp_path, "halfsent", matches=80, chunk_size=20)  # ~100 KB a result
    exitcode = exit_code_or_fail(_run_with_a_worker_killed_halfway_through_a_message,
                                 (str(store.path), payload, run_id, spec.n_chunks, killed_once), "its result")
    assert os.path.exists(killed_once), "no worker was killed"
    assert exitcode == 0
    assert q(store.path, "SELECT count(*), count(DISTINCT chunk) FROM chunks") == [(spec.n_chunks, spec.n_chunks)]
    assert q(store.path, "SELECT count(*), count(DISTINCT match_no) FROM matches") == [(80, 80)]


LONG_ERROR = "a chunk's own error, long: " + "x" * 200_000


def fail_with_a_long_error_and_die_after_the_first_write(chunk):
    """Chunk 1 fails with a 200 KB message, and its worker dies right after the first write of
    what it sends back (the error and its traceback, once larger than the pipe)."""
    if chunk != 1:
        return play_chunk(chunk)
    sys.setprofile(_die_when_a_send_returns)
    raise ValueError(LONG_ERROR)


def _run_with_a_long_error_half_sent(path: str, payload: dict, run_id: int, chunks: int) -> None:
    try:
        run_chunks(Store(path), run_id, payload, list(range(chunks)), 2,
                   worker=(init_worker, fail_with_a_long_error_and_die_after_the_first_write))
    except ValueError as exc:
        sys.exit(0 if str(exc) == LONG_ERROR else 1)
    sys.exit(2)


def test_a_chunk_error_sent_back_by_a_dying_worker_fails_the_run_instead_of_hanging(tmp_path):
    """A chunk's own error comes back like a result, by file: half of a long traceback in the
    pool's pipe would hang the run as half a result did."""
    store, spec, payload, run_id = new_store(tmp_path, "longerror", matches=40, chunk_size=10)
    exitcode = exit_code_or_fail(_run_with_a_long_error_half_sent, (str(store.path), payload, run_id, spec.n_chunks),
                                 "a chunk's error")
    assert exitcode == 0, "the run did not fail with the chunk's own error"


def exit_code_or_fail(target, args: tuple, sent: str) -> int:
    """Run ``target(*args)`` in a process of its own (a run that hangs must not hang the test
    worker) and return its exit code; fail the test if it is still running after 120 s, with
    where each of its threads stood (such a hang was seen once in many CI runs: the failure must
    say where it was). The process comes from a fork server, not from a fork of this test worker:
    a fork copies whatever locks the worker's other threads held at that moment (an earlier
    test's Dask cluster, a store's DuckDB instance), which a run started by the command line,
    in a process of its own, never inherits."""
    import multiprocessing
    stacks = Path(tempfile.mkdtemp(prefix="hung-run-")) / "stacks.txt"
    run = multiprocessing.get_context("forkserver").Process(target=_dumping_stacks_on_sigusr1,
                                                      args=(str(stacks), target, args))
    run.start()
    run.join(120)
    if run.is_alive():
        os.kill(run.pid, signal.SIGUSR1)
        time.sleep(1)
        run.kill()
        run.join()
        where = stacks.read_text(errors="replace") if stacks.exists() else "(no stacks written)"
        pytest.fail(f"the run hung after a worker died halfway through sending {sent}; its threads:\n{where}")
    return run.exitcode


def _dumping_stacks_on_sigusr1(stacks: str, target, args: tuple) -> None:
    import faulthandler
    dump = open(stacks, "w")  # kept open: faulthandler writes into it from its signal handler
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    target(*args)


@pytest.mark.slow
def test_a_stop_while_a_local_cluster_starts_waits_for_it_and_ends_in_one_line(tmp_path):
    """SIGTERM (then Ctrl-C) in the second or two in which a ``--cluster local:2`` is started (the
    run ignores SIGINT then, so that the cluster's worker processes inherit that): the stop broke
    the cluster's start, whose exit handler printed a 28-line Dask traceback, and a Ctrl-C after
    it killed the command (exit -2). Now the stop is held until the cluster is up."""
    path = tmp_path / "cluster-start.duckdb"
    proc = start_a_long_run(path, "--cluster", "local:2", start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not sigint_ignored_by(proc.pid):  # the cluster is being started
            assert proc.poll() is None and time.monotonic() < deadline, "the run ended or never started a cluster"
            time.sleep(0.01)
        time.sleep(0.2)
        os.kill(proc.pid, signal.SIGTERM)  # what `kill PID` does
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)  # and a Ctrl-C after it
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert err.strip().splitlines()[-1].startswith("error: run 1 stopped; finish it with: workbench simulate --resume 1")


def sigint_ignored_by(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as fh:
            ignored = next(line for line in fh if line.startswith("SigIgn:"))
    except (FileNotFoundError, StopIteration):
        return False
    return bool(int(ignored.split()[1], 16) & (1 << (signal.SIGINT - 1)))


def test_a_run_leaves_no_half_written_part_of_a_worker_ended_mid_write(tmp_path):
    """A worker ended while ``write_part`` wrote (a stop ends workers with SIGTERM) left its
    ``.chunk-*.part`` in the store's event-log folder for good, even after the run was finished
    by a resume (4 of about 20 stopped runs in the stop audit). The farm removes them once the
    run's workers are gone."""
    store, spec, payload, run_id = new_store(tmp_path, "parts", matches=8, chunk_size=4)
    folder = store.events_dir / f"run-{run_id}"
    folder.mkdir(parents=True, exist_ok=True)
    left = folder / ".chunk-000001.parquet.4242.4343.part"  # as a worker ended mid-write leaves it
    left.write_bytes(b"PAR1 half")
    run_chunks(store, run_id, payload, list(range(spec.n_chunks)), 2)
    assert not list(folder.glob("*.part")), "a half-written part was left"
    assert sorted(p.name for p in folder.glob("chunk-*.parquet")) == ["chunk-000000.parquet", "chunk-000001.parquet"]


def test_a_sequential_diffs_kept_workers_leave_no_half_written_part(tmp_path):
    """A sequential diff keeps a run's workers from round to round (``Player``), so the farm's own
    clean-up (above) never ran for it: a worker ended mid-write left its ``.part`` for good. Its
    ``close``, once the workers are gone, removes it."""
    from workbench.commands.sequential_diff import Player

    store, spec, payload, run_id = new_store(tmp_path, "seq-parts", matches=8, chunk_size=4)
    folder = store.events_dir / f"run-{run_id}"
    folder.mkdir(parents=True, exist_ok=True)
    left = folder / ".chunk-000001.parquet.4242.4343.part"
    left.write_bytes(b"PAR1 half")
    player = Player(store, run_id, payload, 2, None, None)
    assert player.play([0]) == 4
    assert left.exists(), "the workers are kept for the next round: nothing is removed yet"
    player.close()
    assert not list(folder.glob("*.part")), "a half-written part was left"
    assert [p.name for p in folder.glob("chunk-*.parquet")] == ["chunk-000000.parquet"]
