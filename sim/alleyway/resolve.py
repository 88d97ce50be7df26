"""The resolution stack: everything that happens after a decision runs here, frame by frame, until
the stack is empty or some seat must choose.

A frame is a small list whose first item names its kind:
    [FX, ctx, effects, next index]              effects of one ability, card or branch
    [ATTACK, attacker uid, target, stage, negated, defender uid]  an attack in progress (brawl.py)
    [OFFER, seats, index]                       Continuous Ambushes offered to other seats (turns.py)
    [COST, ctx, ability, discards left, sacrifices left, uid not to sacrifice]  an ability's cost (play.py)
    [ENDTURN, stage]                            the end of a turn (turns.py)
A ctx is a tuple (seat, card, self uid, foe uid, host uid): who the effects belong to, the card
they come from, the character that is "self", the one that is "foe" (the character it brawls, or
for an Ambush the attacker) and an Equip's host.

Each step function returns True when it left a choice pending (``state.pending``); the seat that
must choose becomes ``state.to_act``. Otherwise the loop goes on.
"""
from __future__ import annotations

from sim.alleyway.kinds import KINDS as K
from sim.alleyway.state import AlleyState
from sim.core.events import NO_ID

FX, ATTACK, OFFER, COST, ENDTURN = 0, 1, 2, 3, 4
C_SEAT, C_CARD, C_SELF, C_FOE, C_HOST = range(5)


def ctx(seat: int, card: int, self_uid: int = 0, foe: int = 0, host: int = 0) -> tuple:
    return (seat, card, self_uid, foe, host)


def push_effects(state: AlleyState, context: tuple, effects: tuple) -> None:
    if effects:
        state.stack.append([FX, context, effects, 0])


_STEPS: tuple = ()  # the step function of each frame kind, filled on the first run


def _steps() -> tuple:
    """The step functions live in modules that import this one, so they are looked up once, on
    the first run (an import statement inside ``run`` cost an import-system call per action)."""
    global _STEPS
    if not _STEPS:
        from sim.alleyway import brawl, effects, play, turns

        _STEPS = (effects.step, brawl.step, turns.step_offer, play.step_cost, turns.step_end)
    return _STEPS


def run(state: AlleyState) -> None:
    """Resolve frames until the stack is empty, a choice is pending, or the match is over."""
    steps = _STEPS or _steps()
    stack = state.stack
    if len(state.sides) > 2:
        _run_many(state, steps)
        return
    while stack and not state.over:  # two seats (the hot path): a seat that goes out ends the match
        frame = stack[-1]
        if steps[frame[0]](state, frame) and not state.over:
            state.to_act = state.pending.seat
            return
    if not state.over:
        state.to_act = state.active


def _run_many(state: AlleyState, steps) -> None:
    """``run`` with three or more seats, where the active seat may go out mid-turn and the match
    go on: its turn then stops at once (turns.end_turn_of_the_out)."""
    from sim.alleyway import turns

    stack, sides = state.stack, state.sides
    while not state.over:
        if sides[state.active].out:
            turns.end_turn_of_the_out(state)
            continue
        if not stack:
            state.to_act = state.active
            return
        frame = stack[-1]
        if steps[frame[0]](state, frame) and not state.over and not sides[state.active].out:
            state.to_act = state.pending.seat
            return


def take_choice(state: AlleyState, option: int):
    """The pending choice being answered with ``option`` (checked), now closed."""
    p = state.pending
    if p is None or option not in p.options:
        raise ValueError(f"{option} is not among the options {None if p is None else p.options}")
    state.pending = None
    return p


def finish(state: AlleyState, winner: int | None, reason: str) -> None:
    state.over, state.winner, state.reason = True, winner, reason
    state.pending = None
    state.stack.clear()
    if state.events is not None:
        state.events.emit(state.turn, NO_ID if winner is None else winner, K.GAME_OVER, detail=reason)


def eliminate(state: AlleyState, seat: int, reason: str) -> None:
    """A seat is out (Morale 0 or an empty deck). With one seat left it wins; with none, a draw."""
    if state.over:
        return
    state.sides[seat].out = True
    state.auras_stale = True  # an eliminated seat's auras stop
    alive = state.alive()
    if len(alive) <= 1:
        finish(state, alive[0] if alive else None, reason)
