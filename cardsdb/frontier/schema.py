"""Wild Frontier's data model: cards, keywords, the effect vocabulary, decks, constants, and the
deck construction rules. The engine (sim/frontier) compiles these models; nothing here plays."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, field_validator, model_validator

from cardsdb.models import SLUG, BaseConstants, DeckBase, Draw, Strict

FACTIONS = ("humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves", "beasts")
WILD_FACTIONS = ("beasts",)  # "Beasts are wild cards": any deck may add them


class Constants(BaseConstants):
    """Every number a designer may want to change; RULES.md says where each comes from."""
    turn_limit: int = Field(120, ge=1)
    decision_limit: int = Field(200, ge=1)
    starting_hp: int = Field(30, ge=1)
    deck_size: int = Field(52, ge=1)
    max_copies: int = Field(3, ge=1)
    max_main_races: int = Field(2, ge=1)
    opening_hand: int = Field(7, ge=0)
    first_player_draws: bool = True
    hand_limit: int = Field(10, ge=1)
    gold_per_turn: int = Field(1, ge=0)
    gold_per_damage_instance: int = Field(1, ge=0)
    gold_carries_over: bool = False
    middle_lanes: int = Field(5, ge=1, le=9)
    high_rise_lanes: int = Field(2, ge=0, le=4)
    max_cover_per_lane: int = Field(1, ge=0)
    high_rise_retaliation: bool = True
    gold_budget_weight: float = Field(2.0, ge=0)


# --- targets -----------------------------------------------------------------------------------

PICKS = ("chosen", "random", "all", "self", "opposing")
SIDES = ("enemy", "friendly", "any")
KINDS = ("creature", "sheriff", "character", "lane")
_PLURAL = {"creatures": "creature", "sheriffs": "sheriff", "characters": "character", "lanes": "lane"}


class Target(Strict):
    """Who an effect hits. Written in a card file as a short phrase:
    "chosen enemy creature", "all creatures", "enemy sheriff", "self", "opposing creature",
    "random enemy creature", "chosen friendly lane", "own lane" (the lane of this creature)."""
    pick: Literal["chosen", "random", "all", "self", "opposing", "own"] = "all"
    side: Literal["enemy", "friendly", "any"] = "any"
    kind: Literal["creature", "sheriff", "character", "lane"] = "creature"

    @model_validator(mode="before")
    @classmethod
    def _from_phrase(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        words = value.lower().split()
        if words == ["self"]:
            return {"pick": "self", "side": "friendly", "kind": "creature"}
        if words == ["own", "lane"]:
            return {"pick": "own", "side": "friendly", "kind": "lane"}
        out: dict[str, str] = {}
        for word in words:
            word = _PLURAL.get(word, word)
            slot = "pick" if word in PICKS else "side" if word in SIDES else "kind" if word in KINDS else None
            if slot is None or slot in out:
                raise ValueError(f"cannot read target {value!r}: use e.g. 'chosen enemy creature', "
                                 "'all creatures', 'enemy sheriff', 'self', 'own lane'")
            out[slot] = word
        if "kind" not in out:
            raise ValueError(f"target {value!r} names no creature, sheriff, character or lane")
        if out["kind"] == "sheriff":
            out.setdefault("pick", "all")
            if out.get("side", "any") == "any":
                raise ValueError(f"target {value!r}: say 'enemy sheriff' or 'friendly sheriff'")
        return out

    @property
    def single(self) -> bool:
        """Single-target effects are the ones Wanted, Feral and High-Rise dodging stop."""
        return self.pick in ("chosen", "random")


# --- effects (the vocabulary) ------------------------------------------------------------------

class Damage(Strict):
    effect: Literal["damage"]
    amount: int = Field(ge=1)
    target: Target


class Heal(Strict):
    effect: Literal["heal"]
    amount: int = Field(ge=1)
    target: Target


class GainGold(Strict):
    effect: Literal["gain_gold"]
    amount: int = Field(1, ge=1)


class Buff(Strict):
    effect: Literal["buff"]
    atk: int = 0
    def_: int = Field(0, alias="def")
    target: Target
    until: Literal["permanent", "end_of_turn"] = "permanent"


class Cover(Strict):
    effect: Literal["cover"]
    amount: int = Field(1, ge=1)
    target: Target = Target(pick="own", side="friendly", kind="lane")

    @field_validator("target")
    @classmethod
    def _lane(cls, target: Target) -> Target:
        if target.kind != "lane" or target.side == "enemy":
            raise ValueError("cover goes into a friendly lane: 'own lane', 'chosen friendly lane' "
                             "or 'all friendly lanes'")
        return target


class Destroy(Strict):
    effect: Literal["destroy"]
    target: Target


Effect = Annotated[Union[Damage, Heal, Draw, GainGold, Buff, Cover, Destroy],
                   Field(discriminator="effect")]

TRIGGERS = ("played", "destroyed", "attacks", "turn_start", "turn_end")


class Ability(Strict):
    when: Literal["played", "destroyed", "attacks", "turn_start", "turn_end"]
    do: list[Effect] = Field(min_length=1)


# --- keywords ----------------------------------------------------------------------------------

class Keywords(Strict):
    """The keywords this engine implements; any other name is an error, never a silent no-op."""
    ambush: bool = False
    quickdraw: bool = False
    double_barrel: bool = False
    flying: bool = False
    high_noon: bool = False
    gold_rush: int = Field(0, ge=0)
    warrant: bool = False
    fortify: int = Field(0, ge=0)
    last_stand: bool = False

    @field_validator("gold_rush", "fortify", mode="before")
    @classmethod
    def _true_is_one(cls, value: Any) -> Any:
        return 1 if value is True else value

    def names(self) -> list[str]:
        return [name for name, value in self if value]


# --- cards -------------------------------------------------------------------------------------

class Cost(Strict):
    mana: int = Field(ge=0)
    gold: int = Field(0, ge=0)


class Card(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    type: Literal["creature", "spell"]
    faction: Literal["humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves", "beasts"]
    cost: Cost
    atk: int | None = Field(None, ge=0)
    def_: int | None = Field(None, alias="def", ge=1)
    keywords: Keywords = Keywords()
    abilities: list[Ability] = []
    online_legal: bool = True
    text: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "Card":
        if self.type == "creature" and (self.atk is None or self.def_ is None):
            raise ValueError("a creature needs atk and def")
        if self.type == "spell":
            if self.atk is not None or self.def_ is not None:
                raise ValueError("a spell has no atk or def")
            if self.keywords.names():
                raise ValueError("a spell carries no creature keywords")
            if [a.when for a in self.abilities] != ["played"]:
                raise ValueError("a spell has exactly one ability, 'when: played'")
        has_death = any(a.when == "destroyed" for a in self.abilities)
        if has_death != self.keywords.last_stand:
            raise ValueError("keyword last_stand and a 'when: destroyed' ability go together")
        for ability in self.abilities:
            for effect in ability.do:
                target = getattr(effect, "target", None)
                if target is not None and target.pick in ("self", "opposing", "own") and self.type == "spell":
                    raise ValueError(f"a spell has no '{target.pick}' to aim at")
        return self


class Deck(DeckBase):
    races: list[Literal["humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves"]] = Field(min_length=1)


# --- budget ------------------------------------------------------------------------------------

# What a keyword is worth in stat points (RULES.md, "The stat budget").
KEYWORD_POINTS = {"ambush": 1, "quickdraw": 1, "double_barrel": 2, "flying": 1, "high_noon": 2,
                  "warrant": 1, "last_stand": 0}
TRIGGER_WEIGHT = {"played": 1.0, "destroyed": 1.0, "attacks": 2.0, "turn_start": 2.0, "turn_end": 2.0}


def budget_cost(card: Card, consts: Constants) -> float:
    """The one cost number of the cost curve: Mana plus Gold weighted (RULES.md)."""
    return card.cost.mana + consts.gold_budget_weight * card.cost.gold


def effect_points(effect) -> float:
    wide = 2.0 if getattr(effect, "target", None) is not None and effect.target.pick == "all" else 1.0
    kind = effect.effect
    if kind == "damage":
        return effect.amount * wide
    if kind == "heal":
        return effect.amount * wide / 2
    if kind == "draw":
        return 2.0 * effect.amount
    if kind == "gain_gold":
        return 1.0 * effect.amount
    if kind == "buff":
        return (effect.atk + effect.def_) * wide * (0.5 if effect.until == "end_of_turn" else 1.0)
    if kind == "cover":
        return 1.0 * effect.amount * wide
    if kind == "destroy":
        return 4.0 * wide
    raise ValueError(kind)


def stat_points(card: Card) -> float:
    """What the card gives, in stat points: atk + def + keyword and ability prices."""
    points = float((card.atk or 0) + (card.def_ or 0))
    kw = card.keywords
    points += sum(KEYWORD_POINTS.get(name, 0) for name in kw.names())
    points += kw.fortify + kw.gold_rush
    for ability in card.abilities:
        points += TRIGGER_WEIGHT[ability.when] * sum(effect_points(e) for e in ability.do)
    return points


def budget_points(card: Card, consts: Constants) -> float:
    """What the card may give at its cost: 2 points per cost, plus 1 for a creature's body
    (a vanilla 3-Mana creature is a 3/4; a spell gets 2 points per cost)."""
    return 2.0 * budget_cost(card, consts) + (1.0 if card.type == "creature" else 0.0)


# --- deck construction -------------------------------------------------------------------------

def check_deck(deck: Deck, cards: dict[str, Card], consts: Constants) -> list[tuple[str | None, str, str]]:
    """(card, field, message) for each way the deck breaks the construction rules."""
    problems: list[tuple[str | None, str, str]] = []
    if len(deck.races) > consts.max_main_races:
        problems.append((None, "races", f"{len(deck.races)} main races, at most {consts.max_main_races}"))
    allowed = set(deck.races) | set(WILD_FACTIONS)
    total = 0
    for card_id, count in deck.cards.items():
        total += count
        card = cards.get(card_id)
        if card is None:
            problems.append((card_id, "cards", "unknown card in this rules version"))
            continue
        if count < 1:
            problems.append((card_id, "cards", f"count {count} must be at least 1"))
        if count > consts.max_copies:
            problems.append((card_id, "cards", f"{count} copies, at most {consts.max_copies}"))
        if card.faction not in allowed:
            problems.append((card_id, "cards", f"faction {card.faction} is not one of the deck's races "
                             f"({', '.join(deck.races)}) or Beasts"))
    if total != consts.deck_size:
        problems.append((None, "cards", f"{total} cards, a deck has exactly {consts.deck_size}"))
    return problems


class Schema:
    """What the loader, the store and the spreadsheet need to know about this game's data."""
    game = "frontier"
    Card = Card
    Deck = Deck
    Constants = Constants
    check_deck = staticmethod(check_deck)
    budget_cost = staticmethod(budget_cost)
    stat_points = staticmethod(stat_points)
    budget_points = staticmethod(budget_points)

    @staticmethod
    def card_summary(card: Card, consts: Constants) -> dict:
        """The shared columns of the store's ``cards`` table."""
        return {
            "name": card.name, "type": card.type, "faction": card.faction,
            "cost_text": f"{card.cost.mana}M/{card.cost.gold}G" if card.cost.gold else f"{card.cost.mana}M",
            "budget_cost": budget_cost(card, consts), "attack": card.atk, "defense": card.def_,
            "stat_points": stat_points(card), "budget_points": budget_points(card, consts),
            "keywords": card.keywords.names(), "online_legal": card.online_legal,
        }


SCHEMA = Schema()
