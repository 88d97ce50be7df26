"""Wild Frontier's sheriffs as data (``sheriffs.yaml``): each sheriff a list of passives, each
passive one kind of a small vocabulary the engine applies at a fixed point of play
(sim/frontier/sheriffs.py compiles them). A passive's numbers are whole numbers or names of rules
constants, so a rules version can change a sheriff without editing this file.

The sheriffs are not cards: they are never drawn or played, and making them cards would renumber
every card id after them (ids follow the sorted card slugs)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError

from cardsdb.errors import DataError, from_validation
from cardsdb.models import SLUG, Strict
from cardsdb.yamlfile import read_yaml

FILE = Path(__file__).with_name("sheriffs.yaml")

# a whole number, or the name of a rules constant giving it
Number = Union[Annotated[int, Field(ge=0)], str]


class GoldEvery(Strict):
    """Extra Gold at the Resource Phase of the sheriff's own turns that are a multiple of ``turns``."""
    passive: Literal["gold_every"]
    turns: Number
    gold: Number


class FirstTurnGold(Strict):
    """Extra Gold at the sheriff's first Resource Phase."""
    passive: Literal["first_turn_gold"]
    gold: Number


class OpeningHand(Strict):
    """An opening hand of ``cards`` instead of the rules' opening_hand."""
    passive: Literal["opening_hand"]
    cards: Number


class DiscardDraw(Strict):
    """``uses`` times a match, in the Action Phase: discard a card from hand, draw ``draws``."""
    passive: Literal["discard_draw"]
    uses: Number
    draws: Number


class FirstAttackBonus(Strict):
    """The first attack of the sheriff's creatures each own turn gets ``atk`` more Attack."""
    passive: Literal["first_attack_bonus"]
    atk: Number


class StartingCover(Strict):
    """``tokens`` Cover Tokens at the start, centre middle lanes first."""
    passive: Literal["starting_cover"]
    tokens: Number


class ManaPerCoverBroken(Strict):
    """Each of the sheriff's Cover Tokens an attack breaks banks ``mana`` for the next Resource Phase."""
    passive: Literal["mana_per_cover_broken"]
    mana: Number


class EvenTurnTrim(Strict):
    """On the sheriff's even turns the first ``cards`` cards played from hand cost ``mana`` less."""
    passive: Literal["even_turn_trim"]
    mana: Number
    cards: Number


class StartingHp(Strict):
    """Starts at (and is capped at) ``hp`` instead of the rules' starting_hp."""
    passive: Literal["starting_hp"]
    hp: Number


class DamageReduction(Strict):
    """Every instance of damage to the sheriff is ``amount`` less (one reduced to 0 is no instance)."""
    passive: Literal["damage_reduction"]
    amount: Number


Passive = Annotated[Union[GoldEvery, FirstTurnGold, OpeningHand, DiscardDraw, FirstAttackBonus, StartingCover,
                          ManaPerCoverBroken, EvenTurnTrim, StartingHp, DamageReduction],
                    Field(discriminator="passive")]


class Sheriff(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    text: str = ""
    passives: list[Passive] = []

    def numbers(self):
        """(passive kind, field, value) of every number of its passives."""
        for passive in self.passives:
            for field, value in passive:
                if field != "passive":
                    yield passive.passive, field, value


def load_sheriffs(constant_names, path: Path = FILE) -> dict[str, Sheriff]:
    """The sheriffs of ``path`` by id, in file order; every constant a passive names must be one
    of ``constant_names``. A bad file raises a DataError naming it."""
    name = path.name
    raw = read_yaml(path, name)
    try:
        sheriffs = TypeAdapter(list[Sheriff]).validate_python(raw)
    except ValidationError as exc:
        raise from_validation(name, exc)[0] from None
    out: dict[str, Sheriff] = {}
    for sheriff in sheriffs:
        if sheriff.id in out:
            raise DataError(name, f"sheriff {sheriff.id!r}: a second sheriff with this id", field="id")
        for kind, field, value in sheriff.numbers():
            if isinstance(value, str) and value not in constant_names:
                raise DataError(name, f"sheriff {sheriff.id!r}: {kind}.{field}: {value!r} is no rules constant",
                                field="passives")
        out[sheriff.id] = sheriff
    return out
