"""Checks on a ``--db`` path made before anything is written, so a mistake leaves no file behind:
not a folder, its folder exists and is writable, its event-log folder is a folder, and a file
that is already there is a workbench store: it carries the marker table Store.init writes (or,
made before the marker, the tables every store has had), never another application's database
that the writer would fill with its tables. Everything opened here is opened read-only, and a
refused file is left exactly as it was.

A 0-byte file is refused too, not initialised: DuckDB itself will not open one ("not a valid
DuckDB database file"), and replacing it would mean deleting a file the workbench did not make
(an empty placeholder someone made on purpose, or another program's file not yet written)."""
from __future__ import annotations

import os
from pathlib import Path

from reports.db import StoreError, connect
from workbench.errors import UserError
from workbench.locks import locks_dir
from workbench.store import events_dir

MARKER = "workbench_store"  # workbench/store.py SCHEMA
# tables every workbench store has had since its first version: a store from before the marker
# (Store.init then marks it)
WORKBENCH_TABLES = {"runs", "chunks", "matches"}


def check_store_path(db: str | Path, must_exist: bool = False) -> Path:
    """The store path, usable for writing; UserError in one line otherwise. ``must_exist``: the
    command reads an existing store (``--resume``), so a missing file is a mistake, not a new
    store."""
    path = Path(db)
    if path.is_dir():
        raise UserError(f"{path}: is a folder; --db names a DuckDB file such as {path / 'workbench.duckdb'}")
    if not path.exists():
        if must_exist:
            raise UserError(f"{path}: no such store (check --db)")
        parent = path.resolve().parent
        if not parent.is_dir():
            raise UserError(f"{path}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise UserError(f"{path}: folder {parent} is not writable")
    elif not os.access(path, os.W_OK):
        raise UserError(f"{path}: the store is not writable")
    events = events_dir(path)
    if events.exists() and not events.is_dir():
        raise UserError(f"{path}: {events} should be the store's event-log folder, but it is a file")
    locks = locks_dir(path)
    if locks.exists() and not locks.is_dir():
        raise UserError(f"{path}: {locks} should be the store's folder of lock files, but it is a file")
    if "\\" in str(events.resolve()):
        raise UserError(f"{path}: a store's path cannot hold a backslash (DuckDB reads it as a folder separator "
                        "in the event-log folder's pattern); name another --db")
    if path.exists():
        if not path.stat().st_size:
            raise UserError(f"{path}: an empty file (0 bytes), not a workbench store; delete it, or name a new "
                            "file with --db")
        check_is_workbench_store(path)
    return path


def check_is_workbench_store(path: Path) -> None:
    try:
        with connect(path, read_only=True, events=False) as con:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database() "
                "AND table_schema = 'main'").fetchall()}
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if MARKER in tables or WORKBENCH_TABLES <= tables:
        return
    if tables:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise UserError(f"{path}: not a workbench store (it holds other tables: {shown}); "
                        "name a new file or a workbench store with --db")
    raise UserError(f"{path}: a DuckDB database without the workbench marker (and no tables), so not a "
                    "workbench store; delete it, or name a new file with --db")
