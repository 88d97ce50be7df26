"""Every scenario kept in the repo passes; the scenario runner reports real differences."""
import pytest

from sim.core.scenario import run_scenario
from tests.conftest import SCENARIOS, run_cli

FILES = sorted(SCENARIOS.glob("*.yaml"))


def test_there_is_a_scenario_for_every_rule_the_notes_name():
    notes = (SCENARIOS.parents[2] / "sim" / "frontier" / "RULES.md").read_text()
    import re
    named = set(re.findall(r"`([a-z0-9-]+\.yaml)`", notes))
    assert named, "RULES.md names no scenarios"
    assert named <= {f.name for f in FILES}, named - {f.name for f in FILES}
    assert {f.name for f in FILES} <= named, {f.name for f in FILES} - named  # and every scenario is mapped


_POOLS: dict = {}


def pool_for(eng, rules: str):
    """The compiled pool of a scenario's rules version (most use base)."""
    if rules not in _POOLS:
        from cardsdb.loader import load_ruleset
        _POOLS[rules] = eng.compile_pool(load_ruleset("frontier", rules)[1])
    return _POOLS[rules]


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_passes(path, frontier):
    from cardsdb.loader import load_scenario

    eng = frontier[0]
    scenario = load_scenario(path)
    pool = pool_for(eng, scenario.rules)
    assert run_scenario(eng, pool, scenario.setup, scenario.steps, scenario.seed) == []


def test_a_wrong_expectation_fails_and_says_what_differed(frontier):
    eng, pool, *_ = frontier
    setup = {"seats": [{"hand": ["tin-star-recruit"], "mana": 1}, {}]}
    failures = run_scenario(eng, pool, setup, [{"do": "play tin-star-recruit m1"},
                                               {"expect": {"p0.lanes.m1.atk": 7, "p1.hp": 30}}])
    assert len(failures) == 1 and "p0.lanes.m1.atk: expected 7, got 1" in failures[0]


def test_an_illegal_action_fails_with_the_legal_ones(frontier):
    eng, pool, *_ = frontier
    failures = run_scenario(eng, pool, {"seats": [{}, {}]}, [{"do": "play tin-star-recruit m1"}])
    assert "is not a legal action" in failures[0] and "Legal: end" in failures[0]


def test_cli_runs_the_scenario_folder_and_exits_nonzero_on_failure(tmp_path):
    ok = run_cli("scenario", "run", str(SCENARIOS))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{len(FILES)} of {len(FILES)} scenarios passed" in ok.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: wrong\ngame: frontier\nsetup: {seats: [{}, {}]}\nsteps:\n  - expect: {p0.hp: 3}\n")
    res = run_cli("scenario", "run", str(bad))
    assert res.returncode == 1
    assert "p0.hp: expected 3, got 30" in res.stdout


def test_the_readme_scenario_example_passes(tmp_path):
    """The README teaches scenarios with an example: it must keep working."""
    import re

    readme = (SCENARIOS.parents[2] / "README.md").read_text()
    example = tmp_path / "example.yaml"
    example.write_text(re.search(r"```yaml\n(.*?)```", readme, re.S).group(1))
    res = run_cli("scenario", "run", str(example))
    assert res.returncode == 0, res.stdout
