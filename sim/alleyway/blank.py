"""An AlleyWay state with its seats and nothing in them yet: a new match (engine.py) and a
scenario's position (scenario.py) both start from it."""
from __future__ import annotations

from sim.alleyway.pool import NO_DISCOUNT, Pool
from sim.alleyway.state import DORMANT, AlleyState, Side
from sim.core.events import EventBuffer
from sim.core.state import new_generation


def blank_state(pool: Pool, n_seats: int, chance_key: int, log: bool) -> AlleyState:
    consts = pool.consts
    state = AlleyState.__new__(AlleyState)
    state.gen = new_generation()
    state.pool = pool
    state.sides = []
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
    state.active = state.to_act = state.first = 0
    state.turn = 0
    state.phase = "setup"
    state.over, state.winner, state.reason = False, None, ""
    state.stack, state.pending, state.temp, state.risen, state.once = [], None, [], [], []
    state.next_uid = 1
    state.auras_stale = state.discounts_stale = True
    state.discounts = (NO_DISCOUNT,) * n_seats
    state.known = ()
    state.chance_key, state.chance, state.chance_gen = chance_key, None, 0
    state.events = EventBuffer() if log else None
    state.ledger = None
    return state
