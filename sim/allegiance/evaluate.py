"""The heuristic value of a position for one seat, used by the greedy pilot.

What it knows, for each side: the Stronghold HP still to tear down (the one standing and those
in the Stronghold deck), each Warrior's worth (HP, damage, shields, weapon and armor), the
Muster Zone and the hand, how close each Warrior stands to a firing position on the enemy
Stronghold, which enemy units it can hit now, whether it stands where an enemy can reach it
next turn (threat ranges: the cells an enemy can hit after one move), formations, and the Blight
on each side (the danger grows as it nears Overrun), a tapped or soul-drained Warrior (it loses its
next turn and can't be answered for; it threatens nothing), a boost still to use this turn, and
keywords (Pierce, Soul Combat bonus). The weights are data: ``weights.yaml`` beside this file,
read once at import; the per-card keyword worth is a table built once per rules version. The
battlefield has two halves: a duel only (no multi-seat or team comparison).

Threat ranges come from per-card tables built once per rules version (pool.py): for each cell,
the mask of cells the card's attacks reach from there (``hit_masks``), and from anywhere one move
away (``threat_masks``; blockers ignored: a threat estimate, not a path search).
"""
from __future__ import annotations

from sim.allegiance.board import cells_of
from sim.allegiance.combat import formed_in
from sim.allegiance.pool import STRONGHOLD
from sim.allegiance.state import NO_CARD, NORMAL, AllegianceState
from sim.core.weights import load_weights

WEIGHTS = load_weights(__file__)
_W = WEIGHTS["weights"]

WIN = float(_W["win"])
W_STRONGHOLD_HP = float(_W["stronghold_hp"])
W_SHIELD_HP = float(_W["shield_hp"])
W_UNIT = float(_W["unit"])
W_HP = float(_W["hp"])
W_DAMAGE = float(_W["damage"])
# (a Warrior's unit, damage and siege terms are its potency, counted in proportion to its HP left)
W_ABSORB, W_REFLECT, W_ARMOR = float(_W["absorb"]), float(_W["reflect"]), float(_W["armor"])
W_MUSTER = float(_W["muster"])
W_HAND = float(_W["hand"])
W_SIEGE = float(_W["siege"])
W_GAP = float(_W["gap"])
W_OFF_LINE = float(_W["off_line"])
W_TARGET = float(_W["target"])
W_EXPOSED = float(_W["exposed"])
W_EXPOSED_LOW = float(_W["exposed_low"])
W_FORMATION = float(_W["formation"])
W_BLIGHT = float(_W["blight"])
W_BLIGHT_DANGER = float(_W["blight_danger"])
BLIGHT_CALM = int(_W["blight_calm"])
W_ROUT = float(_W["rout"])
W_TAPPED = float(_W["tapped"])
W_BOOST = float(_W["boost"])
W_PIERCE = float(_W["pierce"])
W_SOUL_BONUS = float(_W["soul_bonus"])

W_SHIELD_PAIR = W_SHIELD_HP * 2                  # evaluated as (W_SHIELD_HP * 2) * absorb, as it always was
W_EXPOSED_DYING = W_EXPOSED + W_EXPOSED_LOW      # exposed, and could die of it


class CardTerms:
    """What evaluate needs of each card that no position changes, by card id, computed once per
    rules version (``terms``). Each entry is the very expression evaluate once computed in place,
    so the sums come out to the same bits."""
    __slots__ = ("extra", "muster", "fortress", "armor")

    def __init__(self, pool):
        cards = pool.cards
        # a Warrior's keywords: Pierce, Soul Combat bonus
        self.extra = [W_PIERCE * bool(c.pierce) + W_SOUL_BONUS * (c.soul_bonus or 0) for c in cards]
        # a Warrior waiting in the Muster Zone: a share of its worth on the field
        self.muster = [W_MUSTER * (W_UNIT + W_HP * c.hp + W_DAMAGE * c.best_damage) for c in cards]
        # a Stronghold still in the Stronghold deck
        self.fortress = [W_STRONGHOLD_HP * c.hp for c in cards]
        # a War Supply armor carried
        self.armor = [W_ARMOR * c.armor for c in cards]


# pool id -> (pool, its CardTerms); a test that edits a card in place clears it
_CARD_WORTH: dict[int, tuple] = {}


def terms(pool) -> CardTerms:
    entry = _CARD_WORTH.get(id(pool))
    if entry is None or entry[0] is not pool:
        entry = _CARD_WORTH[id(pool)] = (pool, CardTerms(pool))
    return entry[1]


def evaluate(state: AllegianceState, seat: int) -> float:
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    pool = state.pool
    cards, board = pool.cards, pool.board
    n, cheb = board.n, board.cheb
    static = terms(pool)
    extra, armor_worth = static.extra, static.armor
    cells = state.cells
    active = state.active
    value = [0.0, 0.0]
    sh_cell = [-1, -1]
    hits = [0, 0]      # cells each side can attack now
    threat = [0, 0]    # cells each side can attack after one move
    best = [0, 0]      # each side's best attack damage on the field
    warriors = [[], []]
    formed = [0, 0]    # each side's Warriors standing in a formation
    formation_size = pool.consts.formation_size
    # each side's units in cell order: the order value[s] has always been summed in
    for s in (0, 1):
        v = 0.0
        side_hits = side_threat = side_best = 0
        factions = [0, 0, 0]  # the side's Warriors by faction (code + 1), for its formations
        mine = warriors[s]
        for cell in cells_of(state.units[s]):
            u = cells[cell]
            card = cards[u.card]
            if card.type == STRONGHOLD:
                sh_cell[s] = cell
                v += W_STRONGHOLD_HP * u.hp + W_SHIELD_PAIR * u.absorb
                continue
            damage = card.best_damage + u.power
            if u.weapon != NO_CARD:
                damage += cards[u.weapon].damage
            worth = W_HP * u.hp + W_ABSORB * u.absorb + W_REFLECT * u.reflect
            if u.armor != NO_CARD:
                worth += armor_worth[u.armor]
            if u.boost and s == active:
                worth += W_BOOST * u.boost
            v += worth + extra[u.card]
            if u.tap == NORMAL:  # a tapped or drained Warrior attacks nothing before its turn is over
                side_hits |= card.hit_masks[cell]
                side_threat |= card.threat_masks[cell]
            if damage > side_best:
                side_best = damage
            factions[card.faction + 1] |= 1 << cell
            mine.append((cell, u, card, damage))
        value[s], hits[s], threat[s], best[s] = v, side_hits, side_threat, side_best
        if len(mine) >= formation_size:
            formed[s] = formed_in(pool, factions)
    for s in (0, 1):
        side = state.sides[s]
        enemy = 1 - s
        target_sh = sh_cell[enemy]
        enemy_threat, enemy_best = threat[enemy], best[enemy]
        mine = warriors[s]
        v = value[s]
        fortress = static.fortress
        for c in side.strongholds:
            v += fortress[c]
        muster = static.muster
        for c, _ in side.muster:
            v += muster[c]
        v += W_HAND * len(side.hand)
        if not mine and not side.muster and side.turns >= 1:
            v -= W_ROUT
        side_formed = formed[s]
        for cell, u, card, damage in mine:
            # what the Warrior threatens counts in proportion to the HP it has left, so wounding
            # a dangerous Warrior pays even before it dies (focus fire)
            potency = W_UNIT + W_DAMAGE * damage
            if target_sh >= 0:
                if (card.hit_masks[cell] >> target_sh) & 1:
                    potency += W_SIEGE * damage
                else:
                    gap = cheb[cell * n + target_sh] - card.reach
                    v -= W_GAP * gap if gap > 0 else W_OFF_LINE
            if u.tap != NORMAL:
                potency *= 1.0 - W_TAPPED
            v += potency * u.hp / u.max_hp
            if (enemy_threat >> cell) & 1:
                v -= W_EXPOSED_DYING if u.hp <= enemy_best else W_EXPOSED
            if (side_formed >> cell) & 1:
                v += W_FORMATION
        # one W_TARGET per enemy Warrior in reach, added one by one (as the sum always was)
        for _ in range((hits[s] & state.warriors[enemy]).bit_count()):
            v += W_TARGET
        blight = (state.blight & board.side_mask[s]).bit_count()
        v -= W_BLIGHT * blight
        if blight > BLIGHT_CALM:
            v -= W_BLIGHT_DANGER * (blight - BLIGHT_CALM) ** 2
        value[s] = v
    return value[seat] - value[1 - seat]
