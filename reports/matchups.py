"""Deck-vs-deck matchups: the row deck's win rate against the column deck, with its 95% Wilson
interval and sample size (mirror matches count for both sides). A seat's opponents are the seats
of other teams: in a duel the other seat, at a free-for-all table every other seat, in Turf Defense
the boss for each partner (a partner is never its teammate's opponent).

Each row names the pilot that played its deck (``pilot``) and the one that played the opponent
(``opponent_pilot``), and no row pools matches of other pilots: in a run of greedy's deck against
random's (``--pilots greedy,random``: one pilot per deck slot), or runs of several pilots counted
together, a deck's win rate pooled over its pilots measured the pilots as much as the deck.

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

PILOT_COLUMNS = ("pilot", "opponent_pilot")
# what a row of the field is: a deck as one pilot played it against the decks one pilot played
FIELD_KEYS = ["deck", "pilot", "opponent_pilot"]


def matchups(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per deck, its pilot, opponent and the opponent's pilot: matches, wins, draws, win rate with
    Wilson, an example match; the runs the filters keep pooled, whatever their rules versions,
    but never the matches of two pilot pairings (where every seat had one pilot: a row per deck
    and opponent, as before pilots were named)."""
    filters = filters or Filters()
    where, params = filters.where("r", "a")
    # the pilot columns beside their decks; GROUP BY ALL splits by them, ORDER BY ALL keeps the
    # rows of a one-pilot store in the order they had (the pilot is one value there)
    frame = db.query(path, f"""
        SELECT a.deck, a.pilot, b.deck AS opponent, b.pilot AS opponent_pilot, count(*) AS games,
               count(*) FILTER (WHERE a.result = 'win') AS won,
               count(*) FILTER (WHERE a.result = 'draw') AS drawn,
               min(a.run_id::BIGINT * 1000000000 + a.match_no) AS example_key
        FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.team <> a.team
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
    """Each deck's win rate against the whole field (every other deck pooled, mirror matches left
    out), per the deck's ``pilot`` and the field's (``opponent_pilot``).

    The field is split by its pilot too, not pooled over it: a greedy deck's field of greedy and
    random opponents gave a rate that rose with the share of random ones, so two decks' field
    rates compared the pilots they met as much as the decks. Split, a row reads "this deck, as
    greedy played it, against the field random played", and where every seat had one pilot
    there is a row per deck, as before pilots were named. A deck played by another pilot is the
    same deck: a mirror still, left out."""
    filters = filters or Filters()
    m = matchups(path, filters)
    if m.is_empty():
        return m
    field = m.filter(pl.col("deck") != pl.col("opponent")).group_by(FIELD_KEYS).agg(
        pl.col("games").sum(), pl.col("won").sum(), pl.col("drawn").sum()).sort(FIELD_KEYS)
    lo, hi = wilson(field["won"], field["games"])
    return field.with_columns(pl.Series("win_rate", rate(field["won"], field["games"])),
                              pl.Series("win_rate_lo", lo), pl.Series("win_rate_hi", hi)
                              ).join(by_key(path, filters, "deck"), on=FIELD_KEYS, how="left")


def pilots_in(frame: pl.DataFrame) -> list[str]:
    """The pilots a matchups or field frame names, on either side."""
    sides = [frame[c] for c in PILOT_COLUMNS if c in frame.columns]
    return sorted({p for side in sides for p in side.to_list()})
