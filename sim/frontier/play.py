"""Playing a card from hand (paying Mana and Gold, summoning a creature into a lane, casting a
spell), where a creature may go (blocking pressure and Tunnel), the Deputy Zone (summoning a
Deputy, its off-board ability), and the sheriff's discard-to-draw (Zix's)."""
from __future__ import annotations

from sim.core.events import NO_ID
from sim.frontier.draw import draw_card
from sim.frontier.effects import run_effects
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import AMBUSH, CREATURE, CardDef
from sim.frontier.state import ON_FIELD, FrontierState, Side, Unit, removed, replaced
from sim.frontier.turns import attacks_per_turn


def mana_cost(side: Side, card: CardDef, pool) -> int:
    """A card's Mana cost from hand: a trimming sheriff (Cogsworth) trims the first card(s) of his
    even turns."""
    if side.trims_left > 0:
        return max(0, card.mana - pool.sheriffs[side.sheriff].trim)
    return card.mana


def summon_lanes(state: FrontierState, seat: int) -> tuple[tuple, tuple]:
    """(lanes for a creature without Tunnel, lanes for one with Tunnel), in lane order; tuples,
    the keys of the action table's rows.

    Blocking pressure: while an empty middle lane of yours faces an enemy creature, a creature
    without Tunnel must be summoned into one of those lanes (it must block). Tunnel may go into
    any empty lane "regardless of normal blocking pressure"."""
    mine = state.sides[seat].lanes
    empty = tuple([lane for lane, u in enumerate(mine) if u is None])
    if not state.pool.consts.blocking_pressure or not empty:
        return empty, empty
    n_middle = state.pool.n_middle
    pressed = []
    for lane in empty:
        if lane >= n_middle:
            break  # empty is in lane order: the rest are High-Rise lanes
        for s, side in enumerate(state.sides):
            if s != seat and side.lanes[lane] is not None:
                pressed.append(lane)
                break
    return (tuple(pressed) if pressed else empty), empty


def play_card(state: FrontierState, seat: int, card_id: int, lane: int) -> None:
    side = state.own_side(seat)
    card = state.pool.cards[card_id]
    side.hand = removed(side.hand, card_id)
    paid = mana_cost(side, card, state.pool)
    if side.trims_left > 0:
        side.trims_left -= 1
    side.mana -= paid
    side.gold -= card.gold
    if state.ledger is not None:
        state.ledger.play(seat, card_id, side.turns)
    ev = state.events
    if card.type == CREATURE:
        unit = summon(state, seat, card, lane)
        if ev is not None:
            ev.emit(state.turn, seat, K.PLAY, card_id, NO_ID, paid, lane, f"{unit.atk}/{unit.hp}")
        run_effects(state, seat, unit.uid, card.id, unit.lane, card.on_played)
    else:
        if ev is not None:
            ev.emit(state.turn, seat, K.PLAY, card_id, NO_ID, paid, NO_ID)
        side.discard = side.discard + [card_id]
        run_effects(state, seat, -1, card_id, -1, card.on_played)


def summon(state: FrontierState, seat: int, card: CardDef, lane: int) -> Unit:
    u = Unit.__new__(Unit)
    u.card, u.uid, u.owner, u.lane = card.id, state.next_uid, seat, lane
    state.next_uid += 1
    u.atk = card.atk
    u.hp = u.max_hp = card.hp + card.fortify  # Fortify: enters with a permanent Defense boost
    u.kw = card.kw
    u.attacks_left = attacks_per_turn(card.kw) if card.kw & AMBUSH else 0
    u.fresh = lane >= state.pool.n_middle  # fresh High-Rise units dodge until they attack
    u.skip, u.charged = 0, False
    u.gen, u.value = state.gen, None
    state.own_side(seat).lanes[lane] = u
    return u


# --- the Deputy Zone -----------------------------------------------------------------------------

def summon_deputy(state: FrontierState, seat: int, slot: int, lane: int) -> None:
    """Summon a Deputy into an empty lane for its Mana and Gold; it enters like a creature
    played (its on-play keywords and abilities fire), but not from hand: no High Noon draw."""
    side = state.own_side(seat)
    card = state.pool.cards[side.deputies[slot]]
    side.mana -= card.mana
    side.gold -= card.gold
    side.dzone = replaced(side.dzone, slot, ON_FIELD)
    if state.ledger is not None:
        state.ledger.play(seat, card.id, side.turns)
    unit = summon(state, seat, card, lane)
    if state.events is not None:
        state.events.emit(state.turn, seat, K.SUMMON, card.id, NO_ID, card.mana, lane, f"{unit.atk}/{unit.hp}")
    run_effects(state, seat, unit.uid, card.id, unit.lane, card.on_summoned)


def use_deputy_ability(state: FrontierState, seat: int, slot: int) -> None:
    side = state.own_side(seat)
    card = state.pool.cards[side.deputies[slot]]
    side.gold -= card.off_gold
    side.dused = replaced(side.dused, slot, side.turns)
    if state.events is not None:
        state.events.emit(state.turn, seat, K.ABILITY, card.id, NO_ID, card.off_gold, NO_ID, "off_board")
    run_effects(state, seat, -1, card.id, -1, card.off_board)


def sheriff_discard(state: FrontierState, seat: int, card_id: int) -> None:
    """The sheriff's discard-to-draw (Zix's one discard-for-2): discard a card from hand, draw."""
    side = state.own_side(seat)
    sheriff = state.pool.sheriffs[side.sheriff]
    side.hand = removed(side.hand, card_id)
    side.discard = side.discard + [card_id]
    side.discard_uses_left -= 1
    if state.events is not None:
        state.events.emit(state.turn, seat, K.ABILITY, card_id, NO_ID, 0, NO_ID, sheriff.id)
    for _ in range(sheriff.discard_draws):
        if side.deck:
            draw_card(state, seat)
