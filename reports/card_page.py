"""The figures of one card across every run of its game (the dashboard's Card page): its played
win rate run by run or rules version by rules version, the pilots of each seat apart ("greedy"
against itself, "greedy vs random" for its greedy seats against random: ``trend``, over
``cards.card_metrics``); its
win rate from the first and from the second seat (``play_draw``); its hands kept and redrawn per
deck beside each deck's keep rate (``keep_redraw``, over reports/mulligan.py).

The page reads the rest from the shared queries filtered to the card: ``cards.card_metrics`` by
deck, ``cards.win_rate_by_turn_played`` and ``costs.stat_budget`` (its surplus over its game's
budget and the fitted line of its type), so its numbers are the Cards and Cost curves pages'."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db, mulligan
from reports.examples import KEY_SQL, unpack
from reports.filters import Filters
from reports.stats import rate, wilson

# what a trend point counts: the card was played at least once (Played WR), with its interval
TREND_COLUMNS = ("played_games", "played_won", "played_wr", "played_wr_lo", "played_wr_hi", "games", "gp_wr",
                 "oh_excess", "oh_excess_lo", "oh_excess_hi", "example_win", "example_loss")
# the games play_draw counts, per seat: (label, condition on card_games)
COUNTED = (("in the deck", "cg.copies > 0"), ("in the opening hand", "cg.in_opening_hand > 0"),
           ("played", "cg.played > 0"))
SEATS = {True: "first", False: "second"}
ALL_DECKS = "all decks"  # the keep/redraw row of every deck together


# what makes two rules versions' cards one card to a player (the cards table's own columns;
# ``extra`` holds each game's other fields, its text and keywords' numbers among them)
DEFINITION = ("name", "type", "faction", "cost_text", "attack", "defense", "keywords", "extra")


def run_hashes(path: str | Path) -> list[tuple[int, str]]:
    """Each run's rules hash: its card set, which its budget position is read under."""
    return db.query(path, "SELECT run_id, rules_hash FROM runs").rows()


def definitions(path: str | Path, run_ids: list[int], card: str) -> pl.DataFrame:
    """The card as each rules version of ``run_ids`` defines it: one row per distinct
    definition, with the versions that define it so (``versions``, in the order their first run
    was made) and its first run. Two rows mean the runs counted played two cards under one id."""
    if not run_ids:
        return pl.DataFrame()
    marks = ", ".join("?" for _ in run_ids)
    rows = db.query(path, f"""SELECT c.rules_version, min(r.run_id) AS first_run, {', '.join(f'c.{c}' for c in DEFINITION)}
                              FROM cards c JOIN runs r ON r.rules_hash = c.rules_hash
                              WHERE r.run_id IN ({marks}) AND c.card = ?
                              GROUP BY ALL""", [*run_ids, card])
    if rows.is_empty():
        return rows
    return (rows.sort("first_run")
            .group_by(list(DEFINITION), maintain_order=True)
            .agg(pl.col("rules_version").unique(maintain_order=True).alias("versions"),
                 pl.col("first_run").min())
            .sort("first_run"))


def trend(metrics: pl.DataFrame, card: str, by: str, runs: pl.DataFrame) -> pl.DataFrame:
    """The card's rows of ``card_metrics(..., group_by=(by, "pilots"))`` (``by``: run_id or
    rules_version; ``pilots``: the seat's own and its opponents', so greedy's games against random
    are not greedy's line but "greedy vs random", as the exports split them) in the order the runs were made (a rules
    version at its first run), each with a ``label`` ("run 3 · base", or the version) and its
    place ``order``."""
    mine = metrics.filter(pl.col("card") == card)
    if by == "run_id":
        order = runs.select("run_id", pl.col("run_id").alias("order"),
                            pl.format("run {} · {}", "run_id", "rules_version").alias("label"))
    else:
        order = runs.group_by(by).agg(pl.col("run_id").min().alias("order")).with_columns(
            pl.col(by).alias("label"))
    keep = [c for c in TREND_COLUMNS if c in mine.columns]
    return (mine.join(order, on=by, how="inner").sort("order", "pilots")
            .select("order", "label", by, "pilots", *keep))


def play_draw(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per card and seat (``first``: the seat acted first, ``card_games.on_play``): the games
    with the card in the deck, in the opening hand and played, each with its win rate, 95%
    Wilson interval and an example win and loss (``r<run>-m<match>-s<seat>``)."""
    filters = filters or Filters()
    where, params = filters.where("r", "cg")
    parts = []
    for i, (_, cond) in enumerate(COUNTED):
        parts += [f"count_if({cond}) AS games_{i}", f"count_if({cond} AND cg.won) AS won_{i}",
                  f"min(CASE WHEN {cond} AND cg.won THEN {KEY_SQL} END) AS win_{i}",
                  f"min(CASE WHEN {cond} AND NOT cg.won THEN {KEY_SQL} END) AS loss_{i}"]
    wide = db.query(path, f"""SELECT r.game, cg.card, cg.on_play, {', '.join(parts)}
                              FROM card_games cg JOIN runs r ON r.run_id = cg.run_id {where}
                              GROUP BY ALL ORDER BY ALL""", params or None)
    long = pl.concat([wide.select(
        "game", "card", pl.col("on_play").replace_strict(SEATS, return_dtype=pl.Utf8).alias("seat"),
        pl.lit(label).alias("counted"), pl.col(f"games_{i}").alias("games"), pl.col(f"won_{i}").alias("won"),
        unpack(f"win_{i}").alias("example_win"), unpack(f"loss_{i}").alias("example_loss"))
        for i, (label, _) in enumerate(COUNTED)]).sort("game", "card", "seat")
    lo, hi = wilson(long["won"], long["games"])
    return long.with_columns(pl.Series("win_rate", rate(long["won"], long["games"])), pl.Series("win_rate_lo", lo),
                             pl.Series("win_rate_hi", hi)).select(
        "game", "card", "seat", "counted", "games", "won", "win_rate", "win_rate_lo", "win_rate_hi", "example_win",
        "example_loss")


def keep_redraw(by_deck: pl.DataFrame, decks: pl.DataFrame, card: str) -> pl.DataFrame:
    """The card's ``mulligan.card_mulligan(..., by_deck=True)`` rows, one per deck, and when it
    was dealt in more than one deck a row for all of them together (deck ``all decks``: their
    counts summed, the rates computed again), each with ``deck_keep_rate``: the keep rate of
    every hand of that deck (``mulligan.deck_mulligan``; the pooled row's over the decks listed),
    so the card's own keep rate reads against the hands it was not in too."""
    mine = by_deck.filter(pl.col("card") == card)
    if mine.is_empty():
        return mine.with_columns(pl.lit(None, pl.Float64).alias("deck_keep_rate"))
    listed = decks.filter(pl.col("deck").is_in(mine["deck"].to_list()))
    per_deck = (mine.sort("dealt_games", "deck", descending=[True, False])
                .join(listed.select("deck", pl.col("keep_rate").alias("deck_keep_rate")), on="deck", how="left"))
    if mine.height == 1:
        return per_deck
    offered = listed["offered"].sum()
    summed = mine.group_by("game", "card").agg(pl.col("name").first(), *(pl.col(c).sum() for c in mulligan.CARD_COUNTS))
    total = mulligan.with_mulligan_rates(summed).with_columns(
        pl.lit(ALL_DECKS).alias("deck"),
        pl.lit(listed["kept"].sum() / offered if offered else None, pl.Float64).alias("deck_keep_rate"))
    return pl.concat([per_deck, total.select(per_deck.columns)])
