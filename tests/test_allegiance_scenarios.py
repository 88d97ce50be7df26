"""Every Allegiance scenario passes, and RULES.md and the scenario folder agree: each scenario the
notes name exists and each scenario file is named in the notes."""
import re

import pytest

from sim.core.scenario import run_scenario
from tests.conftest import DATA, ROOT, run_cli

SCENARIOS = DATA / "allegiance" / "scenarios"
FILES = sorted(SCENARIOS.glob("*.yaml"))
NOTES = ROOT / "sim" / "allegiance" / "RULES.md"


def test_rules_notes_and_scenarios_agree():
    named = set(re.findall(r"`([a-z0-9-]+\.yaml)`", NOTES.read_text()))
    files = {f.name for f in FILES}
    assert named - files == set(), f"RULES.md names missing scenarios: {sorted(named - files)}"
    assert files - named == set(), f"scenarios RULES.md does not name: {sorted(files - named)}"


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_passes(path, allegiance):
    from cardsdb.loader import load_ruleset, load_scenario

    eng, pool, *_ = allegiance
    scenario = load_scenario(path)
    assert scenario.game == "allegiance"
    if scenario.rules != "base":  # a scenario of a named rules version plays under that version
        pool = eng.compile_pool(load_ruleset("allegiance", scenario.rules)[1])
    assert run_scenario(eng, pool, scenario.setup, scenario.steps, scenario.seed) == []


def test_a_wrong_expectation_fails_and_says_what_differed(allegiance):
    eng, pool, *_ = allegiance
    setup = {"turn": 3, "seats": [{"units": {"p0.A3": "forge-reaper", "p0.D6": "ember-keep"}},
                                  {"units": {"p1.A3": "ash-thrall", "p1.B1": "sky-citadel"}}]}
    failures = run_scenario(eng, pool, setup, [{"do": "attack p0.A3 reap p1.A3"},
                                               {"expect": {"board.p1.A3": None, "p0.ap": 7}}])
    assert failures == ["step 2: board.p1.A3: expected None, got 'blight'", "step 2: p0.ap: expected 7, got 6"]


def test_a_legal_step_fails_when_the_action_is_not_legal(allegiance):
    eng, pool, *_ = allegiance
    setup = {"turn": 3, "seats": [{"units": {"p0.A3": "forge-reaper", "p0.D6": "ember-keep"}},
                                  {"units": {"p1.C3": "ash-thrall", "p1.B1": "sky-citadel"}}]}
    failures = run_scenario(eng, pool, setup, [{"legal": "attack p0.A3 reap p1.C3"}])
    assert len(failures) == 1 and "is not a legal action here" in failures[0] and "move p0.A3" in failures[0]


def test_bad_setups_name_the_field(allegiance):
    eng, pool, *_ = allegiance
    for setup, words in (({"seats": [{"units": {"p0.Z9": "ash-thrall"}}, {}]}, "unknown cell 'p0.Z9'"),
                         ({"seats": [{"units": {"p0.A1": "no-such-card"}}, {}]}, "unknown card 'no-such-card'"),
                         ({"seats": [{"lanes": {}}, {}]}, "unknown field 'lanes'"),
                         ({"seats": [{"units": {"p0.A1": "parry"}}, {}]}, "not a warrior or a stronghold")):
        failures = run_scenario(eng, pool, setup, [])
        assert len(failures) == 1 and words in failures[0], (words, failures)


def test_cli_runs_the_scenario_folder():
    ok = run_cli("scenario", "run", str(SCENARIOS))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"{len(FILES)} of {len(FILES)} scenarios passed" in ok.stdout
