"""Play a scenario: set up its position, take its steps, check its expectations.

Steps (each a one-key mapping):
    do: "<action words>"        or a list of them; the action must be legal
    illegal: "<action words>"   or a list; each must NOT be legal now
    legal: "<action words>"     or a list; each must be legal now (nothing is done)
    expect: {path: value, ...}  dotted paths into the game's snapshot, e.g. p1.hp, p0.lanes.m3.def

Action words name one legal action: its ``describe`` words in full, or a prefix of whole words
that starts exactly one of them. Words that start two or more are a mistake in the step, whatever
the verb (an ``illegal`` step would otherwise pass while checking nothing): it fails, listing them.

Before anything plays, every step's words are read against the game's forms of action words
(``action_forms`` of its scenario module): a word no action of the game can hold at its place (a
misspelt card id, lane or target) is a mistake in the step, a StepError naming the word. Only
well-formed words that are not legal now pass an ``illegal`` step: before, ``illegal: attack m1
p1.sherif`` passed, since no action is ever named that.

``expect`` compares strictly: a bool is not a number, and a float not a whole number (``true``
had matched 1, ``1.0`` matched 1, ``false`` matched 0).
"""
from __future__ import annotations

import re
from typing import Any, Container, NamedTuple

_MISSING = object()

# The position vocabulary every game shares (each engine adds its own fields): card zones are
# lists of card ids, and these counts are whole numbers no smaller than shown. ``check_fields``
# holds every level of a position (setup, seat, unit) to them, so ``hand: 5`` or ``turn: -7``
# is a line naming the field, not a TypeError deep in an engine or a silent nonsense position.
ZONES = ("hand", "deck", "discard")
COUNTS = {"turn": 0, "turns": 0, "active": 0}
DEFAULT_SEATS = 2  # a setup without ``seats`` is a duel in every game


class SetupError(ValueError):
    """A scenario's position cannot be set up: the message names the field."""


class StepError(ValueError):
    """A step's words are no action of the game (a misspelt card id, lane or target): a mistake
    in the scenario, found before anything plays. The message names the step and the word."""


class Slot(NamedTuple):
    """One place of a form of action words: ``what`` belongs there (for the message) and the
    words that do. ``words`` is any container (a whole number is no finite set)."""
    what: str
    words: Container[str]  # a tuple of a few words is listed in messages; a frozenset of many is not


class WholeNumbers:
    """The words ``1``, ``2``, ...: a mode of a modal effect."""

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.isdigit() and int(word) >= 1


class Notation:
    """The words written in a game's notation (``pattern``, a regular expression), on the board
    or not: an Allegiance scenario pins the board's size with ``illegal: to p0.A7``, a cell just
    off it, which is a well-formed action that is never legal."""

    def __init__(self, pattern: str):
        self.pattern = re.compile(pattern)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.pattern.fullmatch(word) is not None


def literal(word: str) -> Slot:
    return Slot(word, (word,))


class AmbiguousAction(ValueError):
    """A step's words start more than one legal action; ``candidates`` are their words."""

    def __init__(self, words: str, candidates: list[str]):
        self.words, self.candidates = words, candidates
        super().__init__(f"'{words}' matches {len(candidates)} legal actions, name exactly one: "
                         + "; ".join(candidates))


def build_position(engine: Any, pool: Any, setup: Any, seed: int = 0) -> Any:
    """The engine's state for a scenario's ``setup``; SetupError in words otherwise (never an
    engine's TypeError or IndexError on a malformed position)."""
    if not isinstance(setup, dict):
        raise SetupError(f"setup: expected a mapping of fields, got {setup!r}")
    try:
        check_fields(setup, sorted(map(str, setup)), "setup")  # the shared fields; the engine checks its own
        seats = setup.get("seats")
        n_seats = len(seats) if isinstance(seats, list) and seats else DEFAULT_SEATS
        if isinstance(setup.get("active"), int) and setup["active"] >= n_seats:
            raise SetupError(f"setup.active: {setup['active']} is not a seat (seats 0 to {n_seats - 1})")
        return engine.scenario_state(pool, setup, seed)
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        raise SetupError(f"setup: malformed position ({type(exc).__name__}: {exc}); a number, a list or a "
                         "mapping is where another belongs") from None
    except ValueError as exc:
        raise SetupError(str(exc)) from None


def lookup(snapshot: dict, path: str) -> Any:
    value: Any = snapshot
    for part in str(path).split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def run_scenario(engine: Any, pool: Any, setup: dict, steps: list[dict], seed: int = 0,
                 state: Any = None) -> list[str]:
    """Failures in words (empty when every expectation holds). ``state``: the position already
    built from ``setup`` (``build_position``)."""
    if state is None:
        try:
            state = build_position(engine, pool, setup, seed)
        except SetupError as exc:
            return [f"setup: {exc}"]
    try:
        check_steps(engine, state, steps)
    except StepError as exc:
        return [str(exc)]
    failures: list[str] = []
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or len(step) != 1:
            return failures + [f"step {number}: write one of do / illegal / expect, got {step!r}"]
        (verb, body), = step.items()
        if verb == "do":
            for text in _as_list(body):
                try:
                    action = engine.parse_action(state, text)
                except ValueError as exc:
                    return failures + [f"step {number}: {exc}"]
                engine.apply(state, action)
        elif verb == "illegal":
            for text in _as_list(body):
                try:
                    engine.parse_action(state, text)
                except AmbiguousAction as exc:  # not "not legal": it names no one action
                    failures.append(f"step {number}: {exc}")
                    continue
                except ValueError:  # well-formed words (check_steps read them) of no legal action
                    continue
                failures.append(f"step {number}: '{text}' should not be legal here, but it is")
        elif verb == "legal":
            for text in _as_list(body):
                try:
                    engine.parse_action(state, text)
                except ValueError as exc:
                    failures.append(f"step {number}: {exc}")
        elif verb == "expect":
            if not isinstance(body, dict):
                return failures + [f"step {number}: expect takes a mapping of path: value"]
            snap = engine.snapshot(state)
            for path, want in body.items():
                got = lookup(snap, path)
                if got is _MISSING:
                    failures.append(f"step {number}: {path}: no such value in the state")
                elif not same(want, got):
                    failures.append(f"step {number}: {path}: expected {want!r}, got {got!r}")
        else:
            return failures + [f"step {number}: unknown step {verb!r} (use do, legal, illegal, expect)"]
        problems = engine.check_invariants(state)
        if problems:
            return failures + [f"step {number}: invariant broken: {problems[0]}"]
    return failures


def same(want: Any, got: Any) -> bool:
    """Whether the state holds what the step expects, strictly: YAML's ``true`` is not 1 and
    ``1.0`` is not 1 (Python's ``==`` says both are), in lists and mappings too."""
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(map(same, want, got))
    if isinstance(want, dict) and isinstance(got, dict):
        return want.keys() == got.keys() and all(same(v, got[k]) for k, v in want.items())
    if _kind(want) != _kind(got):
        return False
    return want == got


def _kind(value: Any) -> type:
    """bool, float and int apart (bool is an int, and 1 == 1.0, to Python); other values as they are."""
    for kind in (bool, float, int):
        if isinstance(value, kind):
            return kind
    return object


def check_steps(engine: Any, state: Any, steps: list) -> None:
    """StepError for the first step whose action words no action of the game can be (see the
    module's note). An engine without ``action_forms`` is not checked."""
    forms_of = getattr(getattr(engine, "scenario_module", None), "action_forms", None)
    if forms_of is None:
        return
    forms = forms_of(state)
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or len(step) != 1:
            continue  # the runner names a step of the wrong shape
        (verb, body), = step.items()
        if verb not in ("do", "legal", "illegal"):
            continue
        for text in _as_list(body):
            problem = misread(forms, text)
            if problem:
                raise StepError(f"step {number} ({verb}): {problem}")


def misread(forms: list[tuple[Slot, ...]], text: Any) -> str | None:
    """Why ``text`` is no action of the game's ``forms`` nor the start of one (None when it is):
    the first word no form has at its place, and what belongs there."""
    words = text.split() if isinstance(text, str) else []
    if not words:
        return f"{text!r} names no action (write the action's words)"
    alive = list(forms)
    for place, word in enumerate(words):
        here = [form[place] for form in alive if len(form) > place]
        if not here:
            return f"{text!r} names no action: {' '.join(words[:place])!r} is a whole action, {word!r} follows it"
        alive = [form for form in alive if len(form) > place and word in form[place].words]
        if not alive:
            return f"{text!r} names no action: {word!r} is not {_either(here)}"
    return None


def _either(slots: list[Slot]) -> str:
    """What belongs at a place, in words: each slot's ``what``, and the words of a short list
    (a tuple or list: a set's order would change from run to run)."""
    whats = []
    for slot in slots:
        small = isinstance(slot.words, (tuple, list)) and 1 < len(slot.words) <= 16
        what = f"{slot.what} ({', '.join(slot.words)})" if small else slot.what
        if what not in whats:
            whats.append(what)
    return whats[0] if len(whats) == 1 else ", ".join(whats[:-1]) + " or " + whats[-1]


def named_action(engine: Any, state: Any, text: str) -> Any:
    """The legal action whose ``engine.describe`` words are ``text``; a unique prefix such as
    "attack m3" is enough (a game's ``parse_action``). Words that are (or start) more than one
    legal action raise AmbiguousAction with those actions' words; words that name none raise
    ValueError listing the legal ones."""
    want = " ".join(str(text).split())
    legal = engine.legal_actions(state)
    names = [engine.describe(state, a) for a in legal]
    matches = [i for i, name in enumerate(names) if name == want]  # the whole words win over prefixes
    if not matches:
        matches = [i for i, name in enumerate(names) if name.startswith(want + " ")]
    if len(matches) == 1:
        return legal[matches[0]]
    if matches:
        raise AmbiguousAction(want, [names[i] for i in matches])
    shown = "; ".join(names) if names else "none (the match is over)"
    raise ValueError(f"'{want}' is not a legal action here. Legal: {shown}")


def card_id(pool: Any, slug: Any, where: str) -> int:
    """A position's card slug as the pool's id; an unknown one names where it was written."""
    if slug not in pool.ids:
        raise ValueError(f"{where}: unknown card {slug!r}")
    return pool.ids[slug]


def check_fields(spec: Any, keys: Any, where: str) -> None:
    """Refuse a field the position format does not know, naming where it is and the fields
    allowed (``keys``, listed in the order given); and a shared field of the wrong shape."""
    keys = [str(k) for k in keys]
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected a mapping of fields ({', '.join(keys)}), got {spec!r}")
    unknown = set(map(str, spec)) - set(keys)
    if unknown:
        raise ValueError(f"{where}: unknown field {sorted(unknown)[0]!r} (use {', '.join(keys)})")
    for zone in ZONES:
        cards = spec.get(zone)
        if cards is not None and not (isinstance(cards, list) and all(isinstance(c, str) for c in cards)):
            raise ValueError(f"{where}.{zone}: expected a list of card ids, got {cards!r}")
    for count, least in COUNTS.items():
        value = spec.get(count)
        if count in spec and (not isinstance(value, int) or isinstance(value, bool) or value < least):
            raise ValueError(f"{where}.{count}: expected a whole number of at least {least}, got {value!r}")
    seats = spec.get("seats")
    if seats is not None and not (isinstance(seats, list) and seats
                                  and all(s is None or isinstance(s, dict) for s in seats)):
        raise ValueError(f"{where}.seats: expected a list with one mapping per seat, got {seats!r}")


def _as_list(body: Any) -> list:
    return body if isinstance(body, list) else [body]
