"""Bringing Warriors onto the battlefield and moving them; War Supplies and support abilities.

Deploying: on a seat's first turn straight from hand; later a Warrior waits one turn in the
Muster Zone (putting it there is free) and deploys from there; a Blight Beast deploys straight
from hand once its condition holds. Each deploy costs ``deploy_ap`` (2) and lands on a free cell
of the seat's own half.

Moving (decided, RULES.md): a move costs ``move_ap`` (1 AP) and takes the Warrior up to its
card's ``move`` steps, each step to an orthogonally adjacent free cell: never through or onto a
Warrior, a Stronghold or Blight; ``moves_per_turn`` (1) move per Warrior per turn.
"""
from __future__ import annotations

from sim.allegiance.actions import FROM_HAND, P_DEPLOY, P_MOVE, Deploying, Moving, Mustered
from sim.allegiance.board import cells_of
from sim.allegiance.effects import _emit, apply_effect, process_deaths
from sim.allegiance.kinds import KINDS as K
from sim.allegiance.pool import T_BLIGHT, T_EMPTY, T_ENEMY_EMPTY, T_FRIENDLY_UNIT, T_FRIENDLY_WARRIOR, T_SELF
from sim.allegiance.state import MOVES, USED, AllegianceState, Unit, replaced
from sim.core.events import NO_ID

# --- the Muster Zone and deploying ---------------------------------------------------------------------

def beast_ready(state: AllegianceState, card) -> bool:
    """A Blight Beast's condition: Blight on the battlefield, or Blight destroyed this game."""
    if card.beast_field is not None:
        return state.blight.bit_count() >= card.beast_field
    return state.blight_destroyed >= card.beast_destroyed


def muster(state: AllegianceState, card: int) -> None:
    seat = state.active
    side = state.own_side(seat)
    side.hand.remove(card)
    side.muster.append(Mustered(card, side.turns))
    if state.ledger is not None:
        state.ledger.play(seat, card, side.turns)
    _emit(state, seat, K.MUSTER, card, NO_ID, 0, NO_ID)


def start_deploy(state: AllegianceState, card: int, source: int) -> None:
    state.pending = Deploying(P_DEPLOY, card, source)


def deploy_cells(state: AllegianceState, seat: int) -> list[int]:
    return cells_of(state.pool.board.side_mask[seat] & ~state.occupied())


def _ready(muster: list, card_id: int, turns: int):
    """The first Muster Zone entry of ``card_id`` that may deploy on the seat's own turn ``turns``."""
    for entry in muster:
        if entry.card == card_id and entry.turn < turns:
            return entry
    raise ValueError(f"no card {card_id} ready in the Muster Zone")


def deploy(state: AllegianceState, cell: int) -> None:
    card_id, source = state.pending.card, state.pending.source
    state.pending = None
    seat = state.active
    side = state.own_side(seat)
    consts = state.pool.consts
    card = state.pool.cards[card_id]
    if source == FROM_HAND:
        side.hand.remove(card_id)
        if state.ledger is not None:
            state.ledger.play(seat, card_id, side.turns)
    else:
        side.muster.remove(_ready(side.muster, card_id, side.turns))
    side.ap -= consts.deploy_ap
    state.place(cell, Unit(card_id, seat, state.next_uid, card.hp, card.hp,
                           min(card.absorb, consts.absorb_cap), min(card.reflect, consts.reflect_cap)))
    state.next_uid += 1
    _emit(state, seat, K.DEPLOY, card_id, NO_ID, consts.deploy_ap, cell,
          "hand" if source == FROM_HAND else "muster")


# --- moving -----------------------------------------------------------------------------------------

def reachable(state: AllegianceState, cell: int) -> list[int]:
    """Cells the Warrior on ``cell`` can move to: up to its ``move`` orthogonal steps through
    free cells (breadth first, so a cell is listed once, in order of distance)."""
    orth = state.pool.board.orth
    cells, blight = state.cells, state.blight
    steps = state.pool.cards[cells[cell].card].move
    seen = {cell}
    frontier = [cell]
    out: list[int] = []
    for _ in range(steps):
        nxt = []
        for c in frontier:
            for d in orth[c]:
                if d not in seen and cells[d] is None and not (blight >> d) & 1:
                    seen.add(d)
                    nxt.append(d)
        out.extend(nxt)
        frontier = nxt
    return out


def start_move(state: AllegianceState, cell: int) -> None:
    state.pending = Moving(P_MOVE, cell)


def move(state: AllegianceState, to: int) -> None:
    frm = state.pending.cell
    state.pending = None
    seat = state.active
    ap = state.pool.consts.move_ap
    state.own_side(seat).ap -= ap
    u = state.remove(frm)
    state.place(to, replaced(u, MOVES, u.moves + 1))
    if state.events is not None:
        names = state.pool.board.names
        state.events.emit(state.turn, seat, K.MOVE, u.card, NO_ID, ap, to, f"{names[frm]}>{names[to]}")


# --- War Supplies ------------------------------------------------------------------------------------

def supply_targets(state: AllegianceState, seat: int, card) -> list[int]:
    """Weapons and armor: a friendly Warrior on the battlefield without one; items: their target."""
    board = state.pool.board
    if card.supply == "item" and card.target == T_BLIGHT:
        return cells_of(state.blight)
    if card.supply == "item" and card.target == T_ENEMY_EMPTY:
        return cells_of(board.side_mask[1 - seat] & ~state.occupied())
    slot = "weapon" if card.supply == "weapon" else "armor" if card.supply == "armor" else ""
    warriors = cells_of(state.warriors[seat])
    if not slot:
        return warriors
    cells = state.cells
    return [c for c in warriors if getattr(cells[c], slot) < 0]


def play_supply(state: AllegianceState, card_id: int, target: int) -> None:
    seat = state.active
    side = state.own_side(seat)
    card = state.pool.cards[card_id]
    side.hand.remove(card_id)
    side.ap -= card.ap
    side.supplies += 1
    if state.ledger is not None:
        state.ledger.play(seat, card_id, side.turns)
    u = state.cells[target]
    if card.supply == "weapon":
        state.cells[target] = u._replace(weapon=card_id)
        _emit(state, seat, K.EQUIP, card_id, u.card, card.damage, target, "weapon")
    elif card.supply == "armor":
        state.cells[target] = u._replace(armor=card_id)
        _emit(state, seat, K.EQUIP, card_id, u.card, card.armor, target, "armor")
    else:
        side.discard.append(card_id)
        _emit(state, seat, K.SUPPLY, card_id, u.card if u is not None else NO_ID, 0, target)
    for fx in card.played:
        apply_effect(state, seat, fx, target, target, card_id)
    process_deaths(state)


# --- support abilities --------------------------------------------------------------------------------

def support_masks(state: AllegianceState, occupied_mask: int) -> dict[int, int]:
    """What each kind of support target can be, as cell masks, for the seat to act."""
    seat = state.active
    return {T_FRIENDLY_WARRIOR: state.warriors[seat], T_FRIENDLY_UNIT: state.units[seat], T_BLIGHT: state.blight,
            T_EMPTY: state.pool.board.all_mask & ~occupied_mask}


def aim(ability, cell: int, masks: dict[int, int]) -> list[int]:
    """Cells a support ability may be aimed at from ``cell``: the same reach masks as attacks
    (units in between never block)."""
    if ability.target == T_SELF:
        return [cell]
    return cells_of(ability.masks[cell] & masks[ability.target])


def use_support(state: AllegianceState, cell: int, index: int, target: int) -> None:
    seat = state.active
    u = state.cells[cell]
    ability = state.pool.cards[u.card].supports[index]
    state.own_side(seat).ap -= ability.ap
    state.cells[cell] = replaced(u, USED, u.used | (1 << index))
    if state.events is not None:
        state.events.emit(state.turn, seat, K.SUPPORT, u.card, NO_ID, ability.ap, target, ability.name)
    for fx in ability.fx:
        apply_effect(state, seat, fx, cell, target, u.card)
    process_deaths(state)
