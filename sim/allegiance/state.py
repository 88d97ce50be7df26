"""The state of an Allegiance match: plain slotted objects and integer ids, cheap to clone.

Units (Warriors and Strongholds on the battlefield) are immutable named tuples kept in a list of
cells; a change replaces the tuple. So a clone copies one list of cells and shares every unit,
which keeps the greedy pilot's lookahead cheap. Blight is a bit mask over the cells.

Seats (``Side``) are shared copy-on-write by lookahead forks (``fork``), as Frontier does: each
state has a generation number (``gen``, sim/core/state.py ``new_generation``), a seat may be
written in place only by the state whose ``gen`` it carries, and the engine asks
``state.own_side(seat)`` for a writable seat before it changes one (a copy of the seat, its
lists included, put in its place when it is shared). A fork gives itself and its source new
generations, so neither writes a seat they now share; ``clone`` shares nothing, for hand edits.
The turn's chance stream is shared the same way (``chance_gen`` says which state may draw from
it in place): a fork copies it only before its first draw, and most forks never draw.

Who stands where is also kept as bit masks per seat (``units``: every unit, ``warriors``: the
Warriors), updated by ``place`` and ``remove``, the only two ways a unit arrives on or leaves a
cell. Legal actions, evaluate and the end-of-turn checks read them instead of walking the 48
cells at every decision; the invariants check them against the cells.
"""
from __future__ import annotations

import random
from typing import Any, NamedTuple

from sim.allegiance.board import cells_of
from sim.allegiance.pool import WARRIOR
from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import copy_stream
from sim.core.state import MatchState, copy_on_write_rng, new_generation

NO_CARD = -1

# Unit.tap: a Warrior that lost a Soul Combat is DRAINED until its owner's next turn, TAPPED
# during that turn, then normal again.
NORMAL, TAPPED, DRAINED = 0, 1, 2


class Unit(NamedTuple):
    card: int
    owner: int
    uid: int
    hp: int
    max_hp: int
    absorb: int = 0
    reflect: int = 0
    weapon: int = NO_CARD     # the War Supply weapon it carries
    armor: int = NO_CARD      # the War Supply armor it carries
    power: int = 0            # permanent bonus to its attacks' damage
    boost: int = 0            # bonus to its attacks' damage until the end of the turn
    attacks: int = 0          # attacks made this turn (Soul Combat counts)
    moves: int = 0            # moves made this turn
    used: int = 0             # bit i: support ability i used this turn
    tap: int = NORMAL


# Unit field positions, for ``replaced``
HP, ATTACKS, MOVES, USED, TAP = (Unit._fields.index(f) for f in ("hp", "attacks", "moves", "used", "tap"))
_new_tuple = tuple.__new__


def replaced(u: Unit, field: int, value: int) -> Unit:
    """``u`` with field number ``field`` set to ``value``: ``_replace`` for one field, in a
    third of its time (it pops keywords in a Python-level map); lookahead makes a unit anew at
    almost every step (an attack counted, a move, a hit, a Soul Combat)."""
    return _new_tuple(Unit, u[:field] + (value,) + u[field + 1:])


class Side:
    """One seat: its AP, cards and Stronghold deck, and what it has used this turn."""
    __slots__ = ("ap", "hand", "deck", "discard", "muster", "strongholds", "fallen", "turns",
                 "supplies", "cries", "tactics", "faction", "decklist", "fortress", "gen")

    ap: int
    hand: list[int]
    deck: list[int]            # the top card is the last
    discard: list[int]
    muster: list               # Mustered (card, own turn it arrived): deployable from the next own turn
    strongholds: list[int]     # Stronghold deck, top card last; the Bastion is at index 0
    fallen: list[int]          # Strongholds destroyed
    turns: int                 # own turns started
    supplies: int              # War Supplies played this turn
    cries: int                 # Battle Cries played this turn
    tactics: int               # Tactics played this enemy turn
    faction: int
    decklist: tuple            # every main-deck card the seat brought, sorted: for invariants
    fortress: tuple            # every Stronghold-deck card, sorted: for invariants

    def copy(self, gen: int) -> "Side":
        """A copy writable by the state of generation ``gen``."""
        s = Side.__new__(Side)
        s.gen = gen
        s.ap, s.turns, s.faction = self.ap, self.turns, self.faction
        s.hand, s.deck, s.discard = self.hand[:], self.deck[:], self.discard[:]
        s.muster, s.strongholds, s.fallen = self.muster[:], self.strongholds[:], self.fallen[:]
        s.supplies, s.cries, s.tactics = self.supplies, self.cries, self.tactics
        s.decklist, s.fortress = self.decklist, self.fortress
        return s


class AllegianceState(MatchState):
    __slots__ = ("pool", "sides", "cells", "units", "warriors", "blight", "blight_supply", "blight_destroyed",
                 "active", "to_act", "turn", "over", "winner", "reason", "pending", "next_uid", "chance_key",
                 "chance", "chance_gen", "events", "ledger", "memo", "gen")

    pool: Any
    sides: list[Side]
    cells: list[Unit | None]   # one entry per cell of the battlefield
    # immutable pairs, replaced on change, so a clone shares them for free
    units: tuple[int, int]     # per seat: bit c set, the seat's unit (Warrior or Stronghold) on cell c
    warriors: tuple[int, int]  # per seat: bit c set, the seat's Warrior on cell c
    blight: int                # bit c set: a Blight token on cell c
    pending: tuple | None      # a step being waited on: a Deploying, Moving, Defending or Discarding (actions.py)
    chance: random.Random | None
    chance_gen: int            # the generation that may draw from ``chance`` in place (``rng``)
    events: EventBuffer | None
    ledger: CardLedger | None
    # evaluate's kept per-seat terms (evaluate.SideTerms), shared by a state and its clones: each
    # entry says which units it was made from and is used only while they stand as they were
    memo: list

    def opponent(self, seat: int) -> int:
        return 1 - seat

    rng = copy_on_write_rng  # this turn's chance stream, shared by forks until one draws

    def roll(self, sides: int) -> int:
        """A die: ``randint(1, sides)`` on this turn's stream, with its calls inlined (Soul
        Combat's luck samples roll thousands of dice) for a plain ``random.Random``: CPython's
        draw, ``getrandbits`` of the width's bit length until below the width, plus 1."""
        rng = self.rng()
        if type(rng) is not random.Random:
            return rng.randint(1, sides)
        getrandbits = rng.getrandbits
        bits = sides.bit_length()
        drawn = getrandbits(bits)
        while drawn >= sides:
            drawn = getrandbits(bits)
        return 1 + drawn

    def stronghold_cell(self, seat: int) -> int:
        """The cell of the seat's Stronghold on the battlefield, or -1."""
        strongholds = self.units[seat] & ~self.warriors[seat]
        return (strongholds & -strongholds).bit_length() - 1

    def occupied(self) -> int:
        """The mask of cells holding a unit or Blight."""
        return self.units[0] | self.units[1] | self.blight

    def unit_cells(self) -> list[int]:
        """The cells holding a unit, lowest first (the order a walk over the cells meets them)."""
        return cells_of(self.units[0] | self.units[1])

    def place(self, cell: int, unit: Unit) -> None:
        """A unit arrives on the empty ``cell``."""
        self.cells[cell] = unit
        bit = 1 << cell
        u0, u1 = self.units
        warrior = self.pool.cards[unit.card].type == WARRIOR
        if unit.owner:
            self.units = (u0, u1 | bit)
            if warrior:
                self.warriors = (self.warriors[0], self.warriors[1] | bit)
        else:
            self.units = (u0 | bit, u1)
            if warrior:
                self.warriors = (self.warriors[0] | bit, self.warriors[1])

    def remove(self, cell: int) -> Unit:
        """The unit on ``cell`` leaves it (destroyed or moving away); returns it."""
        unit = self.cells[cell]
        self.cells[cell] = None
        keep = ~(1 << cell)
        (u0, u1), (w0, w1) = self.units, self.warriors
        if unit.owner:
            self.units, self.warriors = (u0, u1 & keep), (w0, w1 & keep)
        else:
            self.units, self.warriors = (u0 & keep, u1), (w0 & keep, w1)
        return unit

    def own_side(self, seat: int) -> Side:
        """The seat made writable in this state (a copy put in its place if it is shared). Every
        change the engine makes to a seat goes through here first; callers go on with the
        returned seat, never one they read before."""
        side = self.sides[seat]
        if side.gen != self.gen:
            side = self.sides[seat] = side.copy(self.gen)
        return side

    def clone(self) -> "AllegianceState":
        """An independent copy: nothing is shared, so a test or a tool may edit it by hand."""
        s = self._copy(copy_stream(self.chance))
        s.chance_gen = s.gen
        s.sides = [side.copy(s.gen) for side in self.sides]
        return s

    def fork(self, keep_chance: bool = True) -> "AllegianceState":
        """A lookahead copy, cheap: the seats and the chance stream are shared copy-on-write
        (the engine's changes go through ``own_side``, its draws through ``rng``). Both states
        get new generations, so neither draws from the shared stream or writes a shared seat
        in place. ``keep_chance=False``: the copy gets no chance stream (a caller about to
        reseed it)."""
        s = self._copy(self.chance if keep_chance else None)
        s.chance_gen = self.chance_gen  # neither state's generation from here on
        s.sides = self.sides[:]
        self.gen = new_generation()
        return s

    def _copy(self, chance: random.Random | None) -> "AllegianceState":
        s = AllegianceState.__new__(AllegianceState)
        s.gen = new_generation()
        s.pool = self.pool
        s.cells = self.cells[:]
        s.units, s.warriors = self.units, self.warriors
        s.blight, s.blight_supply, s.blight_destroyed = self.blight, self.blight_supply, self.blight_destroyed
        s.active, s.to_act, s.turn = self.active, self.to_act, self.turn
        s.over, s.winner, s.reason = self.over, self.winner, self.reason
        s.pending, s.next_uid = self.pending, self.next_uid
        s.chance_key = self.chance_key
        s.chance = chance
        s.events = None
        s.ledger = None
        s.memo = self.memo
        # every state blank_state made has a hold (None: not held), so this finds it at once
        s.hold = getattr(self, "hold", None)
        return s

