"""``workbench report``: the HTML report of runs, optionally with a paired diff."""
from __future__ import annotations

import json
import os
from pathlib import Path

from rich.console import Console

from reports import db
from reports.html import build
from workbench.errors import UserError
from workbench.outputs import check_file


def twins_check(path: Path, base: int, candidate: int) -> None:
    """Two runs are twins when they played the same seeds, seats, decks and pilots."""
    specs = {}
    for run in (base, candidate):
        row = db.query(path, "SELECT spec FROM runs WHERE run_id = ?", [run])
        if row.is_empty():
            raise UserError(f"{path}: no run {run}")
        spec = json.loads(row["spec"][0])
        specs[run] = {k: spec[k] for k in ("game", "decks", "pilots", "matches", "seed", "swap", "pairings")}
    if specs[base] != specs[candidate]:
        raise UserError(f"runs {base} and {candidate} did not play the same seeds, decks and pilots; "
                        "make a paired diff with `workbench diff`")


def write_report(path: Path, runs: list[int], diff: int | None, out: Path, err: Console) -> None:
    if not db.has_tables(path, "runs"):
        raise UserError(f"{path}: no runs yet (run `workbench simulate` first)")
    for run in runs:
        if db.query(path, "SELECT count(*) AS n FROM runs WHERE run_id = ?", [run])["n"][0] == 0:
            raise UserError(f"{path}: no run {run}")
    if diff is not None:
        twins_check(path, diff, runs[0])
    check_file(out, "--html")
    text = build(path, runs, diff)
    tmp = out.with_name(f".{out.name}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    err.print(f"wrote {out} ({len(text) / 1e6:.1f} MB)")
