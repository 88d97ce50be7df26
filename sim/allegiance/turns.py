"""The turn: draw, gain AP, the units' turn-start resets and Stronghold abilities; the end of the
turn: discard down to the hand limit, then Blight Overrun and Rout."""
from __future__ import annotations

from sim.allegiance.actions import DISCARDING
from sim.allegiance.board import cells_of
from sim.allegiance.effects import _emit, apply_effect, blight_on_side, draw_card, finish, process_deaths
from sim.allegiance.kinds import KINDS as K
from sim.allegiance.state import DRAINED, NORMAL, TAPPED, AllegianceState
from sim.core.events import NO_ID
from sim.core.state import holds_turn, new_turn


def start_turn(state: AllegianceState, seat: int) -> None:
    consts = state.pool.consts
    new_turn(state, seat)
    side = state.own_side(seat)
    side.turns += 1
    for other in range(len(state.sides)):
        if other != seat and state.sides[other].tactics:
            state.own_side(other).tactics = 0  # "Max 1 per enemy turn": the count starts again each enemy turn
    first = side.turns == 1 and seat == 0
    if not first or consts.first_player_draws_first_turn:
        draw_card(state, seat)
    side.ap = consts.first_turn_ap if first else consts.ap_per_turn
    side.supplies = side.cries = 0
    cells = state.cells
    for cell in cells_of(state.units[seat]):
        u = cells[cell]
        if u.attacks or u.moves or u.used or u.tap == DRAINED:
            cells[cell] = u._replace(attacks=0, moves=0, used=0, tap=TAPPED if u.tap == DRAINED else u.tap)
    _emit(state, seat, K.TURN_START, NO_ID, NO_ID, side.ap, NO_ID)
    _stronghold_abilities(state, seat)


def _stronghold_abilities(state: AllegianceState, seat: int) -> None:
    cell = state.stronghold_cell(seat)
    if cell < 0:
        return
    card = state.pool.cards[state.cells[cell].card]
    for fx in card.turn_start:
        apply_effect(state, seat, fx, cell, -1, card.id)
    if card.turn_start:
        process_deaths(state)


def end_turn(state: AllegianceState) -> None:
    """END: discard down to the hand limit (the seat chooses, card by card), then finish."""
    if len(state.sides[state.active].hand) > state.pool.consts.hand_limit:
        state.pending = DISCARDING
        state.to_act = state.active
        return
    finish_turn(state)


def discard(state: AllegianceState, card: int) -> None:
    seat = state.active
    side = state.own_side(seat)
    side.hand.remove(card)
    side.discard.append(card)
    _emit(state, seat, K.DISCARD, card, NO_ID, 0, NO_ID)
    if len(side.hand) <= state.pool.consts.hand_limit:
        state.pending = None
        finish_turn(state)


def finish_turn(state: AllegianceState) -> None:
    """End of turn: "until end of turn" bonuses expire and a tapped Warrior recovers; then Blight
    Overrun (any player with 12+ Blight on their side loses; both: a draw), then Rout; then play
    passes."""
    seat = state.active
    cells = state.cells
    for cell in state.unit_cells():
        u = cells[cell]
        if u.boost or (u.tap == TAPPED and u.owner == seat):
            cells[cell] = u._replace(boost=0, tap=NORMAL if u.owner == seat and u.tap == TAPPED else u.tap)
    check_end_of_turn(state)
    if not state.over and not holds_turn(state, state.opponent(seat)):
        start_turn(state, state.opponent(seat))


def check_end_of_turn(state: AllegianceState) -> None:
    consts = state.pool.consts
    seat = state.active
    overrun = [s for s in range(len(state.sides)) if blight_on_side(state, s) >= consts.overrun_blight]
    if overrun:
        finish(state, None if len(overrun) > 1 else state.opponent(overrun[0]), "overrun")
        return
    enemy = state.opponent(seat)
    played = min(side.turns for side in state.sides)
    if played >= consts.rout_after_turns and not has_warriors(state, enemy):
        finish(state, seat, "rout")


def has_warriors(state: AllegianceState, seat: int) -> bool:
    return bool(state.sides[seat].muster or state.warriors[seat])
