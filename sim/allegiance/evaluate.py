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

A position valued once is read back from a table (positions.py: lookahead meets the same
position again and again); a new one is valued from per-seat and per-unit terms kept from the
last position valued (``state.memo``, ``SideTerms``), recomputing only what changed.

Threat ranges come from per-card tables built once per rules version (pool.py): for each cell,
the mask of cells the card's attacks reach from there (``hit_masks``), and from anywhere one move
away (``threat_masks``; blockers ignored: a threat estimate, not a path search).
"""
from __future__ import annotations

from functools import reduce
from operator import add, itemgetter

from sim.allegiance.board import cells_of
from sim.allegiance.combat import formed_in
from sim.allegiance.pool import STRONGHOLD
from sim.allegiance.positions import position_key, recall, remember
from sim.allegiance.state import NO_CARD, NORMAL, TAP, AllegianceState, Unit
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
    __slots__ = ("extra", "muster", "fortress", "armor", "damage", "seen")

    def __init__(self, pool):
        cards = pool.cards
        # positions valued under these terms: (key, (seat 0's value, seat 1's)) by the key's hash (positions.py)
        self.seen: dict = {}
        # a Warrior's keywords: Pierce, Soul Combat bonus
        self.extra = [W_PIERCE * bool(c.pierce) + W_SOUL_BONUS * (c.soul_bonus or 0) for c in cards]
        # a Warrior waiting in the Muster Zone: a share of its worth on the field
        self.muster = [W_MUSTER * (W_UNIT + W_HP * c.hp + W_DAMAGE * c.best_damage) for c in cards]
        # a Stronghold still in the Stronghold deck
        self.fortress = [W_STRONGHOLD_HP * c.hp for c in cards]
        # a War Supply armor carried
        self.armor = [W_ARMOR * c.armor for c in cards]
        # a War Supply weapon's damage
        self.damage = [c.damage for c in cards]


# pool id -> (pool, its CardTerms); a test that edits a card in place clears it
_CARD_WORTH: dict[int, tuple] = {}


def terms(pool) -> CardTerms:
    entry = _CARD_WORTH.get(id(pool))
    if entry is None or entry[0] is not pool:
        entry = _CARD_WORTH[id(pool)] = (pool, CardTerms(pool))
    return entry[1]


class UnitTerms:
    """What evaluate reads of one unit on one cell, computed once for that unit tuple (units are
    immutable: a change is a new tuple, so a kept record is found stale by identity). ``add`` is
    its first-pass addition to its seat's value; ``pot`` and ``gap`` its second-pass additions
    for a Warrior facing an enemy Stronghold on cell ``sh`` (recomputed when that moves)."""
    __slots__ = ("unit", "cell", "add", "stronghold", "hit", "threat", "damage", "faction", "hp", "sh", "gap", "pot",
                 "card")

    def __init__(self, unit, cell: int, card, static: "CardTerms", boosted: bool):
        self.unit, self.cell, self.card, self.hp = unit, cell, card, unit.hp
        self.sh = -2  # no second-pass terms yet
        self.stronghold = card.type == STRONGHOLD
        if self.stronghold:
            self.add = W_STRONGHOLD_HP * unit.hp + W_SHIELD_PAIR * unit.absorb
            return
        damage = card.best_damage + unit.power
        if unit.weapon != NO_CARD:
            damage += static.damage[unit.weapon]
        worth = W_HP * unit.hp + W_ABSORB * unit.absorb + W_REFLECT * unit.reflect
        if unit.armor != NO_CARD:
            worth += static.armor[unit.armor]
        if unit.boost and boosted:
            worth += W_BOOST * unit.boost
        self.add = worth + static.extra[unit.card]
        # a tapped or drained Warrior attacks nothing before its turn is over
        normal = unit.tap == NORMAL
        self.hit = card.hit_masks[cell] if normal else 0
        self.threat = card.threat_masks[cell] if normal else 0
        self.damage = damage
        self.faction = card.faction + 1

    def facing(self, target_sh: int, board) -> None:
        """The second-pass terms against an enemy Stronghold on ``target_sh`` (-1: none)."""
        unit, card, cell = self.unit, self.card, self.cell
        # what the Warrior threatens counts in proportion to the HP it has left, so wounding
        # a dangerous Warrior pays even before it dies (focus fire)
        potency = W_UNIT + W_DAMAGE * self.damage
        self.gap = None
        if target_sh >= 0:
            if (card.hit_masks[cell] >> target_sh) & 1:
                potency += W_SIEGE * self.damage
            else:
                gap = board.cheb[cell * board.n + target_sh] - card.reach
                self.gap = -(W_GAP * gap if gap > 0 else W_OFF_LINE)
        if unit.tap != NORMAL:
            potency *= 1.0 - W_TAPPED
        self.pot = potency * unit.hp / unit.max_hp
        self.sh = target_sh


class SideTerms:
    """Evaluate's first pass over one seat's units, kept for the exact units it was made from:
    ``units`` (the seat's unit tuples in cell order, read by ``pick``), the seat's unit mask and
    the seat to act (a boost counts only on its own turn). Units are immutable tuples, so equal
    tuples on the same cells value the same: a lookahead candidate that leaves a seat's units as
    they were reuses the seat's terms, one that changes some recomputes only those units'
    records (``records``, by cell), and ``deltas`` keeps the seat's second pass (its Warriors
    against what it reads of the enemy, by that reading) the same way.

    ``value`` is the running sum over the units in cell order, ``deltas`` the second pass's
    additions in the order evaluate makes them (a subtraction as the addition of its negation,
    the same bits), so every sum comes out as the single walk summed it."""
    __slots__ = ("static", "active", "mask", "on", "pick", "units", "records", "value", "sh_cell", "hits", "threat",
                 "best", "warriors", "formed", "hp_range", "deltas")


def _pick(cells: list[int]):
    """The seat's unit tuples on ``cells``, in cell order (a C-level read of the board)."""
    return itemgetter(*cells) if cells else _nothing


def _nothing(_cells) -> tuple:
    return ()


def side_terms(state: AllegianceState, s: int, static: CardTerms, memo: list | None) -> SideTerms:
    """Seat ``s``'s first-pass terms: the kept ones when the seat's units are as they were, else
    computed afresh from the kept unit records that still hold (and kept in ``memo`` when one
    is given)."""
    mask, active, cells = state.units[s], state.active, state.cells
    old: dict = {}
    same_cells = False
    if memo is not None:
        kept = memo[s]
        if kept is not None and kept.active == active and kept.static is static:
            same_cells = kept.mask == mask
            if same_cells:
                units = kept.pick(cells)
                if units == kept.units:
                    return kept
            old = kept.records
    pool = state.pool
    cards = pool.cards
    boosted = s == active
    t = SideTerms()
    t.static, t.active, t.mask = static, active, mask
    if same_cells:  # a unit changed where it stands: the same cells, read the same way
        on, t.pick, t.units = kept.on, kept.pick, units
    else:
        on = cells_of(mask)
        t.pick = _pick(on)
        t.units = t.pick(cells)
    t.on = on
    t.deltas = None
    records = t.records = {}
    v = 0.0
    sh_cell = -1
    side_hits = side_threat = side_best = 0
    factions = [0, 0, 0]  # the side's Warriors by faction (code + 1), for its formations
    mine = t.warriors = []
    for cell in on:
        u = cells[cell]
        r = old.get(cell)
        if r is None or (r.unit is not u and not _values_alike(r.unit, u)):
            r = UnitTerms(u, cell, cards[u.card], static, boosted)
        records[cell] = r
        v += r.add
        if r.stronghold:
            sh_cell = cell
            continue
        side_hits |= r.hit
        side_threat |= r.threat
        if r.damage > side_best:
            side_best = r.damage
        factions[r.faction] |= 1 << cell
        mine.append(r)
    t.value, t.sh_cell, t.hits, t.threat, t.best = v, sh_cell, side_hits, side_threat, side_best
    t.formed = formed_in(pool, factions) if len(mine) >= pool.consts.formation_size else 0
    hp = [r.hp for r in mine]
    t.hp_range = (min(hp) - 1, max(hp)) if hp else (0, 0)
    if old and mine == kept.warriors and t.formed == kept.formed and side_hits == kept.hits:
        # the same Warrior records (a Stronghold or a counter changed): the same second pass
        t.deltas = kept.deltas
    if memo is not None:
        memo[s] = t
    return t


# The unit fields evaluate reads: the first 11 (card .. boost) and tap, not this turn's counters
# (attacks, moves, used), so an attack or a support ability leaves the unit's record standing
_READ = 11


def _values_alike(kept: Unit, unit: Unit) -> bool:
    """The two units value the same (they differ at most in this turn's counters)."""
    return kept[:_READ] == unit[:_READ] and kept[TAP] == unit[TAP]


def _deltas(board, mine: SideTerms, enemy: SideTerms) -> list[float]:
    """What the second pass adds to a seat's value for its Warriors facing ``enemy``, in order.
    It reads of the enemy only its Stronghold's cell, its threat range and its best damage
    (compared with each Warrior's HP, so only where it stands among them counts: clamped to the
    Warriors' HP range), so the kept additions serve as long as those three are as they were (a
    deploy or a move that leaves the enemy's reach as it was changes none of them)."""
    target_sh = enemy.sh_cell
    enemy_threat, enemy_best = enemy.threat, enemy.best
    low, high = mine.hp_range
    facing = (target_sh, enemy_threat, low if enemy_best < low else high if enemy_best > high else enemy_best)
    kept = mine.deltas
    if kept is None:
        kept = mine.deltas = {}
    else:
        out = kept.get(facing)
        if out is not None:
            return out
        if len(kept) >= KEPT_FACINGS:
            kept.clear()
    formed = mine.formed
    out: list[float] = []
    push = out.append
    for r in mine.warriors:
        if r.sh != target_sh:
            r.facing(target_sh, board)
        if r.gap is not None:
            push(r.gap)
        push(r.pot)
        cell = r.cell
        if (enemy_threat >> cell) & 1:
            push(-(W_EXPOSED_DYING if r.hp <= enemy_best else W_EXPOSED))
        if (formed >> cell) & 1:
            push(W_FORMATION)
    kept[facing] = out
    return out


# how many enemy reaches a seat's second pass is kept for (sibling candidates of one decision
# face many: each deploy cell or move gives the enemy another threat range)
KEPT_FACINGS = 64


def evaluate(state: AllegianceState, seat: int) -> float:
    if state.over:
        return _ended(state, seat)
    static = terms(state.pool)
    key = position_key(state)
    hashed = hash(key)
    values = recall(static.seen, key, hashed)
    if values is None:
        values = remember(static.seen, key, hashed, _values(state, static, state.memo))
    return values[seat] - values[1 - seat]


def evaluate_fresh(state: AllegianceState, seat: int) -> float:
    """evaluate with nothing kept: every term computed from the position (what the kept terms
    and the table of positions are checked against)."""
    if state.over:
        return _ended(state, seat)
    values = _values(state, terms(state.pool), None)
    return values[seat] - values[1 - seat]


def _ended(state: AllegianceState, seat: int) -> float:
    if state.winner is None:
        return 0.0
    return WIN if state.winner == seat else -WIN


def _values(state: AllegianceState, static: CardTerms, memo: list | None) -> tuple[float, float]:
    """Each seat's value of a position that is not over (evaluate is their difference)."""
    board = state.pool.board
    both = (side_terms(state, 0, static, memo), side_terms(state, 1, static, memo))
    fortress, muster = static.fortress, static.muster
    value = [0.0, 0.0]
    for s in (0, 1):
        side = state.sides[s]
        mine, enemy = both[s], both[1 - s]
        v = mine.value
        for c in side.strongholds:
            v += fortress[c]
        for c, _ in side.muster:
            v += muster[c]
        v += W_HAND * len(side.hand)
        if not mine.warriors and not side.muster and side.turns >= 1:
            v -= W_ROUT
        # the second pass's additions one by one, left to right (a fold: the bits of ``v += d``)
        v = reduce(add, _deltas(board, mine, enemy), v)
        # one W_TARGET per enemy Warrior in reach, added one by one (as the sum always was)
        for _ in range((mine.hits & state.warriors[1 - s]).bit_count()):
            v += W_TARGET
        blight = (state.blight & board.side_mask[s]).bit_count()
        v -= W_BLIGHT * blight
        if blight > BLIGHT_CALM:
            v -= W_BLIGHT_DANGER * (blight - BLIGHT_CALM) ** 2
        value[s] = v
    return value[0], value[1]
