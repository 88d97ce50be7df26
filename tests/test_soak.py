"""The soak (issue 14, item 6): random matches of every game through the real farm into a scratch
store with event logs off leave no engine error and no invariant violation in ``matches.error``,
and the writer's memory stays flat. The full soak is ``workbench bench --soak 20000``; CI plays a
bounded one (``SOAK_MATCHES`` per game). The other tests show that each of the soak's three
verdicts can fail: a planted broken invariant, a planted engine error, growing memory."""
from __future__ import annotations

import pytest

from sim.registry import engine as get_engine
from workbench.bench.soak import FLAT_MARGIN, RssSample, matches_per_pairing, memory, soak_game

# random matches per game in CI: an Allegiance match costs about three of the others (most run to
# the turn limit), so it plays half as many and the three stay near a minute on a loaded 2-core machine
SOAK_MATCHES = {"frontier": 1_000, "alleyway": 1_000, "allegiance": 500}
WORKERS = 2


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SOAK_MATCHES))
def test_a_bounded_soak_stores_no_error_no_violation_and_keeps_memory_flat(game, tmp_path):
    figures = soak_game(game, SOAK_MATCHES[game], WORKERS, tmp_path / "soak.duckdb")
    assert figures.matches >= SOAK_MATCHES[game]
    assert figures.errors == 0, figures.first_problem
    assert figures.violations == 0, figures.first_problem
    assert sum(figures.reasons.values()) == figures.matches
    assert "error" not in figures.reasons
    m = figures.memory
    assert m.samples >= 4
    assert m.flat, (f"writer RSS grew {m.growth:+.1%} from the first half's peak {m.first_half_peak:,} to "
                    f"{m.second_half_peak:,} bytes")
    assert figures.ok


def test_a_broken_invariant_in_a_worker_is_stored_as_a_violation(tmp_path, monkeypatch):
    """The workers are forked from this process, so they inherit the planted check."""
    eng = get_engine("frontier")
    honest = eng.check_invariants
    monkeypatch.setattr(eng, "check_invariants",
                        lambda state: ["planted: hp above its cap"] if state.turn >= 3 else honest(state))
    figures = soak_game("frontier", 2, WORKERS, tmp_path / "soak.duckdb")  # 2 per pairing: 30 matches
    assert figures.matches == 30
    assert (figures.violations, figures.errors) == (30, 0)
    assert "InvariantViolation: turn 3: planted: hp above its cap" in figures.first_problem
    assert figures.reasons == {"error": 30}
    assert not figures.ok


def test_a_planted_engine_error_is_counted_apart_from_violations(tmp_path, monkeypatch):
    eng = get_engine("alleyway")
    honest = eng.apply

    def apply(state, action):
        if state.turn >= 4:
            raise ZeroDivisionError("planted")
        honest(state, action)

    monkeypatch.setattr(eng, "apply", apply)
    figures = soak_game("alleyway", 2, WORKERS, tmp_path / "soak.duckdb", check="decision")
    assert (figures.errors, figures.violations) == (figures.matches, 0) and figures.matches >= 2
    assert "ZeroDivisionError: planted" in figures.first_problem
    assert not figures.ok


def test_memory_is_flat_only_when_the_second_half_stays_near_the_first():
    steady = [RssSample(t, 200_000_000 + (t % 3) * 1_000_000) for t in range(20)]
    assert memory(steady).flat and memory(steady).start == 200_000_000
    leaking = [RssSample(t, 200_000_000 + t * 3_000_000) for t in range(20)]
    figures = memory(leaking)
    assert not figures.flat and figures.growth > FLAT_MARGIN
    assert (figures.peak, figures.end) == (257_000_000, 257_000_000)


def test_every_pairing_plays_and_each_seed_from_both_seats():
    assert matches_per_pairing(20_000, 15) == 1_334  # 20,010 in all
    assert matches_per_pairing(1, 15) == 2
    assert all(matches_per_pairing(n, p) % 2 == 0 and matches_per_pairing(n, p) * p >= n
               for n in (2, 999, 20_000) for p in (1, 3, 15))
