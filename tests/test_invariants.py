"""Thousands of random matches break no invariant: HP never above its cap, Mana and Gold never
negative, no card in two zones (deck + hand + board + discard conserved), hand within its limit,
no dead creature left standing."""
import pytest

from sim.core.match import play_match


def checked_match(eng, pool, decks, seed, pilots):
    problems = []

    def check(state, _action):
        found = eng.check_invariants(state)
        if found:
            problems.append((state.turn, found))

    result = play_match(eng, pool, decks, seed, pilots, on_decision=check)
    problems.extend((result.turns, p) for p in [eng.check_invariants(result.state)] if p)
    return result, problems


@pytest.mark.slow
def test_two_thousand_random_matches_keep_every_invariant(frontier):
    eng, pool, _data, _rules, decks = frontier
    reasons = {}
    for seed in range(1000):
        for order in (decks, decks[::-1]):
            result, problems = checked_match(eng, pool, list(order), seed, ["random", "random"])
            assert result.error is None, f"seed {seed}: {result.error}"
            assert not problems, f"seed {seed}: {problems[0]}"
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
    assert sum(reasons.values()) == 2000
    assert set(reasons) <= {"hp", "deck_out", "turn_limit", "decision_limit"}
    assert reasons.get("hp", 0) > 1000  # random games mostly end by damage, some by deck-out


def test_greedy_matches_keep_every_invariant(frontier):
    eng, pool, _data, _rules, decks = frontier
    for seed in range(20):
        result, problems = checked_match(eng, pool, decks, seed, ["greedy", "greedy"])
        assert result.error is None and not problems, (seed, result.error, problems[:1])


def test_the_invariant_check_can_fail(frontier):
    """A broken state is caught (the check is not vacuous)."""
    eng, pool, _data, _rules, decks = frontier
    state = eng.new_match(pool, decks, 5)
    state.sides[0].hand.append(state.sides[0].hand[0])  # a card in two places
    state.sides[1].gold = -1
    state.sides[1].hp = pool.consts.starting_hp + 1
    problems = " | ".join(eng.check_invariants(state))
    assert "not conserved" in problems and "negative" in problems and "above its cap" in problems
