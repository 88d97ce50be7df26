"""diff_power: the games one deck needs, and the matches of the whole field that give it them."""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.diff import power


def _twins(decks_per_match: list[tuple[str, str]], seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for match_no, (a, b) in enumerate(decks_per_match):
        for seat, deck in enumerate((a, b)):
            wb = int(rng.integers(2))
            rows.append({"match_no": match_no, "seat": seat, "deck": deck, "win_base": wb,
                         "win_candidate": wb if rng.random() < 0.8 else 1 - wb})
    return pl.DataFrame(rows)


def test_a_deck_in_a_third_of_the_matches_needs_three_times_its_games_in_matches():
    """Six decks, every pairing once per round: a deck sits in 5 of 15 matches (a third)."""
    decks = [f"d{i}" for i in range(6)]
    pairings = [(a, b) for i, a in enumerate(decks) for b in decks[i + 1:]]
    t = _twins(pairings * 40)
    row = power(t, ["d0"]).row(0, named=True)
    assert row["paired_field_matches"] == math.ceil(row["paired_matches"] / (200 / 600))
    assert row["paired_field_matches"] >= 3 * row["paired_matches"] - 3


def test_two_decks_get_a_game_each_from_every_match():
    t = _twins([("a", "b")] * 100)
    for row in power(t).iter_rows(named=True):
        assert row["paired_field_matches"] == row["paired_matches"]
