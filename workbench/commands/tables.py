"""``workbench runs`` and ``workbench export``."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from reports import db
from reports.export import write_frame
from reports.exports import EXPORTS, export_frame
from reports.filters import Filters
from workbench.errors import UserError
from workbench.outputs import check_file
from workbench.store_guard import check_is_workbench_store


def check_readable_store(path: Path) -> None:
    """A store to read from, else UserError in one line: a missing file has no runs yet, and
    another application's DuckDB file is named as such (simulate's check, workbench/store_guard.py,
    without its checks for writing: a read-only store is still read)."""
    if path.is_dir():
        raise UserError(f"{path}: is a folder; --db names a DuckDB file such as {path / 'workbench.duckdb'}")
    if path.exists():
        check_is_workbench_store(path)
    if not db.has_tables(path, "runs"):
        raise UserError(f"{path}: no runs yet (run `workbench simulate frontier` first)")


def show_runs(path: Path, console: Console) -> None:
    check_readable_store(path)
    # runs.pilots lists the deck slots' pilots: a Turf Defense boss's pilot is its spec's
    boss = ("json_extract_string(spec, '$.boss_pilot')" if db.has_columns(path, "runs", "spec")
            else "NULL::VARCHAR")
    frame = db.query(path, f"""SELECT run_id, game, rules_version, decks, pilots, matches_done, matches_target,
                              errors, status, code_version, created_at, nullif({boss}, '') AS boss_pilot
                              FROM runs ORDER BY run_id""")
    table = Table("run", "game", "rules", "decks", "pilots", "matches", "errors", "status", "code", "created")
    for r in frame.iter_rows(named=True):
        pilots = r["pilots"] + (f"; boss {r['boss_pilot']}" if r["boss_pilot"] else "")
        table.add_row(str(r["run_id"]), r["game"], r["rules_version"], r["decks"], pilots,
                      f"{r['matches_done']}/{r['matches_target']}", str(r["errors"]), r["status"],
                      r["code_version"] or "", str(r["created_at"]))
    console.print(table)


def _check_suffix(path: Path | None, option: str, kind: str, others: tuple[str, ...]) -> None:
    """A file named for another format would be opened by a spreadsheet or a reader as what its
    name says and fail there (``--parquet x.csv`` wrote Parquet bytes under a CSV's name)."""
    if path is not None and path.suffix.lower() in others:
        raise UserError(f"{option} {path}: {option} writes {kind}; give the file a name that says so, "
                        f"or use --{'parquet' if kind == 'CSV' else 'csv'} for a {path.suffix} file")


def export_table(path: Path, table: str, filters: Filters, diff_id: int | None, csv: Path | None,
                 parquet: Path | None, console: Console) -> None:
    if table not in EXPORTS:
        raise UserError(f"unknown table {table!r} (export one of: {', '.join(EXPORTS)})")
    if csv is None and parquet is None:
        raise UserError("say where to write: --csv FILE and/or --parquet FILE")
    if csv is not None and parquet is not None and csv.resolve() == parquet.resolve():
        raise UserError(f"--csv and --parquet both name {csv}; name two files")
    check_file(csv, "--csv")
    check_file(parquet, "--parquet")
    _check_suffix(csv, "--csv", "CSV", (".parquet", ".pq"))
    _check_suffix(parquet, "--parquet", "Parquet", (".csv", ".tsv", ".txt", ".xlsx", ".xls"))
    check_readable_store(path)
    for run in filters.runs:
        if db.query(path, "SELECT count(*) AS n FROM runs WHERE run_id = ?", [run])["n"][0] == 0:
            raise UserError(f"{path}: no run {run}")
    notes: list[str] = []
    try:
        frame = export_frame(path, table, filters, diff_id, notes)
    except LookupError as exc:
        raise UserError(str(exc)) from None
    for written in write_frame(frame, csv, parquet):
        console.print(f"wrote {frame.height} row{'s' if frame.height != 1 else ''} of {table} to {written}")
    for note in notes:
        console.print(f"note: {note}", markup=False, highlight=False)
