"""AlleyWay's lookahead forks share characters copy-on-write (sim/alleyway/state.py), and that
changes nothing: at every decision of seeded random and greedy matches (every starter deck, the
status- and keyword-heavy ones included), each legal action is tried on a fork with a few
follow-up moves, and

- the state the fork was made from is unchanged, down to every slot of every character (a missed
  ``state.own`` would write into a character the real match shares);
- the fork ends exactly where an independent deep copy given the same moves ends (a stale
  reference to a character replaced by its copy would read or write the wrong one);
- the fork passes the engine's invariants.

The search pilots (planner, MCTS) fork forks and determinize; a match of each checks that the
states they fork from are never changed by a lookahead move.
"""
from __future__ import annotations

import random

import pytest

from sim.alleyway.engine import AlleyWayEngine
from sim.alleyway.state import Side, Unit
from sim.core.match import play_match
from tests.alleyway_common import alleyway

UNIT_FIELDS = tuple(f for f in Unit.__slots__ if f not in ("gen", "memo"))  # game state only
SIDE_FIELDS = tuple(f for f in Side.__slots__ if f != "lanes")
FOLLOW_UPS = 3  # moves after the candidate: the rest of its turn (or the next one's start)

# every starter deck, on both seats; between them their cards apply 21 of the 24 character
# effects: Vale's (CHARM, BLEED, BOUNTY, BURN, SHIELD, STUN, ...), Archon's (FREEZE, STASIS,
# REWIND, SHOCK, attack again), Marlow's (SILENCE, BLEED, BOUNTY), Cinder's (BURN, STOKE,
# CLEANSE), Graves' (SUPPRESS, Down), Veyr's (POISON, EXILE, SILENCE)
PAIRINGS = [("cinder-wildfire", "veyr-bone-court"), ("graves-garrison", "archon-star-fleet"),
            ("marlows-crew", "vales-high-rollers"), ("veyr-bone-court", "graves-garrison"),
            ("archon-star-fleet", "cinder-wildfire"), ("vales-high-rollers", "marlows-crew")]


def picture(state) -> tuple:
    """Everything of a state that play can read, as plain values (not the bookkeeping)."""
    sides = []
    for side in state.sides:
        units = tuple(None if u is None else tuple(getattr(u, f) for f in UNIT_FIELDS) for u in side.lanes)
        sides.append((tuple(repr(getattr(side, f)) for f in SIDE_FIELDS), units))
    chance = None if state.chance is None else state.chance.getstate()
    return (tuple(sides), state.active, state.to_act, state.turn, state.phase, state.over, state.winner,
            state.reason, repr(state.stack), repr(state.pending), repr(state.temp), repr(state.risen),
            repr(state.once), state.next_uid, state.chance_key, state.first, state.known, chance)


def play_out(eng, state, first, rng: random.Random) -> None:
    """The candidate, then up to FOLLOW_UPS moves picked by ``rng``."""
    eng.apply(state, first)
    for _ in range(FOLLOW_UPS):
        if state.over:
            return
        actions = eng.legal_actions(state)
        if not actions:
            return
        eng.apply(state, actions[rng.randrange(len(actions))])


def watch(eng, seen: dict):
    def check(state, _action):
        actions = eng.legal_actions(state)
        for i, action in enumerate(actions):
            before = picture(state)
            fork = eng.clone(state)
            play_out(eng, fork, action, random.Random(i))
            assert picture(state) == before, f"turn {state.turn}: trying {action} changed the match"
            alone = state.clone()  # deep: shares nothing
            play_out(eng, alone, action, random.Random(i))
            assert picture(fork) == picture(alone), f"turn {state.turn}: {action} on a fork went elsewhere"
            assert eng.check_invariants(fork) == [], f"turn {state.turn}: {action}"
            seen["candidates"] += 1
            shared = {id(u) for side in state.sides for u in side.lanes if u is not None}
            seen["shared"] += sum(id(u) in shared for side in fork.sides for u in side.lanes if u is not None)
        seen["decisions"] += 1

    return check


# three seeds per pilot (every starter deck seated once): enough decisions and shared characters,
# and a bounded cost (each candidate is played twice and compared field by field)
@pytest.mark.parametrize("pilot,seeds", [("random", range(3)), ("greedy", range(3, 6))])
def test_forks_never_change_their_source_and_play_like_deep_copies(pilot, seeds):
    eng, pool, _data, _rules, decks = alleyway()
    seen = {"decisions": 0, "candidates": 0, "shared": 0}
    for seed in seeds:
        a, b = PAIRINGS[seed % len(PAIRINGS)]
        result = play_match(eng, pool, [decks[a], decks[b]], 300 + seed, [pilot, pilot], on_decision=watch(eng, seen))
        assert result.error is None, result.error
        assert eng.check_invariants(result.state) == []
    # forks did share characters with the match (the case under test), over many candidates
    assert seen["decisions"] > 100 and seen["candidates"] > 1000 and seen["shared"] > 1000


def test_a_write_behind_owns_back_would_be_caught():
    """The check can fail: a character changed in a fork without ``own`` changes the match."""
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.scenario_state(pool, {"seats": [{"lanes": {"l1": "the-fence"}}, {}]}, 0)
    before = picture(state)
    fork = eng.clone(state)
    fork.sides[0].lanes[0].mod_atk += 1  # no state.own: writes the shared character
    assert picture(state) != before
    owned = eng.clone(state)
    owned.own(owned.sides[0].lanes[0]).mod_def += 1
    assert picture(state) != before and state.sides[0].lanes[0].mod_def == 0


CHECK_BUDGET = 4000  # lookahead moves checked per match: the rest of the match plays unchecked


class CheckingEngine(AlleyWayEngine):
    """The engine, checking at every lookahead move that the last few states forked from (the
    real match, determinized beliefs, forks of forks) stay as they were."""

    sources: tuple = ()
    checks = 0

    def apply(self, state, action):
        if state.events is not None or CheckingEngine.checks >= CHECK_BUDGET:  # the real match, or enough seen
            return super().apply(state, action)
        before = [(s, picture(s)) for s in self.sources if s is not state]
        super().apply(state, action)
        for s, seen in before:
            assert picture(s) == seen, f"applying {action} to a fork changed another state"
        CheckingEngine.checks += 1

    def clone(self, state):
        self.remember(state)
        return super().clone(state)

    def determinize(self, state, seat, rng):
        self.remember(state)
        return super().determinize(state, seat, rng)

    def remember(self, state):
        self.sources = self.sources[-3:] + (state,)


@pytest.mark.parametrize("pilot", ["planner", "mcts:3"])
def test_search_pilots_never_change_a_state_they_fork_from(pilot):
    _eng, pool, _data, _rules, decks = alleyway()
    eng = CheckingEngine()
    CheckingEngine.checks = 0
    r = play_match(eng, pool, [decks["veyr-bone-court"], decks["cinder-wildfire"]], 41, [pilot, pilot], log=True)
    assert r.error is None, r.error
    assert CheckingEngine.checks > 100


def test_a_fork_drawing_luck_leaves_the_shared_stream_alone():
    """A fork shares its source's chance stream until one of them draws: the fork's draws do not
    move the source's stream, and each then draws what an independent copy would."""
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.scenario_state(pool, {"seats": [{}, {}]}, 0)
    state.rng().random()  # the turn's stream exists and has moved
    alone = state.clone()
    fork = eng.clone(state)
    assert fork.chance is state.chance  # shared, not copied
    fork_draws = [fork.rng().random() for _ in range(5)]
    assert fork.chance is not state.chance
    assert state.chance.getstate() == alone.chance.getstate()
    assert [state.rng().random() for _ in range(5)] == fork_draws == [alone.rng().random() for _ in range(5)]
