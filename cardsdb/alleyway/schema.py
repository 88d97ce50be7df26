"""AlleyWay Brawlers' data model: cards, keywords, the effect vocabulary, abilities, decks with a
leader and a Hideout, constants, the deck construction rules and the stat budget. The engine
(sim/alleyway) compiles these models; nothing here plays.

Card behaviour is data: a card's ``keywords`` are the guide's keywords a character carries
(PIERCE, LIFESTEAL, ...), and its ``abilities`` say when something happens (``when``), what it
costs (``cost``) and what it does (``do``: effects from the vocabulary below). An unknown keyword,
trigger or effect is an error naming the file, the card and the field.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, model_validator

from cardsdb.alleyway.bosses import Boss, check_boss
from cardsdb.alleyway.hideout import hideout_problems
from cardsdb.models import SLUG, BaseConstants, DeckBase, Strict

CLANS = ("arsonists", "militia", "underworld", "wildcard", "nebula", "pirates", "neutral")
Clan = Literal["arsonists", "militia", "underworld", "wildcard", "nebula", "pirates", "neutral"]
STATUSES = ("poison", "burn", "bleed", "freeze", "stasis", "stun", "silence", "suppress", "bounty")


class Constants(BaseConstants):
    """Every number a designer may want to change; sim/alleyway/RULES.md says where each comes from."""
    turn_limit: int = Field(150, ge=1)
    decision_limit: int = Field(300, ge=1)
    starting_morale: int = Field(6000, ge=1)
    morale_cap: int = Field(6000, ge=1)
    deck_min: int = Field(40, ge=1)
    deck_max: int = Field(60, ge=1)
    max_copies: int = Field(3, ge=1)
    opening_hand: int = Field(5, ge=0)
    redraws: int = Field(1, ge=0)
    first_player_draws: bool = False
    draw_per_turn: int = Field(1, ge=0)
    authority_start: int = Field(1, ge=0)
    authority_per_turn: int = Field(1, ge=0)
    # with a cap of 0 no card that costs Authority is ever played: only the leaders fight
    authority_cap: int = Field(15, ge=1)
    second_seat_bonus: int = Field(1, ge=0)
    hand_limit: int = Field(9, ge=0)
    lanes: int = Field(5, ge=1, le=8)
    back_slots: int = Field(5, ge=1, le=8)
    free_lane_choice: bool = False
    switch_after_attack: bool = True  # the guide: "once per turn you can switch a character's position"
    switch_in_brawl: bool = True      # ... with no condition on the phase either
    no_attack_turns: int = Field(1, ge=0)
    status_turns: int = Field(3, ge=1)
    ambush_cost_on: Literal["spring", "set"] = "spring"
    attack_dormant_leader: bool = True
    max_extra_attacks: int = Field(1, ge=0)
    undead_fraction: float = Field(0.5, gt=0, le=1)
    sacrifice_budget_weight: float = Field(1.5, ge=0)
    level_budget_step: float = Field(2.0, ge=0)
    # Casual and Ranked series (sim/core/series.py; RULES.md, GAME MODES): "up to a best of 3",
    # and Ranked "wins Rank Points and loses some": the numbers are ours, for designers to set
    series_best_of: int = Field(3, ge=1)
    rank_points_win: int = 20     # a series won
    rank_points_loss: int = -15   # a series lost
    # a sweep: a series won in which the loser won no game (a 2-0, or a 1-0 with drawn games)
    rank_points_sweep: int = 5    # more for a sweep, and taken from its loser

    @model_validator(mode="after")
    def _ranges(self) -> "Constants":
        """Constants that cannot make a playable game together. A check of two constants names
        both (``constants.<name>``): which one is the mistake is the designer's to say."""
        if self.deck_min > self.deck_max:
            raise ValueError(f"constants.deck_min ({self.deck_min}) is above constants.deck_max ({self.deck_max})")
        if self.series_best_of % 2 == 0:
            raise ValueError(f"constants.series_best_of must be odd (a best of 3, 5...), not {self.series_best_of}")
        if self.opening_hand > self.deck_min:  # every match would end deck_out on turn 1
            raise ValueError(f"constants.opening_hand ({self.opening_hand}) is larger than the smallest legal deck "
                             f"(constants.deck_min {self.deck_min})")
        if self.opening_hand == 0 and self.draw_per_turn == 0:  # only the leaders would ever play
            raise ValueError("constants.opening_hand and constants.draw_per_turn are both 0: a seat would never "
                             "draw a card, and only the leaders would play")
        if self.morale_cap < self.starting_morale:  # the engine holds Morale within 0..morale_cap
            raise ValueError(f"constants.morale_cap ({self.morale_cap}) is below constants.starting_morale "
                             f"({self.starting_morale}): a seat would start with more Morale than it can hold")
        if self.authority_cap < self.authority_start:
            raise ValueError(f"constants.authority_cap ({self.authority_cap}) is below constants.authority_start "
                             f"({self.authority_start}): a seat could never have its starting Authority")
        if self.authority_start == 0 and self.authority_per_turn == 0:  # only the leaders would ever play
            raise ValueError("constants.authority_start and constants.authority_per_turn are both 0: a seat would "
                             "never get Authority (the second seat's first-turn bonus aside) to play its cards")
        return self


# --- targets -----------------------------------------------------------------------------------

PICKS = ("chosen", "random", "all", "self", "foe", "host")
SIDES = ("enemy", "friendly", "any")
STATES = ("standing", "downed", "atk", "def")


class Target(Strict):
    """Which characters an effect hits. Written in a card file as a short phrase:
    "chosen enemy character", "all friendly characters", "random standing enemy character",
    "self" (this character), "foe" (the character it brawls; for an Ambush, the attacker),
    "host" (the character an Equip is attached to). Add "optional" to let the chooser SKIP."""
    pick: Literal["chosen", "random", "all", "self", "foe", "host"] = "chosen"
    side: Literal["enemy", "friendly", "any"] = "enemy"
    state: Literal["any", "standing", "downed", "atk", "def"] = "any"
    optional: bool = False

    @model_validator(mode="before")
    @classmethod
    def _from_phrase(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        words = value.lower().split()
        out: dict[str, Any] = {}
        for word in words:
            if word in ("character", "characters"):
                continue
            if word == "optional":
                out["optional"] = True
                continue
            slot = ("pick" if word in PICKS else "side" if word in SIDES else
                    "state" if word in STATES else None)
            if slot is None or slot in out:
                raise ValueError(f"cannot read target {value!r}: use e.g. 'chosen enemy character', "
                                 "'all friendly characters', 'random standing enemy character', 'self', "
                                 "'foe', 'host'")
            out[slot] = word
        if out.get("pick") in ("self", "foe", "host"):
            out.setdefault("side", "any")
        return out

    @property
    def friendly(self) -> bool:
        return self.pick in ("self", "host") or self.side == "friendly"


class CardFilter(Strict):
    """Which cards a search, call, recover or revive may take."""
    type: Literal["character", "hustle", "ambush"] | None = None
    subtype: Literal["brawler", "striver", "heavy"] | None = None
    clan: Clan | None = None
    max_cost: int | None = Field(None, ge=0)
    card: str | None = Field(None, pattern=SLUG)


# --- effects (the vocabulary) ------------------------------------------------------------------

class _Fx(Strict):
    then: list["Effect"] = []  # "If you do": runs only if this effect worked


class Buff(_Fx):
    """ATK and DEF changes: until the end of the turn, the end of your next turn, or permanently."""
    effect: Literal["buff"]
    target: Target
    atk: int = 0
    def_: int = Field(0, alias="def")
    until: Literal["turn", "next_turn", "permanent"] = "turn"


class Position(_Fx):
    effect: Literal["position"]
    target: Target
    to: Literal["atk", "def", "switch"] = "switch"


class Bounce(_Fx):
    """BACK TO THE HAND (or on top of the deck)."""
    effect: Literal["bounce"]
    target: Target
    to: Literal["hand", "deck"] = "hand"


class OnCharacter(_Fx):
    """Effects with a target and nothing else: DOWN, STAND UP, KO, EXILE, CHARM, swap, attack
    again, and the statuses FREEZE, STASIS, STUN, SHIELD, SILENCE, CLEANSE, REWIND."""
    effect: Literal["down", "stand", "ko", "exile", "charm", "swap", "attack_again", "freeze", "stasis",
                    "stun", "shield", "silence", "cleanse", "rewind"]
    target: Target


class Amounted(_Fx):
    """Statuses with a number: POISON X, BURN X, STOKE X, BLEED X, SHOCK X, SUPPRESS X, BOUNTY X."""
    effect: Literal["poison", "burn", "stoke", "bleed", "shock", "suppress", "bounty"]
    target: Target
    amount: int = Field(ge=1)


class LoseMorale(_Fx):
    effect: Literal["lose_morale"]
    amount: int = Field(ge=1)
    who: Literal["opponent", "you"] = "opponent"


class PlayerAmount(_Fx):
    """HEAL X, DRAIN X, BARRICADE X, TAX X and extra Authority."""
    effect: Literal["heal", "drain", "barricade", "tax", "gain_authority"]
    amount: int = Field(ge=1)


class PlayerFlag(_Fx):
    """JAM (the opponent's Ambushes), negate (an Ambush stops the attack it was sprung on)."""
    effect: Literal["jam", "negate"]


class Draw(_Fx):
    effect: Literal["draw"]
    amount: int = Field(1, ge=1)
    who: Literal["you"] = "you"  # another seat draws through BOUNTY


class Discard(_Fx):
    effect: Literal["discard"]
    amount: int = Field(1, ge=1)
    who: Literal["you", "opponent"] = "you"
    pick: Literal["chosen", "random"] | None = None  # default: you choose yours, theirs at random
    optional: bool = False  # "you may discard": the chooser may SKIP


class Fetch(_Fx):
    """SEARCH (deck to hand), CALL (deck to field in ATK), recover (Gutter to hand), revive
    (Gutter to field)."""
    effect: Literal["search", "call", "recover", "revive"]
    filter: CardFilter = CardFilter()
    position: Literal["atk", "def"] = "atk"
    optional: bool = False


class Token(_Fx):
    effect: Literal["token"]
    card: str = Field(pattern=SLUG)
    count: int = Field(1, ge=1, le=8)
    position: Literal["atk", "def"] = "atk"


class Plunder(_Fx):
    effect: Literal["plunder"]
    from_: Literal["hand", "deck", "gutter", "field"] = Field(alias="from")
    pick: Literal["random", "chosen"] = "random"


class ExileGutter(_Fx):
    """EXILE from an enemy Gutter: takes a Gutter ability away first."""
    effect: Literal["exile_gutter"]
    pick: Literal["chosen", "all"] = "chosen"
    filter: CardFilter = CardFilter()


class DestroyBackrow(_Fx):
    """DESTROYING HUSTLES & AMBUSHES in an opponent's back row."""
    effect: Literal["destroy_backrow"]
    face: Literal["down", "up", "any"] = "any"
    pick: Literal["chosen", "random", "all"] = "chosen"


class Coin(_Fx):
    """Flip a coin: heads, the ``heads`` effects; tails, the ``tails`` effects (the same flip)."""
    effect: Literal["coin"]
    heads: list["Effect"] = []
    tails: list["Effect"] = []


class Roll(_Fx):
    """Roll a die: ``at_least`` or more, the ``hit`` effects; less, the ``miss`` effects."""
    effect: Literal["roll"]
    at_least: int = Field(ge=2, le=6)
    hit: list["Effect"] = []
    miss: list["Effect"] = []


class DoubleOrNothing(_Fx):
    """DOUBLE OR NOTHING: you may bet on a coin flip: heads twice, tails not at all; no bet, once."""
    effect: Literal["double_or_nothing"]
    do: list["Effect"] = Field(min_length=1)


Effect = Annotated[Union[Buff, Position, Bounce, OnCharacter, Amounted, LoseMorale, PlayerAmount, PlayerFlag,
                         Draw, Discard, Fetch, Token, Plunder, ExileGutter, DestroyBackrow, Coin, Roll,
                         DoubleOrNothing],
                   Field(discriminator="effect")]

for _model in (_Fx, Buff, Position, Bounce, OnCharacter, Amounted, LoseMorale, PlayerAmount, PlayerFlag, Draw,
               Discard, Fetch, Token, Plunder, ExileGutter, DestroyBackrow, Coin, Roll, DoubleOrNothing):
    _model.model_rebuild()


# --- abilities ---------------------------------------------------------------------------------

TRIGGERS = ("deployed", "promoted", "awakened", "attacks", "won", "ko", "ally_ko", "enemy_ko",
            "turn_start", "turn_end", "activate", "gutter", "played", "sprung")


class Cost(Strict):
    """What an ACTIVATE or Gutter ability costs, paid first."""
    authority: int = Field(0, ge=0)
    morale: int = Field(0, ge=0)
    discard: int = Field(0, ge=0)
    sacrifice: int = Field(0, ge=0, le=3)
    no_attack: bool = False      # "not attacking this turn"
    exile_self: bool = False     # a Gutter ability that costs the card itself

    def paid(self) -> bool:
        return bool(self.authority or self.morale or self.discard or self.sacrifice or self.no_attack
                    or self.exile_self)


class Ability(Strict):
    when: Literal["deployed", "promoted", "awakened", "attacks", "won", "ko", "ally_ko", "enemy_ko",
                  "turn_start", "turn_end", "activate", "gutter", "played", "sprung"]
    cost: Cost = Cost()
    once_per_turn: bool = False
    do: list[Effect] = Field(min_length=1)

    @model_validator(mode="after")
    def _cost_only_when_used(self) -> "Ability":
        if self.cost.paid() and self.when not in ("activate", "gutter"):
            raise ValueError(f"only activate and gutter abilities have a cost, not '{self.when}'")
        if self.cost.exile_self and self.when != "gutter":
            raise ValueError("exile_self is a Gutter ability's cost")
        return self


class Aura(Strict):
    """A static ATK/DEF change to every character of one side while the source works."""
    atk: int = 0
    def_: int = Field(0, alias="def")
    side: Literal["friendly", "enemy"] = "friendly"


class Discount(Strict):
    """Cards of a kind cost less (or more, with a negative amount) while the source works."""
    amount: int
    what: Literal["any", "character", "heavy", "hustle", "ambush"] = "any"


class Promote(Strict):
    """What makes a Striver PROMOTE: brawls won, characters KO'd, its owner's turns started on the
    field, or Authority paid on your turn."""
    wins: int | None = Field(None, ge=1)
    kos: int | None = Field(None, ge=1)
    turns: int | None = Field(None, ge=1)
    authority: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _one(self) -> "Promote":
        if sum(v is not None for v in (self.wins, self.kos, self.turns, self.authority)) != 1:
            raise ValueError("a promote condition names exactly one of wins, kos, turns, authority")
        return self


class Awaken(Strict):
    """A leader's AWAKEN condition (checked on its owner's turn)."""
    own_turn: int | None = Field(None, ge=1)
    morale_at_most: int | None = Field(None, ge=0)
    gutter_characters: int | None = Field(None, ge=1)
    kos: int | None = Field(None, ge=1)
    coin_flips: int | None = Field(None, ge=1)
    plundered: int | None = Field(None, ge=1)
    burn_dealt: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _one(self) -> "Awaken":
        if sum(v is not None for v in self.model_dump().values()) != 1:
            raise ValueError("an awaken condition names exactly one condition")
        return self


# --- keywords ----------------------------------------------------------------------------------

class Keywords(Strict):
    """The keywords a character (or an Equip, for its host) carries; any other name is an error."""
    pierce: bool = False
    lifesteal: bool = False
    infiltrate: bool = False
    collateral: bool = False
    brittle: bool = False
    remains: bool = False
    undead: bool = False
    marked: bool = False
    loaded_dice: bool = False
    shield: bool = False                   # enters with a SHIELD
    must_be_attacked_first: bool = False
    cant_be_attacked: bool = False
    cant_be_targeted: bool = False
    attacks_twice: bool = False            # ATTACKING AGAIN every turn
    immune: list[Literal["poison", "burn", "bleed", "freeze", "stasis", "stun", "silence", "suppress",
                         "bounty", "shock"]] = []

    def names(self) -> list[str]:
        return [name for name, value in self if value]


class Equip(Strict):
    """What an EQUIP card gives the character it is attached to."""
    atk: int = 0
    def_: int = Field(0, alias="def")
    keywords: Keywords = Keywords()


# --- cards -------------------------------------------------------------------------------------

CHARACTER_TRIGGERS = {"deployed", "promoted", "attacks", "won", "ko", "ally_ko", "enemy_ko",
                      "turn_start", "turn_end", "activate", "gutter"}
CONTINUOUS_TRIGGERS = {"turn_start", "turn_end", "ally_ko", "enemy_ko", "gutter"}


class Card(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    type: Literal["character", "hustle", "ambush", "leader"]
    subtype: Literal["brawler", "striver", "heavy"] | None = None
    clan: Clan
    token: bool = False
    cost: int = Field(0, ge=0, le=15)          # Authority
    atk: int | None = Field(None, ge=0)
    def_: int | None = Field(None, alias="def", ge=0)
    level: int | None = Field(None, ge=1, le=3)
    promotes_to: str | None = Field(None, pattern=SLUG)
    promote: Promote | None = None
    sacrifice: int = Field(0, ge=0, le=3)
    continuous: bool = False
    equip: Equip | None = None
    influence: int | None = Field(None, ge=1)
    awaken: Awaken | None = None
    ready_on_awaken: bool = False
    dormant: list[Ability] = []
    dormant_aura: Aura | None = None
    aura: Aura | None = None
    discount: Discount | None = None
    keywords: Keywords = Keywords()
    abilities: list[Ability] = []
    text: str = ""

    @model_validator(mode="after")
    def _shape(self) -> "Card":
        t = self.type
        whens = [a.when for a in self.abilities]
        if t in ("character", "leader") and (self.atk is None or self.def_ is None):
            raise ValueError(f"a {t} needs atk and def")
        if t == "character" and self.subtype is None:
            raise ValueError("a character is a brawler, striver or heavy (subtype)")
        if t != "character" and (self.subtype or self.token):
            raise ValueError(f"a {t} has no subtype and is no token")
        if t in ("hustle", "ambush"):
            if self.atk is not None or self.def_ is not None:
                raise ValueError(f"a {t} has no atk or def (an Equip gives them under 'equip')")
            player_level = {"marked", "loaded_dice"}
            if self.keywords.names() and (not self.continuous or set(self.keywords.names()) - player_level):
                raise ValueError(f"a {t} carries no keywords, except a Continuous one giving its owner "
                                 "MARKED or LOADED DICE (an Equip gives its host keywords under 'equip')")
            allowed = {"played" if t == "hustle" else "sprung"}
            if self.continuous:
                allowed |= CONTINUOUS_TRIGGERS
            allowed.add("gutter")
            bad = [w for w in whens if w not in allowed]
            if bad:
                raise ValueError(f"a {'continuous ' if self.continuous else ''}{t} has no '{bad[0]}' ability")
            if self.continuous and self.equip is not None:
                raise ValueError("a card is Continuous or an Equip, not both")
        else:
            if self.continuous or self.equip is not None:
                raise ValueError("only Hustles and Ambushes are Continuous or Equips")
            bad = [w for w in whens if w not in CHARACTER_TRIGGERS | {"awakened"}]
            if bad:
                raise ValueError(f"a {t} has no '{bad[0]}' ability (played/sprung are for Hustles and Ambushes)")
        if whens.count("activate") > 1:
            raise ValueError("a card has at most one ACTIVATE ability")
        if self.subtype == "striver":
            if self.level is None:
                raise ValueError("a striver has a level (1-3)")
            if (self.promotes_to is None) != (self.promote is None):
                raise ValueError("promotes_to and promote go together")
            if self.promotes_to is not None and self.level >= 3:
                raise ValueError("level 3 is the top: it promotes to nothing")
        elif self.level is not None or self.promotes_to is not None or self.promote is not None:
            raise ValueError("only strivers have a level and promote")
        if (self.subtype == "heavy") != (self.sacrifice > 0):
            raise ValueError("a heavy sacrifices 1-3 characters (sacrifice), and only a heavy does")
        if t == "leader":
            if self.influence is None or self.awaken is None:
                raise ValueError("a leader has influence and an awaken condition")
            if self.clan == "neutral":
                raise ValueError("a leader leads a clan, not neutral")
            bad = [a.when for a in self.dormant if a.when not in ("turn_start", "turn_end", "ally_ko", "enemy_ko", "won")]
            if bad:
                raise ValueError(f"a Dormant effect has no '{bad[0]}' trigger")
        elif self.dormant or self.dormant_aura or self.influence or self.awaken or self.ready_on_awaken:
            raise ValueError("only leaders have dormant effects, influence and awaken")
        if self.aura is not None and t in ("hustle", "ambush") and not self.continuous:
            raise ValueError("an aura needs a source that stays: a character, leader or Continuous card")
        if self.discount is not None and t in ("hustle", "ambush") and not self.continuous:
            raise ValueError("a discount needs a source that stays: a character, leader or Continuous card")
        for ability in self.abilities:
            for fx in walk(ability.do):
                target = getattr(fx, "target", None)
                if target is None:
                    continue
                if target.pick == "host" and self.equip is None:
                    raise ValueError("only an Equip has a 'host'")
                if target.pick == "self" and t not in ("character", "leader"):
                    raise ValueError(f"a {t} has no 'self' to aim at (use foe, host or a chosen character)")
        return self


def walk(effects):
    """Every effect in a list, nested ones (coin sides, rolls, bets, "if you do") included."""
    for fx in effects:
        yield fx
        for child in ("then", "heads", "tails", "hit", "miss", "do"):
            yield from walk(getattr(fx, child, None) or [])


# the fields of a card that name another card of the pool: a token's card, a search's card filter,
# a Striver's next level
CARD_REFERENCES = ("card", "promotes_to")


def card_references(card: "Card"):
    """(dotted field path, card id) of every field of ``card`` that names another card, so the
    loader can refuse a name the rules version does not hold (it used to pass validation and stop
    the first match that met it with ``KeyError``)."""
    def refs(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{path}.{key}" if path else str(key)
                if key in CARD_REFERENCES and isinstance(value, str):
                    yield here, value
                else:
                    yield from refs(value, here)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from refs(value, f"{path}.{i}")
    return refs(card.model_dump(by_alias=True, exclude_defaults=True), "")


class Deck(DeckBase):
    leader: str = Field(pattern=SLUG)
    hideout: dict[str, int] = {}

    def side_cards(self) -> list[str]:
        return [self.leader, *self.hideout]


# --- budget ------------------------------------------------------------------------------------
# Stat points are hundreds of ATK+DEF. A character's budget is 10 + 7 per budget cost
# (sim/alleyway/RULES.md, "The stat budget"); keywords and abilities are priced below.

KEYWORD_POINTS = {"pierce": 4, "lifesteal": 4, "infiltrate": 6, "collateral": 5, "brittle": -4, "remains": 1,
                  "undead": 7, "marked": 2, "loaded_dice": 2, "shield": 4, "must_be_attacked_first": 2,
                  "cant_be_attacked": 5, "cant_be_targeted": 3, "attacks_twice": 10}
TRIGGER_WEIGHT = {"deployed": 1.0, "promoted": 1.0, "awakened": 1.0, "attacks": 1.5, "won": 1.0,
                  "ko": 0.4, "ally_ko": 0.7, "enemy_ko": 0.7, "turn_start": 2.5, "turn_end": 2.5,
                  "activate": 2.0, "gutter": 0.6, "played": 1.0, "sprung": 1.0}
CHARACTER_FX = {"down": 6, "stand": 4, "ko": 12, "exile": 14, "charm": 10, "swap": 2, "attack_again": 6,
                "freeze": 4, "stasis": 5, "stun": 3, "shield": 4, "silence": 4, "cleanse": 2, "rewind": 3,
                "position": 2}
PER_100 = {"poison": 2.0, "burn": 3.5, "stoke": 4.0, "bleed": 3.0, "shock": 1.0, "suppress": 1.0,
           "lose_morale": 1.0, "heal": 0.6, "drain": 1.6, "barricade": 0.6}
FLAT = {"suppress": 3, "shock": 1, "jam": 4, "negate": 8, "search": 2, "call": 5, "recover": 2, "revive": 6,
        "exile_gutter": 2}
PLUNDER_POINTS = {"hand": 6, "deck": 4, "gutter": 3, "field": 20}


def _spread(target: Target) -> float:
    return {"all": 2.0, "random": 0.8}.get(target.pick, 1.0)


def effect_points(fx) -> float:
    """What one effect is worth to the card's owner, in stat points (RULES.md has the table)."""
    kind = fx.effect
    value = 0.0
    target = getattr(fx, "target", None)
    sign = 1.0
    if target is not None:
        # an effect on a friendly character helps when it is good for it, on an enemy when bad
        good_for_target = kind in ("buff", "stand", "shield", "cleanse", "attack_again")
        sign = 1.0 if good_for_target == target.friendly else -1.0
        if kind == "buff":
            sign = 1.0 if target.friendly else -1.0
    if kind == "buff":
        scale = {"turn": 0.4, "next_turn": 0.7, "permanent": 1.0}[fx.until]
        value = sign * (fx.atk + fx.def_) / 100 * scale * _spread(target)
    elif kind in CHARACTER_FX:
        value = abs(CHARACTER_FX[kind]) * _spread(target)
    elif kind == "bounce":
        value = (8 if fx.to == "hand" else 10) * _spread(target)
    elif kind in ("poison", "burn", "stoke", "bleed", "shock", "suppress", "bounty"):
        per = 3.0 if kind == "bounty" else PER_100[kind] * fx.amount / 100
        if kind == "bounty":
            per *= fx.amount
        value = (per + FLAT.get(kind, 0)) * _spread(target)
    elif kind == "lose_morale":
        value = fx.amount / 100 * (1 if fx.who == "opponent" else -1)
    elif kind in ("heal", "drain", "barricade"):
        value = PER_100[kind] * fx.amount / 100
    elif kind == "tax":
        value = 3.0 * fx.amount
    elif kind == "gain_authority":
        value = 3.0 * fx.amount
    elif kind in ("jam", "negate", "search", "call", "recover", "revive", "exile_gutter"):
        value = FLAT[kind]
    elif kind == "draw":
        value = 3.0 * fx.amount
    elif kind == "discard":
        value = (5.0 if fx.who == "opponent" else -3.0) * fx.amount
    elif kind == "token":
        value = 5.0 * fx.count
    elif kind == "plunder":
        value = PLUNDER_POINTS[fx.from_] + (1 if fx.pick == "chosen" else 0)
    elif kind == "destroy_backrow":
        value = 6.0 * (2.0 if fx.pick == "all" else 1.0)
    elif kind == "coin":
        value = 0.5 * (effects_points(fx.heads) + effects_points(fx.tails))
    elif kind == "roll":
        p = (7 - fx.at_least) / 6
        value = p * effects_points(fx.hit) + (1 - p) * effects_points(fx.miss)
    elif kind == "double_or_nothing":
        value = 1.1 * effects_points(fx.do)
    else:
        raise ValueError(kind)
    return value + 0.8 * effects_points(fx.then)


def effects_points(effects) -> float:
    return sum(effect_points(fx) for fx in effects)


def cost_points(cost: Cost) -> float:
    return (4.0 * cost.authority + cost.morale / 100 + 3.0 * cost.discard + 6.0 * cost.sacrifice
            + 3.0 * cost.no_attack + 2.0 * cost.exile_self)


def ability_points(ability: Ability) -> float:
    value = TRIGGER_WEIGHT[ability.when] * effects_points(ability.do)
    return value - cost_points(ability.cost)


def keyword_points(kw: Keywords) -> float:
    return sum(KEYWORD_POINTS.get(name, 0) for name in kw.names() if name != "immune") + 1.0 * len(kw.immune)


def budget_cost(card: Card, consts: Constants) -> float:
    """The one cost number of the cost curve: Authority, plus each sacrifice a Heavy asks for, plus
    the promotion steps a higher-level Striver took to get here (RULES.md)."""
    extra = card.sacrifice * consts.sacrifice_budget_weight
    if card.level:
        extra += consts.level_budget_step * (card.level - 1)
    return card.cost + extra


def stat_points(card: Card, consts: Constants | None = None) -> float:
    """What the card gives, in stat points (hundreds of ATK+DEF): stats, keywords, abilities."""
    points = ((card.atk or 0) + (card.def_ or 0)) / 100 + keyword_points(card.keywords)
    points += sum(ability_points(a) for a in card.abilities)
    if card.type == "leader":
        points += (card.influence or 0) / 400 + sum(ability_points(a) for a in card.dormant)
        points += 3.0 if card.ready_on_awaken else 0.0
        if card.dormant_aura:
            points += 3.0 * 2 * abs(card.dormant_aura.atk + card.dormant_aura.def_) / 100
    if card.equip is not None:
        points += (card.equip.atk + card.equip.def_) / 100 + keyword_points(card.equip.keywords)
    if card.aura is not None:
        points += 3.0 * abs(card.aura.atk + card.aura.def_) / 100
    if card.discount is not None:
        points += 4.0 * card.discount.amount
    if card.continuous:
        points *= 1.5  # it keeps working: its triggers fire turn after turn
    return points


LEADER_BUDGET = 100.0


def budget_points(card: Card, consts: Constants) -> float:
    """What the card may give at its cost: 10 + 7 per budget cost for a character (a 1-Authority
    brawler is a 1000/700), 2 + 5 per Authority for a Hustle or Ambush (one use, no body), a flat
    budget for leaders, and 10 for a token (RULES.md)."""
    if card.type == "leader":
        return LEADER_BUDGET
    if card.token:
        return 10.0
    if card.type == "character":
        return 10.0 + 7.0 * budget_cost(card, consts)
    return 2.0 + 5.0 * budget_cost(card, consts)


# --- what the guide calls a card: keyword and card-term tags ------------------------------------

def card_tags(card: Card) -> set[str]:
    """The guide's keywords and card terms this card carries or produces (for the guide index)."""
    tags: set[str] = set(card.keywords.names())
    if card.equip is not None:
        tags |= set(card.equip.keywords.names()) | {"equip"}
    if card.continuous:
        tags.add("continuous")
    if card.keywords.immune:
        tags.add("immune")
    if card.keywords.attacks_twice:
        tags.add("attacking_again")
    if card.subtype == "striver":
        tags.add("promote")
        if (card.level or 1) > 1:
            tags |= {"hideout", "zzz"}  # it comes from the Hideout by promoting: ZZZ that turn
        if card.promote is not None and card.promote.authority is not None:
            tags.add("authority")
    if card.subtype == "heavy":
        tags.add("sacrifice")
    if card.token:
        tags.add("tokens")
    if card.type == "leader":
        tags |= {"dormant", "awaken"}
        if not card.ready_on_awaken:
            tags.add("zzz")
        if card.awaken and card.awaken.coin_flips:
            tags.add("coin")
    if card.clan == "neutral":
        tags.add("neutral")
    if card.discount is not None:
        tags.add("authority")
    if card.aura is not None or card.dormant_aura is not None:
        tags.add("atk_def_changes")
    abilities = list(card.abilities) + list(card.dormant)
    for ability in abilities:
        if ability.when == "activate":
            tags.add("activate")
        if ability.when == "gutter":
            tags.add("gutter_ability")
        if ability.once_per_turn or ability.when in ("activate", "gutter"):
            tags.add("once_per_turn")
        cost = ability.cost
        if cost.sacrifice:
            tags.add("sacrifice")
        if cost.exile_self:
            tags.add("exile")
        if cost.discard:
            tags.add("draw_discard")
        if cost.morale:
            tags.add("morale")
        for fx in walk(ability.do):
            tags |= _fx_tags(fx)
    return tags


_FX_TAGS = {
    "buff": "atk_def_changes", "swap": "atk_def_changes", "position": "position", "down": "down_stand_ko",
    "stand": "down_stand_ko", "ko": "down_stand_ko", "bounce": "back_to_hand", "exile": "exile",
    "charm": "charm", "attack_again": "attacking_again", "freeze": "freeze", "stasis": "stasis", "stun": "stun",
    "shield": "shield", "silence": "silence", "cleanse": "cleanse", "rewind": "rewind", "poison": "poison",
    "burn": "burn", "stoke": "stoke", "bleed": "bleed", "shock": "shock", "suppress": "suppress",
    "bounty": "bounty", "lose_morale": "morale", "heal": "heal", "drain": "drain", "barricade": "barricade",
    "tax": "tax", "gain_authority": "authority", "jam": "jam", "draw": "draw_discard", "discard": "draw_discard",
    "search": "search_call", "call": "search_call", "recover": "gutter", "revive": "gutter", "token": "tokens",
    "plunder": "plunder", "exile_gutter": "exile", "destroy_backrow": "destroying", "coin": "coin", "roll": "coin",
    "double_or_nothing": "double_or_nothing", "negate": "negate",
}


def _fx_tags(fx) -> set[str]:
    tags = {_FX_TAGS[fx.effect]}
    if fx.effect == "stoke":
        tags.add("burn")  # STOKE X is BURN X (that grows)
    if fx.effect == "down":
        tags.add("downed")
    if fx.effect in ("heal", "drain", "lose_morale"):
        tags.add("morale")
    if fx.then:
        tags.add("if_you_do")
    if fx.effect in ("coin", "roll", "double_or_nothing"):
        tags.add("coin")
    return tags


# --- deck construction -------------------------------------------------------------------------

def check_deck(deck: Deck, cards: dict[str, Card], consts: Constants) -> list[tuple[str | None, str, str]]:
    """(card, field, message) for each way the deck breaks the construction rules."""
    problems: list[tuple[str | None, str, str]] = []
    leader = cards.get(deck.leader)
    if leader is None:
        return [(deck.leader, "leader", "unknown card in this rules version")]
    if leader.type != "leader":
        return [(deck.leader, "leader", f"{leader.name} is a {leader.type}, not a leader")]
    allowed = (leader.clan, "neutral")

    def known(card_id: str, count: int, where: str) -> Card | None:
        """The card, after the checks every deck entry shares: known, copies, clan."""
        card = cards.get(card_id)
        if card is None:
            problems.append((card_id, where, "unknown card in this rules version"))
            return None
        if count < 1 or count > consts.max_copies:
            problems.append((card_id, where, f"{count} copies: 1 to {consts.max_copies}"))
        if card.clan not in allowed:
            problems.append((card_id, where, f"clan {card.clan} is not the leader's ({leader.clan}) or neutral"))
        return card

    total = 0
    for card_id, count in deck.cards.items():
        total += count
        card = known(card_id, count, "cards")
        if card is None:
            continue
        if card.type == "leader" or card.token:
            problems.append((card_id, "cards", f"a {'leader' if card.type == 'leader' else 'token'} is not a deck card"))
        elif card.subtype == "striver" and (card.level or 1) > 1:
            problems.append((card_id, "cards", f"level {card.level} Strivers wait in the Hideout, not the deck"))
    if not consts.deck_min <= total <= consts.deck_max:
        problems.append((None, "cards", f"{total} cards, a deck has {consts.deck_min} to {consts.deck_max}"))
    hideout_problems(deck.hideout, deck.cards, cards, known, "hideout", problems)
    return problems


class Schema:
    """What the loader, the store and the spreadsheet need to know about this game's data."""
    game = "alleyway"
    faction_field = "clan"  # the card field naming its clan (factions.yaml names each)
    max_number = 9_999_999  # Morale 6000, ATK/DEF in thousands (cardsdb/bounds.py)
    Card = Card
    Deck = Deck
    Constants = Constants
    check_deck = staticmethod(check_deck)
    Boss = Boss  # Turf Defense bosses (cardsdb/alleyway/bosses.py)
    check_boss = staticmethod(check_boss)
    card_references = staticmethod(card_references)  # checked by the loader in every version
    budget_cost = staticmethod(budget_cost)
    stat_points = staticmethod(stat_points)
    budget_points = staticmethod(budget_points)

    @staticmethod
    def card_summary(card: Card, consts: Constants) -> dict:
        """The shared columns of the store's ``cards`` table."""
        kind = card.type if card.subtype is None else f"{card.type}/{card.subtype}"
        if card.token:
            kind += "/token"
        cost = f"{card.cost}A" + (f"+{card.sacrifice}S" if card.sacrifice else "")
        if card.level:
            cost += f" L{card.level}"
        return {
            "name": card.name, "type": kind, "faction": card.clan, "cost_text": cost,
            "budget_cost": budget_cost(card, consts), "attack": card.atk, "defense": card.def_,
            "stat_points": stat_points(card), "budget_points": budget_points(card, consts),
            "keywords": card.keywords.names(),
        }


SCHEMA = Schema()
