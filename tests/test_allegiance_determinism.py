"""Determinism: the same seed, rules version, decks and pilots give the same Allegiance events
in any process (dice, shuffles and Soul Combat all come from the seed's streams)."""
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DIGEST = """
import json
from cardsdb.loader import load_ruleset
from sim.registry import engine
from sim.core.match import play_match
data, ruleset = load_ruleset('allegiance', 'base')
eng = engine('allegiance'); pool = eng.compile_pool(ruleset)
decks = [eng.compile_deck(pool, data.decks[d]) for d in ('forge-reapers', 'citadel-wardens')]
out = {}
for pilots in (['random', 'random'], ['greedy', 'greedy'], ['greedy', 'random']):
    for seed in (3, 11):
        r = play_match(eng, pool, decks, seed, pilots)
        assert r.error is None, r.error
        souls = r.events.kind.count(eng.kinds.SOUL_COMBAT)
        out[f"{pilots}-{seed}"] = [r.events.digest(), r.winner, r.reason, r.turns, r.decisions, souls]
print(json.dumps(out))
"""


def digests(salt: str) -> dict:
    res = subprocess.run([sys.executable, "-c", DIGEST], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONHASHSEED": salt, "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.mark.slow
def test_same_seed_same_event_digest_in_two_processes():
    first, second = digests("0"), digests("4242")
    assert first == second
    assert first["['random', 'random']-3"][0] != first["['random', 'random']-11"][0]
    assert sum(v[5] for v in first.values()) > 0  # Soul Combat dice were part of it
