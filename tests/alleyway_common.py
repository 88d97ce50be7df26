"""Shared helpers for the AlleyWay tests: the real data compiled once per process."""
from __future__ import annotations

from functools import lru_cache

from tests.conftest import DATA

ALLEYWAY = DATA / "alleyway"
SCENARIOS = ALLEYWAY / "scenarios"


@lru_cache(maxsize=None)
def alleyway():
    """(engine, pool, data, ruleset, starter decks by id) of AlleyWay's base rules."""
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("alleyway", "base", DATA)
    eng = engine("alleyway")
    pool = eng.compile_pool(ruleset)
    decks = {d.id: eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter}
    return eng, pool, data, ruleset, decks


def scenario_state(setup: dict, seed: int = 0):
    eng, pool, *_ = alleyway()
    return eng, eng.scenario_state(pool, setup, seed)


def act(eng, state, *words: str) -> None:
    for text in words:
        eng.apply(state, eng.parse_action(state, text))
