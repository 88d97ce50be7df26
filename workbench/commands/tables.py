"""``workbench runs`` and ``workbench export``."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from reports import db
from reports.campaign import clear_rates, reward_lift
from reports.cards import card_stats
from reports.export import write_frame
from workbench.errors import UserError
from workbench.store import TABLES

EXPORTS = TABLES + ("card_stats", "campaign_clear_rates", "campaign_reward_lift")
COMPUTED = {"card_stats": card_stats, "campaign_clear_rates": clear_rates, "campaign_reward_lift": reward_lift}


def show_runs(path: Path, console: Console) -> None:
    if not db.has_tables(path, "runs"):
        raise UserError(f"{path}: no runs yet (run `workbench simulate frontier` first)")
    frame = db.query(path, """SELECT run_id, game, rules_version, decks, pilots, matches_done, matches_target,
                              errors, status, code_version, created_at FROM runs ORDER BY run_id""")
    table = Table("run", "game", "rules", "decks", "pilots", "matches", "errors", "status", "code", "created")
    for r in frame.iter_rows(named=True):
        table.add_row(str(r["run_id"]), r["game"], r["rules_version"], r["decks"], r["pilots"],
                      f"{r['matches_done']}/{r['matches_target']}", str(r["errors"]), r["status"],
                      r["code_version"] or "", str(r["created_at"]))
    console.print(table)


def export_table(path: Path, table: str, run: int | None, csv: Path | None, parquet: Path | None,
                 console: Console) -> None:
    if table not in EXPORTS:
        raise UserError(f"unknown table {table!r} (export one of: {', '.join(EXPORTS)})")
    if csv is None and parquet is None:
        raise UserError("say where to write: --csv FILE and/or --parquet FILE")
    if not db.has_tables(path, "runs"):
        raise UserError(f"{path}: no runs yet (run `workbench simulate frontier` first)")
    if run is not None and db.query(path, "SELECT count(*) AS n FROM runs WHERE run_id = ?", [run])["n"][0] == 0:
        raise UserError(f"{path}: no run {run}")
    if table in COMPUTED:
        if table.startswith("campaign") and not db.has_tables(path, "campaign_runs"):
            raise UserError(f"{path}: no campaign runs yet (run `workbench simulate-run frontier` first)")
        frame = COMPUTED[table](path, [run] if run is not None else None)
    elif table == "cards":
        where = "" if run is None else "WHERE rules_hash = (SELECT rules_hash FROM runs WHERE run_id = ?)"
        frame = db.query(path, f"SELECT * FROM cards {where} ORDER BY rules_hash, card", [run] if run is not None else None)
    else:
        where = "" if run is None else "WHERE run_id = ?"
        order = {"runs": "run_id", "chunks": "run_id, chunk", "matches": "run_id, match_no",
                 "match_seats": "run_id, match_no, seat", "events": "run_id, match_no, seq",
                 "card_games": "run_id, match_no, seat, card", "campaign_runs": "run_id, run_no",
                 "campaign_nodes": "run_id, run_no, step", "campaign_rewards": "run_id, run_no, step, card"}[table]
        frame = db.query(path, f"SELECT * FROM {table} {where} ORDER BY {order}", [run] if run is not None else None)
    for written in write_frame(frame, csv, parquet):
        console.print(f"wrote {frame.height} rows of {table} to {written}")
