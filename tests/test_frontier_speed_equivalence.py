"""Frontier's lookahead shortcuts change nothing: copy-on-write clones never write into the
state they were made from, evaluate's cached unit values equal values computed from scratch, and
the engine's faster paths (legal actions, the determinize shuffle) give what the plain
computation gives, checked at every decision of seeded matches."""
from __future__ import annotations

import random

import pytest

from sim.core.match import play_match
from sim.frontier.engine import FrontierEngine
from sim.frontier.state import Side, Unit
from workbench import games

UNIT_FIELDS = tuple(f for f in Unit.__slots__ if f not in ("gen", "value"))  # game state only
SIDE_FIELDS = tuple(f for f in Side.__slots__ if f != "lanes")


def picture(state) -> tuple:
    """Everything of a state that play can read, as plain values (not the bookkeeping)."""
    sides = []
    for side in state.sides:
        units = tuple(None if u is None else tuple(getattr(u, f) for f in UNIT_FIELDS) for u in side.lanes)
        sides.append((tuple(repr(getattr(side, f)) for f in SIDE_FIELDS), units))
    return (tuple(sides), state.active, state.to_act, state.turn, state.phase, state.over, state.winner,
            repr(state.stack), repr(state.pending), repr(state.temp), state.next_uid, state.chance_key)


class CheckingEngine(FrontierEngine):
    """The engine, checking what the pilots' lookahead relies on at every call: evaluate with the
    units' cached values equals evaluate on an independent copy (no cache), and trying an action
    on a clone leaves the state it was cloned from as it was."""

    checks = 0

    def evaluate(self, state, seat):
        value = super().evaluate(state, seat)
        assert value == super().evaluate(state.clone(), seat), "a cached unit value is stale"
        CheckingEngine.checks += 1
        return value

    def apply(self, state, action):
        sources = getattr(self, "sources", None)
        if sources is None or state.events is not None:
            return super().apply(state, action)
        # a lookahead clone: the states it may share units with must not change
        before = [(s, picture(s)) for s in sources if s is not state]
        super().apply(state, action)
        for s, seen in before:
            assert picture(s) == seen, f"applying {action} to a clone changed another state"

    def clone(self, state):
        self.remember(state)
        return super().clone(state)

    def determinize(self, state, seat, rng):
        self.remember(state)  # the real match: its units are shared with the belief
        return super().determinize(state, seat, rng)

    def remember(self, state):
        """The last few states cloned from (a lookahead move must change none of them)."""
        self.sources = (getattr(self, "sources", None) or ())[-6:] + (state,)


def setup():
    data, ruleset = games.load("frontier", "base")
    decks = games.decks_for(data, ruleset, None)
    eng = CheckingEngine()
    pool = eng.compile_pool(ruleset)
    return eng, pool, [eng.compile_deck(pool, d) for d in decks]


@pytest.mark.parametrize("pilot", ["greedy", "planner", "mcts:4"])
def test_lookahead_leaves_the_match_alone_and_caches_hold(pilot):
    eng, pool, decks = setup()
    CheckingEngine.checks = 0
    n = 2 if pilot == "greedy" else 1
    for i in range(n):
        r = play_match(eng, pool, [decks[i % len(decks)], decks[(i + 1) % len(decks)]], 900 + i,
                       [pilot, pilot], log=True)
        assert r.error is None, r.error
    assert CheckingEngine.checks > 100


def test_a_fork_and_its_source_stay_independent():
    """Apply every legal action to a fork of positions from random play: the source is unchanged,
    and the source may go on (changing its own units) without touching the fork."""
    eng, pool, decks = setup()
    eng.sources = None
    plain = FrontierEngine()
    state = plain.new_match(pool, [decks[0], decks[1]], 7, log=False)
    rng = random.Random(7)
    tried = 0
    while not state.over and tried < 3000:
        actions = plain.legal_actions(state)
        seen = picture(state)
        forks = []
        for action in actions:
            trial = state.fork()
            plain.apply(trial, action)
            forks.append((trial, picture(trial)))
            tried += 1
            assert picture(state) == seen
        plain.apply(state, rng.choice(actions))
        for trial, pic in forks:
            assert picture(trial) == pic, "the source's move changed a fork"
    assert tried >= 3000 or state.over


def test_determinize_shuffle_draws_like_random_shuffle():
    from sim.frontier.draws import shuffle
    for seed in range(200):
        items = list(range(seed % 37))
        a, b = random.Random(seed), random.Random(seed)
        x, y = items[:], items[:]
        a.shuffle(x)
        shuffle(b, y)
        assert x == y and a.random() == b.random()
