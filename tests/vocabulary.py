"""Each game's keyword and effect vocabulary, and where every word of it is handled, priced and
exercised (tests/test_keyword_coverage.py checks that none is missing; docs/adding-a-keyword.md
walks through the places).

- **Vocabulary**: the card schema's own lists (``cardsdb/<game>/schema.py``): the fields of
  ``Keywords`` and the ``effect`` names of the ``Effect`` union.
- **Handler**: the engine package ``sim/<game>/`` names the word where it decides something, read
  statically (the scenario below is the behavioural proof): an effect or keyword name compared
  with (``op == "burn"``, ``op in ("coin", "roll")``, ``op in SELF_ONLY``) or keying a dispatch
  table (``OPS = {"burn": burn}``); a keyword read as an attribute (``card.keywords.burrow``,
  ``d.blast``) other than by copying it onto a field of the same name; or the constant a
  keyword table maps it to (``FLAG_KEYWORDS = {"venom": VENOM}``) read outside that table.
  Modules that value, set up, show or check a position (``NOT_RULES``) do not count.
- **Budget**: the stat budget (the module holding ``SCHEMA.stat_points``) prices a keyword when
  its ``KEYWORD_POINTS`` table names it (an explicit 0 is a decision) or when taking the keyword
  off a card that carries it changes ``stat_points``; it prices an effect when ``effect_points``
  gives every instance in the card data a finite number, not zero for all of them.
- **Scenario**: a scenario in ``cardsdb/<game>/scenarios/`` exercises a word when a card it places
  outside the deck (hand, field, Deputy Zone, Hideout, Gutter, ...) or names in a step carries the
  keyword or has the effect in its abilities (nested effects included).
"""
from __future__ import annotations

import ast
import importlib
import math
import sys
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import BaseModel

from cardsdb.loader import load_ruleset, load_scenario
from cardsdb.registry import DATA_ROOT, schema

ROOT = Path(__file__).resolve().parents[1]
NOT_RULES = {"evaluate.py", "scenario.py", "board.py", "invariants.py", "kinds.py"}
DRAW_PILES = {"deck"}  # a card waiting in a deck is not exercised by the scenario


@dataclass(frozen=True, slots=True)
class Vocabulary:
    keywords: frozenset[str]
    effects: frozenset[str]


# --- the vocabulary ---------------------------------------------------------------------------------

def schema_module(game: str):
    return importlib.import_module(type(schema(game)).__module__)


def _union_members(annotation) -> tuple:
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return typing.get_args(annotation)


@cache
def vocabulary(game: str) -> Vocabulary:
    module = schema_module(game)
    effects = {name for model in _union_members(module.Effect)
               for name in typing.get_args(model.model_fields["effect"].annotation)}
    return Vocabulary(frozenset(module.Keywords.model_fields), frozenset(effects))


# --- walking card models ----------------------------------------------------------------------------

def models_in(value):
    """Every pydantic model inside ``value`` (a card: its keywords, abilities, effects, nested ones)."""
    if isinstance(value, BaseModel):
        yield value
        for name in type(value).model_fields:
            yield from models_in(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from models_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from models_in(item)


def words_of(game: str, card) -> Vocabulary:
    """The keywords a card carries (an Equip's too) and the effects its abilities hold."""
    keywords_model = schema_module(game).Keywords
    keywords, effects = set(), set()
    for model in models_in(card):
        if isinstance(model, keywords_model):
            keywords.update(model.names())
        elif "effect" in type(model).model_fields:
            effects.add(model.effect)
    return Vocabulary(frozenset(keywords), frozenset(effects))


@cache
def ruleset(game: str, version: str = "base"):
    return load_ruleset(game, version, DATA_ROOT)[1]


def base_cards(game: str) -> dict:
    return ruleset(game).cards


# --- handlers: where the engine names a word --------------------------------------------------------

@dataclass(slots=True)
class EngineNames:
    """What a game's rules modules decide on: string names compared or keying a table, attributes
    read (not copied), and constants read outside the keyword tables that define them."""
    decided: set
    attributes: set
    constants: set
    numbers: set   # names given a number (keyword bits: VENOM = 1 << 9)
    aliases: dict  # name -> what its tables map it to (a keyword's bit, an effect's function)


def rules_modules(game: str) -> list[Path]:
    package = ROOT / "sim" / game
    return sorted(p for p in package.rglob("*.py") if p.name not in NOT_RULES and "__pycache__" not in p.parts)


def _strings(node) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _numeric(node) -> bool:
    """A number or an expression of numbers and names (``1 << 9``, ``WARRANT | BARRICADE``)."""
    leaves = [n for n in ast.walk(node) if not isinstance(n, (ast.BinOp, ast.UnaryOp, ast.operator,
                                                             ast.unaryop, ast.Load))]
    return bool(leaves) and all(isinstance(n, ast.Name) or (isinstance(n, ast.Constant) and isinstance(n.value, int))
                                for n in leaves) and not isinstance(node, ast.Name)


def _copied(tree) -> set[int]:
    """Attribute reads that only copy a value onto a field of the same name (``d.blast = kw.blast``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        targets = {t.attr for target in node.targets for t in ast.walk(target) if isinstance(t, ast.Attribute)}
        out |= {id(v) for v in ast.walk(node.value) if isinstance(v, ast.Attribute) and v.attr in targets}
    return out


def _scan(tree, names: EngineNames, named_sets: dict, in_tests: set) -> None:
    copied = _copied(tree)
    tables = [n for n in ast.walk(tree) if isinstance(n, ast.Dict)]
    in_tables = {id(v) for table in tables for v in table.values if isinstance(v, ast.Name)}
    for table in tables:
        for key, value in zip(table.keys, table.values):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            if isinstance(value, ast.Name):  # a keyword table (to a bit) or a dispatch table
                names.aliases.setdefault(key.value, set()).add(value.id)
            else:
                names.decided.add(key.value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                names.decided |= _strings(side)
                if isinstance(side, ast.Name):
                    in_tests.add(side.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _strings(node.value):
                named_sets[node.targets[0].id] = _strings(node.value)
            if _numeric(node.value):
                names.numbers.add(node.targets[0].id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in copied:
            names.attributes.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in in_tables:
            names.constants.add(node.id)


@cache
def engine_names(game: str) -> EngineNames:
    names = EngineNames(set(), set(), set(), set(), {})
    named_sets: dict[str, set] = {}  # module-level sets of names, e.g. SELF_ONLY = {"heal", ...}
    in_tests: set[str] = set()       # names used in a comparison (op in SELF_ONLY)
    for path in rules_modules(game):
        _scan(ast.parse(path.read_text(encoding="utf-8"), str(path)), names, named_sets, in_tests)
    for set_name in in_tests & set(named_sets):
        names.decided |= named_sets[set_name]
    # a table to something other than a number dispatches (statuses.OPS = {"burn": burn, ...})
    names.decided |= {word for word, targets in names.aliases.items() if targets - names.numbers}
    return names


def has_handler(game: str, word: str, kind: str) -> bool:
    names = engine_names(game)
    if word in names.decided:
        return True
    if kind != "keyword":
        return False
    return word in names.attributes or bool(names.aliases.get(word, set()) & names.constants)


# --- the stat budget --------------------------------------------------------------------------------

def budget_module(game: str):
    return sys.modules[schema(game).stat_points.__module__]


def _without(game: str, card, keyword: str):
    module = schema_module(game)
    default = module.Keywords.model_fields[keyword].get_default()
    return card.model_copy(update={"keywords": card.keywords.model_copy(update={keyword: default})})


def keyword_priced(game: str, keyword: str) -> str | None:
    """None when the budget prices the keyword; else what is missing, in words."""
    if keyword in getattr(budget_module(game), "KEYWORD_POINTS", {}):
        return None
    sch = schema(game)
    consts = ruleset(game).constants
    carriers = [c for c in base_cards(game).values() if keyword in c.keywords.names()]
    if not carriers:
        return "no stat-budget weight (not in KEYWORD_POINTS, and no card carries it to price)"
    for card in carriers:
        if sch.stat_points(card, consts) != sch.stat_points(_without(game, card, keyword), consts):
            return None
    return f"no stat-budget weight (not in KEYWORD_POINTS, and {carriers[0].id}'s stat points ignore it)"


def effect_instances(game: str, effect: str) -> list:
    return [m for card in base_cards(game).values() for m in models_in(card)
            if "effect" in type(m).model_fields and m.effect == effect]


def effect_priced(game: str, effect: str) -> str | None:
    """None when the budget's ``effect_points`` prices the effect; else what is missing."""
    price = getattr(budget_module(game), "effect_points", None)
    if price is None:
        return f"no stat-budget weight ({budget_module(game).__name__} has no effect_points)"
    instances = effect_instances(game, effect)
    if not instances:
        return "no stat-budget weight (no card has the effect to price)"
    values = []
    for fx in instances:
        try:
            values.append(float(price(fx)))
        except (KeyError, ValueError) as exc:
            return f"no stat-budget weight (effect_points refuses it: {type(exc).__name__} {exc})"
    if not all(math.isfinite(v) for v in values) or not any(values):
        return f"no stat-budget weight (effect_points gives {sorted(set(values))[:3]})"
    return None


# --- scenarios --------------------------------------------------------------------------------------

def _setup_words(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {str(k) for k in value} | {w for k, v in value.items() if k not in DRAW_PILES for w in _setup_words(v)}
    if isinstance(value, list):
        return {w for item in value for w in _setup_words(item)}
    return set()


def _step_words(steps: list) -> set[str]:
    words: set[str] = set()
    for step in steps:
        for verb, body in (step.items() if isinstance(step, dict) else ()):
            if verb != "expect":
                for text in body if isinstance(body, list) else [body]:
                    words.update(str(text).split())
    return words


def scenario_files(game: str) -> list[Path]:
    return sorted((DATA_ROOT / game / "scenarios").glob("*.yaml"))


@cache
def exercised(game: str) -> dict[str, set[str]]:
    """Keyword or effect -> the scenarios whose cards carry it (keys ``keyword:x``, ``effect:x``)."""
    out: dict[str, set[str]] = {}
    for path in scenario_files(game):
        scenario = load_scenario(path)
        cards = ruleset(game, scenario.rules).cards
        named = (_setup_words(scenario.setup) | _step_words(scenario.steps)) & set(cards)
        for card_id in named:
            words = words_of(game, cards[card_id])
            for kind, names in (("keyword", words.keywords), ("effect", words.effects)):
                for name in names:
                    out.setdefault(f"{kind}:{name}", set()).add(path.stem)
    return out


# --- mutants of the rules data (tests/test_keyword_coverage.py, tests/test_rules_constants_coverage.py) ---

@dataclass(frozen=True)
class ScenarioCheck:
    """A game's engine, its base rules, and its base-rules scenarios, to run under a mutant of the
    rules data (a keyword taken off, an effect dropped, a constant changed)."""
    engine: object
    base: object
    scenarios: tuple

    def fails(self, pool) -> bool:
        """Whether some scenario fails under ``pool`` (the first failure is enough; a step a
        mutant breaks outright is a failure too)."""
        from sim.core.scenario import run_scenario

        for s in self.scenarios:
            try:
                if run_scenario(self.engine, pool, s.setup, s.steps, s.seed):
                    return True
            except Exception:  # noqa: BLE001 - see the docstring
                return True
        return False


def scenario_check(game: str) -> ScenarioCheck:
    from sim.registry import engine

    _data, base = load_ruleset(game, "base")
    scenarios = tuple(s for s in map(load_scenario, scenario_files(game)) if s.rules == "base")
    check = ScenarioCheck(engine(game), base, scenarios)
    assert not check.fails(check.engine.compile_pool(base)), f"{game}: a base-rules scenario fails unmutated"
    return check
