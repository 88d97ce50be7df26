"""Formations: "When 4 Warriors of your faction stand side by side in the same row, they form
their faction's formation". Which Warriors stand in one, and Shield Wall's "they take 1 less
damage", which holds for every damage a Warrior in it takes (RULES.md, "Formations")."""
from __future__ import annotations

from sim.allegiance.board import cells_of
from sim.allegiance.kinds import KINDS as K
from sim.allegiance.pool import WARRIOR
from sim.allegiance.state import AllegianceState
from sim.core.events import NO_ID


def in_formation(state: AllegianceState, cell: int) -> bool:
    """Whether the Warrior on ``cell`` stands in a run of at least 4 (``formation_size``) Warriors
    of its owner's faction side by side in its row. A Warrior at 0 HP is destroyed ("A unit at 0
    HP is destroyed") even while it still stands on its cell, before ``process_deaths`` clears it
    (an attack's on-hit splash lands then): it is in no run."""
    pool = state.pool
    cells, cards = state.cells, pool.cards
    u = cells[cell]
    faction = cards[u.card].faction
    row = state.warriors[u.owner] & pool.board.row_mask[pool.board.row[cell]]  # a run stays in its row
    allies = 0
    for c in cells_of(row):
        if cards[cells[c].card].faction == faction and cells[c].hp > 0:
            allies |= 1 << c
    return bool((formed_in(pool, (allies,)) >> cell) & 1)


def formed_in(pool, faction_masks) -> int:
    """The cells in a formation, given one mask per faction of one seat's Warriors."""
    size = pool.consts.formation_size
    formed = 0
    for mask in faction_masks:
        if mask.bit_count() >= size:  # fewer Warriors of a faction make no run
            formed |= pool.board.runs(mask, size)
    return formed


def damage_taken_off(state: AllegianceState, cell: int, guard: dict) -> int:
    """What the formation of the Warrior on ``cell`` takes off a damage (Shield Wall: 1) by the
    pool's table ``guard`` (``pool.guard``: off every damage; ``pool.guard_as_armor``: at an
    attack's armor step, a rules version's reading); 0 when it stands in none."""
    pool = state.pool
    card = pool.cards[state.cells[cell].card]
    taken = guard[card.faction]
    return taken if taken and card.type == WARRIOR and in_formation(state, cell) else 0


def guarded(state: AllegianceState, cell: int, amount: int) -> int:
    """``amount`` of damage to the unit on ``cell`` less what its formation takes off, with an
    event ``formation`` for what it blocks (a formation read as armor is the armor step's)."""
    if amount <= 0:
        return amount
    blocked = min(amount, damage_taken_off(state, cell, state.pool.guard))
    if not blocked:
        return amount
    u = state.cells[cell]
    if state.events is not None:
        state.events.emit(state.turn, u.owner, K.FORMATION, NO_ID, u.card, blocked, cell, None)
    return amount - blocked
