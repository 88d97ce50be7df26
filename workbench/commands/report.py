"""``workbench report``: the HTML report of runs, optionally with a paired diff."""
from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
from rich.console import Console

from reports import db, pilot_weights
from reports.exports import refuse_replays
from reports.filters import Filters
from reports.html import build, seated_pilots
from workbench.commands.tables import check_readable_store
from workbench.errors import UserError
from workbench.outputs import check_file
from workbench.run_pilots import unlike_pilots


def twins_check(path: Path, base: int, candidate: int) -> None:
    """Two runs are twins when they played the same seeds, seats, decks and pilots, the pilots
    thinking with the same weights (the spec's ``weights_hash``, as the batch's ``unlike_pilots``
    checks it): a change of weights is not a version diff."""
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
    why = unlike_pilots(path, base, candidate)
    if why:
        raise UserError(f"--diff {base}: not a version diff: {why}")


def check_played(path: Path, run: int) -> None:
    """A run with no stored match (stopped before its first chunk) has nothing to report: every
    table would be empty, which reads as a finding."""
    if db.query(path, "SELECT count(*) AS n FROM matches WHERE run_id = ?", [run])["n"][0]:
        return
    row = db.query(path, "SELECT * FROM runs WHERE run_id = ?", [run]).row(0, named=True)
    command = "simulate-run" if row.get("kind") == "campaign" else "simulate"  # .get: a store from before kinds
    raise UserError(f"{path}: run {run} has no stored matches yet (status: {row['status']}; a stopped run "
                    f"finishes with: workbench {command} --resume {run} --db {path})")


def check_one_kind(path: Path, runs: list[int]) -> None:
    """The report pools every figure over its runs, so they must be of one game, one rules version
    and one set of pilots: a card's win rate pooled over greedy's and random's seats, or over two
    versions of the card, is a figure nobody produced."""
    rows = db.query(path, f"SELECT run_id, game, rules_version, pilots FROM runs WHERE run_id IN "
                          f"({', '.join('?' for _ in runs)}) ORDER BY run_id", runs)
    # pilots: the set seated, not the per-deck list, which names the pilot once a deck: a run of six
    # decks and one of two, random throughout, are of one pilot ("random,random,..." twice over)
    rows = rows.with_columns(pl.col("pilots").map_elements(lambda p: ",".join(seated_pilots(p)), return_dtype=pl.Utf8))
    for column, what, instead in (
            ("game", "games", "make one report per game"),
            ("rules_version", "rules versions", "compare two versions with `workbench report RUN --diff BASE_RUN`"),
            ("pilots", "pilots", "make one report per pilot set (`workbench pilot-sensitivity` compares pilots)")):
        values = dict(zip(rows["run_id"], rows[column]))
        if len(set(values.values())) > 1:
            first = rows["run_id"][0]
            other = next(r for r in rows["run_id"] if values[r] != values[first])
            raise UserError(f"runs {first} and {other} are of different {what} ({values[first]}; {values[other]}): "
                            f"the report pools every figure over its runs; {instead}")
    reweighted = pilot_weights.reweighted_pilots(path, runs)
    if reweighted:
        raise UserError(f"{', '.join(reweighted)} thought with other weight files in some of runs "
                        f"{', '.join(map(str, runs))} (the game's weights changed between them): the report would "
                        "pool two pilots' play under one name; make one report per weights")


MODE_RUNS = ("ffa", "series", "turf")  # the runs whose report is their mode's tables alone


def mode_sql(path: Path) -> str:
    """The runs' ``mode`` column, or NULL in a store from before modes."""
    return "mode" if db.has_columns(path, "runs", "mode") else "NULL"


def check_one_pilot_a_run(path: Path, runs: list[int]) -> None:
    """Each run's seats were played by one pilot: in a run of greedy against random, every gap
    between the decks (their cards' win rates, the keywords' impact, the meta) is the pilots' gap
    as much as the decks', and the report has no per-row pilot to say which is which."""
    rows = db.query(path, f"SELECT run_id, decks, pilots, {mode_sql(path)} AS mode FROM runs WHERE run_id IN "
                          f"({', '.join('?' for _ in runs)}) ORDER BY run_id", runs)
    for run, decks, pilots, mode in rows.iter_rows():
        seated = pilots.split(",")
        # a free-for-all, series or Turf run's report holds its mode's tables alone, each row a
        # deck and its pilots (reports/html.py): nothing there reads the pilots' gap as a deck's
        if len(set(seated)) > 1 and mode not in MODE_RUNS:
            who = ", ".join(f"{deck}: {pilot}" for deck, pilot in zip(decks.split(","), seated))
            raise UserError(f"run {run}'s decks were played by different pilots ({who}): its deck and card figures "
                            "would read the pilots' gap as the decks'; compare pilots with `workbench "
                            "pilot-sensitivity`, or report a run of one pilot")


def check_no_replays(path: Path, runs: list[int]) -> None:
    """Runs that play the same matches (``value``'s unchanged deck against the field replays the
    field's run of that deck; a sequential diff's base run, the simulate it reused): pooled, the
    report would count those matches twice with intervals too narrow for them, as the export
    refuses them (reports/exports.py ``refuse_replays``). A campaign batch is left to its section,
    which counts a campaign run two batches hold once (reports/campaign.py)."""
    rows = db.query(path, f"SELECT run_id FROM runs WHERE {db.run_kind_sql(path)} <> 'campaign' AND run_id IN "
                          f"({', '.join('?' for _ in runs)}) ORDER BY run_id", runs)
    try:
        refuse_replays(path, Filters(runs=rows["run_id"].to_list()))
    except LookupError as exc:
        raise UserError(str(exc)) from None


def write_report(path: Path, runs: list[int], diff: int | None, out: Path, err: Console) -> None:
    check_readable_store(path)
    twice = sorted({run for run in runs if runs.count(run) > 1})
    if twice:  # its matches would count twice in every pooled figure
        raise UserError(f"run {twice[0]} is named twice: name each run once")
    for run in runs:
        if db.query(path, "SELECT count(*) AS n FROM runs WHERE run_id = ?", [run])["n"][0] == 0:
            raise UserError(f"{path}: no run {run}")
    check_one_kind(path, runs)
    check_one_pilot_a_run(path, runs)
    if diff is not None and diff in runs:
        # --diff is the base the first run (the candidate) is compared with, on the same seeds
        raise UserError(f"--diff {diff} is one of the report's runs; --diff names the base run that run "
                        f"{runs[0]} is compared with (played on the same seeds under other rules)")
    if diff is not None:
        twins_check(path, diff, runs[0])
    for run in runs + ([diff] if diff is not None else []):
        check_played(path, run)
    check_no_replays(path, runs)  # after check_played: a run stopped before its first match is told to resume
    check_file(out, "--html")
    text = build(path, runs, diff)
    tmp = out.with_name(f".{out.name}.part")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    err.print(f"wrote {out} ({len(text) / 1e6:.1f} MB)")
