"""Each game's pilot heuristic reads its weights from ``weights.yaml`` beside its evaluate.py
(the list of every keyword and status, weighted or neutral with its reason).

A game may ship other weight sets beside it, ``weights-<name>.yaml`` (e.g. ones fitted by
``workbench fit-weights``): a pilot named ``greedy@<name>`` thinks with that set
(``weighted_engine``). ``weights.yaml`` itself is the set named ``hand`` (``greedy@hand``). Its
``pilot_sets`` section names the set a pilot thinks with when its name names none (a set
measured stronger for that pilot: ``greedy`` is ``greedy@tuned`` in every game); a pilot it does
not list thinks with the hand set (``pilot_set``). Its ``search`` section holds the search
pilots' measured settings (``search_setting``: AlleyWay's planner plans in 3 worlds). Both are
``SETTINGS``: the hand file's to say, never part of another set. The evaluate modules read their
weights once at import into module constants and tables, which is what keeps the hot path lean; so a weight set is a second copy of
the evaluate module, executed with the other weights, and the engine a pilot is given is a
shallow copy of the game's engine whose ``evaluate`` is that copy's. The game's own engine,
module and caches are untouched."""
from __future__ import annotations

import copy
import importlib
import importlib.util
import itertools
import math
import re
import sys
import threading
from pathlib import Path
from typing import Any

import yaml

WEIGHT_SET_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
HAND = "hand"  # the set ``weights.yaml`` itself: never a ``weights-hand.yaml``
SETTINGS = ("pilot_sets", "search")  # the hand file's sections that are settings, not weights
# what the hand file's ``search`` section may set (``search_setting``'s keys, read by the search
# pilots): a count (a whole number, at least 1) or a share (a number from 0 to 1)
SEARCH_SETTINGS = {"planner_worlds": "count", "mcts_budget": "count", "mcts_horizon": "count",
                   "mcts_turn_blend": "share"}

# the weight document the evaluate module ``evaluate_module_with`` is executing reads, per thread
# (``.document``): a Dask worker plays tasks on several threads, and a document set for one
# thread's copy must never be read by another thread's module, a copy or the game's own import
# (until 2026-12-07 a process-wide global: a thread's "tuned" copy could read the hand weights)
_PENDING = threading.local()
_VARIANTS = itertools.count(1)
# (evaluate module name, weight set key) -> the engine thinking with it, one per process, built
# once under the lock (two threads asking at once get the same engine)
_ENGINES: dict[tuple[str, str], Any] = {}
_BUILDING = threading.Lock()


def load_weights(module_file: str) -> dict:
    """The ``weights.yaml`` beside ``module_file`` (an evaluate module's ``__file__``), parsed
    safely; read once at import. While ``evaluate_module_with`` executes a copy of the module,
    the document it was given instead."""
    document = getattr(_PENDING, "document", None)
    if document is not None:
        return document
    return read_hand_weights(Path(module_file).with_name("weights.yaml"))


class WeightFileError(ValueError):
    """A weight file that cannot be played with, in one line naming the file and the weight: a
    user's mistake, which the command line prints as it prints a data file's."""


def read_hand_weights(path: Path) -> dict:
    """The hand set in ``path`` (a game's ``weights.yaml``), checked once, as the evaluate module
    reads it at import: a readable YAML mapping, no number in it NaN or infinite, its ``search``
    settings the ones of ``SEARCH_SETTINGS`` and of their kind, its ``pilot_sets`` naming weight
    sets the game has. A NaN there made every match of a run fail, broken YAML a
    traceback in every command that played. WeightFileError naming the file and the weight."""
    document = _read_document(path)
    for where, value in _numbers(document):
        if not math.isfinite(value):
            raise WeightFileError(f"{path}: {where} is {value!r}, not a finite number")
    search = {} if document.get("search") is None else document["search"]
    if not isinstance(search, dict):
        raise WeightFileError(f"{path}: search is {search!r}, not a mapping of settings (planner_worlds: 3)")
    for key, value in search.items():
        kind = SEARCH_SETTINGS.get(key)
        if kind is None:
            raise WeightFileError(f"{path}: search.{key} is not a setting the search pilots read "
                                  f"(known: {', '.join(SEARCH_SETTINGS)})")
        whole = isinstance(value, int) and not isinstance(value, bool)
        if kind == "count":
            fits = whole and value >= 1
        else:
            fits = (whole or isinstance(value, float)) and 0 <= value <= 1
        if not fits:
            raise WeightFileError(f"{path}: search.{key} is {value!r}, not "
                                  f"{'a whole number of at least 1' if kind == 'count' else 'a number from 0 to 1'}")
    sets = {} if document.get("pilot_sets") is None else document["pilot_sets"]
    if not isinstance(sets, dict):
        raise WeightFileError(f"{path}: pilot_sets is {sets!r}, not a mapping of pilots to weight sets (greedy: tuned)")
    for pilot, name in sets.items():
        if not isinstance(name, str) or not WEIGHT_SET_NAME.match(name):
            raise WeightFileError(f"{path}: pilot_sets.{pilot} is {name!r}, not a weight set's name "
                                  "(lower-case letters, digits and dashes, e.g. tuned)")
        if name != HAND and not path.with_name(f"weights-{name}.yaml").is_file():
            raise WeightFileError(f"{path}: pilot_sets.{pilot} names weight set {name!r}, but there is no "
                                  f"weights-{name}.yaml beside it")
    return document


def _read_document(path: Path) -> dict:
    """A weight file's YAML mapping; WeightFileError naming the file when it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
        twice = _key_written_twice(yaml.compose(text, Loader=yaml.SafeLoader))
        document = yaml.safe_load(text)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise WeightFileError(f"{path}: not a readable YAML weight set ({' '.join(str(exc).split())})") from None
    if twice:  # PyYAML keeps the last of two equal keys without a word (sim may not use cardsdb's loader)
        raise WeightFileError(f"{path}: not a readable YAML weight set (line {twice[1]}: {twice[0]!r} written twice)")
    if not isinstance(document, dict):
        raise WeightFileError(f"{path}: a weight set is a YAML mapping of sections, as weights.yaml is")
    return document


def _numbers(node: Any, where: str = ""):
    """(dotted place, value) of every float in a parsed weight file (``weights.win``,
    ``awaken.0``): where a NaN or an infinity could be."""
    if isinstance(node, float):
        yield where, node
    elif isinstance(node, (dict, list)):
        for key, value in node.items() if isinstance(node, dict) else enumerate(node):
            yield from _numbers(value, f"{where}.{key}" if where else str(key))


def evaluate_module_name(engine: Any) -> str:
    """The evaluate module of a game's engine: ``evaluate.py`` in the engine's package."""
    return f"{type(engine).__module__.rpartition('.')[0]}.evaluate"


def weight_set_file(engine: Any, name: str) -> Path:
    """Where a game's weight set ``name`` lives: ``weights-<name>.yaml`` beside its evaluate."""
    module = importlib.import_module(evaluate_module_name(engine))
    return Path(module.__file__).with_name(f"weights-{name}.yaml")


def weights_file(engine: Any, name: str) -> Path:
    """The file of weight set ``name``: ``weights.yaml`` itself for the hand set."""
    return weight_set_file(engine, name).with_name("weights.yaml") if name == HAND else weight_set_file(engine, name)


def check_weight_set_name(name: str) -> None:
    if not WEIGHT_SET_NAME.match(name):
        raise ValueError(f"weight set {name!r}: lower-case letters, digits and dashes (e.g. fitted)")


def evaluate_module_with(engine: Any, document: dict):
    """A fresh copy of the engine's evaluate module that read ``document`` as its weights."""
    base = importlib.import_module(evaluate_module_name(engine))
    name = f"{base.__name__}__weights{next(_VARIANTS)}"
    spec = importlib.util.spec_from_file_location(name, base.__file__)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up by name
    _PENDING.document = document
    try:
        spec.loader.exec_module(module)
    finally:
        _PENDING.document = None
    return module


def engine_with_weights(engine: Any, document: dict) -> Any:
    """The engine, thinking with ``document``'s weights (not cached: the fitting's candidates)."""
    view = copy.copy(engine)
    view.evaluate = evaluate_module_with(engine, document).evaluate
    view.weights_given = True  # a pilot named without a set thinks with these (thinking_engine)
    return view


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its package does not exist either
        return False


def game_settings(engine: Any) -> dict:
    """The game's hand ``weights.yaml`` as read at import ({} for an engine outside a game
    package: a test's toy game has no weight files). Read from the game's own evaluate module
    whatever set ``engine`` thinks with, so its ``SETTINGS`` are the hand file's to say."""
    name = evaluate_module_name(engine)
    if name.startswith(".") or not _module_exists(name):
        return {}
    return getattr(importlib.import_module(name), "WEIGHTS", None) or {}


def pilot_set(engine: Any, pilot: str) -> str:
    """The weight set the pilot kind ``pilot`` (greedy, planner...) thinks with when its name
    names none: the game's ``pilot_sets`` entry for it, else the hand set."""
    return (game_settings(engine).get("pilot_sets") or {}).get(pilot, HAND)


def search_setting(engine: Any, key: str, default: int | float) -> int | float:
    """A search pilot's setting measured for this game (``search`` in its weights.yaml, e.g.
    ``planner_worlds``), else ``default``; of the default's type (a count stays an int, a
    blend a float)."""
    return type(default)((game_settings(engine).get("search") or {}).get(key, default))


def weighted_engine(engine: Any, name: str) -> Any:
    """The engine a pilot named ``<pilot>@<name>`` is given: the game's weight set ``name``
    (``weights-<name>.yaml``; the game's own engine for the hand set). ValueError in words when
    the game ships no such set."""
    check_weight_set_name(name)
    if name == HAND:
        return engine
    key = (evaluate_module_name(engine), name)
    view = _ENGINES.get(key)
    if view is None:
        with _BUILDING:
            view = _ENGINES.get(key)  # another thread may have built it while this one waited
            if view is None:
                path = weight_set_file(engine, name)
                if not path.is_file():
                    raise ValueError(f"no weight set {name!r} for {engine.name}: {path} does not exist "
                                     f"(make one with `workbench fit-weights {engine.name}`)")
                document = read_weight_set(path, game_settings(engine))
                view = _ENGINES[key] = engine_with_weights(engine, document)
    return view


def read_weight_set(path: Path, hand: dict) -> dict:
    """The weight set in ``path``, checked against the hand set ``hand``: it must give every
    weight the hand set gives (a number, or a list of numbers, where the hand set has one), as
    fit-weights writes a set whole. One edited by hand that lost a weight would otherwise fail
    deep inside evaluate. WeightFileError (a ValueError) naming the file and the weight."""
    document = _read_document(path)
    for section, weights in hand.items():
        numbers = {name: v for name, v in weights.items() if _weight_kind(v)} if isinstance(weights, dict) else {}
        if section in SETTINGS or not numbers:  # settings, or notes (statuses, neutral): no weights
            continue
        given = document.get(section)
        if not isinstance(given, dict):
            raise WeightFileError(f"{path}: section {section!r} is missing (weights.yaml has it)")
        unknown = [name for name in given if name not in weights]
        if unknown:  # a misspelt weight would be ignored, and the one meant left as it was
            raise WeightFileError(f"{path}: weight {section}.{unknown[0]} is not one weights.yaml has")
        for name, value in numbers.items():
            if name not in given:
                raise WeightFileError(f"{path}: weight {section}.{name} is missing (weights.yaml has it)")
            if _weight_kind(given[name]) != _weight_kind(value):
                raise WeightFileError(f"{path}: weight {section}.{name} is {given[name]!r}, not "
                                 f"{'a finite number' if _weight_kind(value) == 'number' else 'a list of finite numbers'}")
    return document


def _key_written_twice(node: Any) -> tuple[str, int] | None:
    """The first key a mapping of ``node`` (a composed YAML node) names twice, with its line."""
    stack = [node]
    while stack:
        here = stack.pop()
        if isinstance(here, yaml.MappingNode):
            seen = set()
            for key, value in here.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        return key.value, key.start_mark.line + 1
                    seen.add(key.value)
                stack.append(value)
        elif isinstance(here, yaml.SequenceNode):
            stack.extend(here.value)
    return None


def _weight_kind(value: Any) -> str | None:
    """'number', 'numbers' (a list of them) or None (a note, a setting)."""
    def number(v: Any) -> bool:  # .nan and .inf are YAML floats that no evaluate can use
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    if number(value):
        return "number"
    if isinstance(value, list) and value and all(number(v) for v in value):
        return "numbers"
    return None
