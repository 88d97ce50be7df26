"""Models shared by every game: constants every rules version has, the rules-version file, the
deck file's common part, the scenario file. Each game's package adds its own card, keyword and
effect models (see ``cardsdb/<game>/schema.py``)."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator


class Strict(BaseModel):
    """Unknown fields are errors, not silently ignored."""
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)


SLUG = r"^[a-z0-9][a-z0-9-]*$"


class BaseConstants(Strict):
    """Constants every rules version has (the match loop reads these two)."""
    turn_limit: int = Field(200, ge=1, description="player-turns before the match is a draw")
    decision_limit: int = Field(300, ge=1, description="decisions in one turn before the match is a draw")


class Draw(Strict):
    """An effect primitive that means the same in every game: the acting seat draws cards."""
    effect: Literal["draw"]
    amount: int = Field(1, ge=1)


class RulesFile(Strict):
    """``rules/<version>.yaml``: a version is a base plus changes."""
    version: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    extends: str | None = None
    description: str = ""
    constants: dict[str, Any] = {}
    remove: list[str] = []
    add: list[dict[str, Any]] = []
    patch: dict[str, dict[str, Any]] = {}

    @field_validator("add")
    @classmethod
    def _added_cards_have_ids(cls, cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for i, card in enumerate(cards):
            if not isinstance(card.get("id"), str) or not card["id"]:
                raise ValueError(f"card {i + 1} of add has no id (each added card needs one, like any card)")
        return cards


# a name shown on a page: some text, not blanks (a blank name would read as a missing one)
DisplayName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


class FactionsFile(Strict):
    """``factions.yaml``: each faction (or clan) id a card may name -> its display name."""
    factions: dict[str, DisplayName]


class DeckBase(Strict):
    id: str = Field(pattern=SLUG)
    name: str
    description: str = ""
    starter: bool = False  # starter decks are the default field of a simulation
    cards: dict[str, int]


class ScenarioFile(Strict):
    """A position, the actions taken from it, and what must then hold."""
    name: str
    game: str
    rules: str = "base"
    seed: int = Field(0, ge=-2**63, le=2**63 - 1)
    description: str = ""
    guide: str = ""  # the guide's sentence this scenario pins down
    setup: dict[str, Any]
    steps: list[dict[str, Any]]
