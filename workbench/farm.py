"""The farm: play a run's chunks in worker processes and store each as it arrives.

Workers (local processes, or a Dask cluster: workbench/executors.py) play chunks and return
Arrow tables; this process is the one writer, storing each chunk in one transaction. At most two chunks per worker are in flight,
so the writer's memory stays flat however long the run is. A stopped run resumes from the
chunks table: a stored chunk is never played or stored again.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from workbench.chunk import ingest_part, part_location
from workbench.executors import make_executor
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
               on_start: Callable[[], None] | None = None, cluster: str | None = None,
               parts: str | None = None) -> FarmReport:
    """Play and store ``chunks`` on local worker processes, or on a Dask cluster when ``cluster``
    is given; ``on_chunk(chunk, matches)`` after each is stored. ``on_start`` runs once the
    workers exist (start progress threads there, not before: a fork must not copy a held lock).
    At most two chunks per worker are in flight, so memory stays flat. ``parts``: where workers
    write event-log parts when they cannot write beside the database (a shared folder or an
    fsspec URL); the writer copies each part in before it stores the chunk."""
    started = time.perf_counter()
    stored = matches = decisions = 0
    if not chunks:
        return FarmReport(0, 0, 0.0)
    workers = max(1, min(workers, len(chunks)))
    if parts:
        payload = {**payload, "events_dir": parts}
    executor = make_executor(workers, payload, cluster)
    todo = iter(chunks)
    in_flight = 0

    def top_up() -> None:
        nonlocal in_flight
        for chunk in todo:
            executor.submit(chunk)
            in_flight += 1
            if in_flight >= 2 * workers:
                return

    aborted = True
    try:
        if on_start is not None:
            on_start()
        top_up()
        last = time.perf_counter()
        while in_flight:
            chunk, tables, worker_seconds, events_rows = executor.next_done()
            in_flight -= 1
            t = time.perf_counter()
            if parts and events_rows:
                ingest_part(part_location(parts, run_id, chunk), Path(part_location(store.events_dir, run_id, chunk)))
            if store.write_chunk(run_id, chunk, tables, worker_seconds, t - last, events_rows):
                stored += 1
                n = tables["matches"].num_rows
                matches += n
                decisions += pa.compute.sum(tables["matches"].column("decisions")).as_py() or 0
                if on_chunk is not None:
                    on_chunk(chunk, n)
            last = t
            top_up()
        aborted = False
    finally:
        executor.close(abort=aborted)
    return FarmReport(stored, matches, time.perf_counter() - started, decisions)
