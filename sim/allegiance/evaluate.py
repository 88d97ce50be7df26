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

A position is valued from per-seat and per-unit terms kept from the last position valued
(``state.memo``, ``SideTerms``), recomputing only what changed: a seat whose units stand as they
were reuses its terms whole, so a position met again (a luck sample's outcome, a move's first
step) costs the per-seat tail of ``_values`` only. (A table of whole positions already valued,
keyed by value, was kept until 2026-12-06: it made greedy, planner and mcts play no faster and a
first evaluation 15% dearer, its key hashing every unit on the board; docs/SPEED.md.)

Threat ranges come from per-card tables built once per rules version (pool.py): for each cell,
the mask of cells the card's attacks reach from there (``hit_masks``), and from anywhere one move
away (``threat_masks``; blockers ignored: a threat estimate, not a path search).
"""
from __future__ import annotations

from functools import reduce
from operator import add, itemgetter

from sim.allegiance.board import cells_of
from sim.allegiance.pool import STRONGHOLD
from sim.allegiance.state import NO_CARD, NORMAL, TAP, AllegianceState
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
NEG_EXPOSED, NEG_EXPOSED_DYING = -W_EXPOSED, -W_EXPOSED_DYING  # the second pass's additions for them


class CardTerms:
    """What evaluate needs of each card that no position changes, by card id, computed once per
    rules version (``terms``). Each entry is the very expression evaluate once computed in place,
    so the sums come out to the same bits."""
    __slots__ = ("extra", "muster", "fortress", "armor", "damage", "layouts", "formation_size", "board")

    def __init__(self, pool):
        cards = pool.cards
        # a seat's unit mask -> its cells, lowest first, and a reader of their units (side_terms)
        self.layouts: dict = {}
        self.formation_size = pool.consts.formation_size
        self.board = pool.board
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
    its first-pass addition to its seat's value; ``second`` its second-pass additions (the gap to
    a firing position, if any, then its potency) for a Warrior facing an enemy Stronghold on cell
    ``sh`` (recomputed when that moves); ``bit`` its cell's bit."""
    __slots__ = ("unit", "cell", "add", "stronghold", "hit", "threat", "damage", "faction", "hp", "sh", "second",
                 "card", "bit", "normal", "max_hp")

    def __init__(self, unit, cell: int, card, static: "CardTerms", boosted: bool):
        # the unit's fields at once (a named tuple's field by name is a descriptor call each)
        card_id, _owner, _uid, hp, max_hp, absorb, reflect, weapon, armor, power, boost, _a, _m, _u, tap = unit
        self.unit, self.cell, self.card, self.hp = unit, cell, card, hp
        self.sh = -2  # no second-pass terms yet
        self.stronghold = card.type == STRONGHOLD
        if self.stronghold:
            self.add = W_STRONGHOLD_HP * hp + W_SHIELD_PAIR * absorb
            return
        damage = card.best_damage + power
        if weapon != NO_CARD:
            damage += static.damage[weapon]
        worth = W_HP * hp + W_ABSORB * absorb + W_REFLECT * reflect
        if armor != NO_CARD:
            worth += static.armor[armor]
        if boost and boosted:
            worth += W_BOOST * boost
        self.add = worth + static.extra[card_id]
        # a tapped or drained Warrior attacks nothing before its turn is over
        normal = self.normal = tap == NORMAL
        self.hit = card.hit_masks[cell] if normal else 0
        self.threat = card.threat_masks[cell] if normal else 0
        self.damage = damage
        self.faction = card.faction + 1
        self.bit = 1 << cell
        self.max_hp = max_hp

    def facing(self, target_sh: int, board) -> None:
        """The second-pass terms against an enemy Stronghold on ``target_sh`` (-1: none)."""
        card, cell = self.card, self.cell
        # what the Warrior threatens counts in proportion to the HP it has left, so wounding
        # a dangerous Warrior pays even before it dies (focus fire)
        potency = W_UNIT + W_DAMAGE * self.damage
        gap = None
        if target_sh >= 0:
            if (card.hit_masks[cell] >> target_sh) & 1:
                potency += W_SIEGE * self.damage
            else:
                gap = board.cheb[cell * board.n + target_sh] - card.reach
                gap = -(W_GAP * gap if gap > 0 else W_OFF_LINE)
        if not self.normal:
            potency *= 1.0 - W_TAPPED
        pot = potency * self.hp / self.max_hp
        # the additions in the order the second pass makes them (``_deltas``)
        self.second = (pot,) if gap is None else (gap, pot)
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
    """The seat's unit tuples on ``cells``, in cell order, as a tuple (a C-level read of the
    board; one cell is read twice, since ``itemgetter`` of one item returns the item itself: the
    walk in ``side_terms`` pairs the units with ``cells`` and stops at the first)."""
    if len(cells) == 1:
        return itemgetter(cells[0], cells[0])
    return itemgetter(*cells) if cells else _nothing


def _nothing(_cells) -> tuple:
    return ()


def side_terms(state: AllegianceState, s: int, static: CardTerms, memo: list | None) -> SideTerms:
    """Seat ``s``'s first-pass terms: the kept ones when the seat's units are as they were, else
    computed afresh from the kept unit records that still hold (and kept in ``memo`` when one
    is given)."""
    mask, active, cells = state.units[s], state.active, state.cells
    old: dict = _NO_RECORDS
    same_cells = False
    kept = None
    if memo is not None:
        kept = memo[s]
        if kept is not None and kept.active == active and kept.static is static:
            same_cells = kept.mask == mask
            if same_cells:
                units = kept.pick(cells)
                if units == kept.units:
                    return kept
            old = kept.records
    t = SideTerms()
    t.static, t.active, t.mask = static, active, mask
    if same_cells:  # a unit changed where it stands: the same cells, read the same way
        on, pick = kept.on, kept.pick
    else:
        layouts = static.layouts
        layout = layouts.get(mask)
        if layout is None:
            if len(layouts) >= KEPT_LAYOUTS:
                layouts.clear()
            on = cells_of(mask)
            layout = layouts[mask] = (on, _pick(on))
        on, pick = layout
        units = pick(cells)
    t.on, t.pick, t.units = on, pick, units
    t.deltas = None
    records = t.records = {}
    v = 0.0
    sh_cell = -1
    side_hits = side_threat = side_best = 0
    low = high = None
    mine = t.warriors = []
    push = mine.append
    cards = None
    for cell, u in zip(on, units):
        r = old.get(cell)
        if r is None or (r.unit is not u and (r.unit[:_READ] != u[:_READ] or r.unit[TAP] != u[TAP])):
            if cards is None:
                cards = state.pool.cards
            r = UnitTerms(u, cell, cards[u.card], static, s == active)
        records[cell] = r
        v += r.add
        if r.stronghold:
            sh_cell = cell
            continue
        side_hits |= r.hit
        side_threat |= r.threat
        if r.damage > side_best:
            side_best = r.damage
        hp = r.hp
        if low is None:
            low = high = hp
        elif hp < low:
            low = hp
        elif hp > high:
            high = hp
        push(r)
    t.value, t.sh_cell, t.hits, t.threat, t.best = v, sh_cell, side_hits, side_threat, side_best
    formed = 0
    if mine:
        t.hp_range = (low - 1, high)
        size = static.formation_size
        if len(mine) >= size:  # the cells in a formation (combat.formed_in, inline)
            factions = [0, 0, 0]  # the side's Warriors by faction (code + 1)
            for r in mine:
                factions[r.faction] |= r.bit
            runs = static.board.runs
            for faction_mask in factions:
                if faction_mask.bit_count() >= size:  # fewer Warriors of a faction make no run
                    formed |= runs(faction_mask, size)
    else:
        t.hp_range = (0, 0)
    t.formed = formed
    if old and mine == kept.warriors and formed == kept.formed and side_hits == kept.hits:
        # the same Warrior records (a Stronghold or a counter changed): the same second pass
        t.deltas = kept.deltas
    if memo is not None:
        memo[s] = t
    return t


_NO_RECORDS: dict = {}

# how many seats' layouts (cell lists and readers, by unit mask) are kept per rules version
KEPT_LAYOUTS = 4096


# The unit fields evaluate reads: the first 11 (card .. boost) and tap, not this turn's counters
# (attacks, moves, used), so an attack or a support ability leaves the unit's record standing
# (side_terms compares ``unit[:_READ]`` and ``unit[TAP]``)
_READ = 11


def _deltas(board, mine: SideTerms, enemy: SideTerms, facing: tuple) -> list[float]:
    """What the second pass adds to a seat's value for its Warriors facing ``enemy``, in order,
    kept in ``mine.deltas`` under ``facing`` (``_values``: the enemy's Stronghold cell, threat
    range and best damage clamped to the Warriors' HP range). It reads of the enemy only those
    three (the best damage compared with each Warrior's HP, so only where it stands among them
    counts), so the kept additions serve as long as they are as they were (a deploy or a move
    that leaves the enemy's reach as it was changes none of them)."""
    target_sh = enemy.sh_cell
    enemy_threat, enemy_best = enemy.threat, enemy.best
    kept = mine.deltas
    if kept is None:
        kept = mine.deltas = {}
    elif len(kept) >= KEPT_FACINGS:
        kept.clear()
    formed = mine.formed
    out: list[float] = []
    push, extend = out.append, out.extend
    for r in mine.warriors:
        if r.sh != target_sh:
            r.facing(target_sh, board)
        extend(r.second)
        bit = r.bit
        if enemy_threat & bit:
            push(NEG_EXPOSED_DYING if r.hp <= enemy_best else NEG_EXPOSED)
        if formed & bit:
            push(W_FORMATION)
    kept[facing] = out
    return out


# how many enemy reaches a seat's second pass is kept for (sibling candidates of one decision
# face many: each deploy cell or move gives the enemy another threat range)
KEPT_FACINGS = 64


def evaluate(state: AllegianceState, seat: int) -> float:
    if state.over:
        return _ended(state, seat)
    pool = state.pool
    entry = _CARD_WORTH.get(id(pool))  # terms(pool), inline
    static = entry[1] if entry is not None and entry[0] is pool else terms(pool)
    memo = state.memo
    values = _values(state, static, (side_terms(state, 0, static, memo), side_terms(state, 1, static, memo)))
    return values[seat] - values[1 - seat]


def evaluate_fresh(state: AllegianceState, seat: int) -> float:
    """evaluate with nothing kept: every term computed from the position (what the kept terms
    are checked against)."""
    if state.over:
        return _ended(state, seat)
    static = terms(state.pool)
    values = _values(state, static, (side_terms(state, 0, static, None), side_terms(state, 1, static, None)))
    return values[seat] - values[1 - seat]


def _ended(state: AllegianceState, seat: int) -> float:
    if state.winner is None:
        return 0.0
    return WIN if state.winner == seat else -WIN


def _values(state: AllegianceState, static: CardTerms, both: tuple) -> tuple[float, float]:
    """Each seat's value of a position that is not over (evaluate is their difference), given
    each seat's first-pass terms (``side_terms``)."""
    fortress, muster = static.fortress, static.muster
    sides, warriors, blight_mask = state.sides, state.warriors, state.blight
    side_mask = static.board.side_mask
    value = [0.0, 0.0]
    for s in (0, 1):
        side = sides[s]
        mine, enemy = both[s], both[1 - s]
        v = mine.value
        for c in side.strongholds:
            v += fortress[c]
        mustered = side.muster
        for c, _ in mustered:
            v += muster[c]
        v += W_HAND * len(side.hand)
        if not mine.warriors and not mustered and side.turns >= 1:
            v -= W_ROUT
        # the second pass's additions one by one, left to right (a fold: the bits of ``v += d``),
        # kept per seat by what it reads of the enemy (``_deltas``)
        best = enemy.best
        low, high = mine.hp_range
        facing = (enemy.sh_cell, enemy.threat, low if best < low else high if best > high else best)
        kept = mine.deltas
        deltas = kept.get(facing) if kept is not None else None
        if deltas is None:
            deltas = _deltas(static.board, mine, enemy, facing)
        v = reduce(add, deltas, v)
        # one W_TARGET per enemy Warrior in reach, added one by one (as the sum always was)
        for _ in range((mine.hits & warriors[1 - s]).bit_count()):
            v += W_TARGET
        blight = (blight_mask & side_mask[s]).bit_count()
        v -= W_BLIGHT * blight
        if blight > BLIGHT_CALM:
            v -= W_BLIGHT_DANGER * (blight - BLIGHT_CALM) ** 2
        value[s] = v
    return value[0], value[1]
