"""Models shared by every game: constants every rules version has, the rules-version file, the
deck file's common part, the scenario file. Each game's package adds its own card, keyword and
effect models (see ``cardsdb/<game>/schema.py``)."""
from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError


class Strict(BaseModel):
    """Unknown fields are errors, not silently ignored; so is a yes/no where a number goes."""
    model_config = ConfigDict(extra="forbid", frozen=False, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _no_flag_for_a_number(cls, data: Any) -> Any:
        """YAML reads yes, no, true and false as flags, and pydantic takes a flag for 1 or 0 where
        a number goes: ``atk: yes`` played as Attack 1, a deck's ``some-card: yes`` as one copy.
        Each such field is an error at its own place. A field with a validator of its own before
        pydantic's (a keyword written ``fortify: true`` for 1) decides what a flag means there."""
        if not isinstance(data, dict):
            return data
        errors = [InitErrorDetails(type=PydanticCustomError("number_not_flag", _FLAG_MESSAGE), loc=loc, input=True)
                  for keys, annotation in _numeric_fields(cls) for key in keys if key in data
                  for loc in _flags_for_numbers(data[key], annotation, (key,))]
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return data


_FLAG_MESSAGE = "a number is needed here, not yes/no or true/false"
_NUMERIC_FIELDS: dict[type, list[tuple[tuple[str, ...], Any]]] = {}


def _numeric_fields(cls: type) -> list[tuple[tuple[str, ...], Any]]:
    """The fields of model ``cls`` whose type holds a number somewhere and that have no validator
    of their own before pydantic's: (their keys, name and alias, and their type), once per class
    (every card, effect and keyword of a rules version is validated: the walk is kept off that)."""
    found = _NUMERIC_FIELDS.get(cls)
    if found is None:
        own = {name for d in cls.__pydantic_decorators__.field_validators.values() if d.info.mode == "before"
               for name in d.info.fields}
        found = _NUMERIC_FIELDS[cls] = [(tuple({name, field.alias or name}), field.annotation)
                                        for name, field in cls.model_fields.items()
                                        if name not in own and _holds_number(field.annotation)]
    return found


def _holds_number(annotation: Any) -> bool:
    return annotation in (int, float) or any(_holds_number(a) for a in get_args(annotation))


def _flags_for_numbers(value: Any, annotation: Any, loc: tuple) -> list[tuple]:
    """Where ``value`` (at ``loc``) holds a flag that ``annotation`` wants as a number (and takes
    no flag): the value itself, or a value of a mapping or an item of a list the annotation types
    so (a deck's copies: the card's own place)."""
    if isinstance(value, bool):
        return [loc] if _takes(annotation, (int, float)) and not _takes(annotation, (bool,)) else []
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _flags_for_numbers(value, args[0], loc)
    if origin in (Union, UnionType):
        typed = [a for a in args if a is not type(None)]
        return _flags_for_numbers(value, typed[0], loc) if len(typed) == 1 else []
    if isinstance(value, dict) and origin is dict and len(args) == 2:
        return [at for k, v in value.items() for at in _flags_for_numbers(v, args[1], loc + (k,))]
    if isinstance(value, list) and origin is list and len(args) == 1:
        return [at for i, v in enumerate(value) for at in _flags_for_numbers(v, args[0], loc + (i,))]
    return []


def _takes(annotation: Any, kinds: tuple) -> bool:
    """The annotation is one of ``kinds``, or a union or an Annotated that holds one."""
    if annotation in kinds:
        return True
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _takes(args[0], kinds)
    return origin in (Union, UnionType) and any(_takes(a, kinds) for a in args)


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

    def side_cards(self) -> list[str]:
        """The cards the deck brings into play beside its main list (a game's Deputies, leader,
        strongholds): what a change to a card can reach through this deck besides ``cards``."""
        return []


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

    @field_validator("steps")
    @classmethod
    def _known_steps(cls, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each step one verb the runner knows (sim/core/scenario.py): a misspelt one is a
        mistake in the file, found before anything plays, not a failed expectation after."""
        for number, step in enumerate(steps, 1):
            if len(step) != 1 or next(iter(step)) not in STEP_VERBS:
                named = ", ".join(repr(k) for k in step) or "nothing"
                raise ValueError(f"step {number} names {named}: a step is one of {', '.join(STEP_VERBS)}")
            (verb, body), = step.items()
            problem = step_body_problem(verb, body)
            if problem:
                raise ValueError(f"step {number} ({verb}): {problem}")
        return steps


STEP_VERBS = ("do", "legal", "illegal", "expect")  # what sim/core/scenario.run_scenario plays


def step_body_problem(verb: str, body: Any) -> str | None:
    """What is wrong with a step's body, in words (None: nothing). ``expect`` takes a mapping of
    paths to values, the others an action's words or a list of them; an empty one checks nothing.
    Found here, ``expect: [p1.hp, 30]`` is a mistake in the file (it had played as a failed step)."""
    if verb == "expect":
        if not isinstance(body, dict) or not body:
            return f"expected a mapping of path: value (p1.hp: 30), got {body!r}"
        return None
    texts = body if isinstance(body, list) else [body]
    if not texts or not all(isinstance(text, str) and text.strip() for text in texts):
        return f"expected an action's words or a list of them, got {body!r}"
    return None
