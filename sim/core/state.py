"""What every game's match state shares. A game's state class derives from ``MatchState`` and
has the slots ``sides`` (one per seat), ``turn``, ``chance_key`` and ``chance``."""
from __future__ import annotations

import itertools
import random

from sim.core.rng import copy_stream, stream

# Copy-on-write lookahead (engines that share units and seats between a state and its forks):
# every state that may write gets a fresh number, unique in the process, and a shared part may
# be written in place only by the state whose number it carries.
new_generation = itertools.count(1).__next__


class MatchState:
    # ``hold`` is set only on lookahead clones (``hold_turns``): -1 while the turn runs, then the
    # seat whose turn waits to begin. Real matches never set it (reading it then is an error,
    # so ``holds_turn`` asks with a default).
    __slots__ = ("hold",)

    @property
    def n_seats(self) -> int:
        return len(self.sides)

    def rng(self) -> random.Random:
        """This turn's chance stream (coins, dice, random picks), made when first needed: most
        turns need none. A game resets ``chance`` to None when a turn starts."""
        if self.chance is None:
            self.chance = stream(self.chance_key, "chance", self.turn)
        return self.chance


class GenerationCopies:
    """``clone`` and ``fork`` for a state whose ``_copy(deep)`` makes its copy under a new
    generation: deep, nothing shared (a test or a tool may edit it by hand); shallow, seats and
    units shared copy-on-write (the engine's own changes go through the state's ``own_side`` and
    ``own``). A fork gives the original a new generation too, so neither writes a shared part in
    place. Edit a fork only through the engine; to edit a position by hand, ``clone`` it."""
    __slots__ = ()

    def clone(self):
        return self._copy(deep=True)

    def fork(self):
        s = self._copy(deep=False)
        self.gen = new_generation()
        return s


def unit_by_uid(state, uid: int):
    """The unit on the field (a seat's ``lanes``) whose ``uid`` is ``uid``, or None. Uids start at 1
    (sim/core/setup.py), so 0 and below name none. A state class takes it as its method
    (AlleyWay's ``find``, Frontier's ``find_uid``), which costs no call more than its own."""
    if uid <= 0:
        return None
    for side in state.sides:
        for u in side.lanes:
            if u is not None and u.uid == uid:
                return u
    return None


def new_turn(state, seat: int) -> None:
    """A player-turn begins for ``seat``: it is counted (the match loop's turn limit reads
    ``turn``), the seat is active and acts, and the turn's chance stream is derived afresh when
    first used (``MatchState.rng``)."""
    state.turn += 1
    state.active = state.to_act = seat
    state.chance = None


def hold_turns(state) -> None:
    """Make a lookahead clone stop where its turn passes: the next seat's turn does not begin
    (no draw, no resources, no start-of-turn triggers), so a pilot can score the position its
    own turn leaves. ``turn_held`` then tells the waiting seat; the engine's ``begin_held_turn``
    goes on from there (and holds again at the end of that turn)."""
    state.hold = -1


def holds_turn(state, seat: int) -> bool:
    """Called by a game where it passes the turn to ``seat``: True (and the seat recorded) when
    the state is a held clone, so the game stops there instead of beginning the turn."""
    if getattr(state, "hold", None) is None:
        return False
    state.hold = seat
    return True


def turn_held(state) -> int | None:
    """The seat whose turn waits to begin in a held clone, or None while a turn runs."""
    hold = getattr(state, "hold", None)
    return hold if hold is not None and hold >= 0 else None


def copy_hold(source, target) -> None:
    """Clones keep their source's hold (a held tree node stays held)."""
    hold = getattr(source, "hold", None)
    if hold is not None:
        target.hold = hold


def release_hold(state) -> int:
    """The waiting seat of a held clone, the clone armed to hold again at the next turn's end
    (engines call this in ``begin_held_turn`` and then begin that seat's turn)."""
    seat = turn_held(state)
    if seat is None:
        raise ValueError("no turn is held")
    state.hold = -1
    return seat


def copy_on_write_rng(state) -> random.Random:
    """This turn's chance stream (``MatchState.rng``) for a state whose forks share it
    copy-on-write, as they share seats and units (slots ``gen`` and ``chance_gen``, the
    generation that may draw from ``chance`` in place): made when first needed, and copied
    before a fork's first draw from a stream it shares. Copying a stream costs a 625-word
    state; most forks never draw. A game's state class sets ``rng = copy_on_write_rng``."""
    chance = state.chance
    if chance is None:
        chance = state.chance = stream(state.chance_key, "chance", state.turn)
        state.chance_gen = state.gen
    elif state.chance_gen != state.gen:
        chance = state.chance = copy_stream(chance)
        state.chance_gen = state.gen
    return chance
