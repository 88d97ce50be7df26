"""Every table a designer can take to a spreadsheet, by name: the store's own tables and the
computed metrics. Column meanings are in reports/METRICS.md."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, NamedTuple

import polars as pl

from reports import (
    campaign,
    costs,
    db,
    ffa,
    keywords,
    matchups,
    meta,
    mulligan,
    overview,
    pilot_sensitivity,
    pilot_weights,
    series,
    turf,
    value,
)
from reports.cards import (
    PILOTS_SQL,
    SeatFilters,
    card_metrics,
    seat_pilots_join,
    win_rate_by_turn_played,
    with_card_set,
)
from reports.diff import stored_limit, version_diff
from reports.filters import Filters

# the store's tables (raw rows); `card_defs` is the store table `cards` (card definitions)
RAW = {"runs": "run_id", "chunks": "run_id, chunk", "card_defs": "rules_hash, card", "matches": "run_id, match_no",
       "match_seats": "run_id, match_no, seat", "events": "run_id, match_no, seq",
       "card_games": "run_id, match_no, seat, card", "diffs": "diff_id", "diff_verdicts": "diff_id, deck", "series": "run_id, series_no", "campaign_runs": "run_id, run_no",
       "campaign_nodes": "run_id, run_no, step", "campaign_rewards": "run_id, run_no, step, card",
       "batches": "batch_id", "batch_suites": "batch_id, suite", "ladder": "ladder_id, pilot",
       "ladder_pairs": "ladder_id, pair_no", "ladder_matches": "ladder_id, match_no", "tune": "tune_id",
       "tune_changes": "tune_id, change_no", "tune_decks": "tune_id, deck",
       "tune_steps": "tune_id, round, step, candidate_no", "tune_values": "tune_id, card, field, number, deck"}
# a ladder plays outside runs (its own ladder_matches): its tables read no filter of runs
NO_RUNS = ("ladder", "ladder_pairs", "ladder_matches")
# the command that makes the store tables a store may not have yet (made at its first use)
MADE_BY = {"tune": "workbench tune", "ladder": "workbench ladder", "batch": "workbench batch"}

COMPUTED: dict[str, Callable[[Path, Filters], pl.DataFrame]] = {
    "cards": lambda p, f: card_metrics(p, f),
    "cards_by_deck": lambda p, f: card_metrics(p, f, group_by=("rules_version", "deck")),
    "win_rate_by_turn": win_rate_by_turn_played,
    "card_mulligan": mulligan.card_mulligan,
    "card_mulligan_by_deck": lambda p, f: mulligan.card_mulligan(p, f, by_deck=True),
    "deck_mulligan": mulligan.deck_mulligan,
    "keywords": keywords.keyword_impact,
    "keyword_prices": keywords.keyword_prices,
    "cost_curve": lambda p, f: costs.stat_budget(p, f).cards,
    "cost_lines": lambda p, f: costs.stat_budget(p, f).lines,
    "deck_curves": costs.deck_curves,
    "win_rate_by_cost": costs.win_rate_by_cost,
    "matchups": matchups.matchups,
    "deck_field": matchups.deck_field,
    "meta_mix": meta.meta_mix,
    "campaign_clear_rates": lambda p, f: campaign.clear_rates(p, f.runs or None),
    "campaign_reward_lift": lambda p, f: campaign.reward_lift(p, f.runs or None),
    "card_value": lambda p, f: value.card_values(p, f.game, f.versions, f.decks),
    # runs that differ only in their pilot (`workbench pilot-sensitivity` makes them): named with --run
    "pilot_sensitivity": lambda p, f: pilot_sensitivity.sensitivity_table(p, f.runs),
    "skill_premium": lambda p, f: pilot_sensitivity.premium_table(p, f.runs),
    "ffa_decks": lambda p, f: of_mode(ffa.ffa_decks, p, ffa_run_ids(p, f)),
    "ffa_cards": lambda p, f: of_mode(ffa.ffa_cards, p, ffa_run_ids(p, f)),
    "ffa_eliminations": lambda p, f: of_mode(ffa.ffa_eliminations, p, ffa_run_ids(p, f)),
    "ffa_targets": lambda p, f: of_mode(ffa.ffa_targets, p, ffa_run_ids(p, f)),
    "series_decks": lambda p, f: of_mode(series.series_decks, p, mode_run_ids(p, f, series.series_runs)),
    "series_scores": lambda p, f: of_mode(series.series_scores, p, mode_run_ids(p, f, series.series_runs)),
    "turf_bosses": lambda p, f: of_mode(turf.turf_bosses, p, mode_run_ids(p, f, turf.turf_runs)),
    "turf_pairs": lambda p, f: of_mode(turf.turf_pairs, p, mode_run_ids(p, f, turf.turf_runs)),
    "turf_first_falls": lambda p, f: of_mode(turf.turf_first_falls, p, mode_run_ids(p, f, turf.turf_runs)),
}


def of_mode(table, path: Path, run_ids: list[int]) -> pl.DataFrame:
    """A mode's table over its runs (no run matches -1: an empty table, with its header, when the
    filters leave none)."""
    return table(path, run_ids or [-1])


def ffa_run_ids(path: Path, filters: Filters) -> list[int]:
    """The free-for-all runs an export covers: those named, else every one of the game (or store)."""
    return mode_run_ids(path, filters, ffa.ffa_runs)


def mode_run_ids(path: Path, filters: Filters, listed) -> list[int]:
    """The runs of one mode (``listed(path)``: that mode's runs) an export covers: those named,
    else every one of the game (or of the store)."""
    runs = listed(path)
    if filters.game:
        runs = runs.filter(pl.col("game") == filters.game)
    ids = runs["run_id"].to_list()
    return [r for r in filters.runs if r in ids] if filters.runs else ids

DIFF_TABLES = ("diff_decks", "diff_cards", "diff_power", "diff_changed_cards")

EXPORTS = tuple(COMPUTED) + DIFF_TABLES + tuple(RAW)

# The filters each table reads (Filters' fields, and ``diff``): a filter given to a table that
# does not read it is refused, not ignored, so nobody takes a whole table for the part they asked.
OPTIONS = {"game": "--game", "runs": "--run", "versions": "--rules", "decks": "--deck", "pilots": "--pilot",
           "diff": "--diff"}
RUNS = ("game", "runs", "versions")  # which runs: every table of runs reads these
SEATS = RUNS + ("decks", "pilots")   # and which seats: the tables over card_games or match_seats
MODE = ("game", "runs")              # a mode's tables (and the store tables that name no seat) take whole runs
READS: dict[str, tuple[str, ...]] = {
    **{name: SEATS for name in COMPUTED},
    **{name: RUNS for name in ("keyword_prices", "cost_curve", "cost_lines")},  # card definitions: no seats
    "deck_curves": RUNS + ("decks",),  # deck lists: no pilot plays them (costs.deck_curves)
    "campaign_clear_rates": ("runs",), "campaign_reward_lift": ("runs",),
    "card_value": ("game", "versions", "decks"),  # measurements, not runs (tests/test_value_reports.py)
    "pilot_sensitivity": ("runs",), "skill_premium": ("runs",),
    **{name: MODE for name in COMPUTED if name.startswith(("ffa_", "series_", "turf_"))},
    **{name: ("diff",) for name in DIFF_TABLES},
    **{name: RUNS for name in RAW},
    "match_seats": SEATS, "card_games": SEATS,
    **{name: () for name in NO_RUNS},
}


def given(filters: Filters, diff_id: int | None) -> list[str]:
    """The filters the user gave, by field name."""
    values = {"game": filters.game, "runs": filters.runs, "versions": filters.versions, "decks": filters.decks,
              "pilots": filters.pilots, "diff": diff_id}
    return [name for name, value in values.items() if value not in (None, [])]


def check_reads(name: str, filters: Filters, diff_id: int | None) -> None:
    """LookupError in one line when a filter is given that ``name`` does not read."""
    unread = [OPTIONS[f] for f in given(filters, diff_id) if f not in READS[name]]
    if unread:
        takes = ", ".join(OPTIONS[f] for f in READS[name]) or "no filters"
        raise LookupError(f"{name} does not filter by {', '.join(unread)} (it takes {takes})")


def check_values(path: Path, name: str, filters: Filters) -> None:
    """LookupError in one line when a --game, --rules, --deck or --pilot value names nothing among
    the runs (for card_value: the measurements) the filters before it choose; a typo would
    otherwise export an empty table."""
    rows, scope = choosable(path, name)
    if filters.runs:
        rows = rows.filter(pl.col("run_id").is_in(filters.runs))
        scope = "run" + ("s " if len(filters.runs) > 1 else " ") + ", ".join(map(str, filters.runs))
    for field, values, column, noun in (("game", [filters.game] if filters.game else [], "game", "game"),
                                        ("versions", filters.versions, "rules_version", "rules version"),
                                        ("decks", filters.decks, "decks", "deck"),
                                        ("pilots", filters.pilots, "pilots", "pilot")):
        listed = rows[column].str.split(",") if column in ("decks", "pilots") else rows[column].implode()
        known = sorted({v for vs in listed.to_list() for v in vs})
        for wanted in values:
            if wanted not in known:
                shown = ", ".join(known[:12]) + (", ..." if len(known) > 12 else "") if known else "none"
                raise LookupError(f"{OPTIONS[field]} {wanted!r}: no such {noun} in {scope} ({noun}s there: {shown})")
        if field in ("game", "versions") and values:  # the later filters are checked among these rows
            rows = rows.filter(pl.col(column).is_in(values))
            scope += f" of {OPTIONS[field]} {','.join(values)}"


def choosable(path: Path, name: str) -> tuple[pl.DataFrame, str]:
    """What the filters of table ``name`` choose among (run_id, game, rules_version, and decks
    and pilots comma separated), and its name: the runs; card_value reads its measurements,
    which name their deck and pilots."""
    if name != "card_value":
        return db.query(path, "SELECT run_id, game, rules_version, decks, pilots FROM runs"), "the store's runs"
    if not db.has_tables(path, "card_value"):  # a store from before `workbench value`
        empty = {"run_id": pl.Int32, **{c: pl.Utf8 for c in ("game", "rules_version", "decks", "pilots")}}
        return pl.DataFrame(schema=empty), "the store's card values"
    return db.query(path, """SELECT DISTINCT NULL::INTEGER AS run_id, game, rules_version, deck AS decks, pilots
                             FROM card_value"""), "the store's card values"


# How a store table's rows belong to runs: ``{runs}`` is a query of the chosen runs' ids.
IN_RUNS = {"card_defs": "rules_hash IN (SELECT rules_hash FROM runs WHERE run_id IN ({runs}))",
           "diffs": "(base_run IN ({runs}) OR candidate_run IN ({runs}))",
           "diff_verdicts": "diff_id IN (SELECT diff_id FROM diffs WHERE base_run IN ({runs}) OR candidate_run IN ({runs}))",
           # a row belongs to every run it names; a proposal's changes and decks to its verification's
           "batch_suites": "(run_id IN ({runs}) OR previous_run IN ({runs}) OR baseline_run IN ({runs}))",
           "batches": """batch_id IN (SELECT batch_id FROM batch_suites WHERE run_id IN ({runs})
                         OR previous_run IN ({runs}) OR baseline_run IN ({runs}))""",
           "tune": "(base_run IN ({runs}) OR candidate_run IN ({runs}))",
           "tune_changes": "tune_id IN (SELECT tune_id FROM tune WHERE base_run IN ({runs}) OR candidate_run IN ({runs}))",
           "tune_decks": "tune_id IN (SELECT tune_id FROM tune WHERE base_run IN ({runs}) OR candidate_run IN ({runs}))",
           "tune_values": "(run_id IN ({runs}) OR reference_run IN ({runs}))"}


def raw_table(path: Path, name: str, filters: Filters) -> pl.DataFrame:
    """A store table's rows of the runs the filters choose (and, in a table of seats, of their
    decks and pilots)."""
    table = "cards" if name == "card_defs" else name
    if not db.has_tables(path, table):  # a store from before the table, or whose command never ran
        made = next((f" (`{cmd}` stores it)" for prefix, cmd in MADE_BY.items() if name.startswith(prefix)), "")
        raise LookupError(f"{path}: no {name} table yet{made}")
    clauses, params = [], []
    # the pilot filter holds for every seat of a match, as in the computed tables (Filters.where)
    runs_where, runs_params = Filters(game=filters.game, runs=filters.runs, versions=filters.versions,
                                      pilots=filters.pilots).where("r")
    if runs_where:
        scope = IN_RUNS.get(name, "run_id IN ({runs})")
        clauses.append(scope.format(runs=f"SELECT r.run_id FROM runs r {runs_where}"))
        params.extend(runs_params * scope.count("{runs}"))
    for column, values in (("deck", filters.decks), ("pilot", filters.pilots)):
        if values:  # only tables of seats read these (READS)
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    return with_diff_pilots(path, name, with_tune_pilots(path, name, db.query(
        path, f"SELECT * FROM {table} {where} ORDER BY {RAW[name]}", params or None)))


# a proposal's rows name no pilot of their own: the pilots its runs played with are its `tune`
# row's, and every exported row carries them (last, as a diff's files do), whichever command wrote
# the file (`workbench export`, `workbench tune --csv`): a win rate or a value says who played it
TUNE_ROWS = ("tune_changes", "tune_decks", "tune_steps", "tune_values")


def with_tune_pilots(path: Path, name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (rows of the store table ``name``) with ``pilots``, its proposal's, as the
    ``tune`` row names them, when ``name`` is one of TUNE_ROWS; any other table as it is."""
    if name not in TUNE_ROWS or "tune_id" not in frame.columns or "pilots" in frame.columns:
        return frame
    known = dict(db.query(path, "SELECT tune_id, pilots FROM tune").iter_rows()) if db.has_tables(path, "tune") else {}
    return frame.with_columns(pl.col("tune_id").replace_strict(known, default=None, return_dtype=pl.Utf8)
                              .alias("pilots"))


# a diff's rows (the `diffs` row, its sequential verdicts) name no pilot either: both runs of a diff
# play the same pilots, and every exported row carries the base run's (``diff.pilots_of_run``, a run
# of two pilots named deck by deck), last, as the diff_* tables and the proposals' rows do
DIFF_ROWS = ("diffs", "diff_verdicts")


def with_diff_pilots(path: Path, name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (rows of the store table ``name``) with ``pilots``, its diff's (the base run's, as
    ``pilots_of_run`` names them), when ``name`` is one of DIFF_ROWS; any other table as it is."""
    from reports.diff import pilots_of_run

    if name not in DIFF_ROWS or "diff_id" not in frame.columns or "pilots" in frame.columns:
        return frame
    base = dict(db.query(path, "SELECT diff_id, base_run FROM diffs").iter_rows())
    known = {diff_id: pilots_of_run(path, run) for diff_id, run in base.items()
             if diff_id in set(frame["diff_id"].to_list())}
    return frame.with_columns(pl.col("diff_id").replace_strict(known, default=None, return_dtype=pl.Utf8)
                              .alias("pilots"))


def diff_table(path: Path, name: str, diff_id: int) -> pl.DataFrame:
    """A table of a stored version diff, as ``diff_frame`` makes it."""
    row = db.query(path, "SELECT base_run, candidate_run FROM diffs WHERE diff_id = ?", [diff_id])
    if row.is_empty():
        raise LookupError(f"no diff {diff_id} (see `workbench export diffs`)")
    base, candidate = row.row(0)
    return diff_frame(path, name, version_diff(path, base, candidate, match_limit=stored_limit(path, diff_id)))


def diff_frame(path: Path, name: str, result: dict) -> pl.DataFrame:
    """Table ``name`` (one of DIFF_TABLES) of ``result`` (reports/diff.version_diff's), spreadsheet-clean:
    card names beside their ids, and the changed cards one row per changed field (not two whole
    cards as JSON). `workbench diff --csv` writes these too, so a diff's files have the same
    columns whichever command wrote them; an empty table has the same header as a full one."""
    frame = result[name.removeprefix("diff_")]
    if name == "diff_changed_cards":
        frame = changed_fields(frame)
    if "card" in frame.columns:
        frame = with_card_names(path, frame, result["candidate_run"])
    if name == "diff_changed_cards":
        return frame  # card definitions: no pilot played them
    # each file says which pilots and runs its figures come from, in every row (last: the card
    # and its name lead, as in every card table)
    return frame.with_columns(pl.lit(result["pilots"], dtype=pl.Utf8).alias("pilots"),
                              pl.lit(result["base_run"], dtype=pl.Int64).alias("base_run"),
                              pl.lit(result["candidate_run"], dtype=pl.Int64).alias("candidate_run"))


def changed_fields(changed: pl.DataFrame) -> pl.DataFrame:
    """``changed_cards`` (a card's two definitions as JSON) as one row per changed field:
    card, change (added, removed, changed), field, base, candidate (values as text)."""
    from reports.card_fields import field_changes, shown

    rows = []
    for r in changed.iter_rows(named=True):
        for c in field_changes(r["base"], r["candidate"]) or [{"field": "", "base": None, "candidate": None}]:
            rows.append({"card": r["card"], "change": r["change"], "field": c["field"],
                         "base": shown(c["base"]), "candidate": shown(c["candidate"])})
    return pl.DataFrame(rows, schema={k: pl.Utf8 for k in ("card", "change", "field", "base", "candidate")})


def with_card_names(path: Path, frame: pl.DataFrame, run_id: int) -> pl.DataFrame:
    """``name`` beside ``card``, as the run's rules version names it (else the other version's)."""
    names = db.query(path, """SELECT c.card, any_value(c.name) AS name FROM cards c
                              WHERE c.rules_hash IN (SELECT rules_hash FROM runs WHERE run_id = ?)
                                 OR c.rules_hash IN (SELECT r.rules_hash FROM diffs d JOIN runs r ON r.run_id = d.base_run
                                                     WHERE d.candidate_run = ?)
                              GROUP BY 1""", [run_id, run_id])
    out = frame.join(names, on="card", how="left")
    order = ["card", "name", *[c for c in frame.columns if c != "card"]]
    return out.select(order)


# computed tables with runs of their own (a mode's, the campaign's, measurements), not the duels'
NOT_DUEL_TABLES = ("ffa_", "series_", "turf_", "campaign_", "card_value", "pilot_sensitivity", "skill_premium")


def replays(path: Path, run_ids: list[int]) -> tuple[list[int], dict[int, int]]:
    """(``run_ids`` with one run of each set that plays the same matches on the seeds it shares,
    the one with the most matches; each run left out -> the run kept in its place), as the pages
    count them (``overview.one_run_per_seeds``): a sequential diff's base run beside the simulate
    it reused, pooled, counted their shared matches twice with an interval too narrow for them."""
    if not run_ids or not db.has_columns(path, "runs", "spec"):  # (a store of no specs: each run its own)
        return sorted(run_ids), {}
    marks = ", ".join("?" for _ in run_ids)
    runs = db.query(path, f"SELECT run_id, matches_done, spec FROM runs WHERE run_id IN ({marks})", list(run_ids))
    kept, repeats = overview.one_run_per_seeds(overview.with_matches_key(runs))
    return sorted(kept["run_id"].to_list()), repeats


def refuse_replays(path: Path, filters: Filters) -> None:
    """Runs named together that play the same matches: one line, as the pooled figures would
    count those matches twice."""
    if len(filters.runs) < 2:
        return
    _kept, repeats = replays(path, list(filters.runs))
    if repeats:
        run, kept = min(repeats.items())
        raise LookupError(f"runs {kept} and {run} share matches (the same decks, pilots, cards and seeds, in all "
                          "or some of their pairings): pooled, those matches would count twice; name one of them")


def duel_runs(path: Path, filters: Filters, notes: list[str] | None = None) -> Filters:
    """``filters`` with no run named: the duel runs of the game (or the store), as the pages choose
    them by default. A series' later games, a free-for-all table, a Turf match, a ``value`` twin
    (a deck with a card swapped out) are not a duel field's matches: pooled in, a series' game 1
    counted its duel twin's match twice and a value twin counted a deck that is not the deck.
    The other runs of the game (campaign fights) when it has no duel run, and its runs of other
    modes when it has nothing else (a store of series alone); named runs as named."""
    if filters.runs:
        return filters
    game = "AND game = ?" if filters.game else ""
    rows = db.query(path, f"SELECT run_id, {db.run_kind_sql(path)} AS run_kind FROM runs WHERE true {game} ORDER BY run_id",
                    [filters.game] if filters.game else None)
    duels = [r for r, k in rows.iter_rows() if k == "duel"]
    others = [r for r, k in rows.iter_rows() if k not in ("ffa", "series", "turf", "value")]
    kept, repeats = replays(path, duels or others or rows["run_id"].to_list())
    if repeats and notes is not None:
        notes.append("left out, as they share matches with a run counted (they would count twice): "
                     + ", ".join(f"run {r} (of run {k})" for r, k in sorted(repeats.items())))
    return replace(filters, runs=kept or [-1])


# the computed tables read from the event log, by the runs they read: a run stored with
# ``--events none`` has none, and its table came out empty with "wrote 0 rows" and nothing said
FROM_EVENT_LOG = {"ffa_targets": ffa_run_ids}


def without_event_log(path: Path, run_ids: list[int], name: str) -> list[str]:
    """A note naming the runs of ``run_ids`` that kept no event log (``event_sample`` 0), whose
    matches ``name`` cannot count; none when every run kept one (a sampled log is counted as
    kept: the table says what its sample holds)."""
    if not run_ids:
        return []
    marks = ", ".join("?" for _ in run_ids)
    none = db.query(path, f"SELECT run_id FROM runs WHERE run_id IN ({marks}) AND event_sample = 0 ORDER BY run_id",
                    list(run_ids))["run_id"].to_list()
    if not none:
        return []
    return [f"{name} reads the event log, and run{'s' if len(none) > 1 else ''} {', '.join(map(str, none))} "
            f"kept none (played with --events none): {'their' if len(none) > 1 else 'its'} matches are not in it; "
            "play the run again with --events all to count them"]


def export_frame(path: Path, name: str, filters: Filters, diff_id: int | None = None,
                 notes: list[str] | None = None) -> pl.DataFrame:
    """Table ``name`` as the filters narrow it; LookupError in one line for a filter it does not
    read, a value that names nothing, a diff table without its diff, or runs named together that
    replay each other's matches. ``notes``: gets a line naming the runs a default choice left out
    as replays."""
    check_reads(name, filters, diff_id)
    check_values(path, name, filters)
    if name in RAW:
        return raw_table(path, name, filters)
    if name in DIFF_TABLES:
        if diff_id is None:
            raise LookupError(f"{name} needs --diff ID (see `workbench export diffs`)")
        return diff_table(path, name, diff_id)
    if name in FROM_EVENT_LOG and notes is not None:
        notes.extend(without_event_log(path, FROM_EVENT_LOG[name](path, filters), name))
    if not name.startswith(NOT_DUEL_TABLES):
        refuse_replays(path, filters)
        filters = duel_runs(path, filters, notes)
    if "pilots" in READS[name]:
        return by_pilot(COMPUTED[name], path, filters, mixes=name not in SAME_PILOTS_ONLY,
                        seats=name not in NAME_BOTH_PILOTS, notes=notes)
    return COMPUTED[name](path, filters)


class Group(NamedTuple):
    """The runs of one table's block: played by ``pilots`` (a pilot alone, or a mix against each
    other), of one ``game`` and one ``card_set`` (a rules version, with its hash where the chosen
    runs hold that name with other card data)."""
    pilots: str | None
    game: str | None
    card_set: str | None
    filters: Filters


def pilot_groups(path: Path, filters: Filters, seats: bool = True, notes: list[str] | None = None) -> list[Group]:
    """The chosen runs' blocks: by pilots, game and card set, each with the filters of its seats;
    a deck or a keyword under other rules or of another game is not the same thing, so no block
    pools two (``matchups`` pooled base with another version, ``keywords`` three games into one
    model). ``seats``: a block is the seats of one ``pilots`` group (reports/cards.py
    SEAT_PILOTS_SQL: "greedy" against greedy, "greedy vs random" the seats greedy played against
    random, apart from "random vs greedy"), so a deck greedy played and the same deck random
    played are never one figure; else (the tables that name each row's pilot and its opponent's
    themselves) a block is the runs of one mix of pilots (PILOTS_SQL, "greedy+random"). Both read
    the pilots the seats hold (match_seats), a Turf Defense boss's too, which runs.pilots leaves
    out: a pilot filter keeps a run only when the chosen pilots played every seat of it, so a run
    whose boss another pilot played is left out (and ``notes`` says so). One block with no runs:
    no run chosen."""
    where, params = filters.where("r")  # (no seat alias: the deck filter is the tables' own)
    runs = db.query(path, f"""
        SELECT r.run_id, CASE WHEN strpos(r.pilots, '/') > 0 THEN r.pilots ELSE coalesce(
                   array_to_string(list_sort(list_distinct(list(s.pilot) FILTER (WHERE s.pilot IS NOT NULL))), '+'),
                   {PILOTS_SQL.format(alias='r')}) END AS label,
               list_distinct(list(s.pilot) FILTER (WHERE s.pilot IS NOT NULL)) AS seated,
               r.game, r.rules_version, r.rules_hash
        FROM runs r LEFT JOIN match_seats s ON s.run_id = r.run_id {where}
        GROUP BY r.run_id, r.pilots, r.game, r.rules_version, r.rules_hash ORDER BY r.run_id""", params or None)
    if filters.pilots:  # a seat runs.pilots does not list (a Turf boss) was played by another pilot
        other = runs.filter(~pl.col("seated").list.eval(pl.element().is_in(list(filters.pilots))).list.all())
        if other.height and notes is not None:
            notes.append("left out, as a pilot not chosen played some of their seats (a Turf Defense boss): "
                         + ", ".join(f"run {r} ({', '.join(sorted(p))})" for r, p in other.select("run_id", "seated").iter_rows()))
        runs = runs.filter(~pl.col("run_id").is_in(other["run_id"].to_list()))
    if runs.is_empty():
        return [Group(None, None, None, replace(filters, runs=[-1]) if filters.pilots else filters)]
    runs = with_card_set(runs)
    if seats:  # each run's seat labels (the seats the deck filter keeps)
        ids = runs["run_id"].to_list()
        labels_join, label = seat_pilots_join("s")
        seat_where, seat_params = replace(filters, runs=ids).where("r", "s")
        labels = db.query(path, f"""SELECT DISTINCT s.run_id, {label} AS label FROM match_seats s
                                    JOIN runs r ON r.run_id = s.run_id {labels_join} {seat_where}""", seat_params)
        runs = runs.drop("label").join(labels, on="run_id", how="inner")
    groups: dict[tuple[str, str, str], list[int]] = {}
    for run_id, label, game, card_set in runs.select("run_id", "label", "game", "card_set").sort("run_id").iter_rows():
        groups.setdefault((label, game, card_set), []).append(run_id)
    if not groups:
        return [Group(None, None, None, replace(filters, runs=[-1]))]
    # each block's filters choose its runs (which the pilot filter, if any, already kept) and, by
    # seats, its seats; a campaign run's pilots ("policy/fight") name no seat's pilot: its label
    # is that name (SEAT_PILOTS_SQL), its every seat
    return [Group(*key, SeatFilters(filters.game, ids, filters.versions, filters.decks, filters.pilots, [key[0]])
                  if seats else replace(filters, runs=ids)) for key, ids in sorted(groups.items())]


# tables that compare decks as one pilot plays them all: a mix's block (greedy's deck against
# random's) would rank the pilots, not the decks (a meta of a greedy deck against a random one is
# the greedy deck alone)
SAME_PILOTS_ONLY = ("meta_mix",)
# tables whose every row names its seat's pilot and its opponent's (``pilot``, ``opponent_pilot``):
# blocked by the runs' mix of pilots (``match_pilots``), not by seat label
NAME_BOTH_PILOTS = ("matchups", "deck_field", "meta_mix")


def by_pilot(table, path: Path, filters: Filters, mixes: bool = True, seats: bool = True,
             notes: list[str] | None = None) -> pl.DataFrame:
    """``table`` once per pilot (or mix of pilots) of the chosen runs, each row headed by its
    ``pilot``: a figure of greedy's play and one of random's are never pooled into a number neither
    produced (every balance figure says which pilot made it), and matches of greedy against random
    are a group of their own (``mixes``: kept; a table of SAME_PILOTS_ONLY leaves them out). Each
    block is one game and card set (``pilot_groups``), named in ``game`` and ``card_set`` columns
    where the table does not say them. ``seats``: a block is the seats of one label ("greedy vs
    random": greedy's seats against random), else the runs of one mix ("greedy+random", for a
    table that splits by its seats' pilots itself, which keeps its ``pilot`` and gains
    ``match_pilots``, the group's). A pilot name that thought with two weight files in a block's
    runs is refused in one line (LookupError), as ``workbench report`` refuses it and the pages
    warn of it (reports/pilot_weights.py): pooled, two pilots' play reads as one's. No run chosen:
    the table's empty header."""
    groups = pilot_groups(path, filters, seats, notes)
    if not mixes:
        groups = [g for g in groups if "+" not in (g.pilots or "")] or [Group(None, None, None, replace(filters, runs=[-1]))]
    for group in groups:
        refuse_reweighted(path, group)
    frames = [table(path, group.filters) for group in groups]
    column = "match_pilots" if "pilot" in frames[0].columns else "pilot"
    return pl.concat([headed(f, column, group) for f, group in zip(frames, groups)], how="diagonal_relaxed")


def refuse_reweighted(path: Path, group: Group) -> None:
    """A block whose runs seated one pilot name that thought with two weight files: one line."""
    runs = [r for r in group.filters.runs if r >= 0]
    names = pilot_weights.reweighted_pilots(path, runs) if len(runs) > 1 else []
    if names:
        raise LookupError(f"{', '.join(names)} thought with other weight files in some of runs "
                          f"{', '.join(map(str, runs))} (the game's weights changed between them): the "
                          f"{group.pilots} figures would pool two pilots' play under one name; name the runs "
                          "of one weight set with --run")


def headed(frame: pl.DataFrame, column: str, group: Group) -> pl.DataFrame:
    """``frame`` with its block's pilots first, and its game and card set where it does not say
    them itself (a table of no columns, nothing to show, stays empty)."""
    said = [pl.lit(group.pilots, dtype=pl.Utf8).alias(column)]
    said += [pl.lit(value, dtype=pl.Utf8).alias(name) for name, value in (("game", group.game),
                                                                        ("card_set", group.card_set))
             if name not in frame.columns and not (name == "card_set" and "rules_version" in frame.columns)]
    # head(height): a table of no columns (nothing to show) stays empty, not a row of its label alone
    return frame.select(*said, pl.all()).head(frame.height)
