"""An Allegiance state with its two seats and an empty battlefield: a new match (engine.py) and a
scenario's position (scenario.py) both start from it."""
from __future__ import annotations

from sim.allegiance.pool import Pool
from sim.allegiance.state import AllegianceState, Side
from sim.core.setup import new_state


def blank_state(pool: Pool, chance_key: int, log: bool) -> AllegianceState:
    consts = pool.consts
    state = new_state(AllegianceState, pool, chance_key, log)
    for _ in range(2):
        side = Side.__new__(Side)
        side.ap = side.turns = side.supplies = side.cries = side.tactics = side.faction = 0
        side.hand, side.deck, side.discard, side.muster = [], [], [], []
        side.strongholds, side.fallen = [], []
        side.decklist = side.fortress = ()
        side.gen = state.gen
        state.sides.append(side)
    state.cells = [None] * pool.board.n
    state.units, state.warriors = (0, 0), (0, 0)
    state.blight = 0
    state.blight_supply = consts.blight_tokens
    state.blight_destroyed = 0
    state.memo = [None, None]
    # not held (sim/core/state.py reads a missing hold as None, but finding it missing costs an
    # exception inside getattr at every lookahead step)
    state.hold = None
    state.chance_gen = state.gen  # the stream, once made, is this state's own
    return state
