"""What AlleyWay keeps between decisions to save time equals what it would compute from scratch.

Seeded matches (random and greedy pilots, Marlow's Crew with its Hustle discount among them) are
watched at every decision, and every cost read during ``apply`` (lookahead clones included) is
checked: the seat's cost discounts kept with the auras against a fresh scan of its sources, a
pending choice's cached actions against new ones, the prebuilt legal actions against the same
values built anew.
"""
from __future__ import annotations

import pytest

from sim.alleyway import field
from sim.alleyway.actions import CHOOSE, Action
from sim.core.match import play_match
from tests.alleyway_common import alleyway

# every pairing below has Marlow's Crew (The Fence: "your Hustles cost 1 less") on one side
PAIRINGS = [("marlows-crew", "cinder-wildfire"), ("graves-garrison", "marlows-crew"), ("marlows-crew", "marlows-crew")]


def fresh_discounts(state) -> list[tuple]:
    cards = state.pool.cards
    return [field.seat_discounts(side, cards) for side in state.sides]


@pytest.fixture
def every_cost_read_checked(monkeypatch):
    """Wrap ``field.discount`` (every cost read goes through it: legal actions, paying, springing)
    so each read is compared with a fresh scan; returns the list of reads seen."""
    kept_discount = field.discount
    reads = []

    def checked(state, seat, card):
        value = kept_discount(state, seat, card)
        fresh = field.seat_discounts(state.sides[seat], state.pool.cards)[card.cost_kind]
        assert value == fresh, f"turn {state.turn} seat {seat} {card.slug}: kept discount {value}, fresh {fresh}"
        reads.append(value)
        return value

    monkeypatch.setattr(field, "discount", checked)
    return reads


def watch(eng):
    """An ``on_decision`` hook checking the kept values at every decision of the real match."""
    seen = {"decisions": 0, "discounted": 0, "choices": 0}

    def check(state, _action):
        seen["decisions"] += 1
        kept = [field.discounts(state, seat) for seat in range(len(state.sides))]
        assert kept == fresh_discounts(state), f"turn {state.turn}: kept {kept}"
        seen["discounted"] += any(any(d) for d in kept)
        actions = eng.legal_actions(state)
        rebuilt = [Action(*a) for a in actions]
        assert actions == rebuilt and all(type(a) is Action for a in actions)
        if state.pending is not None:
            seen["choices"] += 1
            assert actions == [Action(CHOOSE, option) for option in state.pending.options]
            actions.clear()  # a caller changing its list leaves the cached choice alone
            assert eng.legal_actions(state) == rebuilt

    return seen, check


@pytest.mark.parametrize("pilot,seeds", [("random", range(12)), ("greedy", range(6))])
def test_kept_discounts_and_prebuilt_actions_match_a_fresh_computation(pilot, seeds, every_cost_read_checked):
    eng, pool, _data, _rules, decks = alleyway()
    totals = {"decisions": 0, "discounted": 0, "choices": 0}
    for seed in seeds:
        a, b = PAIRINGS[seed % len(PAIRINGS)]
        seen, check = watch(eng)
        result = play_match(eng, pool, [decks[a], decks[b]], 700 + seed, [pilot, pilot], on_decision=check)
        assert result.error is None, result.error
        for key in totals:
            totals[key] += seen[key]
    # the checks met the cases they are about: discounts in force, choices pending, costs read
    assert totals["discounted"] > 0 and totals["choices"] > 0 and totals["decisions"] > 100
    assert any(every_cost_read_checked), "no cost was read with a discount in force"


def test_a_stale_discount_would_be_caught():
    """The comparison can fail: a discount kept while its source left the field differs."""
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.scenario_state(pool, {"seats": [{"lanes": {"l1": "the-fence"}}, {}]}, 0)
    assert field.discounts(state, 0) == fresh_discounts(state)[0] and any(field.discounts(state, 0))
    state.sides[0].lanes[0] = None  # removed behind the engine's back: nothing made it stale
    assert field.discounts(state, 0) != fresh_discounts(state)[0]
    assert any("discounts out of date" in p for p in eng.check_invariants(state))


def test_copies_carry_every_slot():
    """Unit.copy, Side.copy and AlleyState.clone name their slots one by one (for speed): each
    slot of a mid-match state reaches the copy, and the copy's lists are its own."""
    from sim.alleyway.state import AlleyState, Side, Unit

    eng, pool, _data, _rules, decks = alleyway()
    result = play_match(eng, pool, [decks["marlows-crew"], decks["cinder-wildfire"]], 3, ["random", "random"])
    state = result.state
    units = [u for side in state.sides for u in side.lanes if u is not None]
    assert units
    for u in units:
        c = u.copy(u.gen + 1)
        assert c is not u and all(getattr(c, n) == getattr(u, n) for n in Unit.__slots__ if n not in ("gen", "memo"))
        assert c.gen == u.gen + 1
    for side in state.sides:
        c = side.copy(state.gen + 1)
        for name in Side.__slots__:
            value, copied = getattr(side, name), getattr(c, name)
            if name == "lanes":
                assert [u is None for u in value] == [u is None for u in copied]
            else:
                assert copied == value, name
            if isinstance(value, list):
                assert copied is not value, name
    clone = state.clone()
    skip = {"sides", "events", "ledger", "chance", "hold", "gen", "chance_gen"}  # copied or left off on purpose
    for name in AlleyState.__slots__:
        if name not in skip:
            assert getattr(clone, name) == getattr(state, name), name


def test_kept_character_values_belong_to_their_weight_set():
    """evaluate keeps a character's worth on the unit (Unit.memo) and a duel's targets by the
    characters (evaluate._TARGETS); a pilot thinking with another weight set evaluates the same
    shared units with another copy of the module. Evaluating forks of mid-match positions with
    the hand and the tuned weights in turn gives, bit for bit, what each gives on a deep clone
    (its own units, nothing kept)."""
    from sim.core.weights import weighted_engine

    eng, pool, _data, _rules, decks = alleyway()
    tuned = weighted_engine(eng, "tuned")
    positions = []

    def keep(state, _action):
        if len(positions) < 60:
            positions.append(eng.clone(state))

    play_match(eng, pool, [decks["vales-high-rollers"], decks["graves-garrison"]], 5, ["random", "random"],
               on_decision=keep)
    differ = 0
    for state in positions:
        fresh = {(e, seat): e.evaluate(state.clone(), seat) for e in (eng, tuned) for seat in (0, 1)}
        differ += fresh[(eng, 0)] != fresh[(tuned, 0)]
        for _round in range(2):
            for e in (eng, tuned, eng):
                for seat in (0, 1):
                    assert repr(e.evaluate(state.fork(), seat)) == repr(fresh[(e, seat)])
    assert differ  # the two weight sets value these positions differently
