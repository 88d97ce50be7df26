"""Thousands of random matches break no invariant: HP never above its cap, Mana and Gold never
negative, no card in two zones (deck + hand + board + discard conserved), hand within its limit,
no dead creature left standing, Deputies only on the field or in their zone (one at most on the
field). The big run uses the full pool: the six starter decks and random legal decks built from
every card, sheriff and Deputy."""
import random

import pytest

from sim.core.match import play_match
from sim.frontier.engine import FrontierDeck
from sim.frontier.pool import CREATURE, DEPUTY, SHERIFF_NAMES, SPELL

RACES = ("humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves")


def random_deck(pool, rng: random.Random) -> FrontierDeck:
    """A legal tabletop deck from the whole pool: two races plus Beasts, at most 3 copies, any
    sheriff, any two Deputies (online or not)."""
    races = set(rng.sample(RACES, 2)) | {"beasts"}
    choices = [c.id for c in pool.cards if c.type in (CREATURE, SPELL) and c.faction in races and not c.campaign_only]
    cards: list[int] = []
    while len(cards) < pool.consts.deck_size:
        card = rng.choice(choices)
        if cards.count(card) < pool.consts.max_copies:
            cards.append(card)
    deputies = rng.sample([c.id for c in pool.cards if c.type == DEPUTY], 2)
    return FrontierDeck("random", cards, rng.randrange(len(SHERIFF_NAMES)), tuple(deputies))


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
def test_two_thousand_random_matches_with_the_full_pool_keep_every_invariant(frontier):
    eng, pool, data, _rules, _decks = frontier
    starters = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]
    reasons: dict[str, int] = {}
    played: set[int] = set()
    for seed in range(1000):
        rng = random.Random(seed)
        if seed % 2:
            pair = [random_deck(pool, rng), random_deck(pool, rng)]
        else:
            pair = rng.sample(starters, 2)
        for order in (pair, pair[::-1]):
            result, problems = checked_match(eng, pool, list(order), seed, ["random", "random"])
            assert result.error is None, f"seed {seed}: {result.error}"
            assert not problems, f"seed {seed}: {problems[0]}"
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
            for seat in range(2):
                played.update(row.card for row in result.ledger.rows(seat) if row.played)
    assert sum(reasons.values()) == 2000
    assert set(reasons) <= {"hp", "deck_out", "turn_limit", "decision_limit"}
    assert reasons.get("hp", 0) > 1000  # random games mostly end by damage, some by deck-out
    # the run reaches the whole pool: every creature, spell and Deputy was played at least once
    playable = {c.id for c in pool.cards if c.type in (CREATURE, SPELL, DEPUTY) and not c.campaign_only}
    assert playable - played == set(), sorted(pool.cards[c].slug for c in playable - played)


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
