"""Allegiance's data model: cards, abilities, the effect vocabulary, keywords, decks, constants
and deck construction (the stat budget is in budget.py). The engine (sim/allegiance) compiles
these models; nothing here plays. sim/allegiance/RULES.md says where every rule and number
comes from."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from cardsdb.models import SLUG, BaseConstants, DeckBase, Draw, Strict

FACTIONS = ("black_forge", "descendants")
MAIN_DECK_TYPES = ("warrior", "war_supply", "battle_cry", "tactic")
MAIN_DECK_STARS = (1, 2, 3, 4, 5)  # a main-deck card's stars (Card._shape)


# --- constants ---------------------------------------------------------------------------------

class Formation(Strict):
    """A faction's formation: 4 of its Warriors side by side in one row."""
    name: str
    damage_dealt: int = Field(0, ge=0, description="added to each attack of a Warrior in it")
    damage_taken: int = Field(0, ge=0, description="taken off each damage a Warrior in it takes")
    taken_as_armor: bool = Field(False, description=(
        "read damage_taken as armor: taken off attacks at the armor step only, so Pierce skips it "
        "and damage from effects and Reflect ignores it (the reading before 2026-12-06)"))


class Constants(BaseConstants):
    """Every number a designer may want to change; RULES.md says where each comes from."""
    turn_limit: int = Field(80, ge=1)
    decision_limit: int = Field(200, ge=1)
    # the battlefield
    rows_per_side: int = Field(4, ge=2, le=6)
    columns: int = Field(6, ge=4, le=8)
    muster_size: int = Field(4, ge=0)
    # decks
    deck_size: int = Field(40, ge=1)
    # a main deck without Warriors can never take a Stronghold: nothing of it can attack
    warriors_per_deck: int = Field(20, ge=1)
    strongholds_per_deck: int = Field(2, ge=0)
    copy_limits: dict[int, int] = {1: 3, 2: 3, 3: 2, 4: 2, 5: 1}
    # the turn
    opening_hand: int = Field(7, ge=0)
    hand_limit: int = Field(10, ge=1)
    first_player_draws_first_turn: bool = False
    # a turn without AP can deploy, move and attack nothing: every match a draw at the turn limit
    # (first_turn_ap 0 is an experiment: the first seat passes its first turn)
    ap_per_turn: int = Field(7, ge=1)
    first_turn_ap: int = Field(6, ge=0)
    deploy_ap: int = Field(2, ge=0)
    move_ap: int = Field(1, ge=0)
    moves_per_turn: int = Field(1, ge=0)
    attacks_per_turn: int = Field(1, ge=0)
    supplies_per_turn: int = Field(1, ge=0)
    battle_cries_per_turn: int = Field(1, ge=0)
    tactics_per_enemy_turn: int = Field(1, ge=0)
    # shields and damage
    absorb_cap: int = Field(3, ge=0)
    reflect_cap: int = Field(3, ge=0)
    absorb_blocks: int = Field(2, ge=0)
    reflect_blocks: int = Field(1, ge=0)
    reflect_damage: int = Field(2, ge=0)
    reflects_per_attack: int = Field(1, ge=0)
    # Blight and Soul Combat
    blight_tokens: int = Field(18, ge=0)
    overrun_blight: int = Field(12, ge=1)
    soul_combat_ap: int = Field(2, ge=0)
    soul_die: int = Field(12, ge=2)
    column_die: int = Field(6, ge=1)
    # winning
    rout_after_turns: int = Field(2, ge=0)
    # formations
    formation_size: int = Field(4, ge=2)
    formations: dict[str, Formation] = {
        "black_forge": Formation(name="Blood Crescent", damage_dealt=1),
        "descendants": Formation(name="Shield Wall", damage_taken=1),
    }
    # the stat budget (RULES.md, "The stat budget")
    warrior_budget_base: float = 5.0
    warrior_budget_per_star: float = 4.0
    card_budget_per_star: float = 4.0
    card_budget_per_ap: float = 2.0
    stronghold_budget: float = 16.0
    bastion_budget: float = 20.0

    @field_validator("formations")
    @classmethod
    def _known_factions(cls, value: dict) -> dict:
        for faction in value:
            if faction not in FACTIONS:
                raise ValueError(f"unknown faction {faction!r} (use {', '.join(FACTIONS)})")
        return value

    @field_validator("copy_limits")
    @classmethod
    def _copy_limits(cls, value: dict[int, int]) -> dict[int, int]:
        """A limit for each star level a main-deck card can have, each at least 1: a limit of 0
        or less makes every deck holding such a card illegal (take cards out of a version with
        ``remove``), and one for a star level no card has never applies. One error per entry,
        each naming its entry (``constants.copy_limits.9``)."""
        problems = []
        for stars, limit in value.items():
            if stars not in MAIN_DECK_STARS:
                problems.append((stars, value, f"no card has {stars} stars (a main-deck card has 1 to 5): "
                                               f"this copy limit would never apply"))
            elif limit < 1:
                problems.append((stars, limit, f"a deck may hold each of its cards at least once: a limit "
                                               f"below 1 makes every deck with a {stars}-star card illegal "
                                               f"(remove cards from a version with 'remove' instead)"))
        if problems:
            raise ValidationError.from_exception_data("copy_limits", [
                InitErrorDetails(type=PydanticCustomError("value_error", why), loc=(stars,), input=got)
                for stars, got, why in problems])
        return value

    @model_validator(mode="after")
    def _fits_together(self) -> "Constants":
        """Constants that cannot make a playable game together. A check of two constants names
        both (``constants.<name>``): which one is the mistake is the designer's to say."""
        if self.opening_hand > self.deck_size:  # the whole deck in hand before the first turn
            raise ValueError(f"constants.opening_hand ({self.opening_hand}) is larger than a main deck "
                             f"(constants.deck_size {self.deck_size})")
        if self.warriors_per_deck > self.deck_size:
            raise ValueError(f"constants.warriors_per_deck ({self.warriors_per_deck}) is more than a main "
                             f"deck holds (constants.deck_size {self.deck_size}): no deck could be legal")
        if self.deploy_ap > self.ap_per_turn:  # AP does not carry over from turn to turn
            raise ValueError(f"constants.deploy_ap ({self.deploy_ap}) is more than a turn's AP "
                             f"(constants.ap_per_turn {self.ap_per_turn}): AP does not carry over, so no Warrior "
                             f"could be deployed after the first turn")
        return self


# --- effects (the vocabulary) ------------------------------------------------------------------
#
# ``to`` names who an effect lands on (RULES.md, "Effects"):
#   target       the ability's chosen target; the attacked unit (attacks, Battle Cries, Tactics);
#                the Warrior a War Supply is played on
#   self         the acting unit: the ability's user; the attacker (Battle Cry); the defender (Tactic)
#   attacker     the enemy attacker (Tactics only)
#   allies_near  your Warriors adjacent to ``self`` (8 neighbours), self excluded
#   enemies_near enemy Warriors adjacent to ``target`` (to ``self`` for a turn-start ability)
#   stronghold   your Stronghold on the battlefield

Subject = Literal["target", "self", "attacker", "allies_near", "enemies_near", "stronghold"]


class Damage(Strict):
    effect: Literal["damage"]
    amount: int = Field(ge=1)
    to: Subject = "target"


class Heal(Strict):
    effect: Literal["heal"]
    amount: int = Field(ge=1)
    to: Subject = "target"


class Shield(Strict):
    effect: Literal["shield"]
    kind: Literal["absorb", "reflect"]
    amount: int = Field(1, ge=1)
    to: Subject = "target"


class Empower(Strict):
    effect: Literal["empower"]
    amount: int = Field(ge=1)
    until: Literal["end_of_turn", "permanent"] = "end_of_turn"
    to: Subject = "target"


class Strip(Strict):
    effect: Literal["strip"]
    kind: Literal["absorb", "reflect", "all"] = "all"
    to: Subject = "target"


class PlaceBlight(Strict):
    effect: Literal["blight"]
    to: Literal["target"] = "target"


class Purge(Strict):
    effect: Literal["purge"]
    to: Literal["target"] = "target"


class GainAp(Strict):
    effect: Literal["gain_ap"]
    amount: int = Field(1, ge=1)


class BonusDamage(Strict):
    effect: Literal["bonus_damage"]
    amount: int = Field(ge=1)


class Pierce(Strict):
    effect: Literal["pierce"]


class Reduce(Strict):
    effect: Literal["reduce"]
    amount: int = Field(ge=1)


class Negate(Strict):
    effect: Literal["negate"]


Effect = Annotated[Union[Damage, Heal, Shield, Empower, Strip, PlaceBlight, Purge, Draw, GainAp,
                         BonusDamage, Pierce, Reduce, Negate], Field(discriminator="effect")]

# What each kind of ability may do, and to whom (an effect outside these is an error).
ALLOWED_EFFECTS = {
    "attack": {"damage", "heal", "shield", "empower", "strip", "draw", "gain_ap"},
    "support": {"heal", "shield", "empower", "blight", "purge", "draw", "gain_ap"},
    "turn_start": {"damage", "heal", "shield"},
    "played": {"heal", "shield", "empower", "blight", "purge", "draw", "gain_ap"},
    "battle_cry": {"bonus_damage", "pierce", "damage", "heal", "shield", "strip", "draw", "gain_ap"},
    "tactic": {"reduce", "negate", "damage", "heal", "shield", "strip", "draw"},
}
ALLOWED_SUBJECTS = {
    "attack": {"target", "self", "allies_near", "enemies_near", "stronghold"},
    "support": {"target", "self", "allies_near", "stronghold"},
    "turn_start": {"self", "allies_near", "enemies_near"},
    "played": {"target", "allies_near", "stronghold"},
    "battle_cry": {"target", "self", "allies_near", "enemies_near"},
    "tactic": {"self", "attacker", "allies_near"},
}


# --- abilities ---------------------------------------------------------------------------------

def _span(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    return int(lo), int(hi or lo)


class _Reach(Strict):
    """Where an ability reaches: a printed range ("1", "2-3") along a straight line (row,
    column or exact diagonal); ``any_direction``: the printed range in any direction;
    ``any_range``: anywhere on the battlefield."""
    ap: int = Field(1, ge=0)
    range: str = "1"
    any_direction: bool = False
    any_range: bool = False

    @field_validator("range", mode="before")
    @classmethod
    def _range_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @field_validator("range")
    @classmethod
    def _range_shape(cls, value: str) -> str:
        import re
        if not re.fullmatch(r"\d+(-\d+)?", value):
            raise ValueError(f"range is a distance or a span such as '2-3', not {value!r}")
        lo, hi = _span(value)
        if hi < lo:
            raise ValueError(f"range {value!r} ends before it starts")
        return value

    @property
    def span(self) -> tuple[int, int]:
        return _span(self.range)


class AttackAbility(_Reach):
    kind: Literal["attack"]
    name: str = Field(pattern=SLUG)
    damage: int = Field(ge=0)
    do: list[Effect] = []  # on hit: after the damage lands (not when a Tactic negates the attack)

    @field_validator("range")
    @classmethod
    def _from_one(cls, value: str) -> str:
        if _span(value)[0] < 1:
            raise ValueError("an attack reaches at least 1 space away")
        return value


class SupportAbility(_Reach):
    kind: Literal["support"]
    name: str = Field(pattern=SLUG)
    target: Literal["friendly warrior", "friendly unit", "self", "blight", "empty cell"]
    do: list[Effect] = Field(min_length=1)


class TurnStartAbility(Strict):
    kind: Literal["turn_start"]
    do: list[Effect] = Field(min_length=1)


class PlayedAbility(Strict):
    kind: Literal["played"]
    do: list[Effect] = Field(min_length=1)


class BattleCryAbility(Strict):
    kind: Literal["battle_cry"]
    do: list[Effect] = Field(min_length=1)


class TacticAbility(Strict):
    kind: Literal["tactic"]
    do: list[Effect] = Field(min_length=1)


Ability = Annotated[Union[AttackAbility, SupportAbility, TurnStartAbility, PlayedAbility,
                          BattleCryAbility, TacticAbility], Field(discriminator="kind")]

ABILITY_KINDS = {
    "warrior": {"attack", "support"},
    "stronghold": {"turn_start"},
    "war_supply": {"played"},
    "battle_cry": {"battle_cry"},
    "tactic": {"tactic"},
}


# --- keywords ----------------------------------------------------------------------------------

class Keywords(Strict):
    """The keywords this engine implements; any other name is an error, never a silent no-op."""
    absorb: int = Field(0, ge=0, description="deploys with this many Absorb shields")
    reflect: int = Field(0, ge=0, description="deploys with this many Reflect shields")
    pierce: bool = Field(False, description="its attacks skip the armor step (armor and Shield Wall)")
    soul_bonus: int = Field(0, ge=0, description="added to its Soul Combat rolls")

    @field_validator("absorb", "reflect", "soul_bonus", mode="before")
    @classmethod
    def _true_is_one(cls, value: Any) -> Any:
        return 1 if value is True else value

    def names(self) -> list[str]:
        return [name for name, value in self if value]


class Beast(Strict):
    """A Blight Beast deploys straight from hand once its condition holds."""
    blight_on_field: int | None = Field(None, ge=0)
    blight_destroyed: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one(self) -> "Beast":
        if (self.blight_on_field is None) == (self.blight_destroyed is None):
            raise ValueError("a Blight Beast names one condition: blight_on_field or blight_destroyed")
        return self


# --- cards -------------------------------------------------------------------------------------

SUPPLY_TARGETS = ("friendly warrior", "blight", "enemy empty cell")


class Card(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    type: Literal["warrior", "stronghold", "war_supply", "battle_cry", "tactic"]
    faction: Literal["black_forge", "descendants", "neutral"]
    stars: int = Field(0, ge=0, le=5)
    hp: int | None = Field(None, ge=1)
    move: int | None = Field(None, ge=1, le=4)
    bastion: bool = False
    beast: Beast | None = None
    supply: Literal["weapon", "armor", "item"] | None = None
    ap: int = Field(0, ge=0)                 # a War Supply's AP cost
    damage: int = Field(0, ge=0)             # a weapon's bonus to each attack
    armor: int = Field(0, ge=0)              # an armor's flat reduction
    target: Literal["friendly warrior", "blight", "enemy empty cell"] | None = None  # an item's target
    protects_stronghold: bool = False        # a Tactic that may answer an attack on a Stronghold
    keywords: Keywords = Keywords()
    abilities: list[Ability] = []
    text: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "Card":
        t = self.type
        if t in MAIN_DECK_TYPES and not 1 <= self.stars <= 5:
            raise ValueError("a main-deck card has 1 to 5 stars")
        if t == "stronghold" and self.stars:
            raise ValueError("a Stronghold has no stars (it is not in the main deck)")
        if t in ("warrior", "stronghold") and self.hp is None:
            raise ValueError(f"a {t} needs hp")
        if t != "warrior" and t != "stronghold" and self.hp is not None:
            raise ValueError(f"a {t} has no hp")
        if (t == "warrior") != (self.move is not None):
            raise ValueError("a warrior needs move (and only warriors move)")
        if self.faction == "neutral" and t in ("warrior", "stronghold"):
            raise ValueError(f"a {t} belongs to a faction (black_forge or descendants)")
        if self.bastion and t != "stronghold":
            raise ValueError("only a stronghold can be a bastion")
        if self.beast is not None and t != "warrior":
            raise ValueError("only a warrior can be a Blight Beast")
        if self.keywords.names() and t != "warrior":
            raise ValueError("only warriors carry keywords")
        if self.protects_stronghold and t != "tactic":
            raise ValueError("protects_stronghold is for tactics")
        self._check_supply()
        self._check_abilities()
        return self

    def _check_supply(self) -> None:
        if self.type != "war_supply":
            if self.supply or self.ap or self.damage or self.armor or self.target:
                raise ValueError("supply, ap, damage, armor and target are War Supply fields")
            return
        if self.supply is None:
            raise ValueError("a war_supply names its supply: weapon, armor or item")
        if (self.supply == "weapon") != (self.damage > 0):
            raise ValueError("a weapon (and only a weapon) adds damage")
        if (self.supply == "armor") != (self.armor > 0):
            raise ValueError("an armor (and only an armor) has armor")
        if self.supply == "item":
            if self.target is None:
                raise ValueError("an item names its target: " + ", ".join(SUPPLY_TARGETS))
            if not self.abilities:
                raise ValueError("an item needs a 'played' ability")
        elif self.target not in (None, "friendly warrior"):
            raise ValueError("weapons and armor go on a friendly warrior")

    def _check_abilities(self) -> None:
        allowed = ABILITY_KINDS[self.type]
        names = set()
        for ability in self.abilities:
            if ability.kind not in allowed:
                raise ValueError(f"a {self.type} cannot have a '{ability.kind}' ability "
                                 f"(use {', '.join(sorted(allowed))})")
            name = getattr(ability, "name", None)
            if name is not None:
                if name in names:
                    raise ValueError(f"two abilities named {name!r}")
                names.add(name)
            for effect in ability.do:
                _check_effect(self, ability, effect)
        kinds = [a.kind for a in self.abilities]
        if self.type == "warrior" and "attack" not in kinds:
            raise ValueError("a warrior has at least one attack ability")
        if self.type in ("battle_cry", "tactic") and kinds != [self.type]:
            raise ValueError(f"a {self.type} has exactly one '{self.type}' ability")
        if self.type in ("war_supply", "stronghold") and len(kinds) > 1:
            raise ValueError(f"a {self.type} has at most one ability")

    @property
    def attacks(self) -> list[AttackAbility]:
        return [a for a in self.abilities if a.kind == "attack"]

    @property
    def supports(self) -> list[SupportAbility]:
        return [a for a in self.abilities if a.kind == "support"]


def _check_effect(card: Card, ability, effect) -> None:
    kind = ability.kind
    if effect.effect not in ALLOWED_EFFECTS[kind]:
        raise ValueError(f"a '{kind}' ability cannot use effect {effect.effect!r} "
                         f"(use {', '.join(sorted(ALLOWED_EFFECTS[kind]))})")
    to = getattr(effect, "to", None)
    if to is not None and to not in ALLOWED_SUBJECTS[kind]:
        raise ValueError(f"effect {effect.effect!r} of a '{kind}' ability cannot land on {to!r} "
                         f"(use {', '.join(sorted(ALLOWED_SUBJECTS[kind]))})")
    # what sits on the chosen target decides which effects fit it
    aim = ability.target if kind == "support" else card.target if kind == "played" else None
    on_target = to == "target"
    if effect.effect == "blight" and aim not in ("empty cell", "enemy empty cell"):
        raise ValueError("effect 'blight' needs an empty cell as the target")
    if effect.effect == "purge" and aim != "blight":
        raise ValueError("effect 'purge' needs a blight as the target")
    if on_target and aim in ("blight", "empty cell", "enemy empty cell") and effect.effect not in ("blight", "purge"):
        raise ValueError(f"effect {effect.effect!r} cannot land on a {aim}")
    if kind == "battle_cry" and effect.effect == "damage" and to != "enemies_near":
        raise ValueError("a Battle Cry's extra damage lands on enemies_near (bonus_damage is for the target)")
    if kind == "support" and aim == "self" and on_target:
        raise ValueError("a support ability aimed at 'self' uses to: self")


# --- decks -------------------------------------------------------------------------------------

class Deck(DeckBase):
    faction: Literal["black_forge", "descendants"]
    strongholds: list[str]
    bastion: str

    def side_cards(self) -> list[str]:
        return [*self.strongholds, self.bastion]


def copy_limit(stars: int, consts: Constants) -> int:
    return consts.copy_limits.get(stars, 1)


def check_deck(deck: Deck, cards: dict[str, Card], consts: Constants) -> list[tuple[str | None, str, str]]:
    """(card, field, message) for each way the deck breaks the construction rules."""
    problems: list[tuple[str | None, str, str]] = []
    total = warriors = 0
    for card_id, count in deck.cards.items():
        card = cards.get(card_id)
        if card is None:
            problems.append((card_id, "cards", "unknown card in this rules version"))
            continue
        total += count
        if count < 1:
            problems.append((card_id, "cards", f"count {count} must be at least 1"))
        limit = copy_limit(card.stars, consts)
        if count > limit:
            problems.append((card_id, "cards", f"{count} copies of a {card.stars}-star card, at most {limit}"))
        if card.type not in MAIN_DECK_TYPES:
            problems.append((card_id, "cards", f"a {card.type} belongs in the Stronghold deck, not the main deck"))
        elif card.type == "warrior":
            warriors += count
            if card.faction != deck.faction:
                problems.append((card_id, "cards", f"warrior of {card.faction} in a {deck.faction} deck"))
        elif card.faction not in (deck.faction, "neutral"):
            problems.append((card_id, "cards", f"{card.faction} card in a {deck.faction} deck"))
    if total != consts.deck_size:
        problems.append((None, "cards", f"{total} cards, a main deck has exactly {consts.deck_size}"))
    if warriors != consts.warriors_per_deck:
        problems.append((None, "cards", f"{warriors} warriors, a main deck has exactly {consts.warriors_per_deck}"))
    if len(deck.strongholds) != consts.strongholds_per_deck:
        problems.append((None, "strongholds", f"{len(deck.strongholds)} strongholds, "
                         f"the Stronghold deck has exactly {consts.strongholds_per_deck} and a bastion"))
    for card_id in deck.strongholds:
        _check_stronghold(cards, deck, card_id, "strongholds", False, problems)
    _check_stronghold(cards, deck, deck.bastion, "bastion", True, problems)
    return problems


def _check_stronghold(cards, deck, card_id, field, bastion, problems) -> None:
    card = cards.get(card_id)
    if card is None:
        problems.append((card_id, field, "unknown card in this rules version"))
    elif card.type != "stronghold" or card.bastion != bastion:
        problems.append((card_id, field, "not a bastion" if bastion else "not a stronghold (or a bastion)"))
    elif card.faction != deck.faction:
        problems.append((card_id, field, f"stronghold of {card.faction} in a {deck.faction} deck"))


from cardsdb.allegiance.budget import best_attack, budget_cost, budget_points, stat_points  # noqa: E402


class Schema:
    """What the loader, the store and the spreadsheet need to know about this game's data."""
    game = "allegiance"
    faction_field = "faction"  # the card field naming its faction (factions.yaml names each)
    max_number = 99_999  # HP, damage and AP in ones and tens (cardsdb/bounds.py)
    Card = Card
    Deck = Deck
    Constants = Constants
    check_deck = staticmethod(check_deck)
    budget_cost = staticmethod(budget_cost)
    stat_points = staticmethod(stat_points)
    budget_points = staticmethod(budget_points)

    @staticmethod
    def card_summary(card: Card, consts: Constants) -> dict:
        """The shared columns of the store's ``cards`` table (attack: the best attack's damage;
        defense: HP)."""
        cost = f"{card.stars}*" if card.stars else "-"
        if card.type == "war_supply" and card.ap:
            cost += f" {card.ap}AP"
        return {
            "name": card.name, "type": card.type, "faction": card.faction, "cost_text": cost,
            "budget_cost": budget_cost(card, consts), "attack": best_attack(card), "defense": card.hp,
            "stat_points": stat_points(card), "budget_points": budget_points(card, consts),
            "keywords": card.keywords.names(),
        }


SCHEMA = Schema()
