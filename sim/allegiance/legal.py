"""Every choice open to the seat to act (the engine contract's ``legal_actions``).

Built from bit masks over the cells (occupied, enemy units, Blight) and the reach masks each
ability carries from the pool, so a position's actions cost one pass over the battlefield."""
from __future__ import annotations

from sim.allegiance.actions import (ATTACK, CELL, DECLINE_TACTIC, DEPLOY, DISCARD, END_TURN, FROM_HAND,
                                    FROM_MUSTER, MOVE, MUSTER, P_DEFEND, P_DEPLOY, P_DISCARD, P_MOVE, SOUL,
                                    SUPPLY, SUPPORT, TACTIC, Action)
from sim.allegiance.board import cells_of
from sim.allegiance.combat import tactic_options
from sim.allegiance.field import beast_ready, deploy_cells, reachable, supply_targets, support_targets
from sim.allegiance.pool import BATTLE_CRY, WAR_SUPPLY, WARRIOR
from sim.allegiance.state import NORMAL, AllegianceState


def legal_actions(state: AllegianceState) -> list[Action]:
    if state.over:
        return []
    if state.pending is not None:
        return _finish_step(state)
    pool = state.pool
    consts, cards = pool.consts, pool.cards
    seat = state.active
    side = state.sides[seat]
    ap = side.ap
    occupied, enemies, mine = _masks(state, seat)
    room = ap >= consts.deploy_ap and bool(pool.board.side_mask[seat] & ~occupied)
    first_turn = side.turns == 1
    actions = [END_TURN]
    cries: list[int] = []
    seen: list[int] = []
    for card_id in side.hand:
        if card_id in seen:
            continue
        seen.append(card_id)
        card = cards[card_id]
        kind = card.type
        if kind == WARRIOR:
            if card.beast_field is not None or card.beast_destroyed is not None:
                if room and beast_ready(state, card):
                    actions.append(Action(DEPLOY, card_id, FROM_HAND))
            elif first_turn:
                if room:
                    actions.append(Action(DEPLOY, card_id, FROM_HAND))
            elif len(side.muster) < consts.muster_size:
                actions.append(Action(MUSTER, card_id))
        elif kind == WAR_SUPPLY:
            if side.supplies < consts.supplies_per_turn and ap >= card.ap:
                for target in supply_targets(state, seat, card):
                    actions.append(Action(SUPPLY, card_id, target))
        elif kind == BATTLE_CRY and side.cries < consts.battle_cries_per_turn:
            cries.append(card_id)
    if room and not first_turn:
        ready: list[int] = []
        for card_id, arrived in side.muster:
            if arrived < side.turns and card_id not in ready:
                ready.append(card_id)
                actions.append(Action(DEPLOY, card_id, FROM_MUSTER))
    _unit_actions(state, ap, occupied, enemies, mine, cries, actions)
    return actions


def _masks(state: AllegianceState, seat: int) -> tuple[int, int, list]:
    """(occupied cells incl. Blight, enemy units, the seat's untapped Warriors as (cell, unit))."""
    cards = state.pool.cards
    occupied = state.blight
    enemies = 0
    mine = []
    for cell, u in enumerate(state.cells):
        if u is None:
            continue
        bit = 1 << cell
        occupied |= bit
        if u.owner != seat:
            enemies |= bit
        elif u.tap == NORMAL and cards[u.card].type == WARRIOR:
            mine.append((cell, u))
    return occupied, enemies, mine


def _unit_actions(state: AllegianceState, ap: int, occupied: int, enemies: int, mine: list,
                  cries: list[int], actions: list) -> None:
    pool = state.pool
    consts, cards = pool.consts, pool.cards
    orth_mask = pool.board.orth_mask
    blight = state.blight
    can_move = ap >= consts.move_ap
    can_soul = blight and ap >= consts.soul_combat_ap
    for cell, u in mine:
        card = cards[u.card]
        if can_move and u.moves < consts.moves_per_turn and orth_mask[cell] & ~occupied:
            actions.append(Action(MOVE, cell))
        if u.attacks < consts.attacks_per_turn:
            for index, ability in enumerate(card.attacks):
                if ap < ability.ap:
                    continue
                for target in cells_of(ability.masks[cell] & enemies):
                    actions.append(Action(ATTACK, cell, index, target, -1))
                    for cry in cries:
                        actions.append(Action(ATTACK, cell, index, target, cry))
            if can_soul:
                for target in cells_of(card.soul_masks[cell] & blight):
                    actions.append(Action(SOUL, cell, target))
        for index, ability in enumerate(card.supports):
            if not (u.used >> index) & 1 and ap >= ability.ap:
                for target in support_targets(state, cell, ability):
                    actions.append(Action(SUPPORT, cell, index, target))


def _finish_step(state: AllegianceState) -> list[Action]:
    pending = state.pending
    step = pending[0]
    if step == P_DEPLOY:
        return [Action(CELL, c) for c in deploy_cells(state, state.active)]
    if step == P_MOVE:
        return [Action(CELL, c) for c in reachable(state, pending[1])]
    if step == P_DEFEND:
        return [DECLINE_TACTIC] + [Action(TACTIC, card) for card in tactic_options(state, pending[3])]
    if step == P_DISCARD:
        out: list[Action] = []
        for card in state.sides[state.active].hand:
            action = Action(DISCARD, card)
            if action not in out:
                out.append(action)
        return out
    raise ValueError(f"unknown pending step {pending!r}")
