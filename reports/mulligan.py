"""Keep or redraw: what a card's games were when the shuffle dealt it in the opening hand and its
seat kept that hand, against those where the seat sent the hand back (AlleyWay's redraw).

Read from ``card_games.in_dealt_hand`` (copies in the hand as first dealt, before any redraw) and
``redrew`` (NULL for a seat never offered a redraw: a game without one), which the farm writes
from the card ledger; stores from before those columns have none, and every function here then
answers with its empty table. Only seats that were offered the choice are counted.

The choice is the pilot's, about the whole hand, so the two win rates compare hands the pilot
judged differently, not the card alone: a card kept more often than its deck's hands (its keep
rate against the deck's) is one the pilot likes to start with; a kept win rate far above the
redrawn one says its hands were worth keeping, which includes the rest of the hand.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.filters import Filters
from reports.stats import diff_interval, rate, wilson

# the card_games columns these figures need; a store from before them lacks both
RECORDED = ("in_dealt_hand", "redrew")

CARD_COUNTS = ("kept_games", "kept_won", "redrawn_games", "redrawn_won")
CARD_COLUMNS = ("dealt_games", "kept_games", "kept_won", "kept_wr", "kept_wr_lo", "kept_wr_hi", "redrawn_games",
                "redrawn_won", "redrawn_wr", "redrawn_wr_lo", "redrawn_wr_hi", "keep_rate", "keep_rate_lo",
                "keep_rate_hi", "kept_minus_redrawn", "kept_minus_redrawn_lo", "kept_minus_redrawn_hi")
DECK_COLUMNS = ("seats", "offered", "kept", "keep_rate", "keep_rate_lo", "keep_rate_hi", "kept_won", "kept_wr",
                "kept_wr_lo", "kept_wr_hi", "redrawn", "redrawn_won", "redrawn_wr", "redrawn_wr_lo",
                "redrawn_wr_hi")

_CARD_SQL = """
SELECT r.game, cg.card, {deck} any_value(c.name) AS name,
       count_if(NOT cg.redrew) AS kept_games, count_if(NOT cg.redrew AND cg.won) AS kept_won,
       count_if(cg.redrew) AS redrawn_games, count_if(cg.redrew AND cg.won) AS redrawn_won
FROM card_games cg
JOIN runs r ON r.run_id = cg.run_id
LEFT JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
{where}
GROUP BY ALL
ORDER BY ALL
"""

_DECK_SQL = """
SELECT r.game, s.deck, count(*) AS seats, count(s.redrew) AS offered,
       count_if(NOT s.redrew) AS kept, count_if(NOT s.redrew AND s.result = 'win') AS kept_won,
       count_if(s.redrew) AS redrawn, count_if(s.redrew AND s.result = 'win') AS redrawn_won
FROM match_seats s
JOIN runs r ON r.run_id = s.run_id
{where}
GROUP BY ALL
ORDER BY ALL
"""


def recorded(path: str | Path) -> bool:
    """The store has the columns (made, or last written, by a workbench that records dealt hands)."""
    found = db.query(path, "SELECT table_name, column_name FROM information_schema.columns "
                           "WHERE table_name IN ('card_games', 'match_seats')")
    have = set(zip(found["table_name"], found["column_name"]))
    return {("card_games", c) for c in RECORDED} | {("match_seats", "redrew")} <= have


def _where(filters: Filters, seat_alias: str, *conditions: str) -> tuple[str, list]:
    where, params = filters.where("r", seat_alias)
    clauses = ([where.removeprefix("WHERE ")] if where else []) + list(conditions)
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def card_mulligan(path: str | Path, filters: Filters | None = None, by_deck: bool = False) -> pl.DataFrame:
    """Per game and card (and deck, ``by_deck``): the seats dealt it in the opening hand that were
    offered a redraw, split into those that kept the hand and those that redrew, each with its
    win rate and 95% Wilson interval; the keep rate; the kept minus the redrawn win rate in points
    with its Newcombe interval (``with_mulligan_rates``). Empty on a store without the columns."""
    keys = ["game", "card", *(["deck"] if by_deck else []), "name"]
    if not recorded(path):
        return empty_card_table(keys)
    where, params = _where(filters or Filters(), "cg", "cg.in_dealt_hand > 0", "cg.redrew IS NOT NULL")
    counts = db.query(path, _CARD_SQL.format(deck="cg.deck," if by_deck else "", where=where), params or None)
    return with_mulligan_rates(counts).select(*keys, *CARD_COLUMNS)


def empty_card_table(keys: list[str]) -> pl.DataFrame:
    counts = pl.DataFrame(schema={**{k: pl.Utf8 for k in keys}, **{c: pl.Int64 for c in CARD_COUNTS}})
    return with_mulligan_rates(counts).select(*keys, *CARD_COLUMNS)


def with_mulligan_rates(counts: pl.DataFrame) -> pl.DataFrame:
    """``counts`` (kept_games, kept_won, redrawn_games, redrawn_won per row) with the rates:
    kept and redrawn win rates (0..1) with Wilson intervals, ``dealt_games`` and the keep rate
    (kept / dealt, Wilson), and ``kept_minus_redrawn``: the win-rate difference in percentage
    points with its 95% Newcombe interval (NaN when either side has no games)."""
    counts = counts.with_columns(pl.col(CARD_COUNTS).cast(pl.Int64))  # DuckDB's count_if arrives as a decimal
    kept, kept_won = counts["kept_games"].to_numpy(), counts["kept_won"].to_numpy()
    redrawn, redrawn_won = counts["redrawn_games"].to_numpy(), counts["redrawn_won"].to_numpy()
    dealt = kept + redrawn
    kept_wr, redrawn_wr = rate(kept_won, kept), rate(redrawn_won, redrawn)
    both = (kept > 0) & (redrawn > 0)
    difference = np.where(both, (kept_wr - redrawn_wr) * 100, np.nan)
    diff_lo, diff_hi = diff_interval(kept_won, kept, redrawn_won, redrawn)
    return counts.with_columns(
        pl.Series("dealt_games", dealt, dtype=pl.Int64),
        *_rate_columns("kept_wr", kept_won, kept), *_rate_columns("redrawn_wr", redrawn_won, redrawn),
        *_rate_columns("keep_rate", kept, dealt),
        pl.Series("kept_minus_redrawn", difference, dtype=pl.Float64),
        pl.Series("kept_minus_redrawn_lo", diff_lo * 100, dtype=pl.Float64),
        pl.Series("kept_minus_redrawn_hi", diff_hi * 100, dtype=pl.Float64))


def _rate_columns(name: str, successes, trials) -> list[pl.Series]:
    lo, hi = wilson(successes, trials)
    return [pl.Series(name, rate(successes, trials), dtype=pl.Float64), pl.Series(f"{name}_lo", lo, dtype=pl.Float64),
            pl.Series(f"{name}_hi", hi, dtype=pl.Float64)]


def deck_mulligan(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per game and deck, over its seats (``match_seats``): how many were offered a redraw, the
    keep rate with its Wilson interval, and the win rate after keeping and after redrawing.
    Empty on a store without the columns."""
    if not recorded(path):
        counts = pl.DataFrame(schema={"game": pl.Utf8, "deck": pl.Utf8, **{c: pl.Int64 for c in (
            "seats", "offered", "kept", "kept_won", "redrawn", "redrawn_won")}})
    else:
        where, params = _where(filters or Filters(), "s")
        counts = db.query(path, _DECK_SQL.format(where=where), params or None).with_columns(
            pl.col("seats", "offered", "kept", "kept_won", "redrawn", "redrawn_won").cast(pl.Int64))
    kept, offered = counts["kept"].to_numpy(), counts["offered"].to_numpy()
    return counts.with_columns(
        *_rate_columns("keep_rate", kept, offered), *_rate_columns("kept_wr", counts["kept_won"].to_numpy(), kept),
        *_rate_columns("redrawn_wr", counts["redrawn_won"].to_numpy(), counts["redrawn"].to_numpy()),
    ).select("game", "deck", *DECK_COLUMNS)


def hand_records(path: str | Path, filters: Filters | None = None) -> dict:
    """What the filters' matches record of opening-hand choices: ``card_rows`` (card_games rows
    counted) and ``unrecorded`` (of them, rows stored before dealt hands were: every row of a
    store without the columns); ``seats``, ``offered`` (seats offered a redraw) and ``redrew``."""
    filters = filters or Filters()
    have = recorded(path)
    where, params = filters.where("r", "cg")
    dealt = "count(cg.in_dealt_hand)" if have else "0"
    rows = db.query(path, f"""SELECT count(*) AS card_rows, count(*) - {dealt} AS unrecorded
                              FROM card_games cg JOIN runs r ON r.run_id = cg.run_id {where}""", params or None)
    where, params = filters.where("r", "s")
    offered = "count(s.redrew) AS offered, count_if(s.redrew) AS redrew" if have else "0 AS offered, 0 AS redrew"
    seats = db.query(path, f"""SELECT count(*) AS seats, {offered}
                               FROM match_seats s JOIN runs r ON r.run_id = s.run_id {where}""", params or None)
    return {k: int(v or 0) for k, v in {**rows.row(0, named=True), **seats.row(0, named=True)}.items()}
