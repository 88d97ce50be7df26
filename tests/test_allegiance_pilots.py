"""The greedy pilot plays Allegiance: it beats random from both seats, finishes its matches well
inside the turn limit, and the two starter decks are even between greedy pilots."""
from itertools import product

import pytest

from sim.allegiance import evaluate as ev
from sim.core.match import play_match


def test_greedy_beats_random_from_both_seats(allegiance):
    eng, pool, data, _rules, _decks = allegiance
    decks = [eng.compile_deck(pool, data.decks[d]) for d in sorted(data.decks)]
    wins = {0: 0, 1: 0}
    played = {0: 0, 1: 0}
    for i, (seat, (a, b)) in enumerate(product((0, 1), zip(decks, decks[1:] + decks[:1]))):
        for seed in (i, 100 + i):
            pilots = ["random", "random"]
            pilots[seat] = "greedy"
            r = play_match(eng, pool, [a, b], seed, pilots, log=False)
            assert r.error is None
            played[seat] += 1
            wins[seat] += r.winner == seat
    assert all(wins[s] >= 0.9 * played[s] for s in (0, 1)), (wins, played)


@pytest.mark.slow
def test_starter_decks_are_even_between_greedy_pilots(allegiance):
    """80 matches (40 seeds from both seats): each starter wins 35-65% (2.7 standard errors either
    side of even at this size); under 3% reach the turn limit. RULES.md's balance table is the
    large-sample figure."""
    eng, pool, _data, _rules, decks = allegiance
    wins = {d.id: 0 for d in decks}
    limit = 0
    for seed in range(40):
        for order in (decks, decks[::-1]):
            r = play_match(eng, pool, list(order), 7000 + seed, ["greedy", "greedy"], log=False)
            assert r.error is None
            limit += r.reason == "turn_limit"
            if r.winner is not None:
                wins[order[r.winner].id] += 1
    assert all(28 <= w <= 52 for w in wins.values()), wins
    assert limit < 3, limit


def test_evaluate_knows_the_position(allegiance):
    """Closer to a firing position on the enemy Stronghold is better; standing in an enemy's
    threat range is worse; a formation and shields are worth something; Blight on one's own
    side hurts, more as it nears Overrun."""
    eng, pool, *_ = allegiance

    def value(units0, units1, blight=(), seat=0):
        setup = {"turn": 5, "blight": list(blight),
                 "seats": [{"units": {"p0.B1": "ember-keep", **units0}}, {"units": {"p1.B6": "sky-citadel", **units1}}]}
        return ev.evaluate(eng.scenario_state(pool, setup, 0), seat)

    far, near, firing = (value({c: "ash-thrall"}, {}) for c in ("p0.D3", "p0.A5", "p1.A6"))
    assert far < near < firing
    safe, exposed = (value({"p0.B4": "ash-thrall"}, {c: "forge-reaper"}) for c in ("p1.D1", "p1.A4"))
    assert exposed < safe
    row = {f"p0.C{i}": "ash-thrall" for i in (2, 3, 4)}
    assert value({**row, "p0.C5": "ash-thrall"}, {}) > value({**row, "p0.D5": "ash-thrall"}, {})
    shielded = value({"p0.C3": {"card": "ash-thrall", "absorb": 2}}, {})
    assert shielded > value({"p0.C3": "ash-thrall"}, {})
    few, many = (value({}, {}, [f"p0.{r}{c}" for r in "CD" for c in range(1, k + 1)]) for k in (2, 5))
    assert many < few < value({}, {})
