"""Allegiance's position value: the algorithm behind ``evaluate.py``, with the weights as data.

``evaluate.py`` reads a weight set and builds a ``Valuer`` from it; everything here takes its
weights from that ``Valuer`` (through the per-rules-version ``CardTerms``, which every function
is given), never from module globals. So one module serves every weight set, which is what lets
it be compiled: ``valuation.pxd`` beside this file gives Cython the C types of the same source,
and ``WORKBENCH_COMPILE=1 pip install -e .`` builds it (``sim/core/compiled_build.py``; not by
default), which ``sim/core/compiled.py`` loads when it is current, this file when there is none.
This file is the reference: the compiled module is this source with types, held to the same bits
by tests/test_compiled.py. Write it so that both read it alike: a name the ``.pxd`` types as a C
integer must fit 64 bits and shift a 64-bit one (``_ONE``), not a literal 1 (a C ``int``); float
sums stay in the order they are written (the C build is compiled with ``-ffp-contract=off``).

What it knows, and how it keeps terms between positions, is told in ``evaluate.py``.
"""
from __future__ import annotations

from functools import reduce
from operator import add, itemgetter

from sim.allegiance.board import cells_of
from sim.allegiance.pool import STRONGHOLD
from sim.allegiance.state import NO_CARD, NORMAL, TAP

# the module's constants, as the compiled build declares them (C integers)
_STRONGHOLD = STRONGHOLD
_NO_CARD = NO_CARD
_NORMAL = NORMAL
_TAP = TAP
_ONE = 1

# The compiled build keeps a cell mask in a C 64-bit integer: a board of more cells (the rules
# allow up to 2 x 6 x 8 = 96) is valued by the source instead (``Valuer.wide``).
MASK_BITS = 64


_PLAIN_WEIGHTS = ("win", "stronghold_hp", "unit", "hp", "damage", "absorb", "reflect", "armor", "muster", "hand",
                  "siege", "gap", "off_line", "target", "formation", "blight", "blight_danger", "rout", "tapped",
                  "boost", "pierce", "soul_bonus")


class Valuer:
    """One weight set, ready to value positions: its weights as numbers (``weights.yaml``'s
    ``weights`` section), and its per-card terms by rules version (``tables``: pool id -> (pool,
    CardTerms); a test that edits a card in place clears it)."""
    __slots__ = ("win", "stronghold_hp", "shield_pair", "unit", "hp", "damage", "absorb", "reflect", "armor",
                 "muster", "hand", "siege", "gap", "off_line", "target", "neg_exposed", "neg_exposed_dying",
                 "formation", "blight", "blight_danger", "blight_calm", "rout", "tapped", "boost", "pierce",
                 "soul_bonus", "tables", "wide")

    def __init__(self, w: dict):
        # the weights used as written: weights.yaml's number under the same name
        for name in _PLAIN_WEIGHTS:
            setattr(self, name, float(w[name]))
        # (a Warrior's unit, damage and siege terms are its potency, counted in proportion to its HP left)
        self.shield_pair = float(w["shield_hp"]) * 2  # evaluated as (shield_hp * 2) * absorb, as it always was
        exposed = float(w["exposed"])
        # the second pass's additions for an exposed Warrior, and one that could die of it
        self.neg_exposed = -exposed
        self.neg_exposed_dying = -(exposed + float(w["exposed_low"]))
        self.blight_calm = int(w["blight_calm"])
        self.tables = {}
        # the Valuer of boards wider than MASK_BITS cells, set on the compiled build's Valuer (a
        # Valuer of the source, the same weights: evaluate.py); None values every board itself
        self.wide = None

    def terms(self, pool) -> CardTerms:
        """The pool's card terms, or None for a board this Valuer leaves to ``wide``."""
        entry = self.tables.get(id(pool))
        if entry is None or entry[0] is not pool:
            fits = self.wide is None or pool.board.n <= MASK_BITS
            entry = self.tables[id(pool)] = (pool, CardTerms(pool, self) if fits else None)
        return entry[1]

    def evaluate(self, state, seat: int) -> float:
        if state.over:
            return self.ended(state, seat)
        pool = state.pool
        entry = self.tables.get(id(pool))  # self.terms(pool), inline
        static = entry[1] if entry is not None and entry[0] is pool else self.terms(pool)
        if static is None:
            return self.wide.evaluate(state, seat)
        memo = state.memo
        return _difference(state, static, side_terms(state, 0, static, memo), side_terms(state, 1, static, memo),
                           seat)

    def evaluate_fresh(self, state, seat: int) -> float:
        """evaluate with nothing kept: every term computed from the position (what the kept
        terms are checked against)."""
        if state.over:
            return self.ended(state, seat)
        static = self.terms(state.pool)
        if static is None:
            return self.wide.evaluate_fresh(state, seat)
        return _difference(state, static, side_terms(state, 0, static, None), side_terms(state, 1, static, None),
                           seat)

    def ended(self, state, seat: int) -> float:
        if state.winner is None:
            return 0.0
        return self.win if state.winner == seat else -self.win


class CardTerms:
    """What evaluate needs of each card that no position changes, by card id, computed once per
    rules version and weight set (``Valuer.terms``), with the weight set itself (``w``). Each
    entry is the very expression evaluate once computed in place, so the sums come out to the
    same bits."""
    __slots__ = ("w", "extra", "muster", "fortress", "armor", "damage", "layouts", "formation_size", "board")

    def __init__(self, pool, w: Valuer):
        cards = pool.cards
        self.w = w
        # a seat's unit mask -> its cells, lowest first, and a reader of their units (side_terms)
        self.layouts = {}
        self.formation_size = pool.consts.formation_size
        self.board = pool.board
        # a Warrior's keywords: Pierce, Soul Combat bonus
        self.extra = [w.pierce * bool(c.pierce) + w.soul_bonus * (c.soul_bonus or 0) for c in cards]
        # a Warrior waiting in the Muster Zone: a share of its worth on the field
        self.muster = [w.muster * (w.unit + w.hp * c.hp + w.damage * c.best_damage) for c in cards]
        # a Stronghold still in the Stronghold deck
        self.fortress = [w.stronghold_hp * c.hp for c in cards]
        # a War Supply armor carried
        self.armor = [w.armor * c.armor for c in cards]
        # a War Supply weapon's damage
        self.damage = [c.damage for c in cards]


class UnitTerms:
    """What evaluate reads of one unit on one cell, computed once for that unit tuple (units are
    immutable: a change is a new tuple, so a kept record is found stale by identity). ``add`` is
    its first-pass addition to its seat's value; ``second`` its second-pass additions (the gap to
    a firing position, if any, then its potency) for a Warrior facing an enemy Stronghold on cell
    ``sh`` (recomputed when that moves); ``bit`` its cell's bit. Made by ``unit_terms``."""
    __slots__ = ("unit", "cell", "add", "stronghold", "hit", "threat", "damage", "faction", "hp", "sh", "second",
                 "card", "bit", "normal", "max_hp")

    def facing(self, target_sh: int, static: CardTerms) -> None:
        """The second-pass terms against an enemy Stronghold on ``target_sh`` (-1: none)."""
        w = static.w
        card, cell = self.card, self.cell
        # what the Warrior threatens counts in proportion to the HP it has left, so wounding
        # a dangerous Warrior pays even before it dies (focus fire)
        potency = w.unit + w.damage * self.damage
        off = 0.0
        has_gap = False
        if target_sh >= 0:
            if (card.hit_masks[cell] >> target_sh) & 1:
                potency += w.siege * self.damage
            else:
                board = static.board
                gap = board.cheb[cell * board.n + target_sh] - card.reach
                off = -(w.gap * gap if gap > 0 else w.off_line)
                has_gap = True
        if not self.normal:
            potency *= 1.0 - w.tapped
        pot = potency * self.hp / self.max_hp
        # the additions in the order the second pass makes them (``_deltas``)
        if has_gap:
            self.second = (off, pot)
        else:
            self.second = (pot,)
        self.sh = target_sh


def unit_terms(unit: tuple, cell: int, card, static: CardTerms, boosted: bool) -> UnitTerms:
    """The terms of ``unit`` (a unit tuple of card ``card``) standing on ``cell``."""
    w = static.w
    r = UnitTerms()
    # the unit's fields at once (a named tuple's field by name is a descriptor call each)
    card_id, _owner, _uid, hp, max_hp, absorb, reflect, weapon, armor, power, boost, _a, _m, _u, tap = unit
    r.unit, r.cell, r.card, r.hp = unit, cell, card, hp
    r.sh = -2  # no second-pass terms yet
    r.stronghold = card.type == _STRONGHOLD
    if r.stronghold:
        r.add = w.stronghold_hp * hp + w.shield_pair * absorb
        return r
    damage = card.best_damage + power
    if weapon != _NO_CARD:
        damage += static.damage[weapon]
    worth = w.hp * hp + w.absorb * absorb + w.reflect * reflect
    if armor != _NO_CARD:
        worth += static.armor[armor]
    if boost and boosted:
        worth += w.boost * boost
    r.add = worth + static.extra[card_id]
    # a tapped or drained Warrior attacks nothing before its turn is over
    normal = r.normal = tap == _NORMAL
    r.hit = card.hit_masks[cell] if normal else 0
    r.threat = card.threat_masks[cell] if normal else 0
    r.damage = damage
    r.faction = card.faction + 1
    r.bit = _ONE << cell  # (a 64-bit one in the build: a C int 1 << 40 would overflow)
    r.max_hp = max_hp
    return r


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


def _pick(cells: list):
    """The seat's unit tuples on ``cells``, in cell order, as a tuple (a C-level read of the
    board; one cell is read twice, since ``itemgetter`` of one item returns the item itself: the
    walk in ``side_terms`` pairs the units with ``cells`` and stops at the first)."""
    if len(cells) == 1:
        return itemgetter(cells[0], cells[0])
    return itemgetter(*cells) if cells else _nothing


def _nothing(_cells) -> tuple:
    return ()


_NO_RECORDS: dict = {}

# how many seats' layouts (cell lists and readers, by unit mask) are kept per rules version
KEPT_LAYOUTS = 4096

# how many enemy reaches a seat's second pass is kept for (sibling candidates of one decision
# face many: each deploy cell or move gives the enemy another threat range)
KEPT_FACINGS = 64

# The unit fields evaluate reads: the first 11 (card .. boost) and tap, not this turn's counters
# (attacks, moves, used), so an attack or a support ability leaves the unit's record standing
# (side_terms compares ``unit[:_READ]`` and ``unit[TAP]``)
_READ = 11


def side_terms(state, s: int, static: CardTerms, memo) -> SideTerms:
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
    low = high = 0
    mine = t.warriors = []
    cards = None
    for cell, u in zip(on, units):
        r = old.get(cell)
        if r is None or (r.unit is not u and (r.unit[:_READ] != u[:_READ] or r.unit[_TAP] != u[_TAP])):
            if cards is None:
                cards = state.pool.cards
            r = unit_terms(u, cell, cards[u[0]], static, s == active)
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
        if not mine:
            low = high = hp
        elif hp < low:
            low = hp
        elif hp > high:
            high = hp
        mine.append(r)
    t.value, t.sh_cell, t.hits, t.threat, t.best = v, sh_cell, side_hits, side_threat, side_best
    formed = 0
    if mine:
        t.hp_range = (low - 1, high)
        size = static.formation_size
        if len(mine) >= size:  # the cells in a formation (formations.formed_in, inline)
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


def _deltas(static: CardTerms, mine: SideTerms, enemy: SideTerms, facing: tuple) -> list:
    """What the second pass adds to a seat's value for its Warriors facing ``enemy``, in order,
    kept in ``mine.deltas`` under ``facing`` (``_seat_value``: the enemy's Stronghold cell,
    threat range and best damage clamped to the Warriors' HP range). It reads of the enemy only
    those three (the best damage compared with each Warrior's HP, so only where it stands among
    them counts), so the kept additions serve as long as they are as they were (a deploy or a
    move that leaves the enemy's reach as it was changes none of them)."""
    w = static.w
    target_sh = enemy.sh_cell
    enemy_threat, enemy_best = enemy.threat, enemy.best
    kept = mine.deltas
    if kept is None:
        kept = mine.deltas = {}
    elif len(kept) >= KEPT_FACINGS:
        kept.clear()
    formed = mine.formed
    out: list = []
    for r in mine.warriors:
        if r.sh != target_sh:
            r.facing(target_sh, static)
        out.extend(r.second)
        bit = r.bit
        if enemy_threat & bit:
            out.append(w.neg_exposed_dying if r.hp <= enemy_best else w.neg_exposed)
        if formed & bit:
            out.append(w.formation)
    kept[facing] = out
    return out


def _difference(state, static: CardTerms, first: SideTerms, second: SideTerms, seat: int) -> float:
    """The value of a position that is not over for ``seat``: its own value less its enemy's,
    given each seat's first-pass terms (``side_terms``)."""
    v0 = _seat_value(state, static, 0, first, second)
    v1 = _seat_value(state, static, 1, second, first)
    return v0 - v1 if seat == 0 else v1 - v0


def _seat_value(state, static: CardTerms, s: int, mine: SideTerms, enemy: SideTerms) -> float:
    """Seat ``s``'s value of a position that is not over."""
    w = static.w
    fortress, muster = static.fortress, static.muster
    side = state.sides[s]
    v = mine.value
    for c in side.strongholds:
        v += fortress[c]
    mustered = side.muster
    for c, _ in mustered:
        v += muster[c]
    v += w.hand * len(side.hand)
    if not mine.warriors and not mustered and side.turns >= 1:
        v -= w.rout
    # the second pass's additions one by one, left to right (a fold: the bits of ``v += d``),
    # kept per seat by what it reads of the enemy (``_deltas``)
    best = enemy.best
    low, high = mine.hp_range
    facing = (enemy.sh_cell, enemy.threat, low if best < low else high if best > high else best)
    kept = mine.deltas
    deltas = kept.get(facing) if kept is not None else None
    if deltas is None:
        deltas = _deltas(static, mine, enemy, facing)
    v = reduce(add, deltas, v)
    # one target weight per enemy Warrior in reach, added one by one (as the sum always was)
    for _ in range((mine.hits & state.warriors[1 - s]).bit_count()):
        v += w.target
    blight = (state.blight & static.board.side_mask[s]).bit_count()
    v -= w.blight * blight
    if blight > w.blight_calm:
        v -= w.blight_danger * (blight - w.blight_calm) ** 2
    return v
