"""Attacks and Soul Combat.

An attack goes in the guide's order: (1) the ability's damage plus the attacker's bonuses
(weapon, empower, Battle Cry, formation); (2) the defender may play a Tactic: a decision point
for the defending seat, so the attack waits in ``state.pending``; (3) armor; (4) each Absorb
shield blocks 2 and is used up; (5) one Reflect shield blocks 1 and deals 2 back; (6) the rest
is applied, and a unit at 0 HP is destroyed.
"""
from __future__ import annotations

from sim.allegiance.actions import P_DEFEND, Defending
from sim.allegiance.board import cells_of
from sim.allegiance.effects import _emit, apply_effect, destroy_blight, hit, process_deaths
from sim.allegiance.formations import damage_taken_off, guarded, in_formation
from sim.allegiance.kinds import KINDS as K
from sim.allegiance.pool import STRONGHOLD, TACTIC
from sim.allegiance.state import ATTACKS, DRAINED, NO_CARD, NORMAL, TAP, AllegianceState, replaced
from sim.core.events import NO_ID

# --- who can be attacked ------------------------------------------------------------------------------

def attack_damage(state: AllegianceState, cell: int, ability) -> int:
    """Step 1 without the Battle Cry: ability damage, weapon, empower, Blood Crescent."""
    pool = state.pool
    u = state.cells[cell]
    damage = ability.damage + u.power + u.boost
    if u.weapon != NO_CARD:
        damage += pool.cards[u.weapon].damage
    bonus = pool.bonus[pool.cards[u.card].faction]
    if bonus and in_formation(state, cell):
        damage += bonus
    return damage


def tactic_options(state: AllegianceState, target: int) -> list[int]:
    """The Tactics (distinct card ids) the defender may answer an attack on ``target`` with:
    one per enemy turn; none for a tapped or soul-drained Warrior; for a Stronghold only the
    Tactics that say they protect one."""
    pool = state.pool
    u = state.cells[target]
    side = state.sides[u.owner]
    if side.tactics >= pool.consts.tactics_per_enemy_turn:
        return []
    cards = pool.cards
    stronghold = cards[u.card].type == STRONGHOLD
    if not stronghold and u.tap != NORMAL:
        return []
    out: list[int] = []
    for card in side.hand:
        c = cards[card]
        if c.type == TACTIC and (c.protects or not stronghold) and card not in out:
            out.append(card)
    return out


# --- the attack -------------------------------------------------------------------------------------

def declare_attack(state: AllegianceState, cell: int, index: int, target: int, cry: int) -> None:
    """Steps 1 and 2: pay, add the bonuses and the Battle Cry, then open the defender's Tactic
    window (a decision for the defending seat) or, with no Tactic to play, land the attack."""
    pool = state.pool
    seat = state.active
    side = state.own_side(seat)
    u = state.cells[cell]
    card = pool.cards[u.card]
    ability = card.attacks[index]
    side.ap -= ability.ap
    state.cells[cell] = replaced(u, ATTACKS, u.attacks + 1)
    dealt = attack_damage(state, cell, ability)
    pierce = card.pierce
    if cry >= 0:
        side.hand.remove(cry)
        side.discard.append(cry)
        side.cries += 1
        if state.ledger is not None:
            state.ledger.play(seat, cry, side.turns)
        _emit(state, seat, K.BATTLE_CRY, cry, u.card, 0, cell)
        for fx in pool.cards[cry].effects:
            if fx.op == "bonus_damage":
                dealt += fx.amount
            elif fx.op == "pierce":
                pierce = True
            else:
                apply_effect(state, seat, fx, cell, target, cry)
        process_deaths(state)  # a cry's splash never reaches the target or the attacker
    defender = state.cells[target]
    _emit(state, seat, K.ATTACK, u.card, defender.card, dealt, target, ability.name)
    if tactic_options(state, target):
        state.pending = Defending(P_DEFEND, cell, index, target, dealt, pierce)
        state.to_act = defender.owner
        return
    land(state, cell, index, target, dealt, pierce, -1)


def answer(state: AllegianceState, tactic: int) -> None:
    """The defender's answer: a Tactic card, or -1 to let the attack land as it is."""
    attack = state.pending
    state.pending = None
    land(state, attack.cell, attack.ability, attack.target, attack.dealt, attack.pierce, tactic)


def land(state: AllegianceState, cell: int, index: int, target: int, dealt: int, pierce: bool,
         tactic: int) -> None:
    """Steps 2 (the Tactic's effects) to 6, then the ability's on-hit effects and deaths."""
    pool = state.pool
    cards, consts = pool.cards, pool.consts
    attacker = state.cells[cell]
    seat = attacker.owner
    d_seat = state.cells[target].owner
    negated = False
    if tactic >= 0:
        d_side = state.own_side(d_seat)
        d_side.hand.remove(tactic)
        d_side.discard.append(tactic)
        d_side.tactics += 1
        if state.ledger is not None:
            state.ledger.play(d_seat, tactic, d_side.turns)
        _emit(state, d_seat, K.TACTIC, tactic, state.cells[target].card, 0, target)
        for fx in cards[tactic].effects:
            if fx.op == "reduce":
                dealt = max(0, dealt - fx.amount)
            elif fx.op == "negate":
                negated = True
            else:
                apply_effect(state, d_seat, fx, target, target, tactic, attacker_cell=cell)
    state.to_act = state.active
    if negated:
        _emit(state, d_seat, K.NEGATE, tactic, attacker.card, dealt, target)
        process_deaths(state)
        return
    d = state.cells[target]
    # (3) armor: flat reductions from cards; Pierce skips the step. Shield Wall's "1 less damage"
    # is no card's and holds for every damage (formations.guarded), unless a rules version reads
    # it as armor (``taken_as_armor``)
    if not pierce and dealt > 0:
        armor = cards[d.armor].armor if d.armor != NO_CARD else 0
        armor += damage_taken_off(state, target, pool.guard_as_armor)
        blocked = min(dealt, armor)
        if blocked:
            dealt -= blocked
            _emit(state, seat, K.ARMOR, d.armor, d.card, blocked, target)
    dealt = guarded(state, target, dealt)
    # (4) each Absorb shield blocks 2 and is used up
    absorb, used = d.absorb, 0
    while dealt > 0 and absorb > 0:
        absorb -= 1
        used += 1
        blocked = min(dealt, consts.absorb_blocks)
        dealt -= blocked
        _emit(state, d_seat, K.ABSORB, NO_ID, d.card, blocked, target, "1")
    # (5) one Reflect shield blocks 1 and deals 2 back
    reflect, back, reflected = d.reflect, 0, 0
    while dealt > 0 and reflect > 0 and reflected < consts.reflects_per_attack:
        reflect -= 1
        reflected += 1
        blocked = min(dealt, consts.reflect_blocks)
        dealt -= blocked
        back += consts.reflect_damage
        _emit(state, d_seat, K.REFLECT, NO_ID, d.card, blocked, target)
    if (absorb, reflect) != (d.absorb, d.reflect):
        state.cells[target] = d._replace(absorb=absorb, reflect=reflect)
    if back:
        hit(state, d_seat, cell, guarded(state, cell, back), d.card)
    # (6) the rest is applied
    hit(state, seat, target, dealt, attacker.card)
    # on-hit effects, unless the Reflect shield's damage has killed the attacker
    if state.cells[cell] is not None and state.cells[cell].hp > 0:
        for fx in cards[attacker.card].attacks[index].fx:
            apply_effect(state, seat, fx, cell, target, attacker.card)
    process_deaths(state)


# --- Soul Combat -------------------------------------------------------------------------------------

def soul_targets(state: AllegianceState, cell: int) -> list[int]:
    """Blight on a straight line within the Warrior's longest attack range."""
    return cells_of(state.pool.cards[state.cells[cell].card].soul_masks[cell] & state.blight)


def soul_combat(state: AllegianceState, cell: int, blight_cell: int) -> None:
    """2 AP and the Warrior's attack: both roll a D12 (ties re-rolled). The Warrior winning
    destroys the Blight; losing drains its soul (tapped during its owner's next turn, no Tactics
    until then)."""
    pool = state.pool
    seat = state.active
    side = state.own_side(seat)
    u = state.cells[cell]
    side.ap -= pool.consts.soul_combat_ap
    die = pool.consts.soul_die
    bonus = pool.cards[u.card].soul_bonus
    rolls = []  # the event's text; only a logged match writes it (lookahead rolls thousands)
    logged = state.events is not None
    while True:
        mine, theirs = state.roll(die) + bonus, state.roll(die)
        if logged:
            rolls.append(f"{mine}-{theirs}")
        if mine != theirs:
            break
    won = mine > theirs
    counted = replaced(u, ATTACKS, u.attacks + 1)
    state.cells[cell] = counted if won else replaced(counted, TAP, DRAINED)
    if logged:
        _emit(state, seat, K.SOUL_COMBAT, u.card, NO_ID, int(won), blight_cell, " ".join(rolls))
    if won:
        destroy_blight(state, seat, blight_cell, u.card, K.SOUL_COMBAT)
