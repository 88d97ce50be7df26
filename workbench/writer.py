"""The farm's writer: chunks stored in batches, the store file attached only while a batch is written.

Opening a DuckDB file costs about 30 ms of CPU (every connection starts a new database
instance) and closing it checkpoints (about 20 ms), whatever the chunk holds; per chunk that was
most of the writer's work. So the writer keeps one in-memory DuckDB for the whole run and
ATTACHes the store file only while it writes a batch: attaching reads the file's catalog (a few
ms), the batch's commit checkpoints it into the file, and DETACH releases the lock, so readers
get in between batches as they got in between chunks, and no process holds the file while the
workers play.

A batch is every chunk that arrived since the last one (the farm decides when: workbench/farm.py),
stored in one transaction: a reader sees a chunk whole or not at all, a chunk already in is
skipped, and a kill at any moment leaves every chunk either stored once or not at all (its
event-log part stays invisible until its chunks row exists). Ctrl-C or SIGTERM while the file is
attached waits the few milliseconds until it is let go (workbench/store.py
``interrupts_deferred``): DuckDB would turn it into "Query interrupted" inside the commit.

A reader that holds the file (a DuckDB CLI, a notebook) makes the writer wait, as long as it
takes (reports/db.py ``when_free``, which says who holds it): the batch waits in memory, and the
farm sends no new chunk while it does, so besides the batch at most two chunks per worker slot
finish and wait. A
damaged file is one line naming it (``StoreError``).
"""
from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

from reports.db import store_error, when_free
from workbench.store import CHUNK_TABLES, interrupts_deferred, now

_STORE = "store"  # the attached file's name inside the writer's in-memory database


@dataclass(slots=True)
class ArrivedChunk:
    """A chunk a worker finished, waiting for the next batch."""
    chunk: int
    tables: dict[str, pa.Table]
    worker_seconds: float
    wall_seconds: float  # since the chunk before it arrived: the run's wall clock, shared out
    events_rows: int
    arrived_at: float = 0.0  # time.perf_counter() when it came back: its batch is due a while after

    @property
    def unit_table(self) -> str:
        """What its progress is counted in: campaign runs if it has them, else matches."""
        return next(name for name in CHUNK_TABLES if name in self.tables)

    @property
    def units(self) -> int:
        return self.tables[self.unit_table].num_rows

    @property
    def errors(self) -> int:
        table = self.tables[self.unit_table]
        return table.num_rows - table.column("error").null_count


class BatchWriter:
    """One run's writer: ``store(run_id, chunks)`` per batch; ``close()`` at the end."""

    def __init__(self, path: str | Path, wait: float | None = None):
        """``wait``: the seconds to wait for the file before failing; None, as long as it takes."""
        self.path = Path(path).resolve()
        self.wait = wait
        # one thread: a batch is too small for parallel work to save more CPU than it costs; a
        # checkpoint threshold below any batch: the commit checkpoints the batch straight into
        # the file (DETACH would checkpoint it anyway), not writing it to the WAL first
        self.con = duckdb.connect(":memory:", config={"threads": 1, "checkpoint_threshold": "1KB"})

    def store(self, run_id: int, arrived: list[ArrivedChunk]) -> list[ArrivedChunk]:
        """Store the chunks not stored yet, in one transaction; return those it stored. A stop
        (Ctrl-C, SIGTERM) that comes while the file is attached waits until it is let go
        (``interrupts_deferred``): the batch is stored whole, or not at all, never interrupted in
        its commit; one that comes while the writer waits for the file stops the wait at once."""
        if not arrived:
            return []
        when_free(self.path, self._attach, self.wait)
        with interrupts_deferred():
            return self._store_attached(run_id, arrived)

    def _attach(self) -> None:
        location = str(self.path).replace("'", "''")
        with interrupts_deferred():
            self.con.execute(f"ATTACH '{location}' AS {_STORE}")

    def _store_attached(self, run_id: int, arrived: list[ArrivedChunk]) -> list[ArrivedChunk]:
        failed = True
        try:
            self.con.execute(f"USE {_STORE}")
            stored = self._store_in_transaction(run_id, arrived)
            failed = False
            return stored
        except duckdb.Error as exc:
            raise store_error(self.path, exc) from None
        finally:
            # after a failure the file may be unusable (DuckDB invalidates a database whose
            # checkpoint failed): the detach is tried, and the first error is the one reported
            with suppress(*((duckdb.Error,) if failed else ())):
                self.con.execute("USE memory")
                self.con.execute(f"DETACH {_STORE}")

    def _store_in_transaction(self, run_id: int, arrived: list[ArrivedChunk]) -> list[ArrivedChunk]:
        con = self.con
        con.execute("BEGIN")
        try:
            fresh = self._not_stored(run_id, arrived)
            if fresh:
                self._insert_tables(fresh)
                self._record_chunks(run_id, fresh)
            con.execute("COMMIT")
        except BaseException:
            with suppress(duckdb.Error):  # a failed COMMIT has already ended the transaction
                con.execute("ROLLBACK")
            raise
        return fresh

    def _not_stored(self, run_id: int, arrived: list[ArrivedChunk]) -> list[ArrivedChunk]:
        """The chunks of ``arrived`` the store lacks, each once (a rerun task may bring one twice)."""
        numbers = [a.chunk for a in arrived]
        stored = {r[0] for r in self.con.execute("SELECT chunk FROM chunks WHERE run_id = ? AND list_contains(?, chunk)",
                                                 [run_id, numbers]).fetchall()}
        fresh = {}
        for a in arrived:
            if a.chunk not in stored and a.chunk not in fresh:
                fresh[a.chunk] = a
        return list(fresh.values())

    def _insert_tables(self, fresh: list[ArrivedChunk]) -> None:
        """Each table of the batch in one insert from Arrow: one bulk insert costs far less than
        one per chunk."""
        for name in CHUNK_TABLES:
            parts = [a.tables[name] for a in fresh if name in a.tables and a.tables[name].num_rows]
            if not parts:
                continue
            self.con.register("batch_rows", pa.concat_tables(parts))
            self.con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM batch_rows")
            self.con.unregister("batch_rows")

    def _record_chunks(self, run_id: int, fresh: list[ArrivedChunk]) -> None:
        """The chunks rows (which make the chunks and their event parts visible) and the run's
        counters."""
        stored_at = now()
        rows = pa.table({"run_id": pa.array([run_id] * len(fresh), pa.int32()),
                         "chunk": pa.array([a.chunk for a in fresh], pa.int32()),
                         "matches": pa.array([a.units for a in fresh], pa.int32()),
                         "stored_at": pa.array([stored_at] * len(fresh), pa.timestamp("us")),
                         "worker_seconds": pa.array([a.worker_seconds for a in fresh], pa.float64()),
                         "events_rows": pa.array([a.events_rows for a in fresh], pa.int32())})
        self.con.register("chunk_rows", rows)
        self.con.execute("INSERT INTO chunks BY NAME SELECT * FROM chunk_rows")
        self.con.unregister("chunk_rows")
        self.con.execute("""UPDATE runs SET matches_done = matches_done + ?, errors = errors + ?,
                            wall_seconds = wall_seconds + ?, updated_at = ? WHERE run_id = ?""",
                         [sum(a.units for a in fresh), sum(a.errors for a in fresh),
                          sum(a.wall_seconds for a in fresh), stored_at, run_id])

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> BatchWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
