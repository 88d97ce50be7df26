"""What moved between two runs played on the same seeds: the alerts of a nightly batch.

A deck (or the first seat) alerts when its paired win-rate change is at least the threshold and
McNemar's test rejects at 5%; a card when diff's attribution (the slope of the twins' change on
how often a card where its first copy lay gets played, in points at full dose, see
reports/attribution.py) is at least the threshold and flagged in its Benjamini-Hochberg family at the batch's false discovery
rate (the cards the candidate changed form their own family; a deck's own move is the deck's
alert, not one alert per card in it); a keyword when the win rate of seats that played it
moved beyond their decks' own move by at least the threshold and the 95% interval of that
change (Newcombe, the two runs taken as independent samples) excludes zero
(``keyword_changes``)."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports.diff import version_diff
from reports.filters import Filters
from reports.keywords import SEAT_COLUMNS
from reports.stats import diff_interval

COLUMNS = ["comparison", "kind", "name", "pilots", "base_run", "candidate_run", "change_points", "low_points",
           "high_points", "p_or_q", "threshold_points"]
TEXT = ("comparison", "kind", "name", "pilots")


def schema() -> dict:
    """The alert rows' columns and types (an empty table has the same header as a full one)."""
    return {c: (pl.Utf8 if c in TEXT else pl.Int64 if c.endswith("_run") else pl.Float64) for c in COLUMNS}


def alerts(path: str | Path, base_run: int, candidate_run: int, threshold_points: float, fdr: float,
           comparison: str) -> tuple[pl.DataFrame, dict]:
    """(alert rows, the diff) between two twin runs."""
    t = threshold_points / 100.0
    diff = version_diff(path, base_run, candidate_run, fdr)
    rows = []

    def add(kind, name, change, lo, hi, p):
        rows.append({"comparison": comparison, "kind": kind, "name": name, "pilots": diff["pilots"], "base_run": base_run,
                     "candidate_run": candidate_run, "change_points": round(change * 100, 2),
                     "low_points": round(lo * 100, 2), "high_points": round(hi * 100, 2), "p_or_q": p,
                     "threshold_points": threshold_points})

    for d in diff["decks"].iter_rows(named=True):
        if abs(d["change"]) >= t and d["mcnemar_p"] < 0.05:
            add("deck", d["deck"], d["change"], d["change_lo"], d["change_hi"], d["mcnemar_p"])
    cards = diff["cards"]
    if not cards.is_empty():
        for c in cards.filter(pl.col("flagged")).iter_rows(named=True):
            if abs(c["effect_points"]) >= threshold_points:  # the attribution, already in points
                add("card", c["card"], c["effect_points"] / 100, c["effect_lo"] / 100, c["effect_hi"] / 100, c["q_value"])
    for k in keyword_changes(path, base_run, candidate_run).iter_rows(named=True):
        if abs(k["change"]) >= t and (k["change_lo"] > 0 or k["change_hi"] < 0):
            add("keyword", k["keyword"], k["change"], k["change_lo"], k["change_hi"], float("nan"))
    return pl.DataFrame(rows, schema=schema()), diff


def keyword_changes(path: str | Path, base_run: int, candidate_run: int) -> pl.DataFrame:
    """Per keyword, between two runs: the change of the win rate of seats that played it *beyond
    its decks' own move*. A seat's expected rate is its deck's win rate in its run; the keyword's
    excess is the played seats' rate minus their expected rate, and ``change`` is the candidate's
    excess minus the base's. Without the decks taken out, every keyword of a deck that moved
    moved with it (15 of 19 alerts of one night were keywords of no changed card). The interval
    is Newcombe's for the played seats' two rates (the runs taken as independent), shifted by the
    decks' move; the deck rates, read from every seat of the deck, count as known."""
    from reports.keywords import exposures

    empty = pl.DataFrame(schema={"keyword": pl.Utf8, "change": pl.Float64, "change_lo": pl.Float64,
                                 "change_hi": pl.Float64})
    runs = [exposures(path, Filters(runs=[r])) for r in (base_run, candidate_run)]
    if any(d.is_empty() for d in runs):
        return empty
    keywords = sorted(set.intersection(*(set(d.columns) - set(SEAT_COLUMNS) for d in runs)))
    per_run = []
    for data in runs:
        won = data["won"].cast(pl.Float64).to_numpy()
        expected = data.select(pl.col("won").cast(pl.Float64).mean().over("deck")).to_series().to_numpy()
        per_run.append({kw: (int(won[e].sum()), int(e.sum()), float(expected[e].mean()))
                        for kw in keywords if (e := data[kw].to_numpy() > 0).any()})
    (b, c) = per_run
    shared = [kw for kw in keywords if kw in b and kw in c]
    if not shared:
        return empty
    k_b, n_b, x_b = (pl.Series([b[kw][i] for kw in shared]) for i in range(3))
    k_c, n_c, x_c = (pl.Series([c[kw][i] for kw in shared]) for i in range(3))
    lo, hi = diff_interval(k_c, n_c, k_b, n_b)
    moved = x_c - x_b  # the decks' own move, as these seats' decks weigh it
    change = (k_c / n_c - k_b / n_b) - moved
    return pl.DataFrame({"keyword": shared, "change": change, "change_lo": pl.Series(lo) - moved,
                         "change_hi": pl.Series(hi) - moved})


def mode_alerts(path: str | Path, base_run: int, candidate_run: int, threshold_points: float, comparison: str,
                mode: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(alert rows, the deck table) between two runs of a free-for-all, series or Turf Defense
    suite: each deck's win share (placed first) or series win rate, or each boss's clear rate
    (kind ``boss``), candidate minus base, with Newcombe's
    interval for two independent proportions (the seats of a free-for-all and the later games of
    a series are not twins across versions, so the duel's paired test does not apply). An alert
    when the change is at least the threshold and its interval leaves out zero. A row is a deck (or
    boss) and its pilots (``MODE_PILOTS``: the deck's and its opponent's in a series, the deck's and
    its table's in a free-for-all, the partners' and the boss's in Turf Defense), and each alert
    names them in ``pilots`` (``row_pilots``)."""
    from reports import ffa, series, turf
    from reports.stats import diff_interval

    keys = ["deck", *MODE_PILOTS[mode]]
    if mode == "turf":  # a boss's clear rate, filed under its name in the deck column
        figures = [turf.turf_bosses(path, [r]).select(deck=pl.col("boss"), partner_pilots=pl.col("partner_pilots"),
                                                      boss_pilot=pl.col("boss_pilot"), k=pl.col("clears"),
                                                      n=pl.col("matches"))
                   for r in (base_run, candidate_run)]
    elif mode == "ffa":
        figures = [ffa.ffa_decks(path, [r]).select("deck", "pilot", "table_pilots", k=pl.col("firsts"), n=pl.col("seats"))
                   for r in (base_run, candidate_run)]
    else:
        figures = [series.series_decks(path, [r]).select("deck", "pilot", "opponent_pilot", k=pl.col("series_won"),
                                                         n=pl.col("series"))
                   for r in (base_run, candidate_run)]
    # per deck and pilots, as the mode tables split them: a deck's series against greedy and against
    # random are two figures, never one rate neither pilot produced
    both = figures[0].group_by(keys).agg(pl.col("k", "n").sum()).join(
        figures[1].group_by(keys).agg(pl.col("k", "n").sum()), on=keys, suffix="_new").sort(keys)
    lo, hi = diff_interval(both["k_new"], both["n_new"], both["k"], both["n"])
    decks = both.with_columns(rate=pl.col("k") / pl.col("n"), rate_new=pl.col("k_new") / pl.col("n_new")).with_columns(
        change=pl.col("rate_new") - pl.col("rate"), change_lo=pl.Series(lo), change_hi=pl.Series(hi))
    t = threshold_points / 100.0
    rows = [{"comparison": comparison, "kind": "boss" if mode == "turf" else "deck", "name": d["deck"],
             "pilots": row_pilots(mode, d), "base_run": base_run,
             "candidate_run": candidate_run, "change_points": round(d["change"] * 100, 2),
             "low_points": round(d["change_lo"] * 100, 2), "high_points": round(d["change_hi"] * 100, 2),
             "p_or_q": float("nan"), "threshold_points": threshold_points}
            for d in decks.iter_rows(named=True)
            if abs(d["change"]) >= t and (d["change_lo"] > 0 or d["change_hi"] < 0)]
    return pl.DataFrame(rows, schema=schema()), decks


# the pilot columns a mode's diff rows split by (as reports/series, ffa and turf split their tables)
MODE_PILOTS = {"series": ("pilot", "opponent_pilot"), "ffa": ("pilot", "table_pilots"),
               "turf": ("partner_pilots", "boss_pilot")}


def row_pilots(mode: str, row: dict) -> str:
    """Who played a mode diff's row, in words: "greedy against random" (series), "random at tables of
    greedy,random" (free-for-all), "partners random, boss greedy" (Turf Defense)."""
    if mode == "turf":
        return f"partners {row['partner_pilots']}, boss {row['boss_pilot']}"
    if mode == "ffa":
        return f"{row['pilot']} at tables of {row['table_pilots']}"
    return f"{row['pilot']} against {row['opponent_pilot']}"
