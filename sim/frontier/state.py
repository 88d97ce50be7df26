"""The state of a Wild Frontier duel: plain slotted objects and integer ids, cheap to clone."""
from __future__ import annotations

import random
from typing import Any

from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import copy_stream
from sim.core.state import MatchState, copy_hold

# Phases (the Draw and Resource phases run without decisions; see turns.py).
DRAW, RESOURCE, ACTION, END = "draw", "resource", "action", "end"

SHERIFF = 15  # the "lane" number that means a seat's sheriff in a target code
ON_FIELD = -1  # a Deputy's zone state while it is on the field

# Choice options that are not target codes (a target code is never negative).
PASS = -1        # decline an optional choice (Stampede's shove, Overdrive)
OVERDRIVE = -2   # pay Overdrive's extra Gold
MODE = -100      # MODE - i: the i-th mode of a modal effect


def code(seat: int, lane: int) -> int:
    """A target as one integer: a seat's lane (creature, or the lane itself) or its sheriff."""
    return seat * 16 + lane


def decode(target: int) -> tuple[int, int]:
    return target >> 4, target & 15


class Unit:
    """A creature (or a Deputy) on the field. ``kw`` is its own keyword mask (granted keywords
    included); ``skip`` attacks it loses at its next turn (Stampede); ``charged`` its Flip-Charged
    state."""
    __slots__ = ("card", "uid", "owner", "lane", "atk", "hp", "max_hp", "kw", "attacks_left", "fresh",
                 "skip", "charged")

    def copy(self) -> "Unit":
        u = Unit.__new__(Unit)
        u.card, u.uid, u.owner, u.lane = self.card, self.uid, self.owner, self.lane
        u.atk, u.hp, u.max_hp, u.kw = self.atk, self.hp, self.max_hp, self.kw
        u.attacks_left, u.fresh, u.skip, u.charged = self.attacks_left, self.fresh, self.skip, self.charged
        return u

    def __repr__(self) -> str:
        return f"Unit(card={self.card} {self.atk}/{self.hp} lane={self.lane})"


class Side:
    """One seat: its sheriff's life, resources and zones, its Deputy Zone and sheriff state.

    deputies    the two Deputy card ids (shared, never changed)
    dzone       per Deputy: the seat's own turn from which it may be summoned, or ON_FIELD
    dused       per Deputy: the own turn its off-board ability was last used (0: never)
    mana_bonus  Mana due at the next Resource Phase (Reedwick's broken Cover)
    zix_left    Zix's discard-for-2 uses left
    attacked    the seat has attacked this turn (Malachar boosts the first attack)
    trims_left  cards this turn that still get Cogsworth's cost trim
    """
    __slots__ = ("hp", "max_hp", "mana", "gold", "gold_bonus", "turns", "hand", "deck", "discard",
                 "lanes", "cover", "decklist", "sheriff", "deputies", "dzone", "dused", "mana_bonus",
                 "zix_left", "attacked", "trims_left")

    decklist: tuple  # every card the seat brought, sorted (shared, never changed): for invariants

    def copy(self) -> "Side":
        s = Side.__new__(Side)
        s.hp, s.max_hp, s.mana, s.gold = self.hp, self.max_hp, self.mana, self.gold
        s.gold_bonus, s.turns = self.gold_bonus, self.turns
        s.hand, s.deck, s.discard = self.hand[:], self.deck[:], self.discard[:]
        s.lanes = [None if u is None else u.copy() for u in self.lanes]
        s.cover = self.cover[:]
        s.decklist, s.sheriff, s.deputies = self.decklist, self.sheriff, self.deputies
        s.dzone, s.dused = self.dzone[:], self.dused[:]
        s.mana_bonus, s.zix_left, s.attacked = self.mana_bonus, self.zix_left, self.attacked
        s.trims_left = self.trims_left
        return s

    def deputy_on_field(self) -> bool:
        return ON_FIELD in self.dzone


class FrontierState(MatchState):
    __slots__ = ("pool", "sides", "active", "to_act", "turn", "phase", "over", "winner", "reason",
                 "stack", "pending", "temp", "next_uid", "chance_key", "chance", "events", "ledger")

    pool: Any
    sides: list[Side]
    stack: list[list]      # effect frames still resolving: [seat, source uid, source card, effects, next index]
    pending: tuple | None  # a choice being waited on: (seat, effect, options, source uid, source card)
    temp: list[tuple]      # "until end of turn" changes to undo: (uid, atk, hp, granted keyword bits)
    chance: random.Random | None
    events: EventBuffer | None
    ledger: CardLedger | None

    def opponent(self, seat: int) -> int:
        """The duel's other seat (Classic Skirmish is one against one)."""
        return (seat + 1) % len(self.sides)

    def unit(self, target: int) -> Unit | None:
        seat, lane = decode(target)
        return self.sides[seat].lanes[lane] if lane != SHERIFF else None

    def find_uid(self, uid: int) -> Unit | None:
        for side in self.sides:
            for u in side.lanes:
                if u is not None and u.uid == uid:
                    return u
        return None

    def clone(self) -> "FrontierState":
        s = FrontierState.__new__(FrontierState)
        s.pool = self.pool
        s.sides = [side.copy() for side in self.sides]
        s.active, s.to_act, s.turn, s.phase = self.active, self.to_act, self.turn, self.phase
        s.over, s.winner, s.reason = self.over, self.winner, self.reason
        s.stack = [frame[:] for frame in self.stack]
        s.pending, s.temp, s.next_uid = self.pending, self.temp[:], self.next_uid
        s.chance_key = self.chance_key
        s.chance = copy_stream(self.chance)
        s.events = None
        s.ledger = None
        copy_hold(self, s)
        return s
