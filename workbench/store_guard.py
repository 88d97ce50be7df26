"""Checks on a ``--db`` path made before anything is written, so a mistake leaves no file behind:
not a folder, its folder exists and is writable, its event-log folder is a folder, and a DuckDB
file that is already there is a workbench store (never another application's database that the
writer would fill with its tables). Everything opened here is opened read-only."""
from __future__ import annotations

import os
from pathlib import Path

from reports.db import StoreError, connect
from workbench.errors import UserError
from workbench.store import events_dir

# tables every workbench store has had since its first version (workbench/store.py SCHEMA)
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
    if path.exists() and path.stat().st_size:
        _check_is_workbench_store(path)
    return path


def _check_is_workbench_store(path: Path) -> None:
    try:
        with connect(path, read_only=True) as con:
            tables = {r[0] for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()}
    except StoreError as exc:
        raise UserError(str(exc)) from None
    if tables and not WORKBENCH_TABLES <= tables:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise UserError(f"{path}: not a workbench store (it holds other tables: {shown}); "
                        "name a new file or a workbench store with --db")
