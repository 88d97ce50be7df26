"""A rules version compiled for play: cards as slotted definitions with integer ids and keyword
bits, abilities and effects as small immutable records. Built once per rules version and process,
shared by every match and clone."""
from __future__ import annotations

from typing import Any, NamedTuple

from sim.alleyway.actions import ActionTable

# card types and character subtypes
CHARACTER, HUSTLE, AMBUSH, LEADER_CARD = 0, 1, 2, 3
BRAWLER, STRIVER, HEAVY = 0, 1, 2
TYPES = {"character": CHARACTER, "hustle": HUSTLE, "ambush": AMBUSH, "leader": LEADER_CARD}
SUBTYPES = {None: -1, "brawler": BRAWLER, "striver": STRIVER, "heavy": HEAVY}

# what a cost discount can apply to: a card's cost kind indexes a seat's discounts (field.discount)
COST_KINDS = ("character", "heavy", "hustle", "ambush")
NO_DISCOUNT = (0, 0, 0, 0)

# keyword bits (one integer test in the hot path)
PIERCE = 1 << 0
LIFESTEAL = 1 << 1
INFILTRATE = 1 << 2
COLLATERAL = 1 << 3
BRITTLE = 1 << 4
REMAINS = 1 << 5
UNDEAD = 1 << 6
MARKED = 1 << 7
LOADED_DICE = 1 << 8
SHIELD = 1 << 9
GUARD = 1 << 10          # MUST BE ATTACKED FIRST
UNATTACKABLE = 1 << 11   # CAN'T BE ATTACKED
UNTARGETABLE = 1 << 12   # CAN'T BE TARGETED
TWICE = 1 << 13          # attacks twice each turn
KEYWORD_BITS = {"pierce": PIERCE, "lifesteal": LIFESTEAL, "infiltrate": INFILTRATE, "collateral": COLLATERAL,
                "brittle": BRITTLE, "remains": REMAINS, "undead": UNDEAD, "marked": MARKED,
                "loaded_dice": LOADED_DICE, "shield": SHIELD, "must_be_attacked_first": GUARD,
                "cant_be_attacked": UNATTACKABLE, "cant_be_targeted": UNTARGETABLE, "attacks_twice": TWICE}

# status bits for IMMUNE
STATUS_BITS = {name: 1 << i for i, name in enumerate(
    ("poison", "burn", "bleed", "freeze", "stasis", "stun", "silence", "suppress", "bounty", "shock"))}


def keyword_bits(kw: Any) -> tuple[int, int]:
    bits = 0
    for name, bit in KEYWORD_BITS.items():
        if getattr(kw, name):
            bits |= bit
    immune = 0
    for name in kw.immune:
        immune |= STATUS_BITS[name]
    return bits, immune


class Target:
    __slots__ = ("pick", "side", "state", "optional")

    def __init__(self, t: Any):
        self.pick, self.side, self.state, self.optional = t.pick, t.side, t.state, t.optional


class Filter:
    __slots__ = ("type", "subtype", "clan", "max_cost", "card")

    def __init__(self, f: Any, ids: dict[str, int]):
        self.type = TYPES[f.type] if f.type else -1
        self.subtype = SUBTYPES[f.subtype] if f.subtype else -1
        self.clan = f.clan
        self.max_cost = f.max_cost
        self.card = ids[f.card] if f.card else -1

    def fits(self, card: "CardDef") -> bool:
        return ((self.type < 0 or card.type == self.type) and (self.subtype < 0 or card.subtype == self.subtype)
                and (self.clan is None or card.clan == self.clan)
                and (self.max_cost is None or card.cost <= self.max_cost)
                and (self.card < 0 or card.id == self.card))


class Fx:
    """One effect of the vocabulary, compiled. Unused fields keep their defaults."""
    __slots__ = ("op", "target", "amount", "atk", "df", "until", "to", "who", "pick", "filter", "position",
                 "optional", "card", "count", "source", "face", "at_least", "heads", "tails", "hit", "miss",
                 "do", "then")

    def __repr__(self) -> str:
        return f"Fx({self.op})"


def compile_fx(e: Any, ids: dict[str, int]) -> Fx:
    fx = Fx()
    fx.op = e.effect
    t = getattr(e, "target", None)
    fx.target = Target(t) if t is not None else None
    fx.amount = getattr(e, "amount", 0)
    fx.atk = getattr(e, "atk", 0)
    fx.df = getattr(e, "def_", 0)
    fx.until = getattr(e, "until", "turn")
    fx.to = getattr(e, "to", "")
    fx.who = getattr(e, "who", "")
    fx.pick = getattr(e, "pick", None) or ""
    f = getattr(e, "filter", None)
    fx.filter = Filter(f, ids) if f is not None else None
    fx.position = getattr(e, "position", "atk")
    fx.optional = getattr(e, "optional", False)
    fx.card = ids[e.card] if getattr(e, "card", None) else -1
    fx.count = getattr(e, "count", 1)
    fx.source = getattr(e, "from_", "")
    fx.face = getattr(e, "face", "any")
    fx.at_least = getattr(e, "at_least", 0)
    fx.heads = compile_list(getattr(e, "heads", None) or [], ids)
    fx.tails = compile_list(getattr(e, "tails", None) or [], ids)
    fx.hit = compile_list(getattr(e, "hit", None) or [], ids)
    fx.miss = compile_list(getattr(e, "miss", None) or [], ids)
    fx.do = compile_list(getattr(e, "do", None) or [], ids)
    fx.then = compile_list(e.then, ids)
    if fx.op == "discard" and not fx.pick:
        fx.pick = "chosen" if fx.who == "you" else "random"
    return fx


def compile_list(effects, ids) -> tuple:
    return tuple(compile_fx(e, ids) for e in effects)


class Ability:
    __slots__ = ("when", "index", "once", "authority", "morale", "discard", "sacrifice", "no_attack",
                 "exile_self", "effects")

    def __init__(self, a: Any, index: int, ids: dict[str, int]):
        self.when, self.index, self.once = a.when, index, a.once_per_turn
        c = a.cost
        self.authority, self.morale, self.discard, self.sacrifice = c.authority, c.morale, c.discard, c.sacrifice
        self.no_attack, self.exile_self = c.no_attack, c.exile_self
        self.effects = compile_list(a.do, ids)

    def __repr__(self) -> str:
        return f"Ability({self.when} {self.effects})"


class Goal(NamedTuple):
    """What a PROMOTE or an awakening waits for: ``count`` of ``kind`` (wins, kos, turns,
    authority for a promotion; an awakening's kind)."""
    kind: str
    count: int


class Equip(NamedTuple):
    """What an Equip card gives its host: ATK, DEF, keyword bits and immunities."""
    atk: int
    df: int
    kw: int
    immune: int


class CardDef:
    __slots__ = ("id", "slug", "name", "type", "subtype", "clan", "token", "cost", "atk", "df", "level", "next",
                 "promote", "sacrifice", "continuous", "equip", "influence", "awaken", "ready_on_awaken",
                 "dormant", "dormant_aura", "aura", "discount", "kw", "immune", "triggers", "activate",
                 "gutter", "stays", "cost_kind", "discount_by_kind")

    def __repr__(self) -> str:
        return f"CardDef({self.slug})"

    def on(self, when: str) -> tuple:
        return self.triggers.get(when, ())


class Pool:
    """The compiled cards of one rules version, by integer id (index into ``cards``)."""

    def __init__(self, ruleset: Any):
        self.version = ruleset.version
        self.hash = ruleset.hash
        self.consts = ruleset.constants
        models = list(ruleset.cards.values())
        self.ids: dict[str, int] = {c.id: i for i, c in enumerate(models)}
        self.cards: list[CardDef] = [compile_card(i, c, self.ids) for i, c in enumerate(models)]
        self.n_lanes = self.consts.lanes
        self.n_back = self.consts.back_slots
        self.lane_names = [f"l{i + 1}" for i in range(self.n_lanes)]
        self.back_names = [f"b{i + 1}" for i in range(self.n_back)]
        # are there cards whose presence can change costs (discounts) or ATK/DEF (auras) board-wide?
        self.has_discount = any(c.discount for c in self.cards)
        self.has_aura = any(c.aura or c.dormant_aura for c in self.cards)
        self.aura_of = [c.aura for c in self.cards]  # by card id, for field.update_auras
        self.dormant_aura_of = [c.dormant_aura for c in self.cards]
        self.gutter_cards = frozenset(c.id for c in self.cards if c.gutter)  # with a Gutter ability
        # every action value this rules version can offer, made once (legal.py hands them out)
        self.actions = ActionTable(len(self.cards), self.n_lanes, self.n_back)
        # Turf Defense bosses (cardsdb/alleyway/bosses.py), by id
        self.bosses: dict[str, BossDef] = {b.id: BossDef(b, self.ids) for b in getattr(ruleset, "bosses", {}).values()}

    def slug(self, card_id: int) -> str:
        return self.cards[card_id].slug


class BossDef:
    """A Turf Defense boss compiled (cardsdb/alleyway/bosses.py): its deck as card numbers, its
    Morale, its extra draws and Authority, and per phase (0 = the start, then one per mark) the
    Morale it begins at or below (``marks[k - 1]`` for phase k) and its changes."""
    __slots__ = ("id", "name", "clan", "leader", "cards", "hideout", "morale", "extra_draws",
                 "extra_authority", "marks", "names", "atk", "df", "draws", "authority", "prize")

    def __init__(self, b: Any, ids: dict[str, int]):
        def number(card_id: str, where: str) -> int:
            if card_id not in ids:
                raise ValueError(f"boss {b.id}: {where} {card_id!r} is not in the rules version")
            return ids[card_id]

        self.id, self.name, self.clan = b.id, b.name, b.clan
        self.leader = number(b.leader, "leader")
        self.cards = [number(c, "deck card") for c, n in b.deck.cards.items() for _ in range(n)]
        self.hideout = [number(c, "Hideout card") for c, n in b.deck.hideout.items() for _ in range(n)]
        self.morale, self.extra_draws, self.extra_authority = b.morale, b.extra_draws, b.extra_authority
        self.marks = tuple(b.mark(p) for p in b.phases)
        self.names = ("",) + tuple(p.name for p in b.phases)
        self.atk = (b.atk,) + tuple(b.atk + p.atk for p in b.phases)
        self.df = (b.def_,) + tuple(b.def_ + p.def_ for p in b.phases)
        self.draws = (0,) + tuple(p.draws for p in b.phases)
        self.authority = (0,) + tuple(p.authority for p in b.phases)
        self.prize = number(b.prize, "prize")

    def phase_at(self, morale: int, phase: int = 0) -> int:
        """The phase at ``morale``, never before ``phase`` (phases only go forward)."""
        marks = self.marks
        while phase < len(marks) and morale <= marks[phase]:
            phase += 1
        return phase


def compile_card(index: int, c: Any, ids: dict[str, int]) -> CardDef:
    d = CardDef()
    d.id, d.slug, d.name = index, c.id, c.name
    d.type = TYPES[c.type]
    d.subtype = SUBTYPES[c.subtype]
    d.clan, d.token, d.cost = c.clan, c.token, c.cost
    d.atk, d.df = c.atk or 0, c.def_ or 0
    d.level = c.level or 0
    if c.promotes_to is not None and c.promotes_to not in ids:
        raise ValueError(f"card {c.id}: promotes_to {c.promotes_to!r} is not in the rules version")
    d.next = ids[c.promotes_to] if c.promotes_to else -1
    d.promote = None
    if c.promote is not None:
        for kind in ("wins", "kos", "turns", "authority"):
            value = getattr(c.promote, kind)
            if value is not None:
                d.promote = Goal(kind, value)
    d.sacrifice, d.continuous = c.sacrifice, c.continuous
    d.equip = None
    if c.equip is not None:
        bits, immune = keyword_bits(c.equip.keywords)
        d.equip = Equip(c.equip.atk, c.equip.def_, bits, immune)
    d.influence = c.influence or 0
    d.awaken = None
    if c.awaken is not None:
        d.awaken = next(Goal(k, v) for k, v in c.awaken.model_dump().items() if v is not None)
    d.ready_on_awaken = c.ready_on_awaken
    d.dormant = _by_trigger(c.dormant, ids)
    d.dormant_aura = (c.dormant_aura.atk, c.dormant_aura.def_, c.dormant_aura.side) if c.dormant_aura else None
    d.aura = (c.aura.atk, c.aura.def_, c.aura.side) if c.aura else None
    d.discount = (c.discount.amount, c.discount.what) if c.discount else None
    d.cost_kind = _cost_kind(d)
    d.discount_by_kind = _discount_by_kind(d.discount)
    d.kw, d.immune = keyword_bits(c.keywords)
    d.triggers = _by_trigger(c.abilities, ids)
    activate = [Ability(a, i, ids) for i, a in enumerate(c.abilities) if a.when == "activate"]
    d.activate = activate[0] if activate else None
    d.gutter = tuple(Ability(a, i, ids) for i, a in enumerate(c.abilities) if a.when == "gutter")
    d.stays = c.continuous or c.equip is not None  # stays in the back row once played or sprung
    return d


def _cost_kind(d: CardDef) -> int:
    """The index in COST_KINDS of what a discount must name to apply to this card."""
    if d.type == CHARACTER:
        return 1 if d.subtype == HEAVY else 0
    return 2 if d.type == HUSTLE else 3


def _discount_by_kind(discount: tuple | None) -> tuple | None:
    """What a discount source takes off each cost kind ("character" covers Heavies too)."""
    if not discount:
        return None
    amount, what = discount
    return tuple(amount if what == "any" or what == kind or (what == "character" and kind == "heavy") else 0
                 for kind in COST_KINDS)


def _by_trigger(abilities, ids) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for i, a in enumerate(abilities):
        if a.when in ("activate", "gutter"):
            continue
        out[a.when] = out.get(a.when, ()) + (Ability(a, i, ids),)
    return out
