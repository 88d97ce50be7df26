"""Best-of-N series figures (``runs.mode = 'series'``; sim/core/series.py): each deck's series win
rate beside its single-game win rate on the same runs, its expected Rank Points per series, and
how its series end.

Decks (``series_decks``), per deck and pilot, over every series it played (as the pairing's
first deck A or second B):
  series, series_won, series_win_rate   a series won = a majority of the best-of; 95% Wilson
  games, games_won, game_win_rate       the series' games, each counted alone; 95% Wilson
  first_game_win_rate                   game 1 only: the same matches a duel run on the same
                                        seeds plays, so it is the deck's plain duel win rate
  rank_points                           mean Rank Points per series (the rules version's
                                        constants), with a 95% normal interval
  games_per_series                      how long its series ran on average
A best-of-3 turns a single-game edge into a larger series edge (a 55% game win rate is about a
57.5% series win rate when games are independent): ``series_win_rate`` against
``game_win_rate`` shows it.

Scores (``series_scores``): per deck, how many of its series ended 2-0, 2-1, 1-2, 0-2 (from its
own side) or level, and the share of each.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.stats import Z95, rate, wilson


def series_runs(path: str | Path) -> pl.DataFrame:
    return db.query(path, """SELECT run_id, game, rules_version, decks, pilots, matches_done AS series_done,
                             matches_target AS series_target, status, created_at
                             FROM runs WHERE mode = 'series' ORDER BY run_id DESC""")


def _sides(run_ids: list[int]) -> tuple[str, list]:
    """Every series from each of its two decks' sides: deck, pilot, own wins, other's wins, Rank Points."""
    marks = ", ".join("?" for _ in run_ids)
    sql = f"""SELECT run_id, series_no, deck_a AS deck, pilot_a AS pilot, a_wins AS own, b_wins AS other,
                     a_rank_points AS rank_points, games AS series_games FROM series WHERE run_id IN ({marks})
              UNION ALL
              SELECT run_id, series_no, deck_b, pilot_b, b_wins, a_wins, b_rank_points, games
              FROM series WHERE run_id IN ({marks})"""
    return sql, list(run_ids) * 2


def series_decks(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    sides, params = _sides(run_ids)
    marks = ", ".join("?" for _ in run_ids)
    frame = db.query(path, f"""
        WITH sides AS ({sides}),
        games AS (SELECT s.deck, s.pilot, count(*) AS games, count(*) FILTER (WHERE s.result = 'win') AS games_won,
                         count(*) FILTER (WHERE m.game_no = 1) AS first_games,
                         count(*) FILTER (WHERE m.game_no = 1 AND s.result = 'win') AS first_games_won
                  FROM match_seats s JOIN matches m USING (run_id, match_no)
                  WHERE s.run_id IN ({marks}) GROUP BY ALL)
        SELECT deck, pilot, count(*) AS series, count(*) FILTER (WHERE own > other) AS series_won,
               avg(rank_points) AS rank_points, stddev_samp(rank_points) AS rp_sd, avg(series_games) AS games_per_series,
               any_value(g.games) AS games, any_value(g.games_won) AS games_won,
               any_value(g.first_games) AS first_games, any_value(g.first_games_won) AS first_games_won
        FROM sides JOIN games g USING (deck, pilot) GROUP BY deck, pilot ORDER BY series_won / count(*) DESC, deck""",
                     params + list(run_ids))
    if frame.is_empty():
        return frame
    out = frame.drop("rp_sd")
    half = Z95 * np.nan_to_num(frame["rp_sd"].to_numpy().astype(float)) / np.sqrt(frame["series"].to_numpy())
    for name, k, n in (("series_win_rate", "series_won", "series"), ("game_win_rate", "games_won", "games"),
                       ("first_game_win_rate", "first_games_won", "first_games")):
        lo, hi = wilson(frame[k], frame[n])
        out = out.with_columns(pl.Series(name, rate(frame[k], frame[n])), pl.Series(f"{name}_lo", lo),
                               pl.Series(f"{name}_hi", hi))
    rp = frame["rank_points"].to_numpy()
    return out.with_columns(pl.Series("rank_points_lo", rp - half), pl.Series("rank_points_hi", rp + half))


def series_scores(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    sides, params = _sides(run_ids)
    return db.query(path, f"""
        WITH sides AS ({sides}),
        scored AS (SELECT deck, pilot, CASE WHEN own = other THEN 'level' ELSE own || '-' || other END AS score,
                          count(*) AS series FROM sides GROUP BY ALL)
        SELECT *, series / sum(series) OVER (PARTITION BY deck, pilot) AS share
        FROM scored ORDER BY deck, pilot, score DESC""", params)
