"""A rules version compiled for play: cards as slotted definitions with integer ids, abilities
with their reach as bit masks over distances, effects as small immutable records. Built once per
rules version and process, shared by every match and clone."""
from __future__ import annotations

from typing import Any

from sim.allegiance.board import Board, cells_of

# card types
WARRIOR, STRONGHOLD, WAR_SUPPLY, BATTLE_CRY, TACTIC = range(5)
TYPE_CODES = {"warrior": WARRIOR, "stronghold": STRONGHOLD, "war_supply": WAR_SUPPLY,
              "battle_cry": BATTLE_CRY, "tactic": TACTIC}
FACTION_CODES = {"black_forge": 0, "descendants": 1, "neutral": -1}

# support and item targets
T_FRIENDLY_WARRIOR, T_FRIENDLY_UNIT, T_SELF, T_BLIGHT, T_EMPTY, T_ENEMY_EMPTY = range(6)
TARGET_CODES = {"friendly warrior": T_FRIENDLY_WARRIOR, "friendly unit": T_FRIENDLY_UNIT, "self": T_SELF,
                "blight": T_BLIGHT, "empty cell": T_EMPTY, "enemy empty cell": T_ENEMY_EMPTY}


class Fx:
    """One effect of the vocabulary, compiled."""
    __slots__ = ("op", "amount", "kind", "until", "to")

    def __init__(self, effect: Any):
        self.op = effect.effect
        self.amount = getattr(effect, "amount", 0)
        self.kind = getattr(effect, "kind", "")
        self.until = getattr(effect, "until", "")
        self.to = getattr(effect, "to", "")

    def __repr__(self) -> str:
        return f"Fx({self.op} {self.amount} to {self.to})"


class AbilityDef:
    """An attack or support ability of a Warrior. ``line_mask`` and ``any_mask`` hold a bit for
    each distance it reaches along a straight line and in any direction (board.py); ``masks[c]``
    is the mask of cells it reaches from cell c."""
    __slots__ = ("index", "name", "attack", "ap", "lo", "hi", "damage", "target", "fx",
                 "line_mask", "any_mask", "masks")

    def __repr__(self) -> str:
        return f"Ability({self.name} {self.lo}-{self.hi})"


def _ability(index: int, ability: Any, board: Board) -> AbilityDef:
    """Compile an ability's reach. "Any direction" keeps the printed range but measures it in any
    direction; "any range" reaches the whole battlefield (the guide: both "ignore the
    straight-line rule"; RULES.md)."""
    longest = max(board.rows, board.cols) - 1
    a = AbilityDef()
    a.index, a.name = index, ability.name
    a.attack = ability.kind == "attack"
    a.ap = ability.ap
    a.lo, a.hi = ability.span
    if ability.any_range:
        a.lo, a.hi = min(a.lo, 1), longest
    bits = 0  # bit d: reaches distance d (bit 0, the user's own cell, only for range 0-...)
    for d in range(a.lo, min(a.hi, longest) + 1):
        bits |= 1 << d
    free = ability.any_direction or ability.any_range
    a.line_mask, a.any_mask = (0, bits) if free else (bits, 0)
    a.masks = board.reach_masks(a.line_mask, a.any_mask)
    a.damage = getattr(ability, "damage", 0)
    a.target = TARGET_CODES.get(getattr(ability, "target", None), -1)
    a.fx = tuple(Fx(e) for e in ability.do)
    return a


class CardDef:
    __slots__ = ("id", "slug", "name", "type", "faction", "stars", "hp", "move", "bastion",
                 "beast_field", "beast_destroyed", "supply", "ap", "damage", "armor", "target",
                 "protects", "absorb", "reflect", "pierce", "soul_bonus", "attacks", "supports",
                 "turn_start", "played", "effects", "reach", "soul_lo", "best_damage", "hit_masks", "soul_masks",
                 "threat_masks")

    def __repr__(self) -> str:
        return f"CardDef({self.slug})"


def compile_card(index: int, card: Any, board: Board) -> CardDef:
    d = CardDef()
    d.id, d.slug, d.name = index, card.id, card.name
    d.type = TYPE_CODES[card.type]
    d.faction = FACTION_CODES[card.faction]
    d.stars = card.stars
    d.hp = card.hp or 0
    d.move = card.move or 0
    d.bastion = card.bastion
    beast = card.beast
    d.beast_field = beast.blight_on_field if beast is not None else None
    d.beast_destroyed = beast.blight_destroyed if beast is not None else None
    d.supply = card.supply or ""
    d.ap, d.damage, d.armor = card.ap, card.damage, card.armor
    d.target = TARGET_CODES.get(card.target, T_FRIENDLY_WARRIOR)
    d.protects = card.protects_stronghold
    kw = card.keywords
    d.absorb, d.reflect, d.pierce, d.soul_bonus = kw.absorb, kw.reflect, kw.pierce, kw.soul_bonus
    # an ability's index counts within its kind: actions name "attack number i", "support number i"
    d.attacks = tuple(_ability(i, a, board) for i, a in enumerate(card.attacks))
    d.supports = tuple(_ability(i, a, board) for i, a in enumerate(card.supports))
    by_kind: dict[str, tuple] = {}
    for ability in card.abilities:
        if ability.kind not in ("attack", "support"):
            by_kind[ability.kind] = tuple(Fx(e) for e in ability.do)
    d.turn_start = by_kind.get("turn_start", ())
    d.played = by_kind.get("played", ())
    d.effects = by_kind.get("battle_cry", by_kind.get("tactic", ()))
    # the longest attack: Soul Combat challenges along a line "within the Warrior's longest attack
    # range", its printed range from its minimum to its maximum (RULES.md)
    d.reach = max((a.hi for a in d.attacks), default=0)
    d.soul_lo = min((a.lo for a in d.attacks if a.hi == d.reach), default=1)
    d.best_damage = max((a.damage for a in d.attacks), default=0)
    # per cell: the cells any of its attacks reach, and the cells along a line within its reach
    d.hit_masks = [0] * board.n
    for a in d.attacks:
        d.hit_masks = [m | am for m, am in zip(d.hit_masks, a.masks)]
    line_bits = sum(1 << k for k in range(max(1, d.soul_lo), d.reach + 1))
    d.soul_masks = board.reach_masks(line_bits, 0)
    # per cell: the cells its attacks reach from anywhere one move away (the greedy pilot's
    # threat ranges; blockers ignored)
    d.threat_masks = [0] * board.n
    if d.attacks:
        ball = board.ball(d.move)
        for src in range(board.n):
            mask = 0
            for dst in cells_of(ball[src]):
                mask |= d.hit_masks[dst]
            d.threat_masks[src] = mask
    return d


class Pool:
    """The compiled cards of one rules version, by integer id (index into ``cards``)."""

    def __init__(self, ruleset: Any):
        self.version = ruleset.version
        self.hash = ruleset.hash
        self.consts = ruleset.constants
        c = self.consts
        self.board = Board(c.rows_per_side, c.columns)
        self.cards: list[CardDef] = [compile_card(i, card, self.board) for i, card in enumerate(ruleset.cards.values())]
        self.ids: dict[str, int] = {card.slug: card.id for card in self.cards}
        self.action_table = None  # legal.py's prebuilt actions, made on first use
        # faction code -> what its formation adds to its attacks (``bonus``), and the damage it
        # takes off by its reading: off every damage (``guard``), or as armor at an attack's
        # armor step only (``guard_as_armor``, a rules version's ``taken_as_armor``)
        self.bonus, self.guard, self.guard_as_armor = {0: 0, 1: 0}, {0: 0, 1: 0}, {0: 0, 1: 0}
        for faction, f in c.formations.items():
            code = FACTION_CODES[faction]
            self.bonus[code] = f.damage_dealt
            (self.guard_as_armor if f.taken_as_armor else self.guard)[code] = f.damage_taken
