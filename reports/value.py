"""What each card adds to its deck, measured by intervention (``workbench value``): the deck as
written against the same deck with the card's copies replaced by a vanilla reference card, on the
same seeds and seats. The store table ``card_value`` holds one row per card and measurement; this
module reads it (the latest measurement per card by default) and draws its ranking.

Columns (reports/METRICS.md): ``value_points`` = wr_with - wr_without in percentage points over
the ``twins`` (paired match x seat rows), ``value_lo``/``value_hi`` its paired 95% interval,
``p_value`` McNemar's test (the interval leaves out 0 exactly when it is below 0.05: reports/stats.py
``paired_rate_intervals``), ``q_value`` Benjamini-Hochberg over the cards of the measurement.
"""
from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import polars as pl

from reports import db

# The reader's contract with the store table (workbench/store.py); the leading columns are the
# export's, in the order a spreadsheet shows them.
SCHEMA = {
    "game": pl.Utf8, "rules_version": pl.Utf8, "deck": pl.Utf8, "card": pl.Utf8, "name": pl.Utf8,
    "copies": pl.Int32, "twins": pl.Int32, "value_points": pl.Float64, "value_lo": pl.Float64,
    "value_hi": pl.Float64, "p_value": pl.Float64, "q_value": pl.Float64, "significant": pl.Boolean,
    "wr_with": pl.Float64, "wr_without": pl.Float64, "reference": pl.Utf8, "against": pl.Utf8, "pilots": pl.Utf8,
    "value_id": pl.Int32, "base_run": pl.Int32, "variant_run": pl.Int32, "rules_hash": pl.Utf8,
    "created_at": pl.Datetime("us"),
}
COLUMNS = tuple(SCHEMA)
# one measured quantity: a card of a deck, under a rules version's card set (its hash: a version of
# one name in two data folders, or edited between two measurements, is two card sets), against an
# opponent, by pilots
MEASURED = ("game", "rules_version", "rules_hash", "deck", "card", "against", "pilots")
# a ranking: the cards measured together in one context (one ranking mixed an edited 6/6 Gunhand
# with the shipped cards when the hash was left out)
CONTEXT = ("game", "rules_version", "rules_hash", "deck", "against", "pilots")

SIGNIFICANT_UP, SIGNIFICANT_DOWN, UNSURE = "#d62728", "#1f77b4", "#9e9e9e"
# what the figure is, and how its bars are coloured, in the words the page and the report share
MEANING = ("the deck with the card minus the same deck with the card's copies replaced by a vanilla reference "
           "card of the same cost, on the same seeds and seats")
COLOURS = ("red: the card adds significantly, blue: it costs significantly, grey: not told apart from the "
           "reference (Benjamini-Hochberg over the measurement's cards)")


def _where(game: str | None, versions, decks) -> tuple[str, list]:
    clauses, params = [], []
    for column, values in (("game", [game] if game else []), ("rules_version", versions or []),
                           ("deck", decks or [])):
        if values:
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def card_values(path: str | Path, game: str | None = None, versions: list[str] | None = None,
                decks: list[str] | None = None, latest: bool = True) -> pl.DataFrame:
    """Rows of ``card_value``, ranked by value_points (best first) within each deck, against and
    pilots. ``latest``: only the newest measurement (highest value_id) of each card in its
    context, so a re-measured card is counted once. An older store without the table gives an
    empty frame with the same columns."""
    if not db.has_tables(path, "card_value"):
        return pl.DataFrame(schema=SCHEMA)
    where, params = _where(game, versions, decks)
    newest = f"QUALIFY row_number() OVER (PARTITION BY {', '.join(MEASURED)} ORDER BY value_id DESC) = 1" \
        if latest else ""
    frame = db.query(path, f"""
        SELECT * FROM (SELECT {', '.join(_select(c) for c in COLUMNS)} FROM card_value {where} {newest})
        ORDER BY {', '.join(CONTEXT)}, value_points DESC NULLS LAST, card, value_id DESC""", params or None)
    return frame.cast(SCHEMA)


def _select(column: str) -> str:
    """A card without twins has NaN rates; as NULL it ranks last and reads as empty, not "nan"."""
    if SCHEMA[column] != pl.Float64:
        return column
    return f"CASE WHEN isnan({column}) THEN NULL ELSE {column} END AS {column}"


def contexts(values: pl.DataFrame) -> list[dict]:
    """The rankings in a frame of card values: one dict of CONTEXT columns each, in order."""
    return values.select(CONTEXT).unique(maintain_order=True).to_dicts()


def in_context(values: pl.DataFrame, context: dict) -> pl.DataFrame:
    return values.filter(*(pl.col(k) == v for k, v in context.items()))


def context_title(context: dict, card_set: bool = False) -> str:
    """Every balance figure says which pilot produced it; ``card_set``: and which card set, when the
    rules version was measured with more than one (``card_sets``)."""
    against = "the field" if context["against"] == "field" else context["against"]
    version = context["rules_version"] + (f", card set {context['rules_hash'][:8]}" if card_set else "")
    return f"{context['deck']} against {against}, piloted by {context['pilots']} ({version})"


def seating(decks: str, pilots: str) -> dict[str, frozenset]:
    """A run's pilots by deck (``decks`` and ``pilots`` as the runs table has them, one per slot;
    a mirror's deck may have two)."""
    seated: dict[str, set] = {}
    for deck, pilot in zip(decks.split(","), pilots.split(",")):
        seated.setdefault(deck, set()).add(pilot)
    return {deck: frozenset(p) for deck, p in seated.items()}


def seating_words(seated: dict[str, frozenset]) -> str:
    """A run's pilots as a title says them: the one pilot, or each deck's ("lawmen-posse: greedy;
    goblin-gold-gang: random") when the decks had different pilots."""
    pilots = sorted(set().union(*seated.values()))
    if len(pilots) == 1:
        return pilots[0]
    return "; ".join(f"{deck}: {', '.join(sorted(p))}" for deck, p in seated.items())


def measured_seatings(path: str | Path, values: pl.DataFrame) -> dict[int, dict[str, frozenset]]:
    """The pilots by deck of each measurement's base run still in the store (``seating``): the
    stored ``pilots`` ("greedy,random") do not say which deck had which."""
    runs = sorted(set(values["base_run"].drop_nulls()))
    if not runs:
        return {}
    rows = db.query(path, f"SELECT run_id, decks, pilots FROM runs WHERE run_id IN ({', '.join('?' for _ in runs)})", runs)
    return {r: seating(d, p) for r, d, p in rows.iter_rows()}


def pilot_words(path: str | Path, values: pl.DataFrame) -> str:
    """The pilots of one context's measurements as a title says them (``seating_words`` of its
    newest base run still stored), else the stored ``pilots``."""
    seated = measured_seatings(path, values)
    newest = values.sort("created_at", descending=True)
    for run in newest["base_run"]:
        if run in seated:
            return seating_words(seated[run])
    return newest["pilots"][0]


def card_sets(values: pl.DataFrame) -> set[str]:
    """The rules versions of ``values`` measured under more than one card set (rules hash)."""
    counts = values.group_by("rules_version").agg(pl.col("rules_hash").n_unique().alias("n"))
    return set(counts.filter(pl.col("n") > 1)["rules_version"].to_list())


def bar_colour(row: dict) -> str:
    if not row["significant"]:
        return UNSURE
    return SIGNIFICANT_UP if row["value_points"] > 0 else SIGNIFICANT_DOWN


def value_chart(ranking: pl.DataFrame, title: str) -> go.Figure:
    """One context's ranking as horizontal bars of value_points with their paired 95% interval,
    the best card on top; coloured by significance after BH (red adds, blue costs, grey unsure)."""
    rows = [r for r in ranking.to_dicts() if r["value_points"] is not None]
    labels = [f"{r['name']} ×{r['copies']} (n={r['twins']:,})" for r in rows]
    fig = go.Figure(go.Bar(
        x=[r["value_points"] for r in rows], y=labels, orientation="h",
        marker={"color": [bar_colour(r) for r in rows]},
        error_x={"type": "data", "symmetric": False, "color": "#333333",
                 "array": [_gap(r["value_hi"], r["value_points"]) for r in rows],
                 "arrayminus": [_gap(r["value_points"], r["value_lo"]) for r in rows]},
        customdata=[[r["value_lo"], r["value_hi"], r["twins"], r["copies"], r["reference"], r["q_value"]]
                    for r in rows],
        hovertemplate="%{y}<br>win rate added %{x:+.1f} pts (95% CI %{customdata[0]:+.1f} to "
                      "%{customdata[1]:+.1f})<br>%{customdata[2]:,} twins, %{customdata[3]} copies replaced by "
                      "%{customdata[4]}<br>q (BH) = %{customdata[5]:.3g}<extra></extra>"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(title=title, xaxis_title="Win rate added (points, paired 95% interval)", yaxis_title="",
                      height=max(300, 26 * len(rows) + 160),
                      yaxis={"categoryorder": "array", "categoryarray": labels[::-1]})
    return fig


def _gap(a, b) -> float:
    """An error-bar length; 0 where the interval is unknown."""
    return 0.0 if a is None or b is None else a - b
