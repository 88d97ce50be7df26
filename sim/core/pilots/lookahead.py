"""What the lookahead pilots share: one greedy step, finishing a turn with it, and judging a
move over several draws of luck.

Every function works on lookahead clones only (``engine.determinize`` / ``engine.clone``), held
at the end of the turn (``sim.core.state.hold_turns``), so a position is scored where the turn
that made it ends and before the next seat draws: ending the turn and every other move are
scored on the same footing.
"""
from __future__ import annotations

import random
from typing import Any

from sim.core.state import hold_turns, turn_held

# A turn is finished within this many decisions in lookahead, whatever the policy does; the
# real match loop's decision limit is far larger, and a plan that long is noise.
MAX_PLAN_STEPS = 40

# Luck samples for a move whose outcome depends on chance (a coin, a die, a random target):
# scored as the mean over this many reseeded draws instead of one imagined outcome.
CHANCE_SAMPLES = 8


def turn_over(state: Any) -> bool:
    """The lookahead line has reached its end: the match ended or the turn passed."""
    return state.over or turn_held(state) is not None


def belief(engine: Any, state: Any, seat: int, rng: random.Random) -> Any:
    """A determinized clone as ``seat`` may believe it, held at the end of the turn, with this
    turn's chance stream not yet drawn (so ``used_chance`` can tell a move that draws luck)."""
    clone = engine.determinize(state, seat, rng)
    clone.chance = None
    hold_turns(clone)
    return clone


def used_chance(state: Any) -> bool:
    """True if the line drew from the turn's chance stream since ``belief`` made the clone (the
    stream is made lazily, so it exists only once something drew from it)."""
    return state.chance is not None


# How many follow-up choices inside the action just tried a greedy judgement resolves before
# it scores: its own (the target or cell of its action: the best one) and another seat's reply
# that the action waits on (a defender's answer: the worst one for the seat). 1 means "play the
# card and its best target", not a deeper search.
FOLLOW_UP_DEPTH = 1


def zero_sum(state: Any) -> bool:
    """A duel: two seats and no teams. Every game's ``evaluate`` is zero-sum there (the
    conformance suite checks ``evaluate(s, 0) == -evaluate(s, 1)``), so the other seat's own best
    is exactly the worst for the seat, and one evaluate per position judges both. At a table
    (free-for-all, or partners against a boss) it is not: a partner wants what the seat wants, and
    each opponent wants its own good, not the seat's harm, so each other seat is judged by its own
    ``evaluate``."""
    return len(state.sides) == 2 and getattr(state, "teams", None) is None


def follow_up_value(engine: Any, state: Any, seat: int, depth: int = FOLLOW_UP_DEPTH) -> float:
    """``seat``'s value of ``state`` once the choices the last action opened are resolved
    (``depth`` of them): each chooser takes its own best (in a duel the other seat's best is the
    worst for ``seat``; at a table another seat takes the best by its own value, the first of
    equals in legal order, and ``seat`` gets that line's value). Without it, an action that only
    opens a choice (a move before its cell, a card before its target) would score as if nothing
    had happened."""
    if depth > 0 and not turn_over(state) and engine.in_choice(state):
        mover = state.to_act
        if mover != seat and not zero_sum(state):
            return _their_choice(engine, state, seat, mover, depth)
        mine = mover == seat
        best = float("-inf") if mine else float("inf")
        for follow_up in engine.legal_actions(state):
            trial = engine.clone(state)
            engine.apply(trial, follow_up)
            value = follow_up_value(engine, trial, seat, depth - 1)
            best = max(best, value) if mine else min(best, value)
        return best
    return engine.evaluate(state, seat)


def _their_choice(engine: Any, state: Any, seat: int, mover: int, depth: int) -> float:
    """At a table: ``mover`` (another seat) resolves the choice by its own value; ``seat``'s
    value of the line it takes."""
    theirs, ours = float("-inf"), 0.0
    for follow_up in engine.legal_actions(state):
        trial = engine.clone(state)
        engine.apply(trial, follow_up)
        value = follow_up_value(engine, trial, mover, depth - 1)
        if value > theirs:
            theirs, ours = value, follow_up_value(engine, trial, seat, depth - 1)
    return ours


def best_of(actions: list, value_of, rng: random.Random) -> Any:
    """The action with the highest ``value_of(action)``, in the order given; ties go to
    ``rng`` (drawn once, after every action is scored)."""
    best_value = float("-inf")
    best: list = []
    for action in actions:
        value = value_of(action)
        if value > best_value:
            best_value, best = value, [action]
        elif value == best_value:
            best.append(action)
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def one_ply_ranking(engine: Any, state: Any, actions: list, seat: int) -> list[int]:
    """The indices of ``actions`` by their one-ply value for ``seat`` (the choice each opens
    resolved), best first, ties in legal order."""
    scored = []
    for i, action in enumerate(actions):
        trial = engine.clone(state)
        engine.apply(trial, action)
        scored.append((-follow_up_value(engine, trial, seat), i))
    scored.sort()
    return [i for _v, i in scored]


def greedy_step(engine: Any, state: Any, seat: int, rng: random.Random) -> Any:
    """The action the seat to act takes under one-ply greedy play (follow-up choices resolved),
    as ``seat`` imagines it: its own best when it acts; when another seat does, in a duel the
    worst for ``seat`` (the same move: ``zero_sum``), at a table the other seat's best by its own
    evaluate (a partner helps, an opponent plays for itself). Ties go to ``rng``."""
    actions = engine.legal_actions(state)
    if len(actions) == 1:
        return actions[0]
    mover = state.to_act
    judge = seat if zero_sum(state) else mover
    sign = 1.0 if mover == judge else -1.0

    def value_of(action: Any) -> float:
        trial = engine.clone(state)
        engine.apply(trial, action)
        return sign * follow_up_value(engine, trial, judge)

    return best_of(actions, value_of, rng)


def finish_turn_greedily(engine: Any, state: Any, seat: int, rng: random.Random) -> None:
    """Play the rest of the turn (and any reply it waits on) greedily, in place."""
    for _ in range(MAX_PLAN_STEPS):
        if turn_over(state):
            return
        engine.apply(state, greedy_step(engine, state, seat, rng))
