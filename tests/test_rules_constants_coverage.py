"""Every rule a rules version states as a number has a scenario that pins it: with one constant
of the base rules changed (a number one up, a flag turned over), at least one of the game's
base-rules scenarios must fail. The check is a mutant of the rules data, the engine untouched;
it is the constants' counterpart of tests/test_keyword_coverage.py's keyword and effect mutants.

Constants a scenario cannot pin (a scenario starts from a declared position, so it never deals a
match, builds a deck or plays out a series) are listed below with what they are and the test
that pins each instead."""
from __future__ import annotations

import dataclasses

import pytest

from cardsdb.registry import GAMES
from sim.registry import ENGINES
from tests import vocabulary as found

PLAYED = sorted(set(GAMES) & set(ENGINES))

# Each reason names tests that fail when its constant is changed one step (checked by hand on
# 2026-12-06 with each constant changed in a copy of the tree, each named file run against it),
# except the match loop's limits: no test pins their numbers, only what a limit does.
_LOOP = ("a safety limit of the match loop, not a rule of the guide: its number is a decision (RULES.md), "
         "what happens at it is tests/test_match_loop.py's (a draw at a lowered limit)")
_BUDGET = ("the stat budget, not play (tests/test_off_budget.py, tests/test_reference_cards.py, "
           "tests/test_allegiance_data.py::test_the_stat_budget_by_hand)")
_DECK = ("deck construction, checked on loading a deck (tests/test_bad_input.py, tests/test_frontier_decks.py, "
         "tests/test_cardsdb_errors.py, tests/test_allegiance_data.py)")
_DEAL = "the deal before the first turn (tests/test_alleyway_setup.py, tests/test_mulligan.py, tests/test_allegiance_setup.py)"

# constant -> why no scenario pins it, and what does
NOT_SCENARIO_RULES: dict[str, dict[str, str]] = {
    "frontier": {
        "turn_limit": _LOOP, "decision_limit": _LOOP, "gold_budget_weight": _BUDGET,
        "deck_size": _DECK, "max_copies": _DECK, "max_main_races": _DECK, "deputies_per_deck": _DECK,
    },
    "alleyway": {
        "turn_limit": _LOOP, "decision_limit": _LOOP,
        "sacrifice_budget_weight": _BUDGET, "level_budget_step": _BUDGET,
        "deck_min": _DECK, "deck_max": _DECK, "max_copies": _DECK,
        "opening_hand": _DEAL, "redraws": "the opening redraw (tests/test_mulligan.py)",
        "series_best_of": "a series of matches (tests/test_series.py)",
        "rank_points_win": "ranked points of a series (tests/test_series.py)",
        "rank_points_loss": "ranked points of a series (tests/test_series.py)",
        "rank_points_sweep": "ranked points of a series (tests/test_series.py)",
    },
    "allegiance": {
        "turn_limit": _LOOP, "decision_limit": _LOOP,
        "warrior_budget_base": _BUDGET, "warrior_budget_per_star": _BUDGET, "card_budget_per_star": _BUDGET,
        "card_budget_per_ap": _BUDGET, "stronghold_budget": _BUDGET, "bastion_budget": _BUDGET,
        "deck_size": _DECK, "warriors_per_deck": _DECK, "strongholds_per_deck": _DECK,
        "opening_hand": _DEAL,
    },
}


def changed(value):
    """The constant one step away: a flag turned over, a number one up (a fraction by half), or
    None for what is not a plain number (tables such as copy limits and formations)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 + 1
    return None


@pytest.mark.parametrize("game", PLAYED)
def test_every_rules_constant_changed_fails_a_scenario(game):
    check = found.scenario_check(game)
    eng, base, fails = check.engine, check.base, check.fails
    listed = NOT_SCENARIO_RULES[game]
    consts = base.constants
    unpinned, pinned_after_all = [], []
    for name in type(consts).model_fields:
        new = changed(getattr(consts, name))
        if new is None:
            continue
        pool = eng.compile_pool(dataclasses.replace(base, constants=consts.model_copy(update={name: new})))
        caught = fails(pool)
        if not caught and name not in listed:
            unpinned.append(f"{name} {getattr(consts, name)!r} -> {new!r}")
        elif caught and name in listed:
            pinned_after_all.append(name)
    assert not unpinned, f"{game}: no scenario fails with " + "; ".join(unpinned)
    # the list holds only what no scenario pins: one that a scenario now pins leaves it
    assert not pinned_after_all, f"{game}: a scenario pins {pinned_after_all}: take them off NOT_SCENARIO_RULES"
