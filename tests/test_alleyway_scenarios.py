"""Every AlleyWay scenario passes; RULES.md names only scenarios that exist, and names them all."""
import re
from functools import lru_cache

import pytest

from sim.core.scenario import run_scenario
from tests.alleyway_common import ALLEYWAY, SCENARIOS, alleyway
from tests.conftest import DATA, ROOT, run_cli

FILES = sorted(SCENARIOS.glob("*.yaml"))
RULES = ROOT / "sim" / "alleyway" / "RULES.md"


@lru_cache(maxsize=None)
def pool_for(rules: str):
    """The compiled pool of a scenario's rules version (most use base)."""
    from cardsdb.loader import load_ruleset

    eng, pool, *_ = alleyway()
    return pool if rules == "base" else eng.compile_pool(load_ruleset("alleyway", rules, DATA)[1])


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario_passes(path):
    from cardsdb.loader import load_scenario

    eng, *_ = alleyway()
    scenario = load_scenario(path)
    assert scenario.game == "alleyway"
    assert run_scenario(eng, pool_for(scenario.rules), scenario.setup, scenario.steps, scenario.seed) == []


def test_rules_notes_name_every_scenario_and_only_real_ones():
    named = set(re.findall(r"`([a-z0-9-]+\.yaml)`", RULES.read_text()))
    files = {f.name for f in FILES}
    assert named <= files, named - files
    assert files <= named, f"scenarios RULES.md does not mention: {sorted(files - named)}"


def test_a_wrong_expectation_fails_and_says_what_differed():
    eng, pool, *_ = alleyway()
    setup = {"phase": "brawl", "seats": [{"lanes": {"l1": "dirty-cop"}}, {"lanes": {"l1": {"card": "static", "pos": "def"}}}]}
    failures = run_scenario(eng, pool, setup, [{"do": "attack l1 p1.l1"}, {"expect": {"p1.lanes.l1.downed": False}}])
    assert failures == ["step 2: p1.lanes.l1.downed: expected False, got True"]


def test_cli_runs_the_alleyway_scenarios():
    res = run_cli("scenario", "run", str(SCENARIOS))
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr
    assert f"{len(FILES)} of {len(FILES)} scenarios passed" in res.stdout
    assert (ALLEYWAY / "rules" / "base.yaml").exists()
