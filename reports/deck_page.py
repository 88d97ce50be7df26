"""The figures of one deck (the dashboard's Deck page): its list as the store holds it (the
newest run of the deck, ``card_games.copies``), its win rate from each seat, and its cards
ranked within it. Its cost curve is ``costs.deck_curves``, its opponents ``matchups.matchups``
and its cards ``cards.card_metrics`` grouped by deck, each under the deck filter."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db
from reports.cards import faction_name_sql
from reports.examples import KEY_SQL, unpack
from reports.filters import Filters
from reports.stats import rate, wilson

SEAT_KEY = KEY_SQL.replace("cg.", "a.")  # the example key of a match_seats row


def deck_list(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per deck the filters reach: its cards and copies as the newest run that played it holds
    them (``run_id``, ``rules_version``), with name, type, faction (id and name) and budget cost,
    cheapest first."""
    filters = filters or Filters()
    where, params = filters.where("r", "a")
    faction_name = faction_name_sql(path)
    return db.query(path, f"""
        WITH newest AS (SELECT a.deck, max(a.run_id) AS run_id FROM match_seats a
                        JOIN runs r ON r.run_id = a.run_id {where} GROUP BY a.deck)
        SELECT n.deck, n.run_id, r.rules_version, cg.card, any_value(c.name) AS name, any_value(c.type) AS type,
               any_value(c.faction) AS faction, any_value({faction_name}) AS faction_name,
               any_value(c.budget_cost) AS cost, max(cg.copies)::INTEGER AS copies
        FROM newest n JOIN card_games cg ON cg.run_id = n.run_id AND cg.deck = n.deck
        JOIN runs r ON r.run_id = n.run_id
        LEFT JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
        WHERE cg.copies > 0
        GROUP BY ALL ORDER BY n.deck, cost NULLS LAST, name, cg.card""", params or None)


def seat_label(seat: int) -> str:
    return {0: "first", 1: "second"}.get(seat, f"seat {seat + 1}")


def seat_split(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """Per deck, its pilot, seat (``first``: seat 0, which acts first) and the opponent's pilot
    (``opponent_pilot``: the other seats' pilots joined with +), as the matchups split them, so no
    row pools two pilots' matches: games, won, drawn, win rate with its 95% Wilson interval (a draw
    is not won), an example win and loss."""
    filters = filters or Filters()
    where, params = filters.where("r", "a")
    frame = db.query(path, f"""
        SELECT r.game, a.deck, a.pilot, a.seat,
               (SELECT string_agg(DISTINCT b.pilot, '+' ORDER BY b.pilot) FROM match_seats b
                WHERE b.run_id = a.run_id AND b.match_no = a.match_no AND b.team <> a.team) AS opponent_pilot,
               count(*) AS games, count(*) FILTER (WHERE a.result = 'win') AS won,
               count(*) FILTER (WHERE a.result = 'draw') AS drawn,
               min(CASE WHEN a.result = 'win' THEN {SEAT_KEY} END) AS win_key,
               min(CASE WHEN a.result <> 'win' THEN {SEAT_KEY} END) AS loss_key
        FROM match_seats a JOIN runs r ON r.run_id = a.run_id {where}
        GROUP BY ALL ORDER BY ALL""", params or None)
    lo, hi = wilson(frame["won"], frame["games"])
    return frame.with_columns(
        pl.col("seat").map_elements(seat_label, return_dtype=pl.Utf8).alias("seat"),
        pl.Series("win_rate", rate(frame["won"], frame["games"])), pl.Series("win_rate_lo", lo),
        pl.Series("win_rate_hi", hi), unpack("win_key").alias("example_win"),
        unpack("loss_key").alias("example_loss")).drop("win_key", "loss_key")


def ranked_cards(metrics: pl.DataFrame, deck: str, deck_cards: pl.DataFrame) -> pl.DataFrame:
    """The deck's rows of ``card_metrics(..., group_by=("deck",))`` for the cards it held or played
    (a card from outside its list, such as a Deputy, has no copies), with their ``copies`` in its
    list (``deck_list``), ranked by what each adds to the deck (``oh_excess``, best first; a card
    never in an opening hand has none and comes last) and numbered from 1."""
    copies = deck_cards.filter(pl.col("deck") == deck).select("card", "copies")
    held = (pl.col("games") > 0) | (pl.col("played_games") > 0)
    return (metrics.filter((pl.col("deck") == deck) & held).join(copies, on="card", how="left")
            .sort("oh_excess", "played_wr", descending=True, nulls_last=True)
            .with_row_index("rank", offset=1))
