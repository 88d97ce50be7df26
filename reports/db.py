"""Opening the store briefly, on both sides of it.

DuckDB lets one process hold a database file for writing, and while it does no other process can
open it, not even read-only; a held read-only connection blocks a writer just the same. So no
process keeps the file open: each use opens it, does one short piece of work and closes it,
retrying with a short jittered backoff while another process holds the lock. The writer uses
the same retry (``when_free``): workbench/store.py to open, the farm's workbench/writer.py to
attach the file per batch of chunks.
"""
from __future__ import annotations

import os
import random
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import duckdb
import polars as pl

LOCK_WAIT_SECONDS = 60.0
T = TypeVar("T")


class StoreError(Exception):
    """The store cannot be used as asked (missing, unwritable, held too long): one line."""


def is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text)


def when_free(path: str | Path, attempt: Callable[[], T], wait: float = LOCK_WAIT_SECONDS) -> T:
    """``attempt()`` (an open or an ATTACH of the file), retried with a short jittered backoff
    while another process holds the file's lock; a one-line StoreError past ``wait`` seconds."""
    deadline = time.monotonic() + wait
    delay = 0.005
    while True:
        try:
            return attempt()
        except duckdb.IOException as exc:
            if not is_lock_error(exc):
                raise StoreError(f"{path}: cannot open the database: {str(exc).splitlines()[0]}") from None
            if time.monotonic() > deadline:
                raise StoreError(f"{path}: another process has held the database for over {wait:.0f} s; "
                                 "try again when it is done") from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.5, 0.1)
        except duckdb.Error as exc:
            raise StoreError(f"{path}: cannot open the database: {str(exc).splitlines()[0]}") from None


@contextmanager
def connect(path: str | Path, read_only: bool = True, wait: float = LOCK_WAIT_SECONDS) -> Iterator[duckdb.DuckDBPyConnection]:
    """Open the database briefly, retrying while another process holds it; always close."""
    path = Path(path)
    if read_only and not path.exists():
        raise StoreError(f"{path}: no such database (run `workbench simulate` first)")
    if not read_only:
        parent = path.resolve().parent
        if not parent.is_dir():
            raise StoreError(f"{path}: cannot create the database, folder {parent} does not exist")
        if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise StoreError(f"{path}: database path is not writable")
    con = when_free(path, lambda: duckdb.connect(str(path), read_only=read_only), wait)
    try:
        yield con
    finally:
        con.close()


def query(path: str | Path, sql: str, params: list | None = None) -> pl.DataFrame:
    """Run one read query and return a polars frame; the file is closed before returning."""
    with connect(path, read_only=True) as con:
        return con.sql(sql, params=params).pl() if params else con.sql(sql).pl()


def has_tables(path: str | Path, *names: str) -> bool:
    if not Path(path).exists():
        return False
    with connect(path, read_only=True) as con:
        found = {r[0] for r in con.sql("SELECT table_name FROM information_schema.tables").fetchall()}
    return all(n in found for n in names)
