"""Frontier's lookahead shortcuts change nothing: copy-on-write clones never write into the
state they were made from, evaluate's cached unit values equal values computed from scratch, and
the engine's faster paths (legal actions) give what the plain
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
    LIMIT = 1500  # evaluations checked per match; the rest of it plays unchecked (a searching
                  # pilot's match makes tens of thousands, and each check copies and compares)

    def evaluate(self, state, seat):
        value = super().evaluate(state, seat)
        if CheckingEngine.checks < self.LIMIT:
            assert value == super().evaluate(state.clone(), seat), "a cached value is stale"
            CheckingEngine.checks += 1
        return value

    def apply(self, state, action):
        sources = getattr(self, "sources", None)
        if sources is None or state.events is not None or CheckingEngine.checks >= self.LIMIT:
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
        self.sources = (getattr(self, "sources", None) or ())[-3:] + (state,)


def setup():
    data, ruleset = games.load("frontier", "base")
    decks = games.decks_for(data, ruleset, None)
    eng = CheckingEngine()
    pool = eng.compile_pool(ruleset)
    return eng, pool, [eng.compile_deck(pool, d) for d in decks]


@pytest.mark.parametrize("pilot", ["greedy", "planner", "mcts:3"])
def test_lookahead_leaves_the_match_alone_and_caches_hold(pilot):
    eng, pool, decks = setup()
    CheckingEngine.checks = 0
    r = play_match(eng, pool, [decks[0], decks[1]], 900, [pilot, pilot], log=True)
    assert r.error is None, r.error
    assert CheckingEngine.checks > 500


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


# --- legal actions: the engine's list against the plain computation ---------------------------------

def plain_legal_actions(state) -> list:
    """The legal actions as the engine computed them before they were built from ready parts
    (45a043b): every rule asked in full at every decision, every row built afresh."""
    from sim.frontier.actions import CHOOSE, END_TURN, PLAY, SHERIFF_ACT, SUMMON, Action
    from sim.frontier.combat import attack_options, power
    from sim.frontier.effects import has_targets
    from sim.frontier.pool import CREATURE, TUNNEL
    from sim.frontier.state import ON_FIELD

    if state.over:
        return []
    if state.pending is not None:
        return [Action(CHOOSE, option) for option in state.pending.options]
    seat = state.active
    side = state.sides[seat]
    cards, consts = state.pool.cards, state.pool.consts
    mine = side.lanes
    empty = [lane for lane, u in enumerate(mine) if u is None]
    pressed = [lane for lane in range(state.pool.n_middle) if mine[lane] is None
               and any(s.lanes[lane] is not None for t, s in enumerate(state.sides) if t != seat)]
    if not consts.blocking_pressure:
        pressed = []
    actions = [END_TURN]
    sheriff = state.pool.sheriffs[side.sheriff]
    trim = sheriff.trim if side.trims_left > 0 else 0
    seen = []
    for card_id in side.hand:
        if card_id in seen:
            continue
        seen.append(card_id)
        card = cards[card_id]
        if card.mana - trim > side.mana or card.gold > side.gold:
            continue
        if card.type == CREATURE:
            actions += [Action(PLAY, card_id, lane) for lane in (empty if card.kw & TUNNEL else pressed or empty)]
        elif has_targets(state, seat, card.on_played):
            actions.append(Action(PLAY, card_id, -1))
    for slot, card_id in enumerate(side.deputies):
        card = cards[card_id]
        zone = side.dzone[slot]
        if (zone != ON_FIELD and zone <= side.turns and card.mana <= side.mana and card.gold <= side.gold
                and side.dzone.count(ON_FIELD) < consts.max_deputies_on_field):
            actions += [Action(SUMMON, slot, lane) for lane in (empty if card.kw & TUNNEL else pressed or empty)]
        if (zone != ON_FIELD and side.dused[slot] != side.turns and card.off_gold <= side.gold
                and has_targets(state, seat, card.off_board)):
            actions.append(Action(5, slot))
    if "discard_draw" in sheriff.kinds and side.discard_uses_left > 0:
        actions += [Action(SHERIFF_ACT, card_id) for card_id in sorted(seen)]
    attackers = [u for u in side.lanes if u is not None and u.attacks_left > 0 and power(state, u) > 0]
    if attackers:
        for lane, targets in attack_options(state, seat, attackers):
            actions += [Action(2, lane, target) for target in targets]
    return actions


@pytest.mark.parametrize("pilot", ["random", "greedy"])
def test_legal_actions_equal_the_plain_computation(pilot):
    eng, pool, decks = setup()
    plain = FrontierEngine()
    compared = 0

    def compare(state, action):
        nonlocal compared
        assert plain.legal_actions(state) == plain_legal_actions(state)
        compared += 1

    n = 24 if pilot == "random" else 3
    for i in range(n):
        seats = [decks[i % len(decks)], decks[(i + 3) % len(decks)]]
        r = play_match(plain, pool, seats, 300 + i, [pilot, pilot], log=False, on_decision=compare)
        assert r.error is None, r.error
    assert compared > (2000 if pilot == "random" else 200)
