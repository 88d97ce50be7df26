"""An AlleyWay state with its seats and nothing in them yet: a new match (engine.py) and a
scenario's position (scenario.py) both start from it."""
from __future__ import annotations

from sim.alleyway.pool import NO_DISCOUNT, Pool
from sim.alleyway.state import DORMANT, AlleyState, Side
from sim.core.setup import new_state


def blank_state(pool: Pool, n_seats: int, chance_key: int, log: bool, cls: type = AlleyState) -> AlleyState:
    """``cls``: AlleyState, or TurfState (Turf Defense: the caller sets its teams and boss)."""
    consts = pool.consts
    state = new_state(cls, pool, chance_key, log)
    for _ in range(n_seats):
        side = Side.__new__(Side)
        side.morale = consts.starting_morale
        side.authority = side.turns = 0
        side.hand, side.deck, side.gutter, side.exile, side.hideout = [], [], [], [], []
        side.lanes = [None] * pool.n_lanes
        side.back = [None] * pool.n_back
        side.leader, side.leader_state, side.influence = -1, DORMANT, 0
        side.barricade = side.tax = side.jam = side.loaded_turn = side.redraws = 0
        side.kos = side.flips = side.plundered = side.burn_dealt = 0
        side.out = False
        side.cards = ()
        side.aura_atk = side.aura_def = 0
        state.sides.append(side)
    state.first = 0
    state.phase = "setup"
    state.stack, state.temp, state.risen, state.once = [], [], [], []
    state.auras_stale = state.discounts_stale = True
    state.discounts = (NO_DISCOUNT,) * n_seats
    state.known = ()
    state.outs = ()
    state.chance_gen = 0
    state.hold = None  # not a held lookahead clone (sim/core/state.py): set, so reading it never raises
    return state
