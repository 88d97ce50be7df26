"""The match loop: turn limit and per-turn decision limit end in a draw with a reason, and an
exception inside a match is recorded on it (with its seed) while the run goes on."""
import pytest

from sim.core import pilots as pilot_registry
from sim.core.match import play_match


def _pool_with(frontier, **consts):
    eng, _pool, _data, ruleset, decks = frontier
    ruleset = type(ruleset)(ruleset.game, ruleset.version, ruleset.chain,
                            ruleset.constants.model_copy(update=consts), ruleset.cards, ruleset.hash,
                            ruleset.schema)
    return eng, eng.compile_pool(ruleset), decks


def test_turn_limit_is_a_draw(frontier):
    eng, pool, decks = _pool_with(frontier, turn_limit=4)
    r = play_match(eng, pool, decks, 1, ["random", "random"])
    assert (r.winner, r.reason, r.results) == (None, "turn_limit", ["draw", "draw"])
    assert r.turns == 5


class Dawdler:
    """Plays anything but 'end' while it can (a pilot that never ends its turn on its own)."""

    def __init__(self, engine, seat, rng):
        self.engine = engine

    def choose(self, state, actions):
        others = [a for a in actions if self.engine.describe(state, a) != "end"]
        return others[0] if others else actions[0]


def test_decision_limit_is_a_draw(frontier, monkeypatch):
    monkeypatch.setitem(pilot_registry.PILOTS, "dawdler", Dawdler)
    eng, pool, decks = _pool_with(frontier, decision_limit=1)
    r = play_match(eng, pool, decks, 3, ["dawdler", "dawdler"])
    assert (r.winner, r.reason) == (None, "decision_limit")


def test_an_exception_is_recorded_with_the_match(frontier, monkeypatch):
    eng, pool, _data, _rules, decks = frontier
    real_apply = type(eng).apply

    def flaky(self, state, action):
        if state.turn == 3:
            raise RuntimeError("card text the engine cannot do")
        return real_apply(self, state, action)

    monkeypatch.setattr(type(eng), "apply", flaky)
    r = play_match(eng, pool, decks, 17, ["random", "random"])
    assert r.reason == "error" and r.winner is None and r.seed == 17
    assert "RuntimeError: card text the engine cannot do" in r.error
    monkeypatch.undo()
    assert play_match(eng, pool, decks, 17, ["random", "random"]).error is None


def test_a_farm_chunk_keeps_going_past_a_broken_match(frontier, monkeypatch, tmp_path):
    """One match of the chunk raises; the chunk still returns every match, the broken one with
    its error and seed."""
    from workbench.chunk import init_worker, play_chunk
    from workbench.commands.simulate import new_run

    eng = frontier[0]
    real_apply = type(eng).apply

    spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["random"], matches=10, seed=1,
                            swap=True, events=1.0, chunk_size=10, workers=1)
    broken_seed = spec.match(4)[0]  # matches 4 and 5 play this seed

    def flaky(self, state, action):
        if state.chance_key == broken_seed and state.turn == 4:
            raise ValueError("boom")
        return real_apply(self, state, action)

    monkeypatch.setattr(type(eng), "apply", flaky)
    init_worker({**payload, "run_id": 1, "events_dir": str(tmp_path)})
    _chunk, tables, _secs, _rows = play_chunk(0)
    matches = tables["matches"].to_pylist()
    assert len(matches) == 10
    broken = [m for m in matches if m["error"]]
    assert {m["seed"] for m in broken} == {broken_seed} and all(m["reason"] == "error" for m in broken)
    assert all(m["error"] is None for m in matches if m["seed"] != broken_seed)


@pytest.mark.parametrize("n_seats", [3, 4])
def test_the_loop_is_not_tied_to_two_seats(n_seats, monkeypatch):
    """sim/core plays any number of seats: a toy game of N seats counting to a target."""
    from tests.toy_game import ToyEngine

    eng = ToyEngine(n_seats)
    r = play_match(eng, eng.compile_pool(None), [None] * n_seats, 4, ["random"] * n_seats)
    assert r.error is None and r.winner in range(n_seats) and len(r.results) == n_seats
    assert r.results.count("win") == 1
