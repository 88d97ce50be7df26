"""``workbench scenario run``: play scenario files and report what differed."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import load_ruleset, load_scenario
from sim.core.scenario import SetupError, build_position, run_scenario
from sim.registry import engine as get_engine
from workbench import games
from workbench.errors import UserError

_POOLS: dict = {}


def scenario_files(paths: list[Path]) -> list[Path]:
    """Files as given; a folder stands for every .yaml in it."""
    out = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(p.glob("*.yaml")))
        else:
            out.append(p)
    return out


def play_file(path: Path, data_dir=None) -> tuple[str, list[str]]:
    """(scenario name, failures) of one file; data errors raise."""
    if not path.exists():
        raise DataError(path, "no such scenario file")
    scenario = load_scenario(path)
    try:
        games.known_game(scenario.game)
    except UserError as exc:
        raise DataError(path, str(exc), field="game") from None
    key = (scenario.game, scenario.rules, str(data_dir))
    if key not in _POOLS:
        engine = get_engine(scenario.game)
        try:
            _data, ruleset = load_ruleset(scenario.game, scenario.rules, data_dir)
        except DataError as exc:
            raise DataError(path, f"rules {scenario.rules!r}: {exc.message}", field="rules") from None
        _POOLS[key] = (engine, engine.compile_pool(ruleset))
    engine, pool = _POOLS[key]
    try:  # a position that cannot be set up is a mistake in the file, not a failed expectation
        state = build_position(engine, pool, scenario.setup, scenario.seed)
    except SetupError as exc:
        raise DataError(path, f"scenario {scenario.name!r}: {exc}") from None
    return scenario.name, run_scenario(engine, pool, scenario.setup, scenario.steps, scenario.seed, state=state)


def run_files(paths: list[Path], data_dir, out: Console) -> bool:
    files = scenario_files(paths)
    if not files:
        raise DataError(None, "no scenario files given")
    failed = 0
    errors: list[DataError] = []
    for path in files:
        try:
            name, failures = play_file(path, data_dir)
        except DataError as exc:
            errors.append(exc)
            continue
        except DataErrors as exc:
            errors.extend(exc.errors)
            continue
        if failures:
            failed += 1
            out.print(Text.assemble(("FAIL", "red"), f" {path}: {name}"))
            for line in failures:
                out.print(Text(f"     {line}"), soft_wrap=True)
        else:
            out.print(Text.assemble(("ok", "green"), f"   {path}: {name}"))
    if errors:
        raise DataErrors(errors)
    out.print(f"{len(files) - failed} of {len(files)} scenarios passed")
    return failed == 0
