"""The heuristic value of a position for one seat, used by the greedy pilot.

What it knows, for each side: the Stronghold HP still to tear down (the one standing and those
in the Stronghold deck), each Warrior's worth (HP, damage, shields, weapon and armor), the
Muster Zone and the hand, how close each Warrior stands to a firing position on the enemy
Stronghold, which enemy units it can hit now, whether it stands where an enemy can reach it
next turn (threat ranges: the cells an enemy can hit after one move), formations, and the Blight
on each side (the danger grows as it nears Overrun). The weights are plain numbers a pilot
designer can tune.

Threat ranges come from per-card tables built once per rules version (pool.py): for each cell,
the mask of cells the card's attacks reach from there (``hit_masks``), and from anywhere one move
away (``threat_masks``; blockers ignored: a threat estimate, not a path search).
"""
from __future__ import annotations

from sim.allegiance.combat import in_formation
from sim.allegiance.pool import STRONGHOLD
from sim.allegiance.state import NO_CARD, AllegianceState

WIN = 10_000.0
W_STRONGHOLD_HP = 2.5     # per point of Stronghold HP still standing (the one out and the deck's)
W_SHIELD_HP = 1.5         # a Stronghold's Absorb shield, per point it blocks
W_UNIT = 2.0              # a Warrior on the battlefield, before its numbers
W_HP = 1.0
W_DAMAGE = 1.2            # per point of its best attack (weapon and empower included)
# (a Warrior's unit, damage and siege terms are its potency, counted in proportion to its HP left)
W_ABSORB, W_REFLECT, W_ARMOR = 1.5, 1.0, 1.2
W_MUSTER = 0.8            # a Warrior in the Muster Zone: this share of its worth on the field
W_HAND = 0.4              # a card in hand
W_SIEGE = 1.5             # per damage point of a Warrior in a firing position on the enemy Stronghold
W_GAP = 0.8               # per step a Warrior still has to go to reach a firing position
W_OFF_LINE = 0.4          # near enough but not on a line with the Stronghold
W_TARGET = 0.6            # per enemy unit a Warrior of the side can hit from where it stands
W_EXPOSED = 1.0           # a Warrior an enemy can reach next turn
W_EXPOSED_LOW = 1.5       # ... and that could die of it (HP at most the enemy's best damage)
W_FORMATION = 1.0         # per Warrior standing in its faction's formation
W_BLIGHT = 0.5            # per Blight token on the side's own half
W_BLIGHT_DANGER = 0.4     # times the square of the tokens above BLIGHT_CALM
BLIGHT_CALM = 6
W_ROUT = 40.0             # no Warrior on the battlefield or in the Muster Zone


def evaluate(state: AllegianceState, seat: int) -> float:
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    pool = state.pool
    cards, board = pool.cards, pool.board
    n, cheb = board.n, board.cheb
    value = [0.0, 0.0]
    sh_cell = [-1, -1]
    hits = [0, 0]      # cells each side can attack now
    threat = [0, 0]    # cells each side can attack after one move
    best = [0, 0]      # each side's best attack damage on the field
    warriors = [[], []]
    for cell, u in enumerate(state.cells):
        if u is None:
            continue
        s = u.owner
        card = cards[u.card]
        if card.type == STRONGHOLD:
            sh_cell[s] = cell
            value[s] += W_STRONGHOLD_HP * u.hp + W_SHIELD_HP * 2 * u.absorb
            continue
        damage = card.best_damage + u.power
        if u.weapon != NO_CARD:
            damage += cards[u.weapon].damage
        worth = W_HP * u.hp + W_ABSORB * u.absorb + W_REFLECT * u.reflect
        if u.armor != NO_CARD:
            worth += W_ARMOR * cards[u.armor].armor
        value[s] += worth
        hits[s] |= card.hit_masks[cell]
        threat[s] |= card.threat_masks[cell]
        if damage > best[s]:
            best[s] = damage
        warriors[s].append((cell, u, card, damage))
    for s in (0, 1):
        side = state.sides[s]
        enemy = 1 - s
        target_sh = sh_cell[enemy]
        v = value[s]
        for c in side.strongholds:
            v += W_STRONGHOLD_HP * cards[c].hp
        for c, _ in side.muster:
            card = cards[c]
            v += W_MUSTER * (W_UNIT + W_HP * card.hp + W_DAMAGE * card.best_damage)
        v += W_HAND * len(side.hand)
        if not warriors[s] and not side.muster and side.turns >= 1:
            v -= W_ROUT
        for cell, u, card, damage in warriors[s]:
            # what the Warrior threatens counts in proportion to the HP it has left, so wounding
            # a dangerous Warrior pays even before it dies (focus fire)
            potency = W_UNIT + W_DAMAGE * damage
            if target_sh >= 0:
                if (card.hit_masks[cell] >> target_sh) & 1:
                    potency += W_SIEGE * damage
                else:
                    gap = cheb[cell * n + target_sh] - card.reach
                    v -= W_GAP * gap if gap > 0 else W_OFF_LINE
            v += potency * u.hp / u.max_hp
            if (threat[enemy] >> cell) & 1:
                v -= W_EXPOSED + (W_EXPOSED_LOW if u.hp <= best[enemy] else 0.0)
            if len(warriors[s]) >= pool.consts.formation_size and in_formation(state, cell):
                v += W_FORMATION
        for cell, _u, _card, _d in warriors[enemy]:
            if (hits[s] >> cell) & 1:
                v += W_TARGET
        blight = (state.blight & board.side_mask[s]).bit_count()
        v -= W_BLIGHT * blight
        if blight > BLIGHT_CALM:
            v -= W_BLIGHT_DANGER * (blight - BLIGHT_CALM) ** 2
        value[s] = v
    return value[seat] - value[1 - seat]
