"""AlleyWay over thousands of random matches breaks no invariant (Morale within 0..6000,
Authority never negative, every card in exactly one place, stats adding up, auras current, the
stack empty between decisions); the same seed replays the same events in any process."""
import itertools
import json
import subprocess
import sys

import pytest

from sim.core.match import play_match
from tests.alleyway_common import alleyway
from tests.conftest import ROOT
from tests.test_invariants import checked_match as checked


@pytest.mark.slow
# 2,000 matches checked at every decision (the soak, `workbench bench --soak 20000` and
# tests/test_soak.py, plays far more, checked at every turn)
def test_seven_hundred_random_matches_over_all_starter_decks_keep_every_invariant():
    eng, pool, _data, _rules, decks = alleyway()
    pairs = list(itertools.product(sorted(decks), repeat=2))  # every pairing, mirrors and both seats
    reasons: dict[str, int] = {}
    for seed in range(20 * len(pairs)):  # 20 of every pairing
        a, b = pairs[seed % len(pairs)]
        result, problems = checked(eng, pool, [decks[a], decks[b]], seed, ["random", "random"])
        assert result.error is None, f"seed {seed} {a} v {b}: {result.error}"
        assert not problems, f"seed {seed} {a} v {b}: {problems[0]}"
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
    assert sum(reasons.values()) == 20 * len(pairs) == 720
    assert set(reasons) <= {"morale", "deck_out", "turn_limit", "decision_limit"}
    assert reasons.get("morale", 0) > 0.8 * 720


def test_greedy_matches_keep_every_invariant():
    eng, pool, _data, _rules, decks = alleyway()
    ids = sorted(decks)
    for seed in range(6):
        a, b = ids[seed], ids[(seed + 2) % 6]
        result, problems = checked(eng, pool, [decks[a], decks[b]], seed, ["greedy", "greedy"])
        assert result.error is None and not problems, (seed, result.error, problems[:1])


def test_the_invariant_check_can_fail():
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.new_match(pool, [decks["cinder-wildfire"], decks["marlows-crew"]], 5)
    state.sides[0].hand.append(state.sides[0].hand[0])   # a card in two places
    state.sides[1].authority = -1
    state.sides[1].morale = 6001
    problems = " | ".join(eng.check_invariants(state))
    assert "not conserved" in problems and "negative Authority" in problems and "Morale 6001" in problems


DIGEST = """
import json
from cardsdb.loader import load_ruleset
from sim.registry import engine
from sim.core.match import play_match
data, ruleset = load_ruleset('alleyway', 'base')
eng = engine('alleyway'); pool = eng.compile_pool(ruleset)
ids = sorted(d for d in data.decks if data.decks[d].starter)
decks = {d: eng.compile_deck(pool, data.decks[d]) for d in ids}
out = {}
for pilots in (['random', 'random'], ['greedy', 'greedy'], ['greedy', 'random']):
    for seed in (3, 11):
        pair = [decks[ids[seed % 6]], decks[ids[(seed + 1) % 6]]]
        r = play_match(eng, pool, pair, seed, pilots)
        assert r.error is None, r.error
        out[f"{pilots}-{seed}"] = [r.events.digest(), r.winner, r.reason, r.turns, r.decisions]
print(json.dumps(out))
"""


def digests(salt: str) -> dict:
    res = subprocess.run([sys.executable, "-c", DIGEST], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONHASHSEED": salt, "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.slow
def test_same_seed_same_events_in_two_processes():
    first, second = digests("0"), digests("4242")
    assert first == second
    assert first["['random', 'random']-3"][0] != first["['random', 'random']-11"][0]


def test_replay_in_process_matches():
    eng, pool, _data, _rules, decks = alleyway()
    pair = [decks["veyr-bone-court"], decks["archon-star-fleet"]]
    a = play_match(eng, pool, pair, 99, ["greedy", "random"])
    b = play_match(eng, pool, pair, 99, ["greedy", "random"])
    assert a.error is None and a.events.digest() == b.events.digest() and len(a.events) > 100


def test_with_three_seats_a_seat_that_is_out_never_acts_again():
    """N seats: a seat that goes out mid-turn (its own blocked attack, a draw from an empty deck)
    hands the turn on at once; no decision is ever asked of a seat that is out."""
    eng, pool, _data, _rules, decks = alleyway()
    names = sorted(decks)
    asked_of_out = []

    def watch(state, _action):
        if state.sides[state.to_act].out:
            asked_of_out.append(state.turn)

    outs = 0
    for seed in range(60):
        three = [decks[names[(seed + k) % len(names)]] for k in range(3)]
        result, problems = checked(eng, pool, three, seed, ["random"] * 3)
        assert result.error is None and not problems, (seed, result.error, problems[:1])
        assert result.reason in ("morale", "deck_out")
        replay = play_match(eng, pool, three, seed, ["random"] * 3, log=False, on_decision=watch)
        outs += sum(side.out for side in replay.state.sides) - 1  # the seats out before the last
    assert outs >= 50, "most matches put a seat out while two still played"
    assert asked_of_out == []
