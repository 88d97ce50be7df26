"""Wild Frontier's data model: cards, keywords, the effect vocabulary, decks, constants, and the
deck construction rules. The engine (sim/frontier) compiles these models; nothing here plays."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, field_validator, model_validator

from cardsdb.frontier.campaign import Crew, Stage, check_campaign
from cardsdb.frontier.sheriffs import load_sheriffs
from cardsdb.models import SLUG, BaseConstants, DeckBase, Draw, Strict
from cardsdb.tune import Knob

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
    # compensation for acting second (none in the guide; variants measure it, RULES.md "First seat")
    second_seat_extra_cards: int = Field(0, ge=0)       # more cards in a later seat's opening hand
    second_seat_bonus_mana_turns: int = Field(0, ge=0)  # its first N turns: 1 more Mana each
    hand_limit: int = Field(10, ge=1)
    gold_per_turn: int = Field(1, ge=0)
    gold_per_damage_instance: int = Field(1, ge=0)
    gold_carries_over: bool = False
    middle_lanes: int = Field(5, ge=1, le=9)
    high_rise_lanes: int = Field(2, ge=0, le=4)
    max_cover_per_lane: int = Field(1, ge=0)
    high_rise_retaliation: bool = True
    gold_budget_weight: float = Field(2.0, ge=0)
    # placement: a creature without Tunnel must block (RULES.md, "Tunnel and blocking pressure")
    blocking_pressure: bool = True
    # keywords whose number the guide gives or leaves open
    venom_damage: int = Field(1, ge=0)
    barricade_reduction: int = Field(1, ge=0)
    ironclad_spell_reduction: int = Field(1, ge=0)
    ironclad_destroy_damage: int = Field(3, ge=0)
    stampede_lost_attacks: int = Field(1, ge=0)
    # Deputies
    deputies_per_deck: int = Field(2, ge=0)
    max_deputies_on_field: int = Field(1, ge=0)
    deputy_rest_turns: int = Field(1, ge=0)
    # Sheriffs (the six live passives)
    calloway_gold_every: int = Field(3, ge=1)
    calloway_gold: int = Field(2, ge=0)
    zix_opening_hand: int = Field(8, ge=0)
    zix_draws: int = Field(2, ge=0)
    zix_uses: int = Field(1, ge=0)
    malachar_attack_bonus: int = Field(1, ge=0)
    reedwick_start_cover: int = Field(3, ge=0)
    reedwick_mana_per_break: int = Field(1, ge=0)
    cogsworth_start_gold: int = Field(1, ge=0)
    cogsworth_trim: int = Field(1, ge=0)
    cogsworth_trims_per_turn: int = Field(1, ge=0)
    ironhold_hp: int = Field(35, ge=1)
    ironhold_reduction: int = Field(1, ge=0)

    @model_validator(mode="after")
    def _hands_fit_the_deck(self) -> "Constants":
        """Every opening hand (a sheriff's own too, and a later seat's extra cards) fits in a
        deck and in a hand. A check of two constants names both (``constants.<name>``): which
        one is the mistake is the designer's to say."""
        hands = [("constants.opening_hand", self.opening_hand)] + [
            (f"{sheriff}'s opening_hand" if isinstance(cards, int) else f"constants.{cards}",
             cards if isinstance(cards, int) else getattr(self, cards))
            for sheriff, cards in sheriff_opening_hands()]
        extra = " plus constants.second_seat_extra_cards" if self.second_seat_extra_cards else ""
        for name, hand in hands:
            hand += self.second_seat_extra_cards
            # larger than a legal deck: every match ends deck_out on turn 1
            if hand > self.deck_size:
                raise ValueError(f"{name}{extra} ({hand}) is larger than a deck (constants.deck_size "
                                 f"{self.deck_size})")
            # above the hand limit: the deal makes a hand the game never allows (a card drawn into a
            # full hand is burned), which the engine's invariants refuse
            if hand > self.hand_limit:
                raise ValueError(f"{name}{extra} ({hand}) is larger than the hand limit (constants.hand_limit "
                                 f"{self.hand_limit}): a hand never holds more")
        return self


def sheriff_opening_hands() -> list[tuple[str, int | str]]:
    """(sheriff, its opening hand: a number or a constant's name) of each sheriff with its own."""
    return [(sheriff.id, passive.cards) for sheriff in SHERIFFS.values() for passive in sheriff.passives
            if passive.passive == "opening_hand"]


# --- targets -----------------------------------------------------------------------------------

PICKS = ("chosen", "random", "all", "self", "opposing")
SIDES = ("enemy", "friendly", "any")
KINDS = ("creature", "sheriff", "character", "lane")
_PLURAL = {"creatures": "creature", "sheriffs": "sheriff", "characters": "character", "lanes": "lane"}


class Target(Strict):
    """Who an effect hits. Written in a card file as a short phrase:
    "chosen enemy creature", "all creatures", "enemy sheriff", "self", "opposing creature",
    "random enemy creature", "chosen friendly lane", "own lane" (the lane of this creature),
    "chosen lane" (every creature in one middle lane, both sides), "chosen enemy lane"."""
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
                                 "'all creatures', 'enemy sheriff', 'self', 'own lane', 'chosen lane'")
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
        """Single-target effects are the ones Wanted, Feral and High-Rise dodging stop: a chosen
        or random creature, or the one in the opposing lane. Board-wide and lane effects are not."""
        return self.pick in ("chosen", "random", "opposing") and self.kind != "lane"


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


# Keywords an effect may grant for a while ("temporary Wanted-granting cards" and the like).
# Ambush and Double Barrel are left out: they count attacks, which a creature already on the
# field has been dealt for this turn.
GRANTABLE = ("quickdraw", "flying", "warrant", "wanted", "overshot", "venom", "feral", "stampede",
             "barricade", "ironclad")


class Grant(Strict):
    effect: Literal["grant"]
    keywords: list[Literal["quickdraw", "flying", "warrant", "wanted", "overshot", "venom", "feral",
                           "stampede", "barricade", "ironclad"]] = Field(min_length=1)
    target: Target
    until: Literal["permanent", "end_of_turn"] = "end_of_turn"


class Cover(Strict):
    effect: Literal["cover"]
    amount: int = Field(1, ge=1)
    target: Target = Target(pick="own", side="friendly", kind="lane")

    @field_validator("target")
    @classmethod
    def _lane(cls, target: Target) -> Target:
        if target.kind != "lane" or target.side != "friendly":
            raise ValueError("cover goes into a friendly lane: 'own lane', 'chosen friendly lane' "
                             "or 'all friendly lanes'")
        return target


class Destroy(Strict):
    effect: Literal["destroy"]
    target: Target


class Flip(Strict):
    """Fire a Flip: every other friendly Flip-Charged creature on the field charges (RULES.md)."""
    effect: Literal["flip"]


BasicEffect = Annotated[Union[Damage, Heal, Draw, GainGold, Buff, Grant, Cover, Destroy, Flip],
                        Field(discriminator="effect")]


class Mode(Strict):
    name: str = ""
    do: list[BasicEffect] = Field(min_length=1)


class Modal(Strict):
    """Choose one of the modes (a decision of the card's owner); a mode with no target for a
    chosen effect cannot be picked."""
    effect: Literal["modal"]
    modes: list[Mode] = Field(min_length=2)


Effect = Annotated[Union[Damage, Heal, Draw, GainGold, Buff, Grant, Cover, Destroy, Flip, Modal],
                   Field(discriminator="effect")]

TRIGGERS = ("played", "destroyed", "attacks", "turn_start", "turn_end", "charged", "off_board")


class Ability(Strict):
    when: Literal["played", "destroyed", "attacks", "turn_start", "turn_end", "charged", "off_board"]
    gold: int = Field(0, ge=0)  # the Gold an off_board ability costs ("its listed Gold")
    do: list[Effect] = Field(min_length=1)

    @model_validator(mode="after")
    def _gold_only_off_board(self) -> "Ability":
        if self.gold and self.when != "off_board":
            raise ValueError("only an off_board ability has a Gold cost")
        return self

    def effects(self):
        """Every effect, those inside modes included."""
        for e in self.do:
            if e.effect == "modal":
                for mode in e.modes:
                    yield from mode.do
            else:
                yield e


# --- keywords ----------------------------------------------------------------------------------

OVERDRIVE = r"^[1-9][0-9]*G \+[0-9]+/\+[0-9]+$"


class Keywords(Strict):
    """The keywords this engine implements; any other name is an error, never a silent no-op."""
    ambush: bool = False
    quickdraw: bool = False
    double_barrel: bool = False
    overshot: bool = False
    flying: bool = False
    high_noon: bool = False
    gold_rush: int = Field(0, ge=0)
    warrant: bool = False
    wanted: bool = False
    last_stand: bool = False
    heal: int = Field(0, ge=0)
    venom: bool = False
    feral: bool = False
    burrow: bool = False
    pack: bool = False
    stampede: bool = False
    flip: bool = False
    flip_charged: bool = False
    fortify: int = Field(0, ge=0)
    barricade: bool = False
    tunnel: bool = False
    blast: int = Field(0, ge=0)
    ironclad: bool = False
    overdrive: str | None = Field(None, pattern=OVERDRIVE,
                                  description='extra Gold on play for a boost, written "1G +2/+1"')

    @field_validator("gold_rush", "fortify", "heal", "blast", mode="before")
    @classmethod
    def _true_is_one(cls, value: Any) -> Any:
        return 1 if value is True else value

    def names(self) -> list[str]:
        return [name for name, value in self if value]

    def overdrive_terms(self) -> tuple[int, int, int] | None:
        """(gold, atk, def) of the Overdrive boost, or None."""
        if not self.overdrive:
            return None
        gold, boost = self.overdrive.split(" ")
        atk, def_ = boost.split("/")
        return int(gold[:-1]), int(atk[1:]), int(def_[1:])


# --- cards -------------------------------------------------------------------------------------

class Cost(Strict):
    mana: int = Field(ge=0)
    gold: int = Field(0, ge=0)


SHERIFFS = load_sheriffs(Constants.model_fields)  # by id, in sheriffs.yaml's order
RACES = ("humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves")


class Card(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    type: Literal["creature", "spell", "deputy", "item"]
    faction: Literal["humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves", "beasts"]
    cost: Cost
    atk: int | None = Field(None, ge=0)
    def_: int | None = Field(None, alias="def", ge=1)
    keywords: Keywords = Keywords()
    abilities: list[Ability] = []
    online_legal: bool = True
    campaign_only: bool = False  # a Frontier Run reward: never in a constructed deck
    golem: bool = False          # a Golem form (counts as Gnome)
    text: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "Card":
        body = self.type in ("creature", "deputy")
        if body and (self.atk is None or self.def_ is None):
            raise ValueError(f"a {self.type} needs atk and def")
        if not body and (self.atk is not None or self.def_ is not None):
            raise ValueError(f"a {self.type} has no atk or def")
        whens = [a.when for a in self.abilities]
        if self.type == "spell":
            if self.keywords.names():
                raise ValueError("a spell carries no creature keywords")
            if whens != ["played"]:
                raise ValueError("a spell has exactly one ability, 'when: played'")
        if self.type == "item":
            if self.keywords.names() or self.abilities:
                raise ValueError("an item has no keywords or abilities here: items are not part of "
                                 "live matches (the guide: 'not active in live website matches yet')")
            if self.online_legal:
                raise ValueError("an item is never online legal (the guide keeps items out of live decks)")
        if (self.type == "deputy") != (whens.count("off_board") == 1):
            raise ValueError("a deputy has exactly one 'when: off_board' ability, and only a deputy has one")
        if self.golem and self.faction != "gnomes":
            raise ValueError("Golem forms count as part of the Gnome faction")
        has_death = "destroyed" in whens
        if has_death != self.keywords.last_stand:
            raise ValueError("keyword last_stand and a 'when: destroyed' ability go together")
        if ("charged" in whens) != self.keywords.flip_charged:
            raise ValueError("keyword flip_charged and a 'when: charged' ability go together")
        for ability in self.abilities:
            aimless = self.type == "spell" or ability.when == "off_board"
            for effect in ability.effects():
                target = getattr(effect, "target", None)
                if target is not None and target.pick in ("self", "opposing", "own") and aimless:
                    where = "a spell" if self.type == "spell" else "an off-board ability"
                    raise ValueError(f"{where} has no '{target.pick}' to aim at")
        return self


class Deck(DeckBase):
    races: list[Literal["humans", "goblins", "desert_devils", "straw_elves", "gnomes", "dwarves"]] = Field(min_length=1)
    sheriff: str

    @field_validator("sheriff")
    @classmethod
    def _known_sheriff(cls, sheriff: str) -> str:
        if sheriff not in SHERIFFS:
            raise ValueError(f"unknown sheriff {sheriff!r} (the sheriffs: {', '.join(SHERIFFS)})")
        return sheriff
    deputies: list[str] = []
    online: bool = True  # built for online play: only Online Legal cards and Deputies

    def side_cards(self) -> list[str]:
        return list(self.deputies)


# --- budget ------------------------------------------------------------------------------------

# What a keyword is worth in stat points (RULES.md, "The stat budget"). Numbers with a value
# (Fortify, Gold Rush, Heal, Blast) and Overdrive are priced in keyword_points.
KEYWORD_POINTS = {"ambush": 1, "quickdraw": 1, "double_barrel": 2, "overshot": 1, "flying": 1,
                  "high_noon": 2, "warrant": 1, "wanted": 1, "last_stand": 0, "venom": 1,
                  "feral": -0.5, "burrow": 1, "pack": 1, "stampede": 1, "flip": 0.5,
                  "flip_charged": 0, "barricade": 2, "tunnel": 0.5, "ironclad": 1}
TRIGGER_WEIGHT = {"played": 1.0, "destroyed": 1.0, "attacks": 2.0, "turn_start": 2.0, "turn_end": 2.0,
                  "charged": 0.5, "off_board": 2.0}
DEFAULT_GOLD_WEIGHT = 2.0


def budget_cost(card: Card, consts: Constants) -> float:
    """The one cost number of the cost curve: Mana plus Gold weighted (RULES.md)."""
    return card.cost.mana + consts.gold_budget_weight * card.cost.gold


def effect_points(effect) -> float:
    target = getattr(effect, "target", None)
    wide = 2.0 if target is not None and target.pick == "all" and target.kind != "sheriff" else 1.0
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
    if kind == "grant":
        return len(effect.keywords) * wide * (0.5 if effect.until == "end_of_turn" else 1.0)
    if kind == "cover":
        return 1.0 * effect.amount * wide
    if kind == "destroy":
        return 4.0 * wide
    if kind == "flip":
        return 0.5
    if kind == "modal":  # the best mode, plus the choice itself
        return max(sum(effect_points(e) for e in mode.do) for mode in effect.modes) + 0.5
    raise ValueError(kind)


def keyword_points(kw: Keywords, gold_weight: float = DEFAULT_GOLD_WEIGHT) -> float:
    points = float(sum(KEYWORD_POINTS.get(name, 0) for name in kw.names()))
    points += kw.fortify + kw.gold_rush + kw.heal / 2 + 2 * kw.blast
    terms = kw.overdrive_terms()
    if terms is not None:
        # an option: worth half a point, plus whatever the boost gives beyond its own Gold's budget
        gold, atk, def_ = terms
        points += 0.5 + max(0.0, atk + def_ - 2 * gold_weight * gold)
    return points


def stat_points(card: Card, consts: Constants | None = None) -> float:
    """What the card gives, in stat points: atk + def + keyword and ability prices."""
    weight = consts.gold_budget_weight if consts is not None else DEFAULT_GOLD_WEIGHT
    points = float((card.atk or 0) + (card.def_ or 0)) + keyword_points(card.keywords, weight)
    for ability in card.abilities:
        points += TRIGGER_WEIGHT[ability.when] * sum(effect_points(e) for e in ability.do)
    return points


def budget_points(card: Card, consts: Constants) -> float:
    """What the card may give at its cost: 2 points per cost, plus 1 for a creature's body
    (a vanilla 3-Mana creature is a 3/4; a spell gets 2 points per cost). A Deputy's body gets
    no extra point (it never costs a card), and its off-board ability may give 2 points per
    budget cost of its Gold, less 1 because it can be used again turn after turn. Items are not
    priced (the engine does not play them)."""
    if card.type == "item":
        return stat_points(card, consts)
    if card.type == "deputy":
        off = next(a for a in card.abilities if a.when == "off_board")
        return 2.0 * budget_cost(card, consts) + 2.0 * consts.gold_budget_weight * off.gold - 1.0
    return 2.0 * budget_cost(card, consts) + (1.0 if card.type == "creature" else 0.0)


# What `workbench tune` may turn (cardsdb/tune.py): a step of attack or defence is one stat point,
# a Mana of cost two budget points, a Gold of a Deputy's off-board ability 2 x gold_budget_weight
# (the budget prices each step; these say where the numbers are and how far they may go).
TUNE_KNOBS = (
    Knob("atk", ("atk",), low=0, kinds=("creature", "deputy")),
    Knob("def", ("def",), low=1, kinds=("creature", "deputy")),
    Knob("cost", ("cost", "mana"), low=1, high=10, stronger=-1, kinds=("creature", "spell", "deputy")),
    Knob("off-board-gold", ("abilities", {"when": "off_board"}, "gold"), low=1, high=5, stronger=-1,
         kinds=("deputy",)),
)


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
        if card.type == "item":
            problems.append((card_id, "cards", "items stay out of live decks (the guide: not active in "
                             "live matches yet)"))
        elif card.type == "deputy":
            problems.append((card_id, "cards", "a Deputy stays outside the deck: list it under deputies"))
        elif card.campaign_only:
            problems.append((card_id, "cards", "a Frontier Run reward card, not for constructed decks"))
        if card.faction not in allowed:
            problems.append((card_id, "cards", f"faction {card.faction} is not one of the deck's races "
                             f"({', '.join(deck.races)}) or Beasts"))
        if deck.online and not card.online_legal:
            problems.append((card_id, "cards", "not Online Legal, and the deck is built for online play "
                             "(set online: false for a tabletop deck)"))
    if total != consts.deck_size:
        problems.append((None, "cards", f"{total} cards, a deck has exactly {consts.deck_size}"))
    problems.extend(_check_deputies(deck, cards, consts))
    return problems


def _check_deputies(deck: Deck, cards: dict[str, Card], consts: Constants) -> list[tuple[str | None, str, str]]:
    problems: list[tuple[str | None, str, str]] = []
    if len(deck.deputies) != consts.deputies_per_deck:
        problems.append((None, "deputies", f"{len(deck.deputies)} Deputies, a deck brings exactly "
                         f"{consts.deputies_per_deck}"))
    if len(set(deck.deputies)) != len(deck.deputies):
        problems.append((None, "deputies", "the same Deputy twice"))
    for card_id in deck.deputies:
        card = cards.get(card_id)
        if card is None:
            problems.append((card_id, "deputies", "unknown card in this rules version"))
        elif card.type != "deputy":
            problems.append((card_id, "deputies", f"a {card.type}, not a Deputy"))
        elif deck.online and not card.online_legal:
            problems.append((card_id, "deputies", "not on the online Deputy roster (not Online Legal)"))
    return problems


class Schema:
    """What the loader, the store and the spreadsheet need to know about this game's data."""
    game = "frontier"
    faction_field = "faction"  # the card field naming its faction (factions.yaml names each)
    max_number = 99_999  # HP 30, costs and stats in ones and tens (cardsdb/bounds.py)
    Card = Card
    Deck = Deck
    Constants = Constants
    Stage = Stage   # Frontier Run (cardsdb/frontier/campaign.py)
    Crew = Crew
    check_campaign = staticmethod(check_campaign)
    check_deck = staticmethod(check_deck)
    budget_cost = staticmethod(budget_cost)
    stat_points = staticmethod(stat_points)
    budget_points = staticmethod(budget_points)
    tune_knobs = TUNE_KNOBS

    @staticmethod
    def card_summary(card: Card, consts: Constants) -> dict:
        """The shared columns of the store's ``cards`` table."""
        return {
            "name": card.name, "type": card.type, "faction": card.faction,
            "cost_text": f"{card.cost.mana}M/{card.cost.gold}G" if card.cost.gold else f"{card.cost.mana}M",
            "budget_cost": budget_cost(card, consts), "attack": card.atk, "defense": card.def_,
            "stat_points": stat_points(card, consts), "budget_points": budget_points(card, consts),
            "keywords": card.keywords.names(),
        }


SCHEMA = Schema()
