"""Stores made by hand for the report tests: one finished run row, and ``card_games`` rows given
as tuples. The same run row and the same card_games insert were written out in several test
files; this is the one place they are."""
from __future__ import annotations

import datetime as dt

import polars as pl

MADE = dt.datetime(2026, 1, 1)
# the order of a hand-made card_games row's fields (``result`` is derived from ``won``)
CARD_GAMES = ["run_id", "match_no", "seat", "deck", "pilot", "card", "copies", "in_opening_hand", "drawn",
              "first_turn_drawn", "played", "first_turn_played", "on_play", "won"]


def insert_run(con, run_id: int = 1, matches_target: int = 2) -> None:
    """A finished run of game 'g', rules 'base' (hash 'h1'), decks x and y, pilot 'p' in both."""
    con.execute("""INSERT INTO runs (run_id, game, rules_version, rules_hash, decks, pilots, matches_target,
                   chunks_target, base_seed, swap, event_sample, spec, spec_hash, status, created_at, updated_at)
                   VALUES (?, 'g', 'base', 'h1', 'x,y', 'p,p', ?, 1, 1, true, 1, '{}', 's', 'done', ?, ?)""",
                [run_id, matches_target, MADE, MADE])


def insert_card_games(con, rows: list[tuple]) -> pl.DataFrame:
    """``rows`` (fields in CARD_GAMES order) into card_games, each with its ``result``; the frame."""
    frame = pl.DataFrame(rows, orient="row", schema=CARD_GAMES)
    frame = frame.with_columns(pl.when(pl.col("won")).then(pl.lit("win")).otherwise(pl.lit("loss")).alias("result"))
    con.register("frame", frame.to_arrow())
    con.execute(f"INSERT INTO card_games ({', '.join(frame.columns)}) SELECT * FROM frame")
    return frame
