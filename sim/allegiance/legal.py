"""Every choice open to the seat to act (the engine contract's ``legal_actions``).

Built from bit masks over the cells (the occupancy masks the state keeps, Blight) and the reach
masks each ability carries from the pool, so a position's actions cost a pass over the seat's
own Warriors. Every action is built once per rules version and reused (``Table``): they are
immutable values, and a decision only picks them out."""
from __future__ import annotations

from sim.allegiance.actions import (
    ATTACK,
    CELL,
    DECLINE_TACTIC,
    DEPLOY,
    DISCARD,
    END_TURN,
    FROM_HAND,
    FROM_MUSTER,
    MOVE,
    MUSTER,
    P_DEFEND,
    P_DEPLOY,
    P_DISCARD,
    P_MOVE,
    SOUL,
    SUPPLY,
    SUPPORT,
    TACTIC,
    Action,
)
from sim.allegiance.board import cells_of
from sim.allegiance.combat import tactic_options
from sim.allegiance.field import aim, beast_ready, deploy_cells, reachable, supply_targets, support_masks
from sim.allegiance.pool import BATTLE_CRY, WAR_SUPPLY, WARRIOR
from sim.allegiance.state import TAPPED, AllegianceState


class Table:
    """Prebuilt actions by cell: ``move[c]``, ``cell[c]``, ``attack[c][i][t]``, ``soul[c][t]``,
    ``support[c][i][t]``; by card: ``deploy[card][source]``, ``muster[card]``,
    ``supply[card][t]``, ``tactic[card]``, ``discard[card]``; attacks with a Battle Cry by
    ``cry_attacks(c, i, cry)[t]``, made as they are first met (every cell, ability and cry up
    front would be thousands of actions per cry card)."""
    __slots__ = ("move", "cell", "attack", "soul", "support", "deploy", "muster", "supply", "tactic", "discard",
                 "_cry_attacks")

    def __init__(self, n: int, abilities: int, n_cards: int):
        cells, cards = range(n), range(n_cards)
        self.move = [Action(MOVE, c) for c in cells]
        self.cell = [Action(CELL, c) for c in cells]
        self.attack = [[[Action(ATTACK, c, i, t, -1) for t in cells] for i in range(abilities)] for c in cells]
        self.soul = [[Action(SOUL, c, t) for t in cells] for c in cells]
        self.support = [[[Action(SUPPORT, c, i, t) for t in cells] for i in range(abilities)] for c in cells]
        self.deploy = [(Action(DEPLOY, card, FROM_HAND), Action(DEPLOY, card, FROM_MUSTER)) for card in cards]
        self.muster = [Action(MUSTER, card) for card in cards]
        self.supply = [[Action(SUPPLY, card, t) for t in cells] for card in cards]
        self.tactic = [Action(TACTIC, card) for card in cards]
        self.discard = [Action(DISCARD, card) for card in cards]
        self._cry_attacks: dict[tuple[int, int, int], list[Action]] = {}

    def cry_attacks(self, cell: int, index: int, cry: int) -> list[Action]:
        key = (cell, index, cry)
        row = self._cry_attacks.get(key)
        if row is None:
            row = self._cry_attacks[key] = [Action(ATTACK, cell, index, t, cry) for t in range(len(self.cell))]
        return row


def table(pool) -> Table:
    t = pool.action_table
    if t is None:
        most = max((max(len(c.attacks), len(c.supports)) for c in pool.cards), default=1)
        t = pool.action_table = Table(pool.board.n, max(1, most), len(pool.cards))
    return t


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
    prebuilt = table(pool)
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
                    actions.append(prebuilt.deploy[card_id][FROM_HAND])
            elif first_turn:
                if room:
                    actions.append(prebuilt.deploy[card_id][FROM_HAND])
            elif len(side.muster) < consts.muster_size:
                actions.append(prebuilt.muster[card_id])
        elif kind == WAR_SUPPLY:
            if side.supplies < consts.supplies_per_turn and ap >= card.ap:
                row = prebuilt.supply[card_id]
                actions.extend([row[target] for target in supply_targets(state, seat, card)])
        elif kind == BATTLE_CRY and side.cries < consts.battle_cries_per_turn:
            cries.append(card_id)
    if room and not first_turn:
        ready: list[int] = []
        for card_id, arrived in side.muster:
            if arrived < side.turns and card_id not in ready:
                ready.append(card_id)
                actions.append(prebuilt.deploy[card_id][FROM_MUSTER])
    _unit_actions(state, ap, occupied, enemies, mine, cries, actions)
    return actions


def _masks(state: AllegianceState, seat: int) -> tuple[int, int, list]:
    """(occupied cells incl. Blight, enemy units, the seat's untapped Warriors as (cell, unit)). A
    Warrior drained by a lost Soul Combat is tapped during its owner's *next* turn: in the rest of
    the turn it lost, it may still move and use its supports (the Soul Combat was its attack)."""
    cells = state.cells
    mine = [(cell, u) for cell in cells_of(state.warriors[seat]) if (u := cells[cell]).tap != TAPPED]
    return state.occupied(), state.units[1 - seat], mine


def _unit_actions(state: AllegianceState, ap: int, occupied: int, enemies: int, mine: list,
                  cries: list[int], actions: list) -> None:
    pool = state.pool
    consts, cards = pool.consts, pool.cards
    orth_mask = pool.board.orth_mask
    blight = state.blight
    can_move = ap >= consts.move_ap
    can_soul = blight and ap >= consts.soul_combat_ap
    moves, attacks = consts.moves_per_turn, consts.attacks_per_turn
    append = actions.append
    prebuilt = table(pool)
    move_actions, attack_actions, soul_actions = prebuilt.move, prebuilt.attack, prebuilt.soul
    targets_of = None  # support targets by kind, computed on first need
    for cell, u in mine:
        card = cards[u.card]
        if can_move and u.moves < moves and orth_mask[cell] & ~occupied:
            append(move_actions[cell])
        if u.attacks < attacks:
            for ability in card.attacks:
                if ap < ability.ap:
                    continue
                hit = ability.masks[cell] & enemies
                if hit:
                    index = ability.index
                    plain = attack_actions[cell][index]
                    if not cries:
                        actions.extend([plain[target] for target in cells_of(hit)])
                        continue
                    with_cry = [prebuilt.cry_attacks(cell, index, cry) for cry in cries]
                    for target in cells_of(hit):
                        append(plain[target])
                        for row in with_cry:
                            append(row[target])
            if can_soul:
                hit = card.soul_masks[cell] & blight
                if hit:
                    row = soul_actions[cell]
                    actions.extend([row[target] for target in cells_of(hit)])
        for index, ability in enumerate(card.supports):
            if not (u.used >> index) & 1 and ap >= ability.ap:
                if targets_of is None:
                    targets_of = support_masks(state, occupied)
                row = prebuilt.support[cell][index]
                actions.extend([row[target] for target in aim(ability, cell, targets_of)])


def _finish_step(state: AllegianceState) -> list[Action]:
    pending = state.pending
    step = pending.step
    if step == P_DEPLOY:
        cells = table(state.pool).cell
        return [cells[c] for c in deploy_cells(state, state.active)]
    if step == P_MOVE:
        cells = table(state.pool).cell
        return [cells[c] for c in reachable(state, pending.cell)]
    if step == P_DEFEND:
        tactics = table(state.pool).tactic
        return [DECLINE_TACTIC] + [tactics[card] for card in tactic_options(state, pending.target)]
    if step == P_DISCARD:
        discards = table(state.pool).discard
        out: list[Action] = []
        for card in state.sides[state.active].hand:
            action = discards[card]
            if action not in out:
                out.append(action)
        return out
    raise ValueError(f"unknown pending step {pending!r}")
