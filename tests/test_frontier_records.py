"""Wild Frontier's resolution records are named: target codes read back as Target(seat, lane),
the stack holds Frames, a choice waits as a Pending, and a fork copies the frames it shares."""
from __future__ import annotations

import random

from sim.frontier.actions import CHOOSE
from sim.frontier.engine import ENGINE
from sim.frontier.state import MAX_SEATS, SHERIFF, Frame, Pending, Target, code, decode
from workbench import games


def test_every_target_code_reads_back():
    for seat in range(MAX_SEATS):
        for lane in range(16):
            target = decode(code(seat, lane))
            assert isinstance(target, Target) and (target.seat, target.lane) == (seat, lane)
    assert decode(code(1, SHERIFF)).lane == SHERIFF


def waiting_positions(count: int):
    """Positions of seeded random play where a choice waits with a frame still under it."""
    data, ruleset = games.load("frontier", "base")
    pool = ENGINE.compile_pool(ruleset)
    decks = [ENGINE.compile_deck(pool, d) for d in games.decks_for(data, ruleset, None)]
    found = []
    for seed in range(40):
        rng = random.Random(seed)
        state = ENGINE.new_match(pool, [decks[seed % len(decks)], decks[(seed + 1) % len(decks)]], seed, log=False)
        while not state.over and len(found) < count:
            if state.pending is not None and state.stack:
                found.append(state.fork())
            ENGINE.apply(state, rng.choice(ENGINE.legal_actions(state)))
        if len(found) >= count:
            break
    return found


def test_a_waiting_choice_and_its_stack_are_records():
    positions = waiting_positions(5)
    assert len(positions) == 5
    for state in positions:
        pending = state.pending
        assert isinstance(pending, Pending)
        assert [a.a for a in ENGINE.legal_actions(state)] == list(pending.options)
        assert all(a.kind == CHOOSE for a in ENGINE.legal_actions(state))
        assert pending.seat == state.to_act and pending.fx.pick == "chosen"
        assert all(isinstance(f, Frame) and 0 <= f.next <= len(f.effects) for f in state.stack)
        fork = state.clone()
        top, copy = state.stack[-1], fork.stack[-1]
        assert copy is not top and repr(copy) == repr(top)
        copy.next += 1
        assert top.next == copy.next - 1  # the source's frame did not move
