"""Every choice open to the seat that must decide now.

The action values come prebuilt from the pool's table (``pool.actions``; a pending choice keeps
its own), and costs read the seat's discounts kept with the auras (field.discount), so a decision
builds no new actions and rescans no lanes per card in hand."""
from __future__ import annotations

from itertools import combinations

from sim.alleyway import brawl, field, play, turns
from sim.alleyway.actions import KEEP_HAND, NEXT_PHASE, REDRAW_HAND, Action
from sim.alleyway.pool import AMBUSH, CHARACTER, HUSTLE, INFILTRATE, NO_DISCOUNT
from sim.alleyway.pool import HEAVY as HEAVY_TYPE
from sim.alleyway.state import BACK_BASE, BRAWL, MULLIGAN, AlleyState, code


def legal_actions(state: AlleyState) -> list[Action]:
    if state.over:
        return []
    p = state.pending
    if p is not None:
        if p.actions is None:
            table = state.pool.actions
            p.actions = tuple(table.choose(option) for option in p.options)
        return list(p.actions)  # a list of its own: a caller may change it
    if state.phase == MULLIGAN:
        return [KEEP_HAND, REDRAW_HAND]
    seat = state.active
    actions = [NEXT_PHASE]
    if state.phase == BRAWL:
        _attacks(state, seat, actions)
        if state.pool.consts.switch_in_brawl:
            _switches(state, seat, actions)
    else:
        _from_hand(state, seat, actions)
        _field(state, seat, actions)
    _any_phase(state, seat, actions)
    return actions


def _from_hand(state: AlleyState, seat: int, actions: list) -> None:
    side = state.sides[seat]
    hand = side.hand
    if not hand:
        return
    pool = state.pool
    cards, consts, table = pool.cards, pool.consts, pool.actions
    empty = [lane for lane, u in enumerate(side.lanes) if u is None]
    occupied = [lane for lane, u in enumerate(side.lanes) if u is not None]
    if empty:
        lanes = empty if consts.free_lane_choice else empty[:1]
    else:
        lanes = occupied  # a full row: deploy over one of yours
    slot_free = None in side.back
    discount = field.discounts(state, seat) if pool.has_discount else NO_DISCOUNT
    authority = side.authority
    for card_id in sorted(set(hand)):
        card = cards[card_id]
        cost = card.cost - discount[card.cost_kind]  # field.cost_of, with the seat's discounts read once
        if cost < 0:
            cost = 0
        if card.type == CHARACTER:
            if cost > authority:
                continue
            if card.subtype == HEAVY_TYPE:
                for chosen in combinations(occupied, card.sacrifice):
                    mask = sum(1 << lane for lane in chosen)
                    actions.append(table.heavy(card_id, 1, mask))
                    actions.append(table.heavy(card_id, 0, mask))
            else:
                in_atk, in_def = table.deploy[card_id][1], table.deploy[card_id][0]
                for lane in lanes:
                    actions.append(in_atk[lane])
                    actions.append(in_def[lane])
        elif card.type == HUSTLE:
            if slot_free:
                actions.append(table.set[card_id])
            if cost <= authority and play.castable(state, seat, card, True):
                actions.append(table.play[card_id])
        elif card.type == AMBUSH and slot_free:
            if consts.ambush_cost_on == "spring" or cost <= authority:
                actions.append(table.set[card_id])


def _field(state: AlleyState, seat: int, actions: list) -> None:
    """Position switches, a paid PROMOTE, AWAKEN (main phases only)."""
    side = state.sides[seat]
    cards = state.pool.cards
    table = state.pool.actions
    for u in side.lanes:
        if u is None:
            continue
        if play.can_switch(state, u):
            actions.append(table.switch[u.lane])
        card = cards[u.card]
        if (card.promote is not None and card.promote.kind == "authority" and not u.downed and u.owner == seat
                and card.next in side.hideout and card.promote.count <= side.authority):
            actions.append(table.promote[u.lane])
    if play.awaken_ready(state, seat):
        empty = field.empty_lane(state, seat)
        lanes = [empty] if empty >= 0 else list(range(len(side.lanes)))
        for lane in lanes:
            actions.append(table.awaken[1][lane])
            actions.append(table.awaken[0][lane])


def _switches(state: AlleyState, seat: int, actions: list) -> None:
    """Position switches in the Brawl phase (in the main phases ``_field`` offers them, each
    beside its lane's paid PROMOTE, in the order the rules versions have always listed them)."""
    switch = state.pool.actions.switch
    for u in state.sides[seat].lanes:
        if u is not None and play.can_switch(state, u):
            actions.append(switch[u.lane])


def _any_phase(state: AlleyState, seat: int, actions: list) -> None:
    """On your turn, any phase: set Hustles and Continuous Ambushes, ACTIVATE, Gutter abilities."""
    side = state.sides[seat]
    cards = state.pool.cards
    table = state.pool.actions
    flippable = discount = None
    for slot, b in enumerate(side.back):
        if b is None or b.face_up:
            continue
        card = cards[b.card]
        if card.type == HUSTLE:
            if discount is None:  # (NO_DISCOUNT in a pool without discounts)
                discount = field.discounts(state, seat)
            cost = card.cost - discount[card.cost_kind]  # field.cost_of, the discounts read once
            if max(cost, 0) <= side.authority and play.castable(state, seat, card, False):
                actions.append(table.flip[slot])
        elif card.continuous:
            if flippable is None:
                flippable = turns.flippable(state, seat)
            if code(seat, BACK_BASE + slot) in flippable:
                actions.append(table.flip[slot])
    for u in side.lanes:
        if u is None:
            continue
        ab = cards[u.card].activate
        if ab is not None and u.active and u.acted != state.turn and play.can_pay(state, seat, ab, u):
            actions.append(table.activate[u.lane])
    gutter_cards = state.pool.gutter_cards
    if gutter_cards and side.gutter:
        for card_id in sorted(gutter_cards.intersection(side.gutter)):
            if play.gutter_ready(state, seat, card_id):
                actions.append(table.gutter[card_id])


def _attacks(state: AlleyState, seat: int, actions: list) -> None:
    table = state.pool.actions
    # an attacker's targets depend on it only through INFILTRATE (brawl.attack_targets): found
    # once for the attackers with it and once for those without
    targets_by_infiltrate: dict[bool, list[int]] = {}
    for u in state.sides[seat].lanes:
        if u is not None and brawl.can_attack(state, u):
            infiltrate = bool(u.kw & INFILTRATE and u.active)
            targets = targets_by_infiltrate.get(infiltrate)
            if targets is None:
                targets = targets_by_infiltrate[infiltrate] = brawl.attack_targets(state, u)
            for target in targets:
                actions.append(table.attack(u.lane, target))
