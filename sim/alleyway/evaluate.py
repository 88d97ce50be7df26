"""The heuristic value of a position for one seat, used by the greedy pilot.

Everything is in stat points (hundreds of ATK+DEF), the unit of the stat budget: Morale counts a
point per 100 and more as it runs low; a character is worth its stats, less when Downed (one hit
from a KO) or exposed (an enemy attacker would beat it), minus the BURN and POISON still to come;
cards in hand, set cards, a Dormant leader's Influence and Authority kept for an Ambush are
potential. The weights are plain numbers a pilot designer can tune."""
from __future__ import annotations

from sim.alleyway.field import update_auras
from sim.alleyway.pool import AMBUSH
from sim.alleyway.brawl import can_attack
from sim.alleyway.state import BRAWL, DEPLOYMENT, DORMANT, AlleyState

WIN = 100_000.0
W_DANGER = 1.5        # extra per point of Morale lost, scaled by how little is left
W_HAND = 7.0          # a card in hand
W_SET = 6.0           # a face-down card
W_FACE_UP = 9.0       # a Continuous card or an Equip working
W_LEADER = 10.0       # a Dormant leader, plus its Influence / 400
DOWNED = 0.35         # what a Downed character keeps of its value
EXPOSED = 0.5         # of the Morale an enemy attacker would take from an ATK-position character
EXPOSED_BODY = 0.3    # of its value an ATK-position character risks against a stronger attacker
DEF_BEATEN = 0.7      # what a DEF-position character keeps when an attacker beats its DEF
W_READY_AUTHORITY = 2.0  # Authority kept on your own turn for a set Ambush (paid when sprung)
DECK_LOW = 4.0        # per card under 4 left in the deck
W_ATTACK = 0.8        # of the best brawl each ready attacker could still win this turn


def threat(state: AlleyState, seat: int) -> int:
    """The highest ATK an opponent's standing character could attack with (auras included)."""
    best = 0
    sides = state.sides
    for s in state.opponents(seat):
        bonus = sides[s].aura_atk
        for u in sides[s].lanes:
            if u is not None and not u.downed and not u.stasis and u.atk + bonus > best:
                best = u.atk + bonus
    return best


def attack_potential(state: AlleyState, seat: int) -> float:
    """On its own turn, before its attacks are spent, what a seat's ready attackers could still win:
    for each, the best of its brawls against an enemy character or directly (a one-ply pilot
    would otherwise never switch a character to ATK for the attack it makes later)."""
    if state.active != seat or state.phase not in (DEPLOYMENT, BRAWL):
        return 0.0
    sides = state.sides
    total = 0.0
    targets = []
    open_player = False
    for s in state.opponents(seat):
        side = sides[s]
        standing = False
        for v in side.lanes:
            if v is None or v.stasis:
                continue
            standing = standing or not v.downed
            d_atk = v.atk + side.aura_atk
            d_def = v.df + side.aura_def
            targets.append((v.atk_pos and not v.downed, d_atk, d_def, v.downed, (d_atk + d_def) / 100))
        open_player = open_player or not standing
    for u in sides[seat].lanes:
        if u is None or not can_attack(state, u):
            continue
        a = u.atk + sides[seat].aura_atk
        best = a / 100 if open_player else 0.0
        for in_atk, d_atk, d_def, downed, worth in targets:
            if in_atk:
                gain = (a - d_atk) / 100 + (1 - DOWNED) * worth if a > d_atk else 0.0
            elif a > d_def:
                gain = worth * (DOWNED if downed else 1 - DOWNED)
            else:
                gain = 0.0
            if gain > best:
                best = gain
        total += best
    return W_ATTACK * total


def side_value(state: AlleyState, seat: int, enemy: int) -> float:
    side = state.sides[seat]
    consts = state.pool.consts
    cap = consts.morale_cap
    morale = side.morale
    v = morale / 100 + W_DANGER * (morale - cap) / 100 * (1.0 - morale / cap)
    aa, ad = side.aura_atk, side.aura_def
    for u in side.lanes:
        if u is None:
            continue
        a = u.atk + aa
        d = u.df + ad
        a = a if a > 0 else 0
        d = d if d > 0 else 0
        value = (a + d) / 100
        if u.downed:
            value *= DOWNED
        elif u.atk_pos:
            if enemy > a:
                value -= EXPOSED * (enemy - a) / 100 + EXPOSED_BODY * value
        elif enemy > d:
            value *= DEF_BEATEN
        if u.burn:
            value -= u.burn * u.burn_left / 100
        if u.poison:
            value -= 0.5 * u.poison * u.poison_left / 100
        v += value
    hand = len(side.hand)
    v += W_HAND * (hand if hand < consts.hand_limit else consts.hand_limit)
    ambush_cost = 99
    for b in side.back:
        if b is None:
            continue
        if b.face_up:
            v += W_FACE_UP
        else:
            v += W_SET
            card = state.pool.cards[b.card]
            if card.type == AMBUSH and card.cost < ambush_cost:
                ambush_cost = card.cost
    if ambush_cost < 99 and state.active == seat:
        v += W_READY_AUTHORITY * min(side.authority, ambush_cost)
    if side.leader_state == DORMANT and side.leader >= 0:
        v += W_LEADER + side.influence / 400
    if len(side.deck) < 4:
        v -= DECK_LOW * (4 - len(side.deck))
    return v


def evaluate(state: AlleyState, seat: int) -> float:
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    if state.auras_stale:
        update_auras(state)
    mine = side_value(state, seat, threat(state, seat)) + attack_potential(state, seat)
    theirs = max(side_value(state, s, threat(state, s)) + attack_potential(state, s) for s in state.opponents(seat))
    return mine - theirs
