"""A rules version compiled for play: cards as slotted definitions with integer ids and keyword
bits, effects as small immutable records. Built once per rules version and process, shared by
every match and clone.

On-play keywords are compiled into the card's own list of on-play effects (Overdrive's choice,
Burrow's Cover, High Noon's draw, Gold Rush's Gold, Heal, then the printed abilities, then
Flip), so the engine resolves them with the same stack and the same choices as any ability.
A Deputy summoned from its Deputy Zone is not "played from hand": it runs the same list without
High Noon's draw (``on_summoned``)."""
from __future__ import annotations

from typing import Any

from sim.frontier.sheriffs import SHERIFF_NAMES, compile_sheriffs

# Keyword flags (a bitmask on each card and unit: one integer test in the hot path).
AMBUSH = 1 << 0
QUICKDRAW = 1 << 1
DOUBLE_BARREL = 1 << 2
FLYING = 1 << 3
HIGH_NOON = 1 << 4
WARRANT = 1 << 5
LAST_STAND = 1 << 6
OVERSHOT = 1 << 7
WANTED = 1 << 8
VENOM = 1 << 9
FERAL = 1 << 10
BURROW = 1 << 11
PACK = 1 << 12
STAMPEDE = 1 << 13
FLIP = 1 << 14
FLIP_CHARGED = 1 << 15
BARRICADE = 1 << 16
TUNNEL = 1 << 17
IRONCLAD = 1 << 18

FLAG_KEYWORDS = {"ambush": AMBUSH, "quickdraw": QUICKDRAW, "double_barrel": DOUBLE_BARREL,
                 "flying": FLYING, "high_noon": HIGH_NOON, "warrant": WARRANT, "last_stand": LAST_STAND,
                 "overshot": OVERSHOT, "wanted": WANTED, "venom": VENOM, "feral": FERAL,
                 "burrow": BURROW, "pack": PACK, "stampede": STAMPEDE, "flip": FLIP,
                 "flip_charged": FLIP_CHARGED, "barricade": BARRICADE, "tunnel": TUNNEL,
                 "ironclad": IRONCLAD}
TAUNT = WARRANT | BARRICADE  # "Enemies must attack this creature first"

CREATURE, SPELL, DEPUTY, ITEM = 0, 1, 2, 3
TYPES = {"creature": CREATURE, "spell": SPELL, "deputy": DEPUTY, "item": ITEM}

# Blast's tier filter on a damage effect: which enemy row the splash covers.
ANY_TIER, MIDDLE_TIER, HIGH_RISE_TIER = 0, 1, 2


class Fx:
    """One effect of the vocabulary, compiled: op name, numbers, and the target selector.
    ``quiet`` effects come from keywords and leave no "fizzle" event when they find no target."""
    __slots__ = ("op", "amount", "atk", "hp", "pick", "side", "kind", "until", "kw", "modes",
                 "names", "quiet", "tier")

    def __init__(self, op: str, amount: int = 0, atk: int = 0, hp: int = 0, pick: str = "",
                 side: str = "", kind: str = "", until: str = "permanent", kw: int = 0,
                 modes: tuple = (), names: tuple = (), quiet: bool = False, tier: int = ANY_TIER):
        self.op, self.amount, self.atk, self.hp = op, amount, atk, hp
        self.pick, self.side, self.kind, self.until = pick, side, kind, until
        self.kw, self.modes, self.names, self.quiet, self.tier = kw, modes, names, quiet, tier

    @property
    def chosen(self) -> bool:
        return self.pick == "chosen"

    def __repr__(self) -> str:
        return f"Fx({self.op} {self.amount} {self.pick} {self.side} {self.kind})"


# Engine-made effects (not in the card vocabulary): the choices keywords ask for.
SHOVE = Fx("shove", pick="chosen", quiet=True)        # Stampede: the defender to another lane, or not


class CardDef:
    __slots__ = ("id", "slug", "name", "type", "faction", "beast", "mana", "gold", "atk", "hp", "kw",
                 "gold_rush", "fortify", "heal", "blast", "overdrive", "on_played", "on_summoned", "on_destroyed",
                 "on_attacks", "on_turn_start", "on_turn_end", "on_charged", "off_board", "off_gold",
                 "blast_fx", "online_legal", "campaign_only", "golem", "surplus", "play_checks", "off_checks")

    def __repr__(self) -> str:
        return f"CardDef({self.slug})"


class Pool:
    """The compiled cards of one rules version, by integer id (index into ``cards``)."""

    def __init__(self, ruleset: Any):
        self.version = ruleset.version
        self.hash = ruleset.hash
        self.consts = ruleset.constants
        self.cards: list[CardDef] = [compile_card(i, card) for i, card in enumerate(ruleset.cards.values())]
        sch = ruleset.schema
        for d, card in zip(self.cards, ruleset.cards.values()):
            # stat points beyond the card's budget (RULES.md, "The stat budget"): what a campaign
            # policy rates a card by
            d.surplus = sch.stat_points(card, self.consts) - sch.budget_points(card, self.consts)
        self.ids: dict[str, int] = {c.slug: c.id for c in self.cards}
        c = self.consts
        self.n_middle = c.middle_lanes
        self.n_lanes = c.middle_lanes + c.high_rise_lanes
        self.lane_names = [f"m{i + 1}" for i in range(c.middle_lanes)] + \
                          [f"hr{i + 1}" for i in range(c.high_rise_lanes)]
        self.lane_index = {name: i for i, name in enumerate(self.lane_names)}
        self.sheriffs = compile_sheriffs(c)  # by sheriff id (sheriffs.py); NO_SHERIFF the last
        self.sheriff_ids = {name: i for i, name in enumerate(SHERIFF_NAMES)}
        self.actions: Any = None  # the engine's table of ready-made actions (engine.ActionTable)

    def slug(self, card_id: int) -> str:
        return self.cards[card_id].slug


def _fx(effect) -> Fx:
    if effect.effect == "modal":
        modes = tuple(tuple(_fx(e) for e in mode.do) for mode in effect.modes)
        names = tuple(mode.name or f"mode {i + 1}" for i, mode in enumerate(effect.modes))
        return Fx("modal", pick="chosen", modes=modes, names=names)
    target = getattr(effect, "target", None)
    pick, side, kind = (target.pick, target.side, target.kind) if target is not None else ("", "", "")
    kw = 0
    for name in getattr(effect, "keywords", ()):
        kw |= FLAG_KEYWORDS[name]
    default_until = "end_of_turn" if effect.effect == "grant" else "permanent"
    return Fx(effect.effect, getattr(effect, "amount", 0), getattr(effect, "atk", 0),
              getattr(effect, "def_", 0), pick, side, kind, getattr(effect, "until", default_until), kw)


def _keyword_effects(card: Any) -> tuple[tuple, tuple, tuple]:
    """The on-play effects keywords add: (before the printed ones when played from hand, the same
    for a Deputy summoned from its Zone, after the printed ones). High Noon alone asks for the
    hand: "Draw 1 card when this creature is played from hand"; the rest say "when played"."""
    kw = card.keywords
    before: list[Fx] = []
    summoned: list[Fx] = []

    def add(fx: Fx, from_hand_only: bool = False) -> None:
        before.append(fx)
        if not from_hand_only:
            summoned.append(fx)

    terms = kw.overdrive_terms()
    if terms is not None:
        gold, atk, def_ = terms
        add(Fx("overdrive", gold, atk, def_, pick="chosen", quiet=True))
    if kw.burrow:
        add(Fx("cover", 1, pick="own", side="friendly", kind="lane", quiet=True))
    if kw.high_noon:
        add(Fx("draw", 1, quiet=True), from_hand_only=True)
    if kw.gold_rush:
        add(Fx("gain_gold", kw.gold_rush, quiet=True))
    if kw.heal:
        add(Fx("heal", kw.heal, pick="chosen", side="friendly", kind="character", quiet=True))
    after = (Fx("flip", quiet=True),) if kw.flip else ()
    return tuple(before), tuple(summoned), after


def target_checks(effects: tuple) -> tuple:
    """The effects that decide whether a spell or an off-board ability can be used now: those
    with a chosen target other than a sheriff (effects.has_targets skips every other effect, so
    asking it about these alone gives its answer, without walking the rest at each decision)."""
    return tuple(fx for fx in effects if fx.pick == "chosen" and fx.kind not in ("character", "sheriff"))


def compile_card(index: int, card: Any) -> CardDef:
    d = CardDef()
    d.id, d.slug, d.name = index, card.id, card.name
    d.type = TYPES[card.type]
    d.faction = card.faction
    d.beast = card.faction == "beasts"
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
    d.heal = card.keywords.heal
    d.blast = card.keywords.blast
    d.overdrive = card.keywords.overdrive_terms()
    d.online_legal, d.campaign_only, d.golem = card.online_legal, card.campaign_only, card.golem
    by_trigger: dict[str, tuple] = {}
    d.off_gold = 0
    for ability in card.abilities:
        by_trigger[ability.when] = by_trigger.get(ability.when, ()) + tuple(_fx(e) for e in ability.do)
        if ability.when == "off_board":
            d.off_gold = ability.gold
    before, summoned, after = _keyword_effects(card)
    d.on_played = before + by_trigger.get("played", ()) + after
    d.on_summoned = summoned + by_trigger.get("played", ()) + after
    d.on_destroyed = by_trigger.get("destroyed", ())
    d.on_attacks = by_trigger.get("attacks", ())
    d.on_turn_start = by_trigger.get("turn_start", ())
    d.on_turn_end = by_trigger.get("turn_end", ())
    d.on_charged = by_trigger.get("charged", ())
    d.off_board = by_trigger.get("off_board", ())
    d.play_checks = target_checks(d.on_played)
    d.off_checks = target_checks(d.off_board)
    # Blast: "1 damage to every creature in the attacked lane" (the attacked row; RULES.md)
    d.blast_fx = () if not d.blast else (
        Fx("damage", d.blast, pick="all", side="enemy", kind="creature", quiet=True, tier=MIDDLE_TIER),
        Fx("damage", d.blast, pick="all", side="enemy", kind="creature", quiet=True, tier=HIGH_RISE_TIER))
    return d
