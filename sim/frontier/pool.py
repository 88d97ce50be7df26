"""A rules version compiled for play: cards as slotted definitions with integer ids and keyword
bits, effects as small immutable records. Built once per rules version and process, shared by
every match and clone."""
from __future__ import annotations

from typing import Any

# Keyword flags (a bitmask on each card and unit: one integer test in the hot path).
AMBUSH = 1 << 0
QUICKDRAW = 1 << 1
DOUBLE_BARREL = 1 << 2
FLYING = 1 << 3
HIGH_NOON = 1 << 4
WARRANT = 1 << 5
LAST_STAND = 1 << 6

FLAG_KEYWORDS = {"ambush": AMBUSH, "quickdraw": QUICKDRAW, "double_barrel": DOUBLE_BARREL,
                 "flying": FLYING, "high_noon": HIGH_NOON, "warrant": WARRANT, "last_stand": LAST_STAND}

CREATURE, SPELL = 0, 1


class Fx:
    """One effect of the vocabulary, compiled: op name, numbers, and the target selector."""
    __slots__ = ("op", "amount", "atk", "hp", "pick", "side", "kind", "until")

    def __init__(self, op: str, amount: int = 0, atk: int = 0, hp: int = 0, pick: str = "",
                 side: str = "", kind: str = "", until: str = "permanent"):
        self.op, self.amount, self.atk, self.hp = op, amount, atk, hp
        self.pick, self.side, self.kind, self.until = pick, side, kind, until

    @property
    def chosen(self) -> bool:
        return self.pick == "chosen"

    def __repr__(self) -> str:
        return f"Fx({self.op} {self.amount} {self.pick} {self.side} {self.kind})"


class CardDef:
    __slots__ = ("id", "slug", "name", "type", "faction", "mana", "gold", "atk", "hp", "kw",
                 "gold_rush", "fortify", "on_played", "on_destroyed", "on_attacks",
                 "on_turn_start", "on_turn_end")

    def __repr__(self) -> str:
        return f"CardDef({self.slug})"


class Pool:
    """The compiled cards of one rules version, by integer id (index into ``cards``)."""

    def __init__(self, ruleset: Any):
        self.version = ruleset.version
        self.hash = ruleset.hash
        self.consts = ruleset.constants
        self.cards: list[CardDef] = [compile_card(i, card) for i, card in enumerate(ruleset.cards.values())]
        self.ids: dict[str, int] = {c.slug: c.id for c in self.cards}
        c = self.consts
        self.n_middle = c.middle_lanes
        self.n_lanes = c.middle_lanes + c.high_rise_lanes
        self.lane_names = [f"m{i + 1}" for i in range(c.middle_lanes)] + \
                          [f"hr{i + 1}" for i in range(c.high_rise_lanes)]
        self.lane_index = {name: i for i, name in enumerate(self.lane_names)}

    def slug(self, card_id: int) -> str:
        return self.cards[card_id].slug


def _fx(effect) -> Fx:
    target = getattr(effect, "target", None)
    pick, side, kind = (target.pick, target.side, target.kind) if target is not None else ("", "", "")
    return Fx(effect.effect, getattr(effect, "amount", 0), getattr(effect, "atk", 0),
              getattr(effect, "def_", 0), pick, side, kind, getattr(effect, "until", "permanent"))


def compile_card(index: int, card: Any) -> CardDef:
    d = CardDef()
    d.id, d.slug, d.name = index, card.id, card.name
    d.type = CREATURE if card.type == "creature" else SPELL
    d.faction = card.faction
    d.mana, d.gold = card.cost.mana, card.cost.gold
    d.atk = card.atk or 0
    d.hp = card.def_ or 0
    kw = 0
    for name, bit in FLAG_KEYWORDS.items():
        if getattr(card.keywords, name):
            kw |= bit
    d.kw = kw
    d.gold_rush = card.keywords.gold_rush
    d.fortify = card.keywords.fortify
    by_trigger: dict[str, tuple] = {}
    for ability in card.abilities:
        by_trigger[ability.when] = by_trigger.get(ability.when, ()) + tuple(_fx(e) for e in ability.do)
    d.on_played = by_trigger.get("played", ())
    d.on_destroyed = by_trigger.get("destroyed", ())
    d.on_attacks = by_trigger.get("attacks", ())
    d.on_turn_start = by_trigger.get("turn_start", ())
    d.on_turn_end = by_trigger.get("turn_end", ())
    return d
