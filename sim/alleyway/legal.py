"""Every choice open to the seat that must decide now."""
from __future__ import annotations

from itertools import combinations

from sim.alleyway import brawl, field, play, turns
from sim.alleyway.actions import (ACTIVATE, ATTACK, AWAKEN, CHOOSE, DEPLOY, FLIP, GUTTER, HEAVY, KEEP_HAND,
                                  NEXT_PHASE, PLAY, PROMOTE, REDRAW_HAND, SET, SWITCH, Action)
from sim.alleyway.pool import AMBUSH, CHARACTER, HUSTLE
from sim.alleyway.pool import HEAVY as HEAVY_TYPE
from sim.alleyway.state import BACK_BASE, BRAWL, MULLIGAN, AlleyState, code


def legal_actions(state: AlleyState) -> list[Action]:
    if state.over:
        return []
    p = state.pending
    if p is not None:
        return [Action(CHOOSE, option) for option in p.options]
    if state.phase == MULLIGAN:
        return [KEEP_HAND, REDRAW_HAND]
    seat = state.active
    actions = [NEXT_PHASE]
    if state.phase == BRAWL:
        _attacks(state, seat, actions)
    else:
        _from_hand(state, seat, actions)
        _field(state, seat, actions)
    _any_phase(state, seat, actions)
    return actions


def _from_hand(state: AlleyState, seat: int, actions: list) -> None:
    side = state.sides[seat]
    cards = state.pool.cards
    consts = state.pool.consts
    empty = [lane for lane, u in enumerate(side.lanes) if u is None]
    occupied = [lane for lane, u in enumerate(side.lanes) if u is not None]
    if empty:
        lanes = empty if consts.free_lane_choice else empty[:1]
    else:
        lanes = occupied  # a full row: deploy over one of yours
    slot_free = any(b is None for b in side.back)
    for card_id in sorted(set(side.hand)):
        card = cards[card_id]
        cost = field.cost_of(state, seat, card)
        if card.type == CHARACTER:
            if cost > side.authority:
                continue
            if card.subtype == HEAVY_TYPE:
                for chosen in combinations(occupied, card.sacrifice):
                    mask = sum(1 << lane for lane in chosen)
                    actions.append(Action(HEAVY, card_id, 1, mask))
                    actions.append(Action(HEAVY, card_id, 0, mask))
            else:
                for lane in lanes:
                    actions.append(Action(DEPLOY, card_id, 1, lane))
                    actions.append(Action(DEPLOY, card_id, 0, lane))
        elif card.type == HUSTLE:
            if slot_free:
                actions.append(Action(SET, card_id))
            if cost <= side.authority and play.castable(state, seat, card, True):
                actions.append(Action(PLAY, card_id))
        elif card.type == AMBUSH and slot_free:
            if consts.ambush_cost_on == "spring" or cost <= side.authority:
                actions.append(Action(SET, card_id))


def _field(state: AlleyState, seat: int, actions: list) -> None:
    """Position switches, a paid PROMOTE, AWAKEN (main phases only)."""
    side = state.sides[seat]
    cards = state.pool.cards
    for u in side.lanes:
        if u is None:
            continue
        if play.can_switch(state, u):
            actions.append(Action(SWITCH, u.lane))
        card = cards[u.card]
        if (card.promote is not None and card.promote[0] == "authority" and not u.downed and u.owner == seat
                and card.next in side.hideout and card.promote[1] <= side.authority):
            actions.append(Action(PROMOTE, u.lane))
    if play.awaken_ready(state, seat):
        empty = field.empty_lane(state, seat)
        lanes = [empty] if empty >= 0 else list(range(len(side.lanes)))
        for lane in lanes:
            actions.append(Action(AWAKEN, 1, lane))
            actions.append(Action(AWAKEN, 0, lane))


def _any_phase(state: AlleyState, seat: int, actions: list) -> None:
    """On your turn, any phase: set Hustles and Continuous Ambushes, ACTIVATE, Gutter abilities."""
    side = state.sides[seat]
    cards = state.pool.cards
    flippable = None
    for slot, b in enumerate(side.back):
        if b is None or b.face_up:
            continue
        card = cards[b.card]
        if card.type == HUSTLE:
            if field.cost_of(state, seat, card) <= side.authority and play.castable(state, seat, card, False):
                actions.append(Action(FLIP, slot))
        elif card.continuous:
            if flippable is None:
                flippable = turns.flippable(state, seat)
            if code(seat, BACK_BASE + slot) in flippable:
                actions.append(Action(FLIP, slot))
    for u in side.lanes:
        if u is None:
            continue
        ab = cards[u.card].activate
        if ab is not None and u.active and u.acted != state.turn and play.can_pay(state, seat, ab, u):
            actions.append(Action(ACTIVATE, u.lane))
    for card_id in sorted(set(side.gutter)):
        if cards[card_id].gutter and play.gutter_ready(state, seat, card_id):
            actions.append(Action(GUTTER, card_id))


def _attacks(state: AlleyState, seat: int, actions: list) -> None:
    for u in state.sides[seat].lanes:
        if u is not None and brawl.can_attack(state, u):
            for target in brawl.attack_targets(state, u):
                actions.append(Action(ATTACK, u.lane, target))
