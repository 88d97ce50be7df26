"""The local executor: chunks played by worker processes on this machine, on the stdlib's
``concurrent.futures`` process pool, made so that a dying worker cannot hang a run.

A worker that dies (killed, out of memory, a segfault) breaks its pool: the stdlib fails every
chunk in flight at once, where ``multiprocessing.Pool`` would replace the worker and wait for
its chunk forever. The executor then makes a new pool and plays those chunks again (chunks are
deterministic, and the writer stores a chunk once however often it comes back). Workers ignore
Ctrl-C (the parent stops them and marks the run stopped), end at once on SIGTERM (how the parent
stops them) and when their parent is gone.

A chunk's result (about 100 KB for 20 matches) travels in a file, and only its name through the
pool's pipe: a worker killed halfway through writing a message larger than the pipe leaves the
pool's reader thread waiting for the rest forever, and with it the run (and its Ctrl-C). A
message of at most ``PIPE_BUF`` bytes is written whole or not at all.
"""
from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import pickle
import shutil
import signal
import tempfile
import threading
import time
import traceback
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from workbench.chunk import init_worker, play_chunk

ORPHAN_CHECK_SECONDS = 0.5  # how soon a worker whose parent died ends
MAX_BREAKS = 3  # a chunk whose worker died this many times stops the run: it would only die again
PIPED_BYTES = 1024  # results larger than this go by file: the pool's message stays under PIPE_BUF (4096)


class ChunkKillsWorkers(Exception):
    """A chunk's worker process died ``MAX_BREAKS`` times while playing it (out of memory, a
    crash in native code): the run stops rather than loop; the chunk is named so it can be
    looked into, and the run resumes once the cause is fixed."""

    def __init__(self, chunk: int, breaks: int):
        super().__init__(f"the worker process playing chunk {chunk} died {breaks} times "
                         "(killed, out of memory or crashed)")
        self.chunk = chunk


_SETUP_FAILED: list[BaseException] = []  # in a worker: why its setup failed, told by its first chunk
_SPILL: list[str] = []  # in a worker: the folder its results are written to
_SPILLED = itertools.count()  # in a worker: numbers its result files


class Spilled:
    """A result left in a file by a worker; ``load`` reads it and removes the file."""
    __slots__ = ("path",)

    def __init__(self, path: str):
        self.path = path

    def load(self):
        with open(self.path, "rb") as fh:
            result = pickle.load(fh)
        os.unlink(self.path)
        return result


class ChunkFailed:
    """A chunk's own error as its worker hands it back: the exception and its traceback's text.
    It travels like a result (a long traceback through the pipe is a long message)."""
    __slots__ = ("error", "trace")

    def __init__(self, error: BaseException, trace: str):
        self.error, self.trace = error, trace

    def raise_it(self):
        self.error.__cause__ = RemoteTraceback(self.trace)
        raise self.error


class RemoteTraceback(Exception):
    """The worker's traceback, shown under the error it caused (as the stdlib pool shows it)."""

    def __str__(self):
        return f"\n\"\"\"\n{self.args[0]}\"\"\""


def _spilled(result, chunk: int):
    """``result`` itself when its pickle is small, else written to a file and named."""
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    if len(data) <= PIPED_BYTES:
        return result
    path = os.path.join(_SPILL[0], f"chunk-{chunk}-{os.getpid()}-{next(_SPILLED)}.pickle")
    with open(path, "wb") as fh:
        fh.write(data)
    return Spilled(path)


def _new_spill_dir() -> str:
    """A folder for this process's chunk results, after removing those of runs whose process
    is gone (killed: nothing of theirs was cleaned up)."""
    for old in Path(tempfile.gettempdir()).glob("workbench-chunks-*-*"):
        pid = old.name.split("-")[2]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"workbench-chunks-{os.getpid()}-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _start_worker(init_fn, payload: dict, spill_dir: str, parent: int) -> None:
    """A local worker's setup. Ctrl-C is the parent's to handle (it stops the workers and marks
    the run stopped), so a worker ignores SIGINT and prints nothing, and SIGTERM ends it. A setup that raises would
    make the stdlib pool log a traceback and break; it is kept and raised by the first chunk
    instead, as an ordinary error of the run. ``parent``: the pid of the process that made the
    pool, taken there before the fork: a parent killed between the fork and this setup has
    already left the worker to another parent, whose pid the worker must not watch instead."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the parent's SIGTERM takes its Ctrl-C path (workbench/cli.py), inherited by the fork; a
    # worker is stopped by SIGTERM (``close``) and ends at once, quietly
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _SPILL[:] = [spill_dir]
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()
    try:
        init_fn(payload)
    except Exception as exc:  # noqa: BLE001 - reported by _play_in_worker
        _SETUP_FAILED.append(exc)


def _exit_when_orphaned(parent: int) -> None:
    """End this worker once its parent is gone (killed with SIGKILL, say): the stdlib's workers
    would otherwise wait for work forever, holding whatever the parent left open."""
    while os.getppid() == parent:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(1)


def _play_in_worker(play_fn, chunk: int):
    try:
        if _SETUP_FAILED:
            raise _SETUP_FAILED[0]
        result = play_fn(chunk)
    except Exception as exc:  # noqa: BLE001 - raised in the parent, by _take
        result = ChunkFailed(exc, traceback.format_exc())
    return _spilled(result, chunk)


class LocalExecutor:
    """Worker processes on this machine (``concurrent.futures``, forked). A worker that dies
    (killed, out of memory, a segfault) breaks its pool: the stdlib fails every chunk in flight
    at once instead of waiting for them forever. The executor then makes a new pool and plays
    those chunks again, one at a time so that a chunk that kills its worker is known by name
    (chunks are deterministic, and the writer stores a chunk once however often it comes back);
    a chunk that kills ``MAX_BREAKS`` workers raises ``ChunkKillsWorkers``. The first pool
    forks before any progress or DuckDB thread runs, so it copies no lock another thread holds;
    a pool made after a break forks beside them, as ``multiprocessing.Pool`` does when it
    replaces a worker: its workers only play chunks and take none of those threads' locks."""

    def __init__(self, workers: int, payload: dict, worker=(init_worker, play_chunk)):
        self.init_fn, self.play_fn = worker
        self.payload = payload
        self.workers = workers
        self.breaks: Counter[int] = Counter()  # chunk -> how many pools broke while it was in flight
        self.pool_breaks = 0
        self.in_pool: dict[Future, int] = {}
        self.waiting: deque[int] = deque()   # submitted, not yet handed to the pool
        self.suspects: deque[int] = deque()  # in flight when a pool broke: played again alone
        self.finished: deque = deque()       # results taken from the pool, not yet handed out
        self.spill_dir = _new_spill_dir()
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_start_worker,
                                   initargs=(self.init_fn, self.payload, self.spill_dir, os.getpid()))
        pool.submit(int)  # the stdlib forks every worker at the first submit: now, not later
        return pool

    def slots(self) -> int:
        return self.workers

    def worker_pids(self) -> list[int]:
        return list(getattr(self.pool, "_processes", None) or {})

    def submit(self, chunk: int) -> None:
        self.waiting.append(chunk)
        self._feed()

    def _feed(self) -> None:
        """Hand chunks to the pool: a suspect alone (so a break names it), else all waiting."""
        if self.suspects:
            if not self.in_pool:
                self._send(self.suspects.popleft())
            return
        while self.waiting:
            self._send(self.waiting.popleft())

    def _send(self, chunk: int) -> None:
        try:
            self.in_pool[self.pool.submit(_play_in_worker, self.play_fn, chunk)] = chunk
        except BrokenProcessPool:  # a worker died while idle: nothing of it was lost
            self._replace_pool([])
            self.in_pool[self.pool.submit(_play_in_worker, self.play_fn, chunk)] = chunk

    def next_done(self, timeout: float | None = None):
        """The next finished chunk's result; None if none finished within ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.finished:
            self._feed()
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _ = wait(list(self.in_pool), timeout=left, return_when=FIRST_COMPLETED)
            if not ready:
                return None
            lost = self._take(ready)
            if lost is not None:
                self._replace_pool(lost)
        return self.finished.popleft()

    def _take(self, futures) -> list[int] | None:
        """Move finished futures' results to ``finished``; the chunks a broken pool lost (None
        when it did not break). A chunk's own error is raised."""
        lost = None
        for future in futures:
            chunk = self.in_pool.pop(future)
            if future.cancelled() or isinstance(future.exception(), BrokenProcessPool):
                lost = (lost or []) + [chunk]
            elif future.exception() is not None:
                raise future.exception()
            else:
                result = future.result()
                if isinstance(result, Spilled):
                    result = result.load()
                if isinstance(result, ChunkFailed):
                    result.raise_it()
                self.finished.append(result)
        return lost

    def finished_results(self) -> list:
        """The results of chunks that finished and were not handed out (the run stops on an
        error, and the farm stores them before it goes); without waiting. A chunk's own error
        among them is left out: the run already stops on one."""
        found = list(self.finished)
        self.finished.clear()
        for future in [f for f in self.in_pool if f.done()]:
            del self.in_pool[future]
            if future.cancelled() or future.exception() is not None:
                continue
            result = future.result()
            result = result.load() if isinstance(result, Spilled) else result
            if not isinstance(result, ChunkFailed):
                found.append(result)
        return found

    def _replace_pool(self, lost: list[int]) -> None:
        self.pool.shutdown(wait=True)  # a broken pool has already failed all its futures
        lost = lost + (self._take(list(self.in_pool)) or [])
        self.pool_breaks += 1
        for chunk in sorted(lost):
            self.breaks[chunk] += 1
            if self.breaks[chunk] >= MAX_BREAKS:
                raise ChunkKillsWorkers(chunk, self.breaks[chunk])
        self.suspects.extendleft(sorted(lost, reverse=True))
        self.pool = self._new_pool()

    def close(self, abort: bool = False) -> None:
        """Wait for the workers to finish (abort: stop them now, whatever they play)."""
        if abort:
            for pid in self.worker_pids():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
        try:
            self.pool.shutdown(wait=True, cancel_futures=abort)
        finally:
            shutil.rmtree(self.spill_dir, ignore_errors=True)  # what killed workers left
