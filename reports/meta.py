"""The meta a rational field would play (issue 17, item 6): the Nash equilibrium mix of decks of
the symmetric two-player zero-sum game whose payoff is the row deck's win rate against the column
deck minus 50% (a draw counts half a win), with bootstrap intervals, and each deck's win rate
against that mix.

Pure functions on a win-rate matrix (``equilibrium``, ``against_mix``, ``complete``,
``resample_matrices``, ``bootstrap``) and one that reads the store (``meta_mix``). Definitions
and the reasons behind them: reports/METRICS.md, "The meta a rational field would play"."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from scipy.optimize import linprog

from reports import db
from reports.filters import Filters

RESAMPLES = 200
SEED = 17  # the bootstrap's own seed: the same matches always give the same intervals
MEANING = ("A field that adapted would play these decks in these shares; a deck at 0% is dominated: "
           "against that field it wins at most half its matches, so no rational player picks it")
METHOD = ("Nash equilibrium of the symmetric zero-sum game whose payoff is the row deck's win rate minus 50% "
          "(a draw counts half a win; a mirror is 50%). 95% bootstrap intervals: {resamples} resamples of the "
          "seeds within each pairing (a seed's two seatings together); the win rate against the mix holds the "
          "mix at its estimate")

# one row per deck of a game; a deck left out of the matrix (it never met some other deck) keeps
# its row with empty figures and a note
COLUMNS = {"game": pl.Utf8, "deck": pl.Utf8, "pilots": pl.Utf8, "share": pl.Float64, "share_lo": pl.Float64,
           "share_hi": pl.Float64, "in_mix": pl.Float64, "wr_vs_mix": pl.Float64, "wr_vs_mix_lo": pl.Float64,
           "wr_vs_mix_hi": pl.Float64, "games": pl.Int64, "note": pl.Utf8}

# (row deck, column deck) -> (the row deck's score per seed, matches per seed): the bootstrap's units
Cells = dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]


# --- the game on a matrix -----------------------------------------------------------------------------

def payoff(win_rates) -> np.ndarray:
    """Win rate minus 50%: an even matchup is worth nothing, and since the column deck's rate is
    one minus the row deck's, the matrix is antisymmetric (what one deck wins the other loses)."""
    return np.asarray(win_rates, dtype=float) - 0.5


def _distribution(x: np.ndarray) -> np.ndarray:
    """Solver output as shares: round-off below zero (or a hair above) is no share at all."""
    x = np.where(x < 1e-9, 0.0, x)
    return x / x.sum()


def maximin(pay: np.ndarray) -> tuple[np.ndarray, float]:
    """The row player's optimal mix x and the game's value v: maximise v subject to
    (x @ pay)[j] >= v for every column j, x >= 0, sum x = 1. The variables are (x, v);
    linprog minimises, so the cost is -v. The value returned is what the rounded mix really
    guarantees (its worst column), so the tie-break below can always meet it."""
    k = len(pay)
    res = linprog(np.r_[np.zeros(k), -1.0], A_ub=np.c_[-pay.T, np.ones(k)], b_ub=np.zeros(k),
                  A_eq=np.r_[np.ones(k), 0.0][None], b_eq=[1.0], bounds=[(0, None)] * k + [(None, None)],
                  method="highs")
    mix = _distribution(res.x[:k])
    return mix, float((mix @ pay).min())


def _nearest_even(pay: np.ndarray, value: float, fallback: np.ndarray) -> np.ndarray:
    """Among the mixes that guarantee ``value``, the one nearest equal shares (least L1 distance,
    with d_i >= |x_i - 1/k|). Several mixes can be optimal (two decks with the same results, two
    decks at exactly 50%); the maximin LP returns whichever vertex the solver meets, which could
    put a tied deck at 0% for no reason in the data. L1 keeps this a linear program; it is not
    strictly convex, so a tie of three or more decks can still split unevenly."""
    k = len(pay)
    eye, even, none = np.eye(k), np.full(k, 1.0 / k), np.zeros((k, k))
    res = linprog(np.r_[np.zeros(k), np.ones(k)],
                  A_ub=np.block([[-pay.T, none], [eye, -eye], [-eye, -eye]]),
                  b_ub=np.r_[np.full(k, -value), even, -even],
                  A_eq=np.r_[np.ones(k), np.zeros(k)][None], b_eq=[1.0], bounds=[(0, None)] * (2 * k), method="highs")
    return _distribution(res.x[:k]) if res.status == 0 else fallback


def equilibrium(win_rates) -> tuple[np.ndarray, float]:
    """The equilibrium mix of decks (ties split toward equal shares) and the game's value, which is
    0 for this symmetric game: a mix that did better than even against every deck would have to
    beat itself."""
    pay = payoff(win_rates)
    mix, value = maximin(pay)
    return _nearest_even(pay, value, mix), value


def against_mix(win_rates, shares) -> np.ndarray:
    """Each deck's win rate against a field playing the decks in these shares (its own mirror
    included, at 50%). Against the equilibrium, every deck it plays wins exactly half."""
    return np.asarray(win_rates, dtype=float) @ np.asarray(shares, dtype=float)


def complete(win_rates) -> list[int]:
    """The decks kept when some pairs never met (NaN cells): the game needs every cell, so the
    deck with the most opponents it never met leaves first (ties: the first in order), until
    every pair left has played."""
    rates = np.asarray(win_rates, dtype=float)
    kept = list(range(len(rates)))
    while True:
        unmet = np.isnan(rates[np.ix_(kept, kept)]).sum(axis=1)
        if not unmet.any():
            return kept
        kept.pop(int(np.argmax(unmet)))


# --- the matrix from seeds, and the bootstrap ---------------------------------------------------------

def matrix(cells: Cells, k: int) -> np.ndarray:
    """The win-rate matrix: the row deck's score (wins plus half its draws) over its matches with
    the column deck, the column deck's rate being one minus it; a mirror is 50% by definition (both
    seats are the deck: what one wins the other loses); a pair that never met is NaN."""
    rates = np.full((k, k), np.nan)
    np.fill_diagonal(rates, 0.5)
    for (i, j), (scores, games) in cells.items():
        rates[i, j] = scores.sum() / games.sum()
        rates[j, i] = 1.0 - rates[i, j]
    return rates


def resample_matrices(cells: Cells, k: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``resamples`` win-rate matrices, each pairing's seeds drawn with replacement, as many as it
    has, independently of the other pairings (cells in sorted order, so a seed gives one answer)."""
    rng = np.random.default_rng(seed)
    out = np.full((resamples, k, k), 0.5)
    for i, j in sorted(cells):
        scores, games = cells[(i, j)]
        pick = rng.integers(0, len(scores), size=(resamples, len(scores)))
        out[:, i, j] = scores[pick].sum(axis=1) / games[pick].sum(axis=1)
        out[:, j, i] = 1.0 - out[:, i, j]
    return out


def bootstrap(cells: Cells, k: int, shares: np.ndarray, resamples: int = RESAMPLES,
              seed: int = SEED) -> dict[str, np.ndarray]:
    """95% percentile intervals: of each deck's equilibrium share (the game solved again on every
    resampled matrix) and of its win rate against ``shares`` (the estimate's mix held fixed, so
    the interval is about the deck's matchups, not about a field that moves); and ``in_mix``, the
    share of resamples whose equilibrium plays the deck at all (a share's interval piles up at 0,
    so this says more plainly how sure its place in the meta is)."""
    mats = resample_matrices(cells, k, resamples, seed)
    mixes = np.array([equilibrium(m)[0] for m in mats])
    rates = mats @ shares
    (share_lo, share_hi), (wr_lo, wr_hi) = (np.percentile(x, [2.5, 97.5], axis=0) for x in (mixes, rates))
    return {"share_lo": share_lo, "share_hi": share_hi, "in_mix": (mixes > 0).mean(axis=0),
            "wr_vs_mix_lo": wr_lo, "wr_vs_mix_hi": wr_hi}


# --- from the store -----------------------------------------------------------------------------------

def seed_scores(path: str | Path, filters: Filters | None = None) -> pl.DataFrame:
    """One row per seed of a pairing of a run (both seatings of a seed together: the bootstrap's
    unit): game, deck_a < deck_b, their pilots, games and deck_a's score (wins plus half its
    draws). Duel runs only (no `workbench value` twins, campaign fights or other modes); mirrors
    are left out (50% by definition). The deck and pilot filters hold for both seats, so a deck
    filter gives the meta of those decks alone."""
    filters = filters or Filters()
    where, params = filters.where("r", "a")
    other, more = Filters(decks=filters.decks, pilots=filters.pilots).where("r", "b")
    clauses = [c.removeprefix("WHERE ") for c in (where, other) if c] + ["coalesce(r.kind, 'duel') = 'duel'"]
    return db.query(path, f"""
        SELECT r.game, a.deck AS deck_a, b.deck AS deck_b, a.pilot AS pilot_a, b.pilot AS pilot_b,
               m.run_id, m.pairing, m.seed, count(*) AS games,
               sum(CASE a.result WHEN 'win' THEN 1.0 WHEN 'draw' THEN 0.5 ELSE 0.0 END)::DOUBLE AS score_a
        FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat AND b.deck > a.deck
        JOIN matches m ON m.run_id = a.run_id AND m.match_no = a.match_no
        JOIN runs r ON r.run_id = a.run_id
        WHERE {' AND '.join(clauses)}
        GROUP BY ALL ORDER BY ALL""", (params + more) or None)


def _cells(units: pl.DataFrame, decks: list[str]) -> Cells:
    index = {d: i for i, d in enumerate(decks)}
    return {(index[a], index[b]): (part["score_a"].to_numpy(), part["games"].to_numpy().astype(float))
            for (a, b), part in units.group_by("deck_a", "deck_b", maintain_order=True)}


def _left_out(game: str, decks: list[str], rates: np.ndarray, kept: list[int], pilots: str) -> list[dict]:
    """A row for each deck the matrix could not hold, naming the decks it never met."""
    rows = []
    for i in sorted(set(range(len(decks))) - set(kept)):
        unmet = ", ".join(decks[j] for j in kept if np.isnan(rates[i, j]))
        rows.append({"game": game, "deck": decks[i], "pilots": pilots, "note": f"left out: never met {unmet}"})
    return rows


def _game_mix(game: str, units: pl.DataFrame, resamples: int, seed: int) -> pl.DataFrame:
    """One game's meta: the decks every other deck met, solved and bootstrapped."""
    decks = sorted(set(units["deck_a"]) | set(units["deck_b"]))
    everyone = matrix(_cells(units, decks), len(decks))
    kept = complete(everyone)
    names = [decks[i] for i in kept]
    units = units.filter(pl.col("deck_a").is_in(names) & pl.col("deck_b").is_in(names))
    pilots = ", ".join(sorted(set(units["pilot_a"]) | set(units["pilot_b"])))
    cells = _cells(units, names)
    rates = matrix(cells, len(names))
    shares, _ = equilibrium(rates)
    games = pl.concat([units.select(deck="deck_a", games="games"), units.select(deck="deck_b", games="games")])
    solved = pl.DataFrame({"game": game, "deck": names, "pilots": pilots, "share": shares,
                           "wr_vs_mix": against_mix(rates, shares)} | bootstrap(cells, len(names), shares, resamples, seed))
    solved = solved.join(games.group_by("deck").agg(pl.col("games").sum()), on="deck", how="left")
    return pl.concat([solved, pl.DataFrame(_left_out(game, decks, everyone, kept, pilots), schema=COLUMNS)],
                     how="diagonal_relaxed").select(COLUMNS.keys())


def meta_mix(path: str | Path, filters: Filters | None = None, resamples: int = RESAMPLES,
             seed: int = SEED) -> pl.DataFrame:
    """Per game and deck: its equilibrium share with its interval, its win rate against the
    equilibrium mix with its interval, its matches in the matrix, and the pilots that played
    them; most played first. The duel runs the filters keep are pooled whatever their rules
    versions (as ``matchups``: the page warns when they hold several)."""
    units = seed_scores(path, filters)
    frames = [_game_mix(game, part, resamples, seed)
              for (game,), part in units.group_by("game", maintain_order=True)]
    if not frames:
        return pl.DataFrame(schema=COLUMNS)
    return pl.concat(frames).sort(["game", "share", "wr_vs_mix", "deck"], descending=[False, True, True, False],
                                  nulls_last=True)
