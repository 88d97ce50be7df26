"""Best-of-N series figures (``runs.mode = 'series'``; sim/core/series.py): each deck's series win
rate beside its single-game win rate on the same runs, its expected Rank Points per series, and
how its series end.

Every figure is per deck, its pilot, the opponent's pilot and the best-of (the run's
``series_best_of``, read from how the run numbers its games: ``best_of_sql``), so a run of random
against random and one of random against greedy, or a best-of-3 run and a best-of-5 run, are
never pooled into one row. Left out of every figure (``series_left_out`` counts them):
  - a series with an error (a game raised one; the series stopped there, workbench/chunk.py);
  - a mirror series (a deck against itself): its series win rate is 50% by definition, and its
    two sides would count each series twice (the duel meta leaves mirrors out too).

Decks (``series_decks``), per deck, pilot, opponent pilot and best-of, over every series it
played (as the pairing's first deck A or second B):
  series, series_won, series_win_rate   a series won = more games won than the other side when
                                        the series ended (a 2-1, or a 1-0 with drawn games);
                                        95% Wilson
  games, games_won, game_win_rate       the series' games, each counted alone; 95% Wilson
  first_game_win_rate                   game 1 only: the same matches a duel run on the same
                                        seeds plays, so it is the deck's plain duel win rate
  rank_points                           mean Rank Points per series (the rules version's
                                        constants), with a 95% normal interval
  games_per_series                      how long its series ran on average
A best-of-3 turns a single-game edge into a larger series edge (a 55% game win rate is about a
57.5% series win rate when games are independent): ``series_win_rate`` against
``game_win_rate`` shows it.

Scores (``series_scores``): per deck, pilot, opponent pilot and best-of, how many of its series
ended at each score from its own side (2-0, 2-1, 1-2, 0-2, or 1-0 and the like after drawn
games), or level, and the share of each. A sweep (Rank Points' ``rank_points_sweep``) is a
series won in which the loser won no game: a 2-0, or a 1-0 with drawn games.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from reports import db
from reports.stats import Z95, rate, wilson

LEFT_OUT = {"errors": "a game raised an error", "mirrors": "a deck against itself (50% by definition)"}


def series_runs(path: str | Path) -> pl.DataFrame:
    runs = db.query(path, """SELECT run_id, game, rules_version, decks, pilots, matches_done AS series_done,
                             matches_target AS series_target, status, created_at
                             FROM runs WHERE mode = 'series' ORDER BY run_id DESC""")
    if runs.is_empty():
        return runs.with_columns(best_of=pl.lit(None, pl.Int64))
    ids = runs["run_id"].to_list()
    best, params = best_of_sql(ids)
    best = db.query(path, f"WITH best AS ({best}) SELECT run_id, best_of FROM best", params)
    return runs.join(best, on="run_id", how="left").sort("run_id", descending=True)


def best_of_sql(run_ids: list[int]) -> tuple[str, list]:
    """(SQL of the rows run_id, best_of, its parameters): each run's ``series_best_of``. The run's
    spec does not carry it (the rules version's constants do, and the rules files may have changed
    since); the store does, in the numbering of the games: game g of series s is match
    ``s * best_of + g - 1``, so any game of a series past the first gives it. A run of one series
    falls back on its score: a series ends when a deck reaches a majority (``best_of // 2 + 1``
    wins, so best_of = 2 * wins - 1) or after ``best_of`` games, so best_of = max(2 * the larger
    win count - 1, games) for any series that finished without an error."""
    marks = ", ".join("?" for _ in run_ids)
    sql = f"""SELECT s.run_id, coalesce(any_value(n.by_number), max(greatest(2 * greatest(s.a_wins, s.b_wins) - 1, s.games))
                     FILTER (WHERE s.error IS NULL)) AS best_of
              FROM series s LEFT JOIN (SELECT run_id, max((match_no - game_no + 1) // series_no) AS by_number
                                       FROM matches WHERE run_id IN ({marks}) AND series_no > 0 GROUP BY run_id) n
                   USING (run_id)
              WHERE s.run_id IN ({marks}) GROUP BY s.run_id"""
    return sql, list(run_ids) * 2


def _kept(run_ids: list[int]) -> tuple[str, list]:
    """The CTEs ``best`` (each run's best-of), ``kept`` (the series the figures count: no error,
    no mirror, with the run's best_of) and ``sides`` (every kept series from each of its two
    decks' sides: deck, pilot, opponent pilot, best-of, own wins, other's wins, Rank Points)."""
    best, params = best_of_sql(run_ids)
    marks = ", ".join("?" for _ in run_ids)
    sql = f"""best AS ({best}),
        kept AS (SELECT s.*, b.best_of FROM series s JOIN best b USING (run_id)
                 WHERE s.run_id IN ({marks}) AND s.error IS NULL AND s.deck_a <> s.deck_b),
        sides AS (SELECT run_id, series_no, deck_a AS deck, pilot_a AS pilot, pilot_b AS opponent_pilot, best_of,
                         a_wins AS own, b_wins AS other, a_rank_points AS rank_points, games AS series_games FROM kept
                  UNION ALL
                  SELECT run_id, series_no, deck_b, pilot_b, pilot_a, best_of, b_wins, a_wins, b_rank_points, games
                  FROM kept)"""
    return sql, params + list(run_ids)


def series_left_out(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    """How many of these runs' series every figure leaves out, and why: ``errors`` (a game raised
    an error) and ``mirrors`` (a deck against itself, without an error)."""
    marks = ", ".join("?" for _ in run_ids)
    return db.query(path, f"""SELECT count(*) FILTER (WHERE error IS NOT NULL) AS errors,
                                     count(*) FILTER (WHERE error IS NULL AND deck_a = deck_b) AS mirrors
                              FROM series WHERE run_id IN ({marks})""", list(run_ids))


def left_out_text(left: pl.DataFrame) -> str:
    """One sentence per reason for the series left out (empty when none was)."""
    if left.is_empty():
        return ""
    row = left.row(0, named=True)
    return " ".join(f"{row[k]} series left out: {why}." for k, why in LEFT_OUT.items() if row[k])


def series_decks(path: str | Path, run_ids: list[int]) -> pl.DataFrame:
    kept, params = _kept(run_ids)
    frame = db.query(path, f"""
        WITH {kept},
        games AS (SELECT s.deck, s.pilot, o.pilot AS opponent_pilot, k.best_of, count(*) AS games,
                         count(*) FILTER (WHERE s.result = 'win') AS games_won,
                         count(*) FILTER (WHERE m.game_no = 1) AS first_games,
                         count(*) FILTER (WHERE m.game_no = 1 AND s.result = 'win') AS first_games_won
                  FROM kept k JOIN matches m ON m.run_id = k.run_id AND m.series_no = k.series_no
                  JOIN match_seats s ON s.run_id = m.run_id AND s.match_no = m.match_no
                  JOIN match_seats o ON o.run_id = m.run_id AND o.match_no = m.match_no AND o.seat <> s.seat
                  GROUP BY ALL)
        SELECT deck, pilot, opponent_pilot, best_of, count(*) AS series, count(*) FILTER (WHERE own > other) AS series_won,
               avg(rank_points) AS rank_points, stddev_samp(rank_points) AS rp_sd, avg(series_games) AS games_per_series,
               any_value(g.games) AS games, any_value(g.games_won) AS games_won,
               any_value(g.first_games) AS first_games, any_value(g.first_games_won) AS first_games_won
        FROM sides JOIN games g USING (deck, pilot, opponent_pilot, best_of) GROUP BY deck, pilot, opponent_pilot, best_of
        ORDER BY series_won / count(*) DESC, deck, pilot, opponent_pilot, best_of""", params)
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
    kept, params = _kept(run_ids)
    return db.query(path, f"""
        WITH {kept},
        scored AS (SELECT deck, pilot, opponent_pilot, best_of,
                          CASE WHEN own = other THEN 'level' ELSE own || '-' || other END AS score,
                          count(*) AS series FROM sides GROUP BY ALL)
        SELECT *, series / sum(series) OVER (PARTITION BY deck, pilot, opponent_pilot, best_of) AS share
        FROM scored ORDER BY deck, pilot, opponent_pilot, best_of, score DESC""", params)
