"""The heuristic value of a position for one seat, used by the greedy pilot.

Everything is in stat points (hundreds of ATK+DEF), the unit of the stat budget: Morale counts a
point per 100 and more as it runs low; a character is worth its stats, less when Downed (one hit
from a KO) or exposed (an enemy attacker would beat it), minus the BURN and POISON still to come;
cards in hand, set cards, a Dormant leader's Influence and Authority kept for an Ambush are
potential. The weights are plain numbers a pilot designer can tune."""
from __future__ import annotations

from sim.alleyway.field import atk_of, def_of
from sim.alleyway.pool import AMBUSH
from sim.alleyway.state import DORMANT, AlleyState

WIN = 100_000.0
W_MORALE = 1.0
W_DANGER = 1.5        # extra per point of Morale lost, scaled by how little is left
W_HAND = 7.0          # a card in hand
W_SET = 6.0           # a face-down card
W_FACE_UP = 9.0       # a Continuous card or an Equip working
W_LEADER = 10.0       # a Dormant leader, plus its Influence
DOWNED = 0.35         # what a Downed character keeps of its value
EXPOSED = 0.5         # of the Morale an enemy attacker would take from an ATK-position character
W_READY_AUTHORITY = 2.0  # Authority kept on the opponent's turn for a set Ambush
DECK_LOW = 4.0        # per card under 4 left in the deck


def threat(state: AlleyState, seat: int) -> int:
    """The highest ATK an opponent's standing character could attack with."""
    best = 0
    for s in state.opponents(seat):
        for u in state.sides[s].lanes:
            if u is not None and not u.downed and not u.stasis:
                a = atk_of(state, u)
                if a > best:
                    best = a
    return best


def side_value(state: AlleyState, seat: int) -> float:
    side = state.sides[seat]
    cap = state.pool.consts.morale_cap
    morale = side.morale
    v = W_MORALE * morale / 100 + W_DANGER * (morale - cap) / 100 * (1.0 - morale / cap)
    enemy = threat(state, seat)
    for u in side.lanes:
        if u is None:
            continue
        a, d = atk_of(state, u), def_of(state, u)
        value = (a + d) / 100
        if u.downed:
            value *= DOWNED
        elif u.atk_pos:
            if enemy > a:
                value -= EXPOSED * (enemy - a) / 100 + 0.3 * value
        elif enemy > d:
            value *= 0.7
        if u.burn:
            value -= u.burn * u.burn_left / 100
        if u.poison:
            value -= 0.5 * u.poison * u.poison_left / 100
        v += value
    v += W_HAND * min(len(side.hand), state.pool.consts.hand_limit)
    cards = state.pool.cards
    ambush_cost = 99
    for b in side.back:
        if b is None:
            continue
        if b.face_up:
            v += W_FACE_UP
        else:
            v += W_SET
            if cards[b.card].type == AMBUSH:
                ambush_cost = min(ambush_cost, cards[b.card].cost)
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
    mine = side_value(state, seat)
    theirs = max(side_value(state, s) for s in state.opponents(seat))
    return mine - theirs
