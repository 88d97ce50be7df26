"""Metrics on hand-made tables: Wilson intervals against hand-computed values, card win rates
counted as defined, first-seat advantage."""

import duckdb
import numpy as np
import pytest

from reports import cards, overview
from reports.stats import wilson
from tests.hand_store import insert_run
from workbench.store import SCHEMA


def test_wilson_matches_hand_computed_values():
    lo, hi = wilson([5, 0, 9, 0], [10, 10, 10, 0])
    assert lo[:3] == pytest.approx([0.2366, 0.0, 0.5958], abs=1e-4)
    assert hi[:3] == pytest.approx([0.7634, 0.2775, 0.9821], abs=1e-4)
    assert np.isnan(lo[3]) and np.isnan(hi[3])


@pytest.fixture
def hand_made(tmp_path):
    """Two matches of one run; card 'a' is in both decks' lists."""
    path = tmp_path / "hand.duckdb"
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    insert_run(con)
    con.execute("""INSERT INTO cards (game, rules_version, rules_hash, card, name, type, faction, budget_cost)
                   VALUES ('g', 'base', 'h1', 'a', 'Card A', 'creature', 'f1', 2),
                          ('g', 'base', 'h1', 'b', 'Card B', 'spell', 'f2', 1)""")
    # match 0: seat 0 (won) held 'a' in its opening hand and played it on turn 2; 'b' never seen
    # match 1: seat 0 (lost) drew 'a' on turn 4, never played; seat 1 (won) played 'b'
    rows = [(0, 0, "a", 2, 1, 0, None, 1, 2, True, True), (0, 0, "b", 1, 0, 0, None, 0, None, True, True),
            (0, 1, "b", 1, 0, 0, None, 0, None, False, False),
            (1, 0, "a", 1, 0, 1, 4, 0, None, True, False), (1, 1, "b", 2, 0, 1, 1, 1, 1, False, True)]
    for m, seat, card, copies, opening, drawn, fdrawn, played, fplayed, on_play, won in rows:
        con.execute("INSERT INTO card_games (run_id, match_no, seat, deck, pilot, card, copies, in_opening_hand, drawn, "
                    "first_turn_drawn, played, first_turn_played, on_play, won, result) "
                    "VALUES (1, ?, ?, 'x', 'p', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [m, seat, card, copies, opening, drawn, fdrawn, played, fplayed, on_play, won,
                     "win" if won else "loss"])
    con.execute("""INSERT INTO matches VALUES (1, 0, 0, 1, 0, false, 0, 'x', 'hp', 10, 50, 1.0, true, NULL),
                                              (1, 1, 0, 1, 0, true, 1, 'y', 'hp', 12, 60, 1.0, true, NULL)""")
    con.close()
    return path


def test_card_stats_count_as_defined(hand_made):
    stats = {r["card"]: r for r in cards.card_stats(hand_made, [1]).iter_rows(named=True)}
    a, b = stats["a"], stats["b"]
    assert (a["name"], a["faction"], a["cost"]) == ("Card A", "f1", 2)
    assert (a["games"], a["games_won"], a["gp_wr"]) == (2, 1, 0.5)
    assert (a["gih_games"], a["gih_won"], a["gih_wr"]) == (2, 1, 0.5)
    assert (a["played_games"], a["played_won"], a["played_wr"], a["avg_turn_played"]) == (1, 1, 1.0, 2.0)
    assert (b["games"], b["gp_wr"]) == (3, pytest.approx(2 / 3))
    assert (b["gih_games"], b["played_games"], b["played_wr"]) == (1, 1, 1.0)
    lo, hi = wilson([1], [2])
    assert (a["gih_wr_lo"], a["gih_wr_hi"]) == (pytest.approx(lo[0]), pytest.approx(hi[0]))


def test_first_seat_and_reasons(hand_made):
    seat = overview.first_seat(hand_made, [1])
    assert (seat["matches"], seat["decided"], seat["first_wins"], seat["first_seat_wr"]) == (2, 2, 1, 0.5)
    assert overview.win_reasons(hand_made, [1]).rows() == [("hp", 2)]
