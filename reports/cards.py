"""Per-card win rates over ``card_games`` (one row per match x seat x card).

GP WR   games played with the card in the deck
GIH WR  games where the card was in hand at all (opening hand or drawn later)
Played WR  games where the card was played at least once
A draw counts as a game not won. Every rate carries its sample size and a 95% Wilson interval.
"""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db
from reports.stats import rate, wilson

METRICS = {
    "games": "games with the card in the deck (the sample size of GP WR)",
    "gp_wr": "GP WR: win rate of games with the card in the deck",
    "gih_games": "games where the card was in hand at some point (opening hand or drawn)",
    "gih_wr": "GIH WR: win rate of games where the card was in hand",
    "played_games": "games where the card was played at least once",
    "played_wr": "Played WR: win rate of games where the card was played",
    "avg_turn_played": "average of the seat's own turn number when the card was first played",
    "_lo / _hi": "bounds of the 95% Wilson interval of the rate before them",
}

_SQL = """
SELECT r.game, r.rules_version, cg.card,
       any_value(c.name) AS name, any_value(c.type) AS type, any_value(c.faction) AS faction,
       any_value(c.budget_cost) AS cost,
       count(*) FILTER (WHERE cg.copies > 0) AS games,
       count(*) FILTER (WHERE cg.copies > 0 AND cg.won) AS games_won,
       count(*) FILTER (WHERE cg.in_opening_hand > 0 OR cg.drawn > 0) AS gih_games,
       count(*) FILTER (WHERE (cg.in_opening_hand > 0 OR cg.drawn > 0) AND cg.won) AS gih_won,
       count(*) FILTER (WHERE cg.played > 0) AS played_games,
       count(*) FILTER (WHERE cg.played > 0 AND cg.won) AS played_won,
       avg(cg.first_turn_played) AS avg_turn_played
FROM card_games cg
JOIN runs r ON r.run_id = cg.run_id
LEFT JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
{where}
GROUP BY r.game, r.rules_version, cg.card
ORDER BY r.game, r.rules_version, cg.card
"""


def card_stats(path: str | Path, run_ids: list[int] | None = None, deck: str | None = None) -> pl.DataFrame:
    clauses, params = [], []
    if run_ids:
        clauses.append(f"cg.run_id IN ({', '.join('?' for _ in run_ids)})")
        params.extend(run_ids)
    if deck:
        clauses.append("cg.deck = ?")
        params.append(deck)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    frame = db.query(path, _SQL.format(where=where), params or None)
    return with_rates(frame)


def with_rates(frame: pl.DataFrame) -> pl.DataFrame:
    """Add each rate and its Wilson bounds from the win and game counts."""
    out = frame
    for name, won, games in (("gp_wr", "games_won", "games"), ("gih_wr", "gih_won", "gih_games"),
                             ("played_wr", "played_won", "played_games")):
        k, n = out[won].to_numpy(), out[games].to_numpy()
        lo, hi = wilson(k, n)
        out = out.with_columns(pl.Series(name, rate(k, n)), pl.Series(f"{name}_lo", lo),
                               pl.Series(f"{name}_hi", hi))
    return out.with_columns(pl.col(c).fill_nan(None) for c in out.columns if out[c].dtype == pl.Float64)
