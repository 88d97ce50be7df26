"""A best-of-N series of duels between two decks (AlleyWay's Casual and Ranked rematches), and
the Rank Points it pays. General to any duel game whose constants carry the numbers
(``series_best_of``, ``rank_points_win``, ``rank_points_loss``, ``rank_points_sweep``).

A series is played from one seed and a rotation (which deck of the pairing sits in seat 0 in
game 1): its first game is the very match a duel run plays on that seed and seating, so a series
run and a duel run on the same base seed share their first games; game g > 1 plays on
``game_seed(seed, g, rotation)``, a seed of its own for each rotation, so the twin series (one
seed, the seats swapped) play other later games, not the same ones again; and two runs of the
same spec under two rules versions (a diff) give a series and its seating the same game seeds.
**Decided** (the guides are silent): the loser of a game goes first in the next, and after a
drawn game the seats swap. The series ends when one deck has won a majority of the best-of, or
when every game is played. The deck with more wins when it ends wins the series (a 2-1, or a 1-0
with drawn games); level wins (drawn games) make a drawn series. A game that raised an error
ends its series there (workbench/chunk.py ``play_series``), and the reports leave that series out.

Rank Points follow the series score: the winner gains ``rank_points_win`` (plus
``rank_points_sweep`` for a sweep: a series won in which the loser won no game, a 2-0 or a 1-0
with drawn games), the loser gains ``rank_points_loss`` (a negative number; minus
``rank_points_sweep`` more when it won no game); a drawn series pays nothing.
"""
from __future__ import annotations

from typing import NamedTuple

from sim.core.rng import derive_seed

SEED_BITS = (1 << 63) - 1  # a stored seed is a signed 64-bit integer


class Series(NamedTuple):
    """How a finished series came out, from its first deck's (A's) side."""
    games: int
    a_wins: int
    b_wins: int
    draws: int
    a_rank_points: int
    b_rank_points: int

    @property
    def score(self) -> str:
        return f"{self.a_wins}-{self.b_wins}"

    @property
    def winner(self) -> int | None:
        """0 when A won the series, 1 when B did, None when it ended level."""
        return 0 if self.a_wins > self.b_wins else 1 if self.b_wins > self.a_wins else None


def game_seed(series_seed: int, game_no: int, rotation: int) -> int:
    """The seed of a series' game: game 1 plays on the series seed itself (the duel on that seed
    and seating); a later game on a seed derived from the series seed, the game number and the
    series' ``rotation`` (0: the pairing's first deck sat in seat 0 in game 1, 1: its second).
    Without the rotation the two twin series of a seed (seats swapped) would replay each other's
    later games move for move whenever the same deck won game 1 in both: the seating of game 2
    follows only who won game 1."""
    if game_no == 1:
        return series_seed
    return derive_seed(series_seed, "series game", game_no, rotation) & SEED_BITS


def next_first(first: int, winner: int | None) -> int:
    """Which deck (0 = A, 1 = B) sits in seat 0 next game: the loser of the last, or the other
    deck after a draw (``first`` sat in seat 0; ``winner`` is the deck that won, or None)."""
    if winner is None:
        return 1 - first
    return 1 - winner


def over(best_of: int, a_wins: int, b_wins: int, games: int) -> bool:
    need = best_of // 2 + 1
    return a_wins >= need or b_wins >= need or games >= best_of


def rank_points(consts, own: int, other: int) -> int:
    """Rank Points of one deck after a series it finished ``own``-``other`` (games won by each
    side): more wins win the series, and a win in which the other side won no game is a sweep."""
    if own == other:
        return 0
    if own > other:
        return consts.rank_points_win + (consts.rank_points_sweep if other == 0 else 0)
    return consts.rank_points_loss - (consts.rank_points_sweep if own == 0 else 0)


def tally(consts, winners: list[int | None]) -> Series:
    """The series of games whose winning decks (0 = A, 1 = B, None = draw) were ``winners``."""
    a = sum(1 for w in winners if w == 0)
    b = sum(1 for w in winners if w == 1)
    return Series(len(winners), a, b, len(winners) - a - b, rank_points(consts, a, b), rank_points(consts, b, a))


def has_series(consts) -> bool:
    """The game's constants carry the series numbers."""
    return all(hasattr(consts, k) for k in ("series_best_of", "rank_points_win", "rank_points_loss",
                                             "rank_points_sweep"))
