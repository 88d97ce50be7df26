"""The resolution stack: everything that happens after a decision runs here, frame by frame, until
the stack is empty or some seat must choose. The frames and the ``Ctx`` their effects carry are
records in frames.py.

Each step function returns True when it left a choice pending (``state.pending``); the seat that
must choose becomes ``state.to_act``. Otherwise the loop goes on.

The step functions live in the modules that own each kind of frame (effects, brawl, play, turns),
which push frames and call ``run``: so this module imports none of them, and engine.py hands
them over (``wire``) when it is imported, beside its table of choices.
"""
from __future__ import annotations

from typing import Callable

from sim.alleyway.frames import Ctx, EffectsFrame
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.state import AlleyState
from sim.core.ending import finish as end_match
from sim.core.standings import Out
from sim.core.state import turn_held

STEPS: list[Callable] = []  # the step function of each kind of frame (frames.FX ... frames.ENDTURN)
_end_turn_of_the_out: Callable | None = None  # turns.end_turn_of_the_out


def wire(steps: dict[int, Callable], end_turn_of_the_out: Callable) -> None:
    """The step function of each kind of frame, and what stops the turn of an active seat that
    went out (three or more seats): given once, by engine.py."""
    global _end_turn_of_the_out
    STEPS[:] = [steps[kind] for kind in range(len(steps))]
    _end_turn_of_the_out = end_turn_of_the_out


def push_effects(state: AlleyState, context: Ctx, effects: tuple) -> None:
    if effects:
        state.stack.append(EffectsFrame(context, effects, 0))


def run(state: AlleyState) -> None:
    """Resolve frames until the stack is empty, a choice is pending, or the match is over."""
    steps = STEPS
    stack = state.stack
    if len(state.sides) > 2:
        _run_many(state, steps)
        return
    while stack and not state.over:  # two seats (the hot path): a seat that goes out ends the match
        frame = stack[-1]
        if steps[frame.kind](state, frame) and not state.over:
            state.to_act = state.pending.seat
            return
    if not state.over:
        state.to_act = state.active


def _run_many(state: AlleyState, steps) -> None:
    """``run`` with three or more seats, where a seat may go out mid-turn and the match go on.
    A seat that is out resolves nothing more: its abilities still stacked are dropped, and a
    choice it would make is not asked (RULES.md, "a seat out ... its triggers stop"). When the
    active seat goes out its turn stops at once (turns.end_turn_of_the_out), after the abilities
    of the seats still playing that were already stacked have resolved (a KO's "when one of your
    characters is KO'd" does not vanish because another seat went out first). In a held lookahead
    clone (sim/core/state.py ``hold_turns``) the next turn is held, not begun, so the loop stops
    there as at any turn's end: the active seat is still the one that went out."""
    stack, sides = state.stack, state.sides
    end_turn_of_the_out = _end_turn_of_the_out
    while not state.over:
        if sides[state.active].out:
            stack[:] = [frame for frame in stack if _still_resolves(sides, frame)]
            if not stack:
                end_turn_of_the_out(state)
                if turn_held(state) is not None:  # a held lookahead clone: the next turn waits to begin
                    state.to_act = state.active
                    return
                continue
        if not stack:
            state.to_act = state.active
            return
        frame = stack[-1]
        ctx = getattr(frame, "ctx", None)
        if ctx is not None and sides[ctx.seat].out:  # an out seat's ability never resolves
            stack.pop()
            continue
        if steps[frame.kind](state, frame) and not state.over:
            if sides[state.pending.seat].out:  # the seat to choose is out: that ability stops here
                state.pending = None
                if stack and stack[-1] is frame:
                    stack.pop()
                continue
            state.to_act = state.pending.seat
            return


def _still_resolves(sides, frame) -> bool:
    """Whether a stacked frame resolves once the active seat is out: the abilities (effects and
    their costs) of seats still playing do; the out seat's own abilities, and its turn's pieces
    (its attack, the offers it opened, its turn's end), do not."""
    ctx = getattr(frame, "ctx", None)
    return ctx is not None and not sides[ctx.seat].out


def take_choice(state: AlleyState, option: int):
    """The pending choice being answered with ``option`` (checked), now closed."""
    p = state.pending
    if p is None or option not in p.options:
        raise ValueError(f"{option} is not among the options {None if p is None else p.options}")
    state.pending = None
    return p


def finish(state: AlleyState, winner: int | None, reason: str) -> None:
    """The match ends (sim.core.ending); the frames still stacked never resolve."""
    state.stack.clear()
    end_match(state, winner, reason, K.GAME_OVER)


def eliminate(state: AlleyState, seat: int, reason: str, by: int = -1) -> None:
    """A seat is out (Morale 0 or an empty deck), put out by seat ``by`` (-1: nobody, or itself).
    With one seat left it wins; with none, a draw. The order seats go out places them
    (sim/core/standings.py)."""
    if state.over:
        return
    state.sides[seat].out = True
    state.outs = state.outs + (Out(seat, state.turn, -1 if by == seat else by, reason),)
    if state.events is not None:
        state.events.emit(state.turn, seat, K.OUT, amount=-1 if by == seat else by, detail=reason)
    state.auras_stale = True  # an eliminated seat's auras stop
    alive = state.alive()
    teams = state.teams
    if teams is not None:  # Turf Defense: the match ends when one team is left
        if len({teams[s] for s in alive}) <= 1:
            # the partners' win is won by the first partner still playing (standings give
            # every seat of the winning team the win)
            finish(state, alive[0] if alive else None, reason)
        return
    if len(alive) <= 1:
        finish(state, alive[0] if alive else None, reason)
