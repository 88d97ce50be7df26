"""Opening the store briefly, on both sides of it.

DuckDB lets one process hold a database file for writing, and while it does no other process can
open it, not even read-only; a held read-only connection blocks a writer just the same. So no
process keeps the file open: each use opens it, does one short piece of work and closes it,
retrying with a short jittered backoff while another process holds the lock (``when_free``).

The two sides wait differently. A reader (the dashboard, a report, an export) gives up after
``LOCK_WAIT_SECONDS`` with one line. A writer (workbench/store.py, the farm's workbench/writer.py)
waits as long as it takes: a DuckDB CLI or notebook left open on the store must not fail a
nightly run, so after ``NOTICE_SECONDS`` it says once, on stderr, who holds the file, and again
when it has it; only the user's stop ends the wait.

Every reading connection gets the store's ``events`` view (reports/events_view.py). A damaged
file or event-log part is one line naming it (``StoreError``), on either side, never a traceback.

A report that asks dozens of queries in a row (a batch suite's exports and HTML report) can read
through one connection instead (``reading``): each open costs about 30 ms of CPU, which was most
of such a report's work. It holds the file for those seconds only, like any reader. A dashboard
render reads through one too (``reading(path, lazily=True)``, reports/pages/common.py), closed
when the render ends: nothing holds the file between renders.
"""
from __future__ import annotations

import os
import random
import re
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import duckdb
import polars as pl

from reports.events_view import create_events_view, damaged_part, events_dir, failing_view_line

LOCK_WAIT_SECONDS = 60.0  # a reader's limit
NOTICE_SECONDS = 5.0      # a writer waiting this long says who holds the file
T = TypeVar("T")


class StoreError(Exception):
    """The store cannot be used as asked (missing, unwritable, damaged, held too long): one line."""


def is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text)


def lock_holder(exc: Exception) -> str:
    """Who holds the file, from DuckDB's lock error ("... is held in /usr/bin/duckdb (PID 4242)")
    and, where it can be read, the process's command line."""
    found = re.search(r"held in (.*?) \(PID (\d+)\)", str(exc))
    if found is None:
        return "another process"
    program, pid = found.groups()
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        command = ""
    command = command or program
    return f"process {pid} ({command[:157] + '...' if len(command) > 160 else command})"


class _Waiting:
    """A writer's wait for the lock: one line once it has lasted ``NOTICE_SECONDS``, one when it ends."""

    def __init__(self, path: str | Path):
        self.path, self.started, self.told = path, time.monotonic(), False

    def seconds(self) -> float:
        return time.monotonic() - self.started

    def still(self, exc: Exception) -> None:
        if not self.told and self.seconds() >= NOTICE_SECONDS:
            self.told = True
            _say(f"{self.path}: held by {lock_holder(exc)}; waiting for it to let go (nothing is lost "
                 "meanwhile: finished work waits in memory; Ctrl-C stops)")

    def over(self) -> None:
        if self.told:
            _say(f"{self.path}: free again after {self.seconds():.0f} s; storing")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def when_free(path: str | Path, attempt: Callable[[], T], wait: float | None = LOCK_WAIT_SECONDS) -> T:
    """``attempt()`` (an open or an ATTACH of the file), retried with a short jittered backoff
    while another process holds the file's lock: a one-line StoreError past ``wait`` seconds, or,
    with ``wait=None`` (a writer), for as long as it takes, saying so (``_Waiting``)."""
    waiting = _Waiting(path)
    delay = 0.005
    while True:
        try:
            result = attempt()
        except duckdb.IOException as exc:
            if not is_lock_error(exc):
                raise StoreError(f"{path}: cannot open the database: {_first_line(exc)}") from None
            if wait is not None and waiting.seconds() > wait:
                raise StoreError(f"{path}: {lock_holder(exc)} has held the database for over {wait:.0f} s; "
                                 "try again when it is done") from None
            if wait is None:
                waiting.still(exc)
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.5, 0.1 if waiting.seconds() < NOTICE_SECONDS else 0.5)
        except duckdb.Error as exc:
            raise StoreError(f"{path}: cannot open the database: {_first_line(exc)}") from None
        else:
            waiting.over()
            return result


def _first_line(exc: Exception) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


# what DuckDB says of a file it cannot read back (a block's checksum, a truncated file, a part
# that is not Parquet): the store is damaged, which no retry or code change mends
_DAMAGE = re.compile(r"corrupt|could not read enough bytes|invalidated|not a valid duckdb|parquet|magic bytes|"
                     r"thrift|out of buffer|truncated", re.IGNORECASE)
_PART = re.compile(r"""["']([^"']+\.parquet)["']""")
# what the operating system says of a disk that takes no more writes: the file is not damaged, and
# freeing space (or making the disk writable) is the cure
_NO_ROOM = re.compile(r"no space left on device|disk quota exceeded", re.IGNORECASE)
_READ_ONLY = re.compile(r"read-only file system", re.IGNORECASE)


def store_error(path: str | Path, exc: duckdb.Error) -> Exception:
    """A StoreError naming the damaged file (the database, or the event-log part DuckDB names),
    for an error that says the store cannot be read back, or saying its disk is full or
    read-only (which is no damage); otherwise ``exc`` itself (a mistake in a query stays a
    traceback)."""
    first = _first_line(exc)
    if (view_line := failing_view_line(first)) is not None:
        return StoreError(view_line)
    if _NO_ROOM.search(first):
        return StoreError(f"{path}: no space left on its disk, the file is not damaged ({first}); free some "
                          "space and try again")
    if _READ_ONLY.search(first):
        return StoreError(f"{path}: its disk is read-only ({first}); make it writable and try again")
    if not (isinstance(exc, duckdb.IOException) or _DAMAGE.search(first)):
        return exc
    named = _PART.search(first)
    if named is not None:
        return StoreError(f"{named.group(1)}: an event-log part of {path} cannot be read: {first}")
    if "parquet" in first.lower():
        part = damaged_part(events_dir(path))
        return StoreError(f"{part or events_dir(path)}: an event-log part of {path} cannot be read: {first}")
    return StoreError(f"{path}: the database file cannot be read (damaged?): {first}")


_HELD = threading.local()  # this thread's reading sessions: resolved path -> connection (None: not opened yet)


def _held() -> dict[str, duckdb.DuckDBPyConnection | None]:
    connections = getattr(_HELD, "connections", None)
    if connections is None:  # this thread's first use
        connections = _HELD.connections = {}
    return connections


@contextmanager
def reading(path: str | Path, lazily: bool = False) -> Iterator[None]:
    """Meanwhile every reading ``connect`` of ``path`` on this thread uses one connection, closed
    at the end: opened here, or with ``lazily`` by the first read that needs it (a dashboard
    render answered from its cache opens none). Only reads may happen meanwhile: this process
    cannot open the file for writing while it holds it for reading."""
    key = str(Path(path).resolve())
    held = _held()
    if key in held:  # already inside a session on this file
        yield
        return
    held[key] = None
    try:
        if not lazily:
            _session_connection(Path(path))
        yield
    finally:
        con = held.pop(key)
        if con is not None:
            con.close()


def _session_connection(path: Path) -> duckdb.DuckDBPyConnection | None:
    """This thread's reading session's connection to ``path``, opened now if the session has none
    yet; None outside a session."""
    held = _held()
    key = str(path.resolve())
    if key not in held:
        return None
    if held[key] is None:
        held[key] = _open(path, read_only=True, wait=LOCK_WAIT_SECONDS, events=None)
    return held[key]


@contextmanager
def connect(path: str | Path, read_only: bool = True, wait: float | None = LOCK_WAIT_SECONDS,
            events: bool | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the database briefly, retrying while another process holds it; always close. A
    reading connection (``events``: by default when ``read_only``) gets the ``events`` view.
    Inside ``reading(path)`` a reading connection is the session's, left open."""
    path = Path(path)
    con = _session_connection(path) if _held() and read_only and events is not False else None
    if con is not None:
        try:
            yield con
        except duckdb.Error as exc:
            raise store_error(path, exc) from None
        return
    con = _open(path, read_only, wait, events)
    try:
        yield con
    except duckdb.Error as exc:
        raise store_error(path, exc) from None
    finally:
        con.close()


def _open(path: Path, read_only: bool, wait: float | None, events: bool | None) -> duckdb.DuckDBPyConnection:
    """A new connection for ``connect`` (its checks, its wait for the lock, its events view)."""
    if read_only and not path.exists():
        raise StoreError(f"{path}: no such database (run `workbench simulate` first)")
    if not read_only:
        parent = path.resolve().parent
        if not parent.is_dir():
            raise StoreError(f"{path}: cannot create the database, folder {parent} does not exist")
        if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise StoreError(f"{path}: database path is not writable")
    con = when_free(path, lambda: duckdb.connect(str(path), read_only=read_only), wait)
    if read_only if events is None else events:
        try:
            create_events_view(con, path)
        except duckdb.Error as exc:
            con.close()
            raise store_error(path, exc) from None
    return con


def query(path: str | Path, sql: str, params: list | None = None) -> pl.DataFrame:
    """Run one read query and return a polars frame; the file is closed before returning."""
    with connect(path, read_only=True) as con:
        return con.sql(sql, params=params).pl() if params else con.sql(sql).pl()


def has_columns(path: str | Path, table: str, *names: str) -> bool:
    """The store's ``table`` has every column named (a store written by an older workbench, and
    not opened for writing since, lacks the columns added after it; the dashboard only reads)."""
    found = query(path, "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table])
    return set(names) <= set(found["column_name"].to_list())


def run_kind_sql(path: str | Path) -> str:
    """The SQL for a ``runs`` row's kind: 'duel' where it is NULL, and for every run of a store
    written before runs had kinds (they held duels alone)."""
    return "coalesce(kind, 'duel')" if has_columns(path, "runs", "kind") else "'duel'"


def has_tables(path: str | Path, *names: str) -> bool:
    if not Path(path).exists():
        return False
    with connect(path, read_only=True) as con:
        found = {r[0] for r in con.sql("SELECT table_name FROM information_schema.tables").fetchall()}
    return all(n in found for n in names)
