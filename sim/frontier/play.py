"""Playing a card from hand: paying Mana and Gold, summoning a creature into a lane with its
on-play keywords (High Noon, Gold Rush, Fortify, Ambush), or casting a spell."""
from __future__ import annotations

from sim.core.events import NO_ID
from sim.frontier.effects import candidates, run_effects
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import AMBUSH, CREATURE, HIGH_NOON, CardDef
from sim.frontier.state import FrontierState, Unit
from sim.frontier.turns import attacks_per_turn, draw_card


def affordable(side, card: CardDef) -> bool:
    return card.mana <= side.mana and card.gold <= side.gold


def castable(state: FrontierState, seat: int, card: CardDef) -> bool:
    """A spell can be cast when each of its chosen-target effects has a target now."""
    return all(candidates(state, seat, fx, -1, -1) for fx in card.on_played if fx.pick == "chosen")


def play_card(state: FrontierState, seat: int, card_id: int, lane: int) -> None:
    side = state.sides[seat]
    card = state.pool.cards[card_id]
    side.hand.remove(card_id)
    side.mana -= card.mana
    side.gold -= card.gold
    if state.ledger is not None:
        state.ledger.play(seat, card_id, side.turns)
    ev = state.events
    if card.type == CREATURE:
        unit = summon(state, seat, card, lane)
        if ev is not None:
            ev.emit(state.turn, seat, K.PLAY, card_id, NO_ID, card.mana, lane, f"{unit.atk}/{unit.hp}")
        played_triggers(state, seat, card, unit)
    else:
        if ev is not None:
            ev.emit(state.turn, seat, K.PLAY, card_id, NO_ID, card.mana, NO_ID)
        side.discard.append(card_id)
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
    state.sides[seat].lanes[lane] = u
    return u


def played_triggers(state: FrontierState, seat: int, card: CardDef, unit: Unit) -> None:
    """On-play keywords first (High Noon draws, Gold Rush pays), then printed abilities."""
    side = state.sides[seat]
    if card.kw & HIGH_NOON and side.deck:
        draw_card(state, seat)
    if card.gold_rush:
        side.gold += card.gold_rush
        if state.events is not None:
            state.events.emit(state.turn, seat, K.GOLD_GAIN, card.id, NO_ID, card.gold_rush)
    if card.on_played:
        run_effects(state, seat, unit.uid, card.id, unit.lane, card.on_played)
