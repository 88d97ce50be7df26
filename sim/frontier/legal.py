"""The legal actions of a Wild Frontier position.

Random play spends half its time here, so the list is built from ready parts: actions made once
per pool (actions.ActionTable, rows into a lane set kept by the lane set), the empty and blocked
lanes read from one pass over the board, and a spell's or ability's target check reduced at pool
compile time to the effects that can fail it (pool.target_checks). Nothing is carried from one
decision to the next: nearly every Frontier move changes the board, hand or resources these
depend on, so the list is recomputed, cheaply, from the position alone.
tests/test_frontier_speed_equivalence.py compares it with the plain computation at every
decision of seeded matches.
"""
from __future__ import annotations

from sim.frontier.actions import END_TURN, Action
from sim.frontier.combat import attack_options, power
from sim.frontier.effects import has_targets
from sim.frontier.play import summon_lanes
from sim.frontier.pool import CREATURE, PACK, TUNNEL
from sim.frontier.state import ON_FIELD, FrontierState


def legal_actions(state: FrontierState) -> list[Action]:
    if state.over:
        return []
    acts = state.pool.actions
    if state.pending is not None:
        return list(acts.choices(state.pending.options))
    seat = state.active
    side = state.sides[seat]
    pool = state.pool
    cards, consts = pool.cards, pool.consts
    actions = [END_TURN]
    mana, gold = side.mana, side.gold
    sheriff = pool.sheriffs[side.sheriff]
    trim = sheriff.trim if side.trims_left > 0 else 0
    lanes = None  # (lanes without Tunnel, lanes with Tunnel): read once, when first needed

    in_hand = dict.fromkeys(side.hand)  # each card once, in hand order
    for card_id in in_hand:
        card = cards[card_id]
        if card.mana - trim > mana or card.gold > gold:
            continue
        if card.type == CREATURE:
            if lanes is None:
                lanes = summon_lanes(state, seat)
            actions.extend(acts.plays(card_id, lanes[1] if card.kw & TUNNEL else lanes[0]))
        elif not card.play_checks or has_targets(state, seat, card.play_checks):
            actions.append(acts.play[card_id][-1])
    deputies = side.deputies
    if deputies:
        dzone, dused, turns = side.dzone, side.dused, side.turns
        on_field = dzone.count(ON_FIELD)
        for slot, card_id in enumerate(deputies):
            card = cards[card_id]
            zone = dzone[slot]
            if zone == ON_FIELD:
                continue  # neither summoned again nor used off-board while on the field
            # play.can_summon_deputy
            if (zone <= turns and card.mana <= mana and card.gold <= gold
                    and on_field < consts.max_deputies_on_field):
                if lanes is None:
                    lanes = summon_lanes(state, seat)
                actions.extend(acts.summons(slot, lanes[1] if card.kw & TUNNEL else lanes[0]))
            # play.can_use_ability
            if (dused[slot] != turns and card.off_gold <= gold
                    and (not card.off_checks or has_targets(state, seat, card.off_checks))):
                actions.append(acts.ability[slot])
    if side.discard_uses_left > 0 and "discard_draw" in sheriff.kinds:  # the sheriff's discard-to-draw (Zix's)
        discard = acts.sheriff
        actions.extend(discard[card_id] for card_id in sorted(in_hand))
    # power() is a creature's own Attack unless it has Pack
    attackers = [u for u in side.lanes if u is not None and u.attacks_left > 0
                 and (u.atk > 0 if not u.kw & PACK else power(state, u) > 0)]
    if attackers:
        attack = acts.attack
        for lane, targets in attack_options(state, seat, attackers):
            row = attack[lane]
            actions.extend(row[target] for target in targets)
    return actions

