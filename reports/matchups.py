"""Deck-vs-deck matchups: the row deck's win rate against the column deck, with its 95% Wilson
interval and sample size, over two-seat matches (mirror matches count for both sides).

Over every run the filters keep, whatever its rules version: narrow them to one (``versions``,
or the runs of one card set) to read a matchup under one set of rules. The Matchups page warns,
naming them, when the counted runs hold several (``cards.counted_card_sets``)."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db
from reports.examples import by_key
from reports.filters import Filters
from reports.stats import rate, wilson


def matchups(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per deck and opponent: matches, wins, draws, win rate with Wilson, an example match; the
    runs the filters keep pooled, whatever their rules versions."""
    filters = filters or Filters()
    where, params = filters.where("r", "a")
    frame = db.query(path, f"""
        SELECT a.deck, b.deck AS opponent, count(*) AS games,
               count(*) FILTER (WHERE a.result = 'win') AS won,
               count(*) FILTER (WHERE a.result = 'draw') AS drawn,
               min(a.run_id::BIGINT * 1000000000 + a.match_no) AS example_key
        FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat
        JOIN runs r ON r.run_id = a.run_id
        {where}
        GROUP BY ALL ORDER BY ALL""", params or None)
    lo, hi = wilson(frame["won"], frame["games"])
    return frame.with_columns(
        pl.Series("win_rate", rate(frame["won"], frame["games"])), pl.Series("win_rate_lo", lo),
        pl.Series("win_rate_hi", hi),
        ("r" + (pl.col("example_key") // 1_000_000_000).cast(pl.Utf8) + "-m"
         + (pl.col("example_key") % 1_000_000_000).cast(pl.Utf8)).alias("example")
    ).drop("example_key")


def deck_field(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Each deck's win rate against the whole field (every opponent pooled)."""
    m = matchups(path, filters)
    if m.is_empty():
        return m
    field = m.filter(pl.col("deck") != pl.col("opponent")).group_by("deck").agg(
        pl.col("games").sum(), pl.col("won").sum(), pl.col("drawn").sum()).sort("deck")
    lo, hi = wilson(field["won"], field["games"])
    examples = by_key(path, filters or Filters(), "deck").rename({"key": "deck"})
    return field.with_columns(pl.Series("win_rate", rate(field["won"], field["games"])),
                              pl.Series("win_rate_lo", lo), pl.Series("win_rate_hi", hi)
                              ).join(examples, on="deck", how="left")
