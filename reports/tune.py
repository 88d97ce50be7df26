"""Rebalancing proposals (``workbench tune``): the figures its search reads, and its stored results.

The search measures a deck's *field win rate*: its wins over every match x seat it played
against the other decks of the field (both seats; a draw is not a win). A candidate version is
played only on the pairings whose decks hold a changed card; every other pairing plays the same
matches under both versions (same seeds, same decks, no changed card), so a candidate's figures
are read from *parts*: (run, pairing) pairs, some from the candidate's runs and the rest from the
runs it shares with the version it came from. ``paired_field`` pairs two sets of parts twin by
twin (the same seed, seat, deck and opponent), which is what makes a candidate cheap to judge.

The store tables ``tune``, ``tune_changes``, ``tune_decks``, ``tune_steps`` and ``tune_values``
(workbench/STORE.md) are read by ``proposals`` and ``proposal_table`` for the Rebalancing page and
the HTML report."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.stats import paired_rate_interval, rate, wilson

TABLES = ("tune", "tune_changes", "tune_decks", "tune_steps", "tune_values")
# what a proposal's numbers mean, in the words the page and the report share
MEANING = ("each deck's field win rate: its wins over all its matches against the other decks of the field, "
           "both seats, draws not won")
VERIFIED = ("before and after are a fresh paired run on seeds the search never saw: the starting version and the "
            "proposal play the same seeds from both seats")

_ROWS_SQL = """
SELECT a.deck, b.deck AS opponent, m.seed, a.seat, (a.result = 'win')::INTEGER AS win
FROM (VALUES {values}) AS p(run_id, pairing)
JOIN matches m ON m.run_id = p.run_id AND m.pairing = p.pairing
JOIN match_seats a ON a.run_id = m.run_id AND a.match_no = m.match_no
JOIN match_seats b ON b.run_id = m.run_id AND b.match_no = m.match_no AND b.seat <> a.seat
WHERE a.deck <> b.deck
ORDER BY a.deck, b.deck, m.seed, a.seat"""

_PLAYS_SQL = """
WITH seats AS (
    SELECT ms.run_id, ms.match_no, ms.seat, ms.deck, ms.result = 'win' AS won
    FROM (VALUES {values}) AS p(run_id, pairing)
    JOIN matches m ON m.run_id = p.run_id AND m.pairing = p.pairing
    JOIN match_seats ms ON ms.run_id = m.run_id AND ms.match_no = m.match_no),
totals AS (SELECT deck, count(*)::BIGINT AS deck_games, count_if(won)::BIGINT AS deck_won FROM seats GROUP BY deck)
SELECT s.deck, cg.card, any_value(t.deck_games) AS deck_games, any_value(t.deck_won) AS deck_won,
       count_if(cg.played > 0)::BIGINT AS played_games, count_if(cg.played > 0 AND s.won)::BIGINT AS played_won
FROM seats s
JOIN card_games cg ON cg.run_id = s.run_id AND cg.match_no = s.match_no AND cg.seat = s.seat
JOIN totals t ON t.deck = s.deck
GROUP BY ALL ORDER BY ALL"""


def _values(parts) -> tuple[str, list]:
    parts = sorted(set((int(r), int(p)) for r, p in parts))
    if not parts:
        raise ValueError("no runs to read")
    return ", ".join("(?, ?)" for _ in parts), [x for part in parts for x in part]


def seat_rows(path: str | Path, parts) -> pl.DataFrame:
    """One row per match x seat of the parts ((run id, pairing index in that run)), mirrors left
    out: deck, opponent, seed, seat, win (0/1)."""
    values, params = _values(parts)
    return db.query(path, _ROWS_SQL.format(values=values), params)


def field_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per deck of ``seat_rows``: games, won, win_rate and its 95% Wilson interval."""
    per = rows.group_by("deck").agg(pl.len().alias("games"), pl.col("win").sum().alias("won")).sort("deck")
    lo, hi = wilson(per["won"], per["games"])
    return per.with_columns(pl.Series("win_rate", rate(per["won"], per["games"])), pl.Series("win_rate_lo", lo),
                            pl.Series("win_rate_hi", hi))


def paired_field(before: pl.DataFrame, after: pl.DataFrame) -> pl.DataFrame:
    """Per deck, the twins of two ``seat_rows`` frames (same deck, opponent, seed and seat): win
    rates before and after over the twins, the paired change and its 95% interval (0..1)."""
    keys = ["deck", "opponent", "seed", "seat"]
    j = before.join(after, on=keys, suffix="_after")
    out = []
    for (deck,), part in j.group_by(["deck"], maintain_order=True):
        mean, lo, hi = paired_rate_interval(part["win"].to_numpy(), part["win_after"].to_numpy())
        out.append({"deck": deck, "twins": part.height, "wr_before": float(part["win"].mean()),
                    "wr_after": float(part["win_after"].mean()), "change": mean, "change_lo": lo, "change_hi": hi})
    return pl.DataFrame(out, schema={"deck": pl.Utf8, "twins": pl.Int64, "wr_before": pl.Float64,
                                     "wr_after": pl.Float64, "change": pl.Float64, "change_lo": pl.Float64,
                                     "change_hi": pl.Float64}).sort("deck")


def card_plays(path: str | Path, parts) -> pl.DataFrame:
    """Per deck and card of the parts: the deck's games and wins (all of them: a card beside the
    deck, such as a Frontier Deputy, has a row only in games it was played in), the games the card
    was played in and the wins among them."""
    values, params = _values(parts)
    return db.query(path, _PLAYS_SQL.format(values=values), params)


# --- stored proposals -------------------------------------------------------------------------

def proposals(path: str | Path, game: str | None = None) -> pl.DataFrame:
    """Every stored proposal, newest first (an empty frame on a store without any)."""
    if not db.has_tables(path, "tune"):
        return pl.DataFrame()
    where, params = ("WHERE game = ?", [game]) if game else ("", None)
    return db.query(path, f"SELECT * FROM tune {where} ORDER BY tune_id DESC", params)


def proposal_table(path: str | Path, table: str, tune_id: int) -> pl.DataFrame:
    """The rows of one of a proposal's tables (``tune_changes``, ``tune_decks``, ``tune_steps``,
    ``tune_values``) in their order."""
    if table not in TABLES[1:]:
        raise ValueError(f"not a proposal table: {table}")
    if not db.has_tables(path, table):
        return pl.DataFrame()
    order = {"tune_changes": "change_no", "tune_decks": "deck", "tune_steps": "round, step, candidate_no",
             "tune_values": "number"}[table]
    return db.query(path, f"SELECT * FROM {table} WHERE tune_id = ? ORDER BY {order}", [tune_id])


def change_text(row: dict) -> str:
    """``card field before -> after`` for a change row."""
    return f"{row['card']} {row['field']} {row['before']} -> {row['after']}"


def spread(decks: pl.DataFrame, column: str) -> tuple[float, float]:
    """The lowest and highest of a deck column (0..1), NaN for none."""
    values = decks[column].drop_nulls().to_numpy() if decks.height else np.array([])
    return (float(values.min()), float(values.max())) if values.size else (math.nan, math.nan)
