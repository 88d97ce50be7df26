"""What-if from the dashboard: a card's definition and decks as the store holds them, and the
sequential diff that measures one change to it, started as its own process.

The card comes from the store's ``cards`` table (shared columns, and the game's own fields in
``extra``) under the rules version of the run it was picked in; its decks from that run's
``card_games``. The change itself is written by cardsdb/whatif.py into the designer's workspace
(the dashboard's ``WORKBENCH_DATA``); the diff is ``workbench diff --until-decided`` run by
reports/jobs.py, which the page follows through the diff's status file. ``reports`` imports no
``workbench``: the command is a command line, as a designer would type it."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from reports import db, jobs
from reports.card_fields import ARROW, change_text, parse
from reports.cards import with_faction_name
from reports.sequential import Plan, caveat, decision_words, overall_words

# how the diff is asked: the smallest change worth finding (points) and the pilots, seed and cap
# the dashboard uses unless the designer says otherwise
DELTA_POINTS = 5.0
PILOTS = "greedy"
SEED = 1
MAX_MATCHES = 1000  # per pairing and version: the sequential diff usually stops far sooner
# the fewest the diff accepts: its first look comes after min_seeds seeds, each from both seats
# (workbench/commands/diff.py refuses a smaller --max-matches, after the job has started)
MIN_MATCHES = 2 * Plan().min_seeds


@dataclass(frozen=True)
class RunInfo:
    run_id: int
    game: str
    rules_version: str
    rules_hash: str
    decks: list[str]
    pilots: list[str]
    pairings: list[tuple[int, ...]]
    data_dir: str | None


def run_info(path: str | Path, run_id: int) -> RunInfo | None:
    rows = db.query(path, "SELECT * FROM runs WHERE run_id = ?", [run_id])
    if rows.is_empty():
        return None
    r = rows.row(0, named=True)
    spec = json.loads(r["spec"]) if r.get("spec") else {}
    decks = spec.get("decks") or r["decks"].split(",")
    pairings = [tuple(p) for p in spec.get("pairings") or []] or \
        [(i, j) for i in range(len(decks)) for j in range(i + 1, len(decks))] or [(0, 0)]
    return RunInfo(r["run_id"], r["game"], r["rules_version"], r["rules_hash"], list(decks),
                   spec.get("pilots") or r["pilots"].split(","), pairings, r.get("data_dir"))


def pick_run(path: str | Path, run_ids: list[int], version: str | None = None) -> RunInfo | None:
    """The run a what-if starts from: the newest of ``run_ids`` under ``version`` (any, when None)."""
    if not run_ids:
        return None
    marks = ", ".join("?" for _ in run_ids)
    rows = db.query(path, f"SELECT run_id, rules_version FROM runs WHERE run_id IN ({marks}) ORDER BY run_id DESC",
                    list(run_ids))
    for r in rows.iter_rows(named=True):
        if version is None or r["rules_version"] == version:
            return run_info(path, r["run_id"])
    return None


def card_definition(path: str | Path, run_id: int, card: str) -> dict | None:
    """The card as the run played it: the ``cards`` row of the run's rules version, with
    ``fields`` (the parsed ``extra``)."""
    rows = with_faction_name(db.query(path, """SELECT c.* FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash
                                               WHERE r.run_id = ? AND c.card = ?""", [run_id, card]))
    if rows.is_empty():
        return None
    row = rows.row(0, named=True)
    return {**row, "fields": parse(row.get("extra"))}


def card_decks(path: str | Path, run_ids: list[int], card: str) -> pl.DataFrame:
    """The decks that hold the card in these runs: copies, and the seats (match x seat) it was in."""
    marks = ", ".join("?" for _ in run_ids)
    return db.query(path, f"""SELECT deck, max(copies) AS copies, count(*) AS seats,
                                     count(DISTINCT run_id) AS runs
                              FROM card_games WHERE run_id IN ({marks}) AND card = ? AND copies > 0
                              GROUP BY deck ORDER BY deck""", [*run_ids, card])


def default_decks(run: RunInfo, holding: list[str]) -> list[str]:
    """The run's decks that hold the card plus every deck they meet in the run's pairings, in the
    run's order (a two-deck run: both)."""
    held = {i for i, d in enumerate(run.decks) if d in holding}
    chosen = set(held)
    for pairing in run.pairings:
        if held & set(pairing):
            chosen |= set(pairing)
    out: list[str] = []
    for i, deck in enumerate(run.decks):
        if i in chosen and deck not in out:
            out.append(deck)
    return out


def diff_command(game: str, base: str, candidate: str, decks: list[str], db_path: str | Path, data_dir: str | Path,
                 pilots: str = PILOTS, seed: int = SEED, delta: float = DELTA_POINTS,
                 max_matches: int = MAX_MATCHES) -> list[str]:
    """The sequential diff's command line; ``{status}`` stands for the status file's path
    (reports/jobs.py fills it in)."""
    return [sys.executable, "-m", "workbench.cli", "diff", game, "--base", base, "--candidate", candidate,
            "--decks", ",".join(decks), "--pilots", pilots, "--seed", str(seed), "--db", str(Path(db_path).resolve()),
            "--data", str(Path(data_dir).resolve()), "--quiet", "--until-decided", "--delta", f"{delta:g}",
            "--max-matches", str(max_matches), "--status", "{status}"]


def start_diff(db_path: str | Path, game: str, base: str, candidate: str, card: str, changes: list[dict],
               decks: list[str], data_dir: str | Path, name: str | None = None, **options) -> jobs.Job:
    """Start the sequential diff of a what-if in the background (raises jobs.JobRefused while
    another job of this store runs). ``name``: the card's name, which the pages show."""
    command = diff_command(game, base, candidate, decks, db_path, data_dir, **options)
    meta = {"kind": "whatif", "title": f"{name or card} {change_text(changes)}", "game": game, "base": base,
            "candidate": candidate, "card": card, "name": name, "change": change_text(changes), "changes": changes,
            "decks": decks, "data_dir": str(data_dir), "options": options}
    return jobs.start(db_path, command, meta=meta)


def job_change(job: jobs.Job) -> str | None:
    """A what-if job's change as the dashboard writes a change (``ARROW``), wherever the job is
    shown; a job that kept only its text (``change``), that text."""
    changes = job.meta.get("changes")
    return change_text(changes, ARROW) if changes else job.meta.get("change")


def card_name(job: jobs.Job) -> str | None:
    """The name of the card a what-if job changes (a job started before names were kept: its id)."""
    return job.meta.get("name") or job.meta.get("card")


def job_for_diff(db_path: str | Path, diff_id: int) -> jobs.Job | None:
    """The what-if job that recorded this diff, if one did."""
    for job in jobs.jobs(db_path):
        if jobs.job_state(job).get("diff_id") == diff_id:
            return job
    return None


# --- a what-if's verdicts in words ------------------------------------------------------------------

def job_deltas(job: jobs.Job, db_path: str | Path | None = None, diff_id: int | None = None) -> tuple[float, float]:
    """The (delta, delta0) in points the job's diff tests, a change of delta against one of delta0:
    as the form asked them (``meta["options"]``), else as its stored diff recorded them, else the
    defaults ``diff_command`` used."""
    options = job.meta.get("options") or {}
    if options.get("delta") is not None:
        return float(options["delta"]), float(options.get("delta0") or 0.0)
    if db_path is not None and diff_id is not None:
        try:
            if db.has_tables(db_path, "diffs"):
                rows = db.query(db_path, "SELECT * FROM diffs WHERE diff_id = ?", [int(diff_id)])
                if rows.height and rows.row(0, named=True).get("delta_points") is not None:
                    row = rows.row(0, named=True)
                    return float(row["delta_points"]), float(row.get("delta0_points") or 0.0)
        except Exception:  # noqa: BLE001 - a store that cannot say: the defaults below
            pass
    return DELTA_POINTS, 0.0


def _number(x) -> float | None:
    return None if x is None or x != x else float(x)


def deck_words(row: dict, delta: float, delta0: float = 0.0) -> str:
    """A deck's verdict (a status file's deck row, changes in points) as what the test decided
    (``sequential.decision_words``): "stronger: nearer a gain of 5 points than of 0", never a bare
    "stronger"."""
    return decision_words(row.get("decision") or "undecided", delta, delta0, points=True)


def deck_caveat(row: dict, delta: float) -> str:
    """What the plain interval beside a deck's verdict adds (``sequential.caveat``); empty when
    it adds nothing or the deck has no estimate yet."""
    change, lo, hi = (_number(row.get(k)) for k in ("change", "lo", "hi"))
    if change is None or lo is None or hi is None:
        return ""
    return caveat(row.get("decision") or "undecided", change / 100, lo / 100, hi / 100, delta / 100)


def overall_decision(state: str | None, decks: list[dict]) -> str:
    """The diff's answer code (``sequential.overall``) from a finished status: "change" when a
    deck moved, "no change" when every deck is decided unchanged, else "undecided"."""
    if state != "decided":
        return "undecided"
    return "change" if any(d.get("decision") in ("stronger", "weaker") for d in decks) else "no change"


def answer_words(state: str | None, decks: list[dict], delta: float, delta0: float = 0.0) -> str:
    """The diff's answer in the test's terms (``sequential.overall_words``)."""
    return overall_words(overall_decision(state, decks), delta, delta0, points=True)
