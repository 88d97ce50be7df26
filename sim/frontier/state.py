"""The state of a Wild Frontier duel: plain slotted objects and integer ids, cheap to clone.

Lookahead copies (``FrontierState.fork``) share their units copy-on-write: a candidate move
changes one or two creatures, and copying every creature of both boards for each candidate was
most of what a clone cost. Each state has a generation number (``gen``); a unit may be written
in place only by the state whose ``gen`` it carries, and the engine asks ``state.own(unit)``
for a writable unit before it changes one. A fork gives both itself and its source new
generations, so neither writes into the units they now share.

Seats (``Side``) are shared the same way: the engine asks ``state.own_side(seat)`` before it
changes a seat (owning a unit owns its seat first), so a move copies only the seats it changes.
A seat's card lists and small per-lane lists (hand, deck, discard, cover, dzone, dused) are
shared even by a seat's copy: the engine never changes one in place but puts a changed copy in
its place (``replaced``, ``removed``, ``list + [x]``), so copying a seat copies one list, its
lanes. A seat and a unit carry evaluate's cached value, dropped when they are owned.
"""
from __future__ import annotations

import random
from typing import Any, NamedTuple

from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import copy_stream
from sim.core.state import GenerationCopies, MatchState, copy_hold, new_generation, unit_by_uid
from sim.core.target_codes import TargetCodes

# Phases (the Draw and Resource phases run without decisions; see turns.py).
DRAW, RESOURCE, ACTION, END = "draw", "resource", "action", "end"

SHERIFF = 15  # the "lane" number that means a seat's sheriff in a target code
ON_FIELD = -1  # a Deputy's zone state while it is on the field

# Choice options that are not target codes (a target code is never negative).
PASS = -1        # decline an optional choice (Stampede's shove, Overdrive)
OVERDRIVE = -2   # pay Overdrive's extra Gold
MODE = -100      # MODE - i: the i-th mode of a modal effect


MAX_SEATS = 4  # target codes run up to 16 x seats (actions.ActionTable makes that many)


class Target(NamedTuple):
    """A target code read back: the seat, and its lane (or ``SHERIFF``)."""
    seat: int
    lane: int


# A target as one integer (sim/core/target_codes.py), ``seat * 16 + lane``: a seat's lane (creature,
# or the lane itself) or its sheriff. An integer, not a record, because actions carry it and the
# action table is indexed by it; ``code`` makes one, ``decode`` reads it back as a ``Target``. The
# hot paths (attacks, effects) read a code with two indexes, ``SEAT_OF`` and ``LANE_OF`` (plain
# ints: unpacking a named tuple is the slow, generic unpack).
TARGET_CODES = TargetCodes(16, Target, MAX_SEATS)
code, decode = TARGET_CODES.code, TARGET_CODES.decode
SEAT_OF, LANE_OF = TARGET_CODES.seat_of, TARGET_CODES.index_of


class Frame:
    """An effect list resolving on ``state.stack``: whose it is (``seat``), its source (the
    creature's ``uid``, or -1 for a spell or an off-board ability; the ``card``; the ``lane`` it
    acts from, or -1), the ``effects`` and the index of the ``next`` one to resolve (the only
    field that changes)."""
    __slots__ = ("seat", "uid", "card", "lane", "effects", "next")

    def __init__(self, seat: int, uid: int, card: int, lane: int, effects: tuple, next: int = 0):
        self.seat, self.uid, self.card, self.lane, self.effects, self.next = seat, uid, card, lane, effects, next

    def copy(self) -> "Frame":
        return Frame(self.seat, self.uid, self.card, self.lane, self.effects, self.next)

    def __repr__(self) -> str:
        return (f"Frame(seat={self.seat}, uid={self.uid}, card={self.card}, lane={self.lane}, "
                f"effects={self.effects!r}, next={self.next})")


class Pending(NamedTuple):
    """A choice the engine waits on: ``seat`` picks one of ``options`` (target codes, or the
    option codes above) for the effect ``fx`` of the frame it came from (its source ``uid``,
    ``card`` and ``lane``, as on Frame)."""
    seat: int
    fx: Any
    options: tuple
    uid: int
    card: int
    lane: int


class TempChange(NamedTuple):
    """An "until end of turn" change to undo in the End Phase: the creature's ``uid``, the Attack
    and Defense it was given, and the keyword bits newly granted."""
    uid: int
    atk: int
    hp: int
    kw: int


def replaced(items: list, index: int, value) -> list:
    """A copy of ``items`` with ``value`` at ``index`` (a seat's lists are replaced, never changed
    in place: forks share them)."""
    new = items[:]
    new[index] = value
    return new


def removed(items: list, value) -> list:
    """A copy of ``items`` without the first ``value`` (see ``replaced``)."""
    new = items[:]
    new.remove(value)
    return new


class Unit:
    """A creature (or a Deputy) on the field. ``kw`` is its own keyword mask (granted keywords
    included); ``skip`` attacks it loses at its next turn (Stampede); ``charged`` its Flip-Charged
    state.

    Bookkeeping, not game state: ``gen`` is the generation of the one state that may write the
    unit in place (see the module's note); ``value`` is evaluate's cached worth of the unit's own
    stats and keywords, (per-card worth table of the weights that made it, worth), None until
    computed; cleared by ``FrontierState.own`` before any change.
    """
    __slots__ = ("card", "uid", "owner", "lane", "atk", "hp", "max_hp", "kw", "attacks_left", "fresh",
                 "skip", "charged", "gen", "value")

    def copy(self, gen: int) -> "Unit":
        """A copy writable by the state of generation ``gen`` (no cached value)."""
        u = Unit.__new__(Unit)
        u.card, u.uid, u.owner, u.lane = self.card, self.uid, self.owner, self.lane
        u.atk, u.hp, u.max_hp, u.kw = self.atk, self.hp, self.max_hp, self.kw
        u.attacks_left, u.fresh, u.skip, u.charged = self.attacks_left, self.fresh, self.skip, self.charged
        u.gen, u.value = gen, None
        return u

    def __repr__(self) -> str:
        return f"Unit(card={self.card} {self.atk}/{self.hp} lane={self.lane})"


class Side:
    """One seat: its sheriff's life, resources and zones, its Deputy Zone and sheriff state.

    deputies    the two Deputy card ids (shared, never changed)
    dzone       per Deputy: the seat's own turn from which it may be summoned, or ON_FIELD
    dused       per Deputy: the own turn its off-board ability was last used (0: never)
    mana_bonus  Mana due at the next Resource Phase (Reedwick's broken Cover)
    discard_uses_left  uses left of the sheriff's discard-to-draw action (Zix's one a match)
    attacked    the seat has attacked this turn (Malachar boosts the first attack)
    trims_left  cards this turn that still get Cogsworth's cost trim

    Bookkeeping, not game state: ``gen`` and ``value`` as on Unit (``value`` is evaluate's
    (per-card worth table, value) of the seat, or None).
    """
    __slots__ = ("hp", "max_hp", "mana", "gold", "gold_bonus", "turns", "hand", "deck", "discard",
                 "lanes", "cover", "decklist", "sheriff", "deputies", "dzone", "dused", "mana_bonus",
                 "discard_uses_left", "attacked", "trims_left", "gen", "value")

    decklist: tuple  # every card the seat brought, sorted (shared, never changed): for invariants

    def copy(self, gen: int, deep: bool) -> "Side":
        """A copy of the seat writable by generation ``gen``. ``deep``: nothing is shared (the
        units are copied too); else the units and every list but the lanes stay shared,
        copy-on-write (see the module's note)."""
        s = Side.__new__(Side)
        s.gen, s.value = gen, None
        s.hp, s.max_hp, s.mana, s.gold = self.hp, self.max_hp, self.mana, self.gold
        s.gold_bonus, s.turns = self.gold_bonus, self.turns
        if not deep:
            s.hand, s.deck, s.discard = self.hand, self.deck, self.discard
            s.lanes = self.lanes[:]
            s.cover, s.dzone, s.dused = self.cover, self.dzone, self.dused
        else:
            s.hand, s.deck, s.discard = self.hand[:], self.deck[:], self.discard[:]
            s.lanes = [None if u is None else u.copy(gen) for u in self.lanes]
            s.cover, s.dzone, s.dused = self.cover[:], self.dzone[:], self.dused[:]
        s.decklist, s.sheriff, s.deputies = self.decklist, self.sheriff, self.deputies
        s.mana_bonus, s.discard_uses_left, s.attacked = self.mana_bonus, self.discard_uses_left, self.attacked
        s.trims_left = self.trims_left
        return s

    def deputy_on_field(self) -> bool:
        return ON_FIELD in self.dzone




class FrontierState(GenerationCopies, MatchState):
    __slots__ = ("pool", "sides", "active", "to_act", "turn", "phase", "over", "winner", "reason",
                 "stack", "pending", "temp", "next_uid", "chance_key", "chance", "events", "ledger", "gen")

    pool: Any
    sides: list[Side]
    stack: list[Frame]       # effect lists still resolving, the top one last
    pending: Pending | None  # a choice being waited on
    temp: list[TempChange]   # "until end of turn" changes to undo
    chance: random.Random | None
    events: EventBuffer | None
    ledger: CardLedger | None
    # Frontier declares no partners; a subclass may (evaluate reads ``teams`` when set). A class
    # value, so reading it never raises: a getattr default that catches an AttributeError on
    # every evaluate was a measurable cost.
    teams = None

    def opponent(self, seat: int) -> int:
        """The duel's other seat (Classic Skirmish is one against one)."""
        return (seat + 1) % len(self.sides)

    def unit(self, target: int) -> Unit | None:
        seat, lane = decode(target)
        return self.sides[seat].lanes[lane] if lane != SHERIFF else None

    find_uid = unit_by_uid  # the unit whose uid is ``uid``, or None

    def own_side(self, seat: int) -> Side:
        """The seat made writable in this state (a copy put in its place if it is shared), its
        cached value dropped. Every change the engine makes to a seat goes through here first;
        callers go on with the returned seat, never one they read before."""
        side = self.sides[seat]
        if side.gen != self.gen:
            side = self.sides[seat] = side.copy(self.gen, deep=False)
        else:
            side.value = None
        return side

    def own(self, u: Unit) -> Unit:
        """``u`` made writable in this state: the unit itself if this state may write it, else a
        copy put in its place on the field (its seat owned first). Every change the engine makes
        to a unit goes through here first (and the cached values of the unit and its seat are
        dropped, as they are about to change). Callers go on with the returned unit, never the
        one they passed."""
        lanes = self.own_side(u.owner).lanes
        if u.gen != self.gen:
            if lanes[u.lane] is not u:
                raise ValueError(f"{u!r} is not on the field where it says it is")
            u = lanes[u.lane] = u.copy(self.gen)
        else:
            u.value = None
        return u

    def _copy(self, deep: bool) -> "FrontierState":
        s = FrontierState.__new__(FrontierState)
        s.gen = new_generation()
        s.pool = self.pool
        s.sides = [side.copy(s.gen, deep=True) for side in self.sides] if deep else self.sides[:]
        s.active, s.to_act, s.turn, s.phase = self.active, self.to_act, self.turn, self.phase
        s.over, s.winner, s.reason = self.over, self.winner, self.reason
        s.stack = [frame.copy() for frame in self.stack] if self.stack else []
        s.pending, s.temp, s.next_uid = self.pending, self.temp[:], self.next_uid
        s.chance_key = self.chance_key
        s.chance = copy_stream(self.chance) if self.chance is not None else None
        s.events = None
        s.ledger = None
        s.hold = None  # no hold (how sim.core.state reads an unset one), unless the source has one
        copy_hold(self, s)
        return s
