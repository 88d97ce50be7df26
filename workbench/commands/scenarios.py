"""``workbench scenario run``: play scenario files and report what differed."""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from rich.console import Console
from rich.text import Text

from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import data_files, load_ruleset, load_scenario
from cardsdb.registry import DATA_ROOT
from cardsdb.workspace import data_root
from cardsdb.yamlfile import read_yaml
from sim.core.scenario import SetupError, StepError, build_position, check_steps, run_scenario
from sim.registry import engine as get_engine
from workbench import games
from workbench.errors import UserError

_POOLS: dict = {}


class Played(NamedTuple):
    """One scenario file played: its failures, and what it was played with."""
    name: str
    failures: list[str]
    game: str
    rules: str
    rules_hash: str
    seed: int
    data: Path  # the folder the game's data was read from


def scenario_files(paths: list[Path]) -> list[Path]:
    """Files as given; a folder stands for its scenario files, as every data folder is read
    (``data_files``: ``.yaml`` and ``.yml``, never a hidden name such as an editor's lock
    ``.#good.yaml``, which had read as "bad YAML")."""
    out = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(data_files(p))
        else:
            out.append(p)
    return out


def play_file(path: Path, data_dir=None) -> Played:
    """The scenario of one file played; a mistake in the file raises DataError naming the
    file, the scenario and the field."""
    if not path.exists():
        raise DataError(path, "no such scenario file")
    scenario = _load(path)
    name = scenario.name
    try:
        games.known_game(scenario.game)
    except UserError as exc:
        raise DataError(path, str(exc), card=name, kind="scenario", field="game") from None
    engine, pool, rules_hash, root = _pool(path, scenario, data_dir)
    try:  # a position that cannot be set up, or a step's misspelt words, are mistakes in the file
        state = build_position(engine, pool, scenario.setup, scenario.seed)
        check_steps(engine, state, scenario.steps)
    except SetupError as exc:
        raise DataError(path, str(exc), card=name, kind="scenario") from None
    except StepError as exc:
        raise DataError(path, str(exc), card=name, kind="scenario", field="steps") from None
    failures = run_scenario(engine, pool, scenario.setup, scenario.steps, scenario.seed, state=state)
    return Played(name, failures, scenario.game, scenario.rules, rules_hash, scenario.seed, root)


def _load(path: Path):
    """The file's scenario. A mistake the model finds (an unknown field, a bad seed, a misspelt
    step) names the scenario too, when the file names one: the model's errors name the field only."""
    try:
        return load_scenario(path)
    except DataError as exc:
        name = _written_name(path)
        if name is None or exc.card is not None:
            raise
        raise DataError(exc.file, exc.message, card=name, kind="scenario", field=exc.field) from None


def _written_name(path: Path) -> str | None:
    try:
        doc = read_yaml(path)
    except DataError:
        return None  # not YAML: its error already says so
    name = doc.get("name") if isinstance(doc, dict) else None
    return name if isinstance(name, str) else None


def _pool(path: Path, scenario, data_dir) -> tuple:
    """(engine, compiled pool, rules hash, data folder) of the scenario's rules version, compiled
    once per version and data folder."""
    root = data_root(data_dir)
    key = (scenario.game, scenario.rules, str(root))
    if key not in _POOLS:
        engine = get_engine(scenario.game)
        try:
            data, ruleset = load_ruleset(scenario.game, scenario.rules, data_dir)
        except DataError as exc:
            raise DataError(path, f"rules {scenario.rules!r}: {exc.message}", card=scenario.name, kind="scenario",
                            field="rules") from None
        _POOLS[key] = (engine, engine.compile_pool(ruleset), ruleset.hash, data.root.parent)
    return _POOLS[key]


def run_files(paths: list[Path], data_dir, out: Console) -> bool:
    files = scenario_files(paths)
    if not files:
        raise DataError(None, "no scenario files given")
    played: list[Played] = []
    errors: list[DataError] = []
    for path in files:
        try:
            result = play_file(path, data_dir)
        except DataError as exc:
            errors.append(exc)
            continue
        except DataErrors as exc:
            errors.extend(exc.errors)
            continue
        played.append(result)
        _print_result(path, result, out)
    if played:  # what did run is summed up even when another file could not be played
        _print_summary(played, len(files) - len(played), out)
    if errors:
        raise DataErrors(errors)
    return all(not p.failures for p in played)


def _print_result(path: Path, result: Played, out: Console) -> None:
    played_with = f"  [rules {result.rules}, seed {result.seed}]"
    if result.failures:
        out.print(Text.assemble(("FAIL", "red"), f" {path}: {result.name}", (played_with, "dim")), soft_wrap=True)
        for line in result.failures:
            out.print(Text(f"     {line}"), soft_wrap=True)
    else:
        out.print(Text.assemble(("ok", "green"), f"   {path}: {result.name}", (played_with, "dim")), soft_wrap=True)


def _print_summary(played: list[Played], not_run: int, out: Console) -> None:
    """How many passed, and what they were played with: each game's rules versions and their
    content hashes (a result is reproducible only with the same cards and constants), and the
    data folder when it is not the shipped one."""
    passed = sum(not p.failures for p in played)
    line = f"{passed} of {len(played)} scenarios passed"
    if not_run:
        line += f" ({not_run} {'file' if not_run == 1 else 'files'} not played: the errors below)"
    out.print(Text(line), soft_wrap=True)
    versions = dict.fromkeys(f"{p.game} {p.rules} (hash {p.rules_hash})" for p in played)
    out.print(Text(f"rules: {', '.join(versions)}"), soft_wrap=True)
    folders = dict.fromkeys(str(p.data) for p in played if p.data.resolve() != DATA_ROOT.resolve())
    if folders:
        out.print(Text(f"data: {', '.join(folders)}"), soft_wrap=True)
