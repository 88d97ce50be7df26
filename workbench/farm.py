"""The farm: play a run's chunks in worker processes and store them as they arrive.

Workers (local processes, or a Dask cluster: workbench/executors.py) play chunks and return
Arrow tables; this process is the one writer. It stores what has arrived in batches
(workbench/writer.py): a batch is written once it holds ``BATCH_UNITS`` matches, and no chunk
waits longer than ``FLUSH_SECONDS`` for its batch, so the writer pays its fixed cost per write
once per few hundred matches however many workers feed it, and readers still see progress
within seconds. At most two chunks per worker slot are in flight (the slots
of the cluster when there is one), so the writer's memory stays flat however long the run is. A
worker process that dies costs its chunks a replay, never the run (workbench/executors.py). A
run that stops on an error that is not the writer's stores the chunks that finished first; a stop
(Ctrl-C, SIGTERM) does not wait for them. A stopped run resumes from the chunks table: a stored
chunk is never stored again.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute)

from workbench.chunk import ChunkResult, ingest_part, init_worker, part_location, play_chunk, remove_unfinished_parts
from workbench.executors import cluster_threads, make_executor
from workbench.store import Store, is_interrupt
from workbench.writer import ArrivedChunk, BatchWriter

# A batch costs the writer about 40 ms of CPU however small (attach, a statement per table, the
# checkpoint at commit: a few ms per table appended to) plus about 0.1 ms per match (on a loaded
# 2-core machine up to twice both), so batches of hundreds of matches keep the writer near
# 0.2 ms per match. A batch is written once it holds BATCH_UNITS, or FLUSH_SECONDS after its
# first chunk came back, whichever is first: readers see a run's progress within seconds however
# slowly its chunks come, and a kill loses no more than that of play.
BATCH_UNITS = 1_000   # matches (or campaign runs)
FLUSH_SECONDS = 10.0


@dataclass
class FarmReport:
    """What a farm run did. ``writer_cpu_s``: CPU seconds this (the writer's) process spent
    storing (copying remote event parts in, and writing batches, the writer's setup included);
    ``parent_cpu_s``: all of this process's CPU during the run (receiving results as well);
    ``batches``: the writes (transactions) the chunks were stored in; ``pool_breaks``: how often
    a local worker process died and the chunks it had in flight were played again."""
    chunks_stored: int
    matches_stored: int
    seconds: float
    decisions: int = 0
    writer_cpu_s: float = 0.0
    parent_cpu_s: float = 0.0
    batches: int = 0
    pool_breaks: int = 0

    @property
    def matches_per_second(self) -> float:
        return self.matches_stored / self.seconds if self.seconds > 0 else 0.0

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    def __getitem__(self, key: str):
        """``report["writer_cpu_s"]`` as well as ``report.writer_cpu_s``."""
        return getattr(self, key)


def default_workers(cluster: str | None = None) -> int:
    """How many chunks play at once: the cluster's worker threads when given one, else this
    machine's cores. Chunk sizes are chosen from it."""
    if cluster:
        return cluster_threads(cluster)
    affinity = getattr(os, "sched_getaffinity", None)  # the cores this process may use (Linux)
    return max(1, len(affinity(0)) if affinity else (os.cpu_count() or 1))


class _Tally:
    """What the farm has stored so far, and the CPU it spent storing."""

    def __init__(self):
        self.chunks = self.units = self.decisions = self.batches = 0
        self.writer_cpu_s = 0.0

    def add(self, arrived: ArrivedChunk) -> None:
        self.chunks += 1
        self.units += arrived.units
        self.decisions += pa.compute.sum(arrived.tables["matches"].column("decisions")).as_py() or 0


class _Pending:
    """Chunks that came back and wait for the next batch."""

    def __init__(self):
        self.chunks: list[ArrivedChunk] = []

    def add(self, arrived: ArrivedChunk) -> None:
        self.chunks.append(arrived)

    def seconds_left(self) -> float | None:
        """How long the next chunk may be waited for before the batch is due (None: no batch)."""
        if not self.chunks:
            return None
        return max(0.0, self.chunks[0].arrived_at + FLUSH_SECONDS - time.perf_counter())

    def due(self, more_coming: bool) -> bool:
        return bool(self.chunks) and (not more_coming or self.seconds_left() == 0.0
                                      or sum(a.units for a in self.chunks) >= BATCH_UNITS)

    def take(self) -> list[ArrivedChunk]:
        chunks, self.chunks = self.chunks, []
        return chunks


def run_chunks(store: Store, run_id: int, payload: dict, chunks: list[int], workers: int,
               on_chunk: Callable[[int, int], None] | None = None,
               on_start: Callable[[], None] | None = None, cluster: str | None = None,
               parts: str | None = None, worker: tuple[Callable, Callable] = (init_worker, play_chunk),
               executor=None) -> FarmReport:
    """Play and store ``chunks`` on local worker processes, or on a Dask cluster when ``cluster``
    is given; ``on_chunk(chunk, units)`` after each is stored. ``on_start`` runs once the
    workers exist (start progress threads there, not before: a fork must not copy a held lock).
    At most two chunks per worker slot are in flight, so memory stays flat. ``parts``: where
    workers write event-log parts when they cannot write beside the database (a shared folder or
    an fsspec URL); the writer copies each part in before it stores the chunk. ``worker`` is the
    (set up a process, play a chunk) pair: duels by default, campaign runs with
    workbench/campaign/chunk.py. ``executor``: workers already started for this payload
    (``make_executor``), used and left running for the caller's next call (a sequential diff
    plays many short rounds; starting workers each round would cost more than the round)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    if not chunks:
        return FarmReport(0, 0, 0.0)
    if parts:
        payload = {**payload, "events_dir": parts}
    owned = executor is None
    if owned:
        executor = make_executor(max(1, min(workers, len(chunks))), payload, cluster, worker)
    todo = iter(chunks)
    in_flight = 0
    tally = _Tally()

    def top_up() -> None:
        nonlocal in_flight
        window = 2 * executor.slots()
        while in_flight < window and (chunk := next(todo, None)) is not None:
            executor.submit(chunk)
            in_flight += 1

    def stored_cpu(step: Callable, *args):
        cpu = time.process_time()
        try:
            return step(*args)
        finally:
            tally.writer_cpu_s += time.process_time() - cpu

    aborted, writer, writer_failed = True, None, False
    pending = _Pending()
    last = [started]  # when the chunk before came back

    def arrive(result: ChunkResult) -> None:
        t = time.perf_counter()
        if parts and result.events_rows:
            stored_cpu(ingest_part, part_location(parts, run_id, result.chunk),
                       Path(part_location(store.events_dir, run_id, result.chunk)))
        pending.add(ArrivedChunk(chunk=result.chunk, tables=result.tables, worker_seconds=result.worker_seconds,
                                 wall_seconds=t - last[0], events_rows=result.events_rows, arrived_at=t))
        last[0] = t

    def store_batch() -> None:
        nonlocal writer_failed
        tally.batches += 1
        try:
            stored = stored_cpu(writer.store, run_id, pending.take())
        except BaseException:
            writer_failed = True  # nothing more is asked of a writer that failed
            raise
        for arrived in stored:
            tally.add(arrived)
            if on_chunk is not None:
                on_chunk(arrived.chunk, arrived.units)

    def store_what_finished() -> None:
        for result in executor.finished_results():
            arrive(result)
        if pending.chunks:
            store_batch()

    try:
        writer = stored_cpu(lambda: BatchWriter(store.path))  # after the fork: no DuckDB threads in workers
        if on_start is not None:
            on_start()
        top_up()
        last[0] = time.perf_counter()
        while in_flight or pending.chunks:
            result = executor.next_done(pending.seconds_left()) if in_flight else None
            if result is not None:
                in_flight -= 1
                arrive(result)
                top_up()
            if pending.due(more_coming=in_flight > 0):
                store_batch()
        aborted = False
    except Exception as exc:
        # the run stops on an error that is not the writer's (a chunk's own, one that kills its
        # workers, an event-log part that cannot be copied in): the chunks that finished, waiting
        # for their batch or taken from the workers, are stored before it goes, as the user is told
        if writer is not None and not writer_failed and not is_interrupt(exc):
            store_what_finished()
        raise
    finally:
        if owned or aborted:
            executor.close(abort=aborted)
            remove_unfinished_parts(payload["events_dir"], run_id)  # its workers are gone
        if writer is not None:
            stored_cpu(writer.close)
    return FarmReport(tally.chunks, tally.units, time.perf_counter() - started, tally.decisions,
                      tally.writer_cpu_s, time.process_time() - cpu_started, tally.batches, executor.pool_breaks)
