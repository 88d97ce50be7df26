"""The store's ``events``: the event-log parts in the folder beside the database file, read
through a view made afresh on every reading connection (a TEMP view, which DuckDB allows on a
read-only connection and which hides any stored view of the same name).

No folder path is ever stored in the database: a view made once with the folder's absolute path
(as stores before the workbench marker had) kept reading the original's parts from a copy of the
store, failed once the store was moved, and read a path holding ``*`` or ``[`` as a pattern. Made
per connection from the path the file was opened by, the view always reads the parts beside that
file, whatever its name holds. People in the DuckDB CLI use the stored macro ``events_in(folder)``
(workbench/STORE.md).
"""
from __future__ import annotations

from pathlib import Path

import duckdb

from reports.event_parts import part_name, parts_absent, run_folder

# the columns of every part (workbench/chunk.py EVENT_SCHEMA writes them; a test holds the two
# together), for a view with no parts to read
EVENT_COLUMNS = (("run_id", "INTEGER"), ("match_no", "INTEGER"), ("chunk", "INTEGER"), ("seq", "INTEGER"),
                 ("turn", "INTEGER"), ("seat", "INTEGER"), ("kind", "VARCHAR"), ("card", "VARCHAR"),
                 ("target", "VARCHAR"), ("amount", "INTEGER"), ("lane", "SMALLINT"), ("detail", "VARCHAR"))

# the parts of stored chunks only: a part left by a killed run stays invisible until its chunk is
# stored (workbench/STORE.md)
_STORED_PARTS = """SELECT e.* FROM read_parquet({pattern} || '/**/*.parquet') e
    WHERE EXISTS (SELECT 1 FROM chunks c WHERE c.run_id = e.run_id AND c.chunk = e.chunk)"""

MACRO_SQL = f"CREATE OR REPLACE MACRO events_in(folder) AS TABLE {_STORED_PARTS.format(pattern='folder')}"


def events_dir(db_path: str | Path) -> Path:
    """Where a store's event-log parts live: ``<db file>.events/run-<id>/chunk-<n>.parquet``."""
    p = Path(db_path).resolve()
    return p.with_name(p.name + ".events")


def glob_escaped(path: str) -> str:
    """``path`` as a DuckDB file pattern matching only itself: each of ``* ? [`` inside brackets
    (``[*]`` matches a literal star; DuckDB's globbing knows no backslash escape)."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in path)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _typed_nothing(where: str) -> str:
    columns = ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in EVENT_COLUMNS)
    return f"SELECT {columns} FROM range(1) WHERE {where}"


def create_events_view(con: duckdb.DuckDBPyConnection, db_path: str | Path) -> None:
    """Make ``events`` on this connection, over the parts beside ``db_path``. A file that is not
    a workbench store (no marker, nor the tables stores had before it), or one being made, gets
    none. Parts that cannot be read give a view that says so in one line when it is read, so
    every other table still reads; a run whose parts are missing fails only the readings that
    would include its events, so the events of every other run still read."""
    # queries through con.sql, which leaves no open DB-API result on the caller's connection
    tables = {t for (t,) in con.sql("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                    "current_database() AND schema_name = 'main'").fetchall()}
    if not ("chunks" in tables and ("workbench_store" in tables or {"runs", "matches"} <= tables)):
        return
    folder = events_dir(db_path)
    if "\\" in str(folder):
        # DuckDB's globbing reads a backslash as a folder separator, so no pattern can name it
        _create(con, _failing(f"{folder}: a path with a backslash cannot be read as a folder of parts; "
                              "move the store to a path without one"))
        return
    if next(folder.glob("run-*/*.parquet"), None) is None:
        # no run's part (the schema part alone, which every store has, reads as no events)
        _create(con, _without_parts(con, folder))
        return
    line, broken = _missing_parts(con, folder)
    try:
        _create(con, _intact_parts(folder, broken) + _broken_runs(line, broken))
    except duckdb.Error as exc:
        if "no files found" in str(exc).lower():
            _create(con, _without_parts(con, folder))
        else:  # the first part, whose columns the view takes, is damaged (its name is in the line)
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            _create(con, _failing(f"{folder}: the event-log parts cannot be read: {first}"))


def _without_parts(con: duckdb.DuckDBPyConnection, folder: Path) -> str:
    """No part at all: right when no stored chunk logged events; else the folder is missing or
    emptied, and reading events must say so rather than show none."""
    (logged,), = con.sql("SELECT coalesce(sum(events_rows), 0) FROM chunks").fetchall()
    if not logged:
        return _typed_nothing("false")
    return _failing(f"{folder}: the event-log folder is missing or empty, but the store's chunks logged "
                    f"{logged:,} events (a copy of a store needs its .events folder too)")


def _intact_parts(folder: Path, broken: list[int]) -> str:
    """The stored parts of every run but the ``broken`` ones (whose events only the branch of
    ``_broken_runs`` gives, so no reading shows a part of them)."""
    query = _STORED_PARTS.format(pattern=_literal(glob_escaped(folder.as_posix())))
    return query + (f"\n    AND e.run_id NOT IN ({', '.join(map(str, broken))})" if broken else "")


def _broken_runs(line: str, broken: list[int]) -> str:
    """One row per broken run that raises ``line`` when read, appended to the intact parts: a
    reading whose run filter leaves such a run out never reads its row, any other fails.

    Each row's ``run_id`` is a constant, so DuckDB folds a pushed-down ``run_id = 2`` (a literal
    or a parameter) to false for run 1's row and drops it before running anything; its other
    columns are the error itself, so a filter on them (``kind = 'play'``) raises rather than
    discards the row and shows fewer events than were logged; the WHERE raises for a reading
    of no column (``count(*)``). A run filter DuckDB cannot fold (a join, ``IN (SELECT ...)``)
    fails too: failing, never fewer events."""
    raised = f"error({_literal(FAILING + line)})"
    branches = []
    for run_id in broken:
        columns = ", ".join(f"CAST({run_id} AS {kind}) AS {name}" if name == "run_id" else
                            f"CAST({raised} AS {kind}) AS {name}" for name, kind in EVENT_COLUMNS)
        # by name: a part of an older store may hold the columns in another order, or fewer
        branches.append(f"\nUNION ALL BY NAME SELECT {columns} WHERE {raised} IS NULL")
    return "".join(branches)


def _missing_parts(con: duckdb.DuckDBPyConnection, folder: Path) -> tuple[str, list[int]]:
    """Some parts gone: the line naming each run whose stored chunks logged events (a chunk with
    ``events_rows`` has its part) while its folder lacks their parts, and how many, with those
    runs; ("", []) when none is missing. A listing of each such run's folder against the chunk
    rows, no part read."""
    # the rows first: a part is in place before its chunk's row is stored, so a chunk stored
    # between the two steps has its part already
    rows = con.sql("SELECT run_id, list(chunk ORDER BY chunk) FROM chunks WHERE events_rows > 0 "
                   "GROUP BY run_id ORDER BY run_id").fetchall()
    gone, broken = [], []
    for run_id, chunks in rows:
        lost, folder_gone = parts_absent(folder, run_id, chunks)
        if not lost:
            continue
        broken.append(run_id)
        gone.append(f"run {run_id} misses {len(lost):,} of its {len(chunks):,} parts ("
                    + (f"its folder {run_folder(run_id)} is gone)" if folder_gone else
                       f"{part_name(lost[0])}{', ...' if len(lost) > 1 else ''})"))
    if not gone:
        return "", []
    return (f"{folder}: event-log parts of stored chunks are missing: {'; '.join(gone)}; reading events "
            "would show fewer than were logged (a copy of a store needs its whole .events folder)"), broken


# begins the line a failing view raises, so reports/db.py can tell it from other errors
FAILING = "events view: "


def _failing(message: str) -> str:
    return _typed_nothing(f"error({_literal(FAILING + message)}) IS NULL")


def failing_view_line(text: str) -> str | None:
    """The line a failing ``events`` view raised, from DuckDB's error text; None for others."""
    at = text.find(FAILING)
    return None if at < 0 else text[at + len(FAILING):].splitlines()[0]


def _create(con: duckdb.DuckDBPyConnection, query: str) -> None:
    con.execute(f"CREATE OR REPLACE TEMP VIEW events AS {query}")


def damaged_part(folder: Path, seconds: float = 30.0) -> Path | None:
    """The first event-log part in ``folder`` DuckDB cannot read through, for an error that did
    not name it ("Parquet file is likely corrupted"); None if none was found within ``seconds``
    (each part is read whole, so a large store is searched only so far)."""
    import time

    deadline = time.monotonic() + seconds
    with duckdb.connect(":memory:") as con:
        for part in sorted(folder.rglob("*.parquet")):
            if time.monotonic() > deadline:
                return None
            try:
                # every column decoded (a count alone would read no data pages)
                con.execute("SELECT max(hash(COLUMNS(*))) FROM read_parquet(?)", [glob_escaped(part.as_posix())]).fetchall()
            except duckdb.Error:
                return part
    return None
