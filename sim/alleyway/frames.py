"""What the resolution stack holds (resolve.py runs it) and what a pending choice carries.

A frame is one piece of resolution still going on; its ``kind`` picks the step function that
moves it on (resolve.STEPS):

    EffectsFrame   the effects of one ability, card or branch, the next one to start
    AttackFrame    an attack from its declaration to its brawl (brawl.py)
    OfferFrame     Continuous Ambushes offered to other seats, the next seat to ask (turns.py)
    CostFrame      an ability's discard and sacrifice costs still to choose (play.py)
    EndTurnFrame   the end of a turn, stage by stage (turns.py)

Frames change as they resolve, so a lookahead fork copies them (``copy``); a ``Ctx`` and the
records of a pending choice never change, so clones share them. This module imports nothing of
the game: every module that pushes frames or asks for choices can import it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

FX, ATTACK, OFFER, COST, ENDTURN = range(5)


class Ctx(NamedTuple):
    """Who effects belong to: the seat, the card they come from, the character that is "self",
    the one that is "foe" (the character it brawls, or for an Ambush the attacker) and an Equip's
    host (uids; 0 = none)."""
    seat: int
    card: int
    self_uid: int = 0
    foe: int = 0
    host: int = 0


@dataclass(slots=True)
class EffectsFrame:
    kind: ClassVar[int] = FX
    ctx: Ctx
    effects: tuple
    next: int = 0  # index of the next effect to start

    def copy(self) -> "EffectsFrame":
        return EffectsFrame(self.ctx, self.effects, self.next)


@dataclass(slots=True)
class AttackFrame:
    """Stage 0: the attacker's "when it attacks" abilities; 1: the defender's Ambushes offered;
    2: the brawl. ``defender`` is the uid of the character attacked (0: the player or a leader)."""
    kind: ClassVar[int] = ATTACK
    attacker: int
    target: int     # the target code (state.py)
    stage: int
    negated: bool
    defender: int

    def copy(self) -> "AttackFrame":
        return AttackFrame(self.attacker, self.target, self.stage, self.negated, self.defender)


@dataclass(slots=True)
class OfferFrame:
    kind: ClassVar[int] = OFFER
    seats: tuple
    index: int = 0  # into ``seats``: the next seat offered

    def copy(self) -> "OfferFrame":
        return OfferFrame(self.seats, self.index)


@dataclass(slots=True)
class CostFrame:
    kind: ClassVar[int] = COST
    ctx: Ctx
    ability: Any
    discards: int    # cards still to discard
    sacrifices: int  # characters still to sacrifice
    keep: int        # uid of the character that may not be sacrificed (the one activating)

    def copy(self) -> "CostFrame":
        return CostFrame(self.ctx, self.ability, self.discards, self.sacrifices, self.keep)


@dataclass(slots=True)
class EndTurnFrame:
    """Stage 0: turn-end abilities; 1: discard down to the hand limit; 2: clean up, next turn."""
    kind: ClassVar[int] = ENDTURN
    stage: int = 0

    def copy(self) -> "EndTurnFrame":
        return EndTurnFrame(self.stage)


# --- what a pending choice carries (state.Pending.data) ----------------------------------------

class CardChoice(NamedTuple):
    """A card to choose from a zone: ``why`` is "discard", "plunder", "exile_gutter" or the
    fetching effect (search, call, recover, revive); ``seat`` whose zone it is."""
    why: str
    seat: int


class EquipChoice(NamedTuple):
    """The character an Equip attaches to: the Equip's card and its back-row slot."""
    card: int
    slot: int
