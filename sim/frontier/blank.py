"""A Wild Frontier state with its seats and nothing in them yet, and what a seat's sheriff and
Deputies give it at the start: a new match (engine.py) and a scenario's position (scenario.py)
both start from here."""
from __future__ import annotations

from sim.core.setup import new_state
from sim.frontier.pool import Pool
from sim.frontier.sheriffs import NO_SHERIFF
from sim.frontier.state import FrontierState, Side


def blank_state(pool: Pool, n_seats: int, chance_key: int, log: bool) -> FrontierState:
    consts = pool.consts
    state = new_state(FrontierState, pool, chance_key, log)
    for _ in range(n_seats):
        side = Side.__new__(Side)
        side.hp = side.max_hp = consts.starting_hp
        side.mana = side.gold = side.gold_bonus = side.turns = 0
        side.hand, side.deck, side.discard = [], [], []
        side.lanes = [None] * pool.n_lanes
        side.cover = [0] * pool.n_middle
        side.decklist = ()
        side.sheriff = NO_SHERIFF
        side.deputies, side.dzone, side.dused = (), [], []
        side.mana_bonus = side.discard_uses_left = side.trims_left = 0
        side.attacked = False
        side.gen, side.value = state.gen, None
        state.sides.append(side)
    state.phase = "setup"
    state.stack, state.temp = [], []
    # no hold: sim.core.state reads an unset hold as None; set, the reads do not raise and catch
    # an AttributeError each time (lookahead asks at every step)
    state.hold = None
    return state


def set_sheriff(state: FrontierState, seat: int, sheriff: int, hp: int | None = None,
                max_hp: int | None = None) -> None:
    """The sheriff's starting passives: its starting HP (Ironhold's 35), its discard-to-draw uses
    (Zix's one), its starting Cover (Reedwick's, centre lanes first). ``hp`` and ``max_hp``
    override the starting HP and its cap (Frontier Run's trail HP)."""
    consts = state.pool.consts
    passives = state.pool.sheriffs[sheriff]
    side = state.sides[seat]
    side.sheriff = sheriff
    side.hp = side.max_hp = hp if hp is not None else passives.start_hp
    if max_hp is not None:
        side.max_hp = max(max_hp, side.hp)
    side.discard_uses_left = passives.discard_uses
    for lane in centre_out(state.pool.n_middle)[:passives.start_cover]:
        side.cover[lane] = min(consts.max_cover_per_lane, side.cover[lane] + 1)


def centre_out(n: int) -> list[int]:
    """Middle lanes from the centre outwards: 5 lanes give m3, m2, m4, m1, m5."""
    mid = (n - 1) // 2
    order = [mid]
    for step in range(1, n):
        for lane in (mid - step, mid + step):
            if 0 <= lane < n and lane not in order:
                order.append(lane)
    return order


def set_deputies(side: Side, deputies: tuple) -> None:
    side.deputies = tuple(deputies)
    side.dzone = [0] * len(deputies)  # ready from the first turn
    side.dused = [0] * len(deputies)
