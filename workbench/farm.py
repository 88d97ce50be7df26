"""The farm: play a run's chunks in worker processes and store each as it arrives.

Workers (the ``multiprocess`` package) play chunks and return Arrow tables; this process is the
one writer, storing each chunk in one transaction. At most two chunks per worker are in flight,
so the writer's memory stays flat however long the run is. A stopped run resumes from the
chunks table: a stored chunk is never played or stored again.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Callable

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from workbench.chunk import init_worker, play_chunk
from workbench.store import Store


@dataclass
class FarmReport:
    chunks_stored: int
    matches_stored: int
    seconds: float
    decisions: int = 0

    @property
    def matches_per_second(self) -> float:
        return self.matches_stored / self.seconds if self.seconds > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def run_chunks(store: Store, run_id: int, payload: dict, chunks: list[int], workers: int,
               on_chunk: Callable[[int, int], None] | None = None,
               on_start: Callable[[], None] | None = None,
               worker: tuple[Callable, Callable] = (init_worker, play_chunk)) -> FarmReport:
    """Play and store ``chunks``; ``on_chunk(chunk, units)`` after each is stored.
    ``on_start`` runs once the workers exist (start progress threads there, not before: a fork
    must not copy a lock another thread holds). ``worker`` is the (set up a process, play a
    chunk) pair: duels by default, campaign runs with workbench/campaign/chunk.py."""
    init_fn, play_fn = worker
    import multiprocess

    started = time.perf_counter()
    stored = matches = decisions = 0
    if not chunks:
        return FarmReport(0, 0, 0.0)
    workers = max(1, min(workers, len(chunks)))
    window = threading.Semaphore(2 * workers)
    stopping = threading.Event()

    def feed():
        for chunk in chunks:
            window.acquire()  # wait until the writer has stored an earlier chunk
            if stopping.is_set():
                return
            yield chunk

    ctx = multiprocess.get_context("fork" if hasattr(os, "fork") else "spawn")
    # the pool is made before any progress thread runs, so forking copies no held lock
    with ctx.Pool(workers, initializer=init_fn, initargs=(payload,)) as pool:
        try:
            if on_start is not None:
                on_start()
            last = time.perf_counter()
            for chunk, tables, worker_seconds, events_rows in pool.imap_unordered(play_fn, feed()):
                t = time.perf_counter()
                if store.write_chunk(run_id, chunk, tables, worker_seconds, t - last, events_rows):
                    stored += 1
                    n = store.units(tables)
                    matches += n
                    decisions += pa.compute.sum(tables["matches"].column("decisions")).as_py() or 0
                    if on_chunk is not None:
                        on_chunk(chunk, n)
                last = t
                window.release()
        except BaseException:
            # let the task feeder (blocked on the window) finish, or terminate() waits for it
            stopping.set()
            for _ in range(2 * workers + 1):
                window.release()
            pool.terminate()
            raise
    return FarmReport(stored, matches, time.perf_counter() - started, decisions)
