"""What Allegiance keeps up to date for speed says what a walk over the cells says.

The occupancy masks (``state.units``, ``state.warriors``) are kept by ``place`` and ``remove``
instead of being rebuilt at each decision; formations are found by bit runs instead of a walk
from each Warrior; ``cells_of`` reads masks from tables. Each is checked here against a plain
recomputation, at every decision of seeded matches and in every position one legal action
away (the positions lookahead makes: deaths, moves, deploys, Strongholds revealed). Evaluate's
kept per-seat and per-unit terms (``state.memo``, shared by a state and its clones) must give
the very bits a fresh evaluation gives, for both seats."""
from __future__ import annotations

import random

import pytest

from sim.allegiance.board import cells_of
from sim.allegiance.evaluate import evaluate, evaluate_fresh
from sim.allegiance.formations import in_formation
from sim.allegiance.invariants import mask_problems
from sim.allegiance.pool import WARRIOR
from sim.core.match import play_match


def formation_by_walk(state, cell: int) -> bool:
    """The guide's reading, walked cell by cell: a run of formation_size Warriors of the
    unit's owner and faction side by side in its row, the unit among them."""
    pool = state.pool
    cards, board = pool.cards, pool.board
    u = state.cells[cell]

    def ally(c: int) -> bool:
        v = state.cells[c]
        return (v is not None and v.owner == u.owner and cards[v.card].type == WARRIOR
                and cards[v.card].faction == cards[u.card].faction)

    row_start = cell - board.col[cell]
    count, c = 1, cell - 1
    while c >= row_start and ally(c):
        count, c = count + 1, c - 1
    c = cell + 1
    while c < row_start + board.cols and ally(c):
        count, c = count + 1, c + 1
    return count >= pool.consts.formation_size


def check_position(state) -> list[str]:
    problems = mask_problems(state)
    for seat in (0, 1):
        kept, fresh = evaluate(state, seat), evaluate_fresh(state, seat)
        if kept != fresh:
            problems.append(f"turn {state.turn}: kept evaluate {kept!r} for seat {seat}, fresh {fresh!r}")
    cards = state.pool.cards
    for cell, u in enumerate(state.cells):
        if u is not None and cards[u.card].type == WARRIOR and in_formation(state, cell) != formation_by_walk(state, cell):
            problems.append(f"turn {state.turn}: formation of {state.pool.board.names[cell]} disagrees with the walk")
    return problems


@pytest.mark.parametrize("pilot", ["random", "greedy"])
def test_masks_and_formations_match_the_cells_in_play_and_one_action_away(allegiance, pilot):
    eng, pool, _data, _ruleset, decks = allegiance
    problems: list[str] = []
    checked = 0

    def on_decision(state, _action):
        nonlocal checked
        problems.extend(check_position(state))
        for action in eng.legal_actions(state):
            trial = eng.clone(state)
            eng.apply(trial, action)
            problems.extend(f"after {eng.describe(state, action)}: {p}" for p in check_position(trial))
            checked += 1

    matches = 4 if pilot == "random" else 1
    for seed in range(matches):
        r = play_match(eng, pool, [decks[seed % len(decks)], decks[(seed + 1) % len(decks)]], 900 + seed,
                       [pilot, pilot], log=False, on_decision=on_decision)
        assert r.error is None, r.error
    assert checked > 500
    assert not problems, problems[:5]


def test_a_formation_in_a_row_needs_one_faction_side_by_side(allegiance):
    eng, pool, _data, _ruleset, decks = allegiance
    state = eng.new_match(pool, decks[:2], 3, log=False)
    board, cards = pool.board, pool.cards
    warriors = [c.id for c in cards if c.type == WARRIOR and c.faction >= 0]
    warrior = warriors[0]
    other = next(w for w in warriors if cards[w].faction != cards[warrior].faction)
    row = board.cells_of_row(0, 0)  # seat 0's row A: nobody stands there at the start
    for c in row[:pool.consts.formation_size]:
        state.place(c, _warrior(state, warrior, 0))
    assert all(in_formation(state, c) for c in row[:pool.consts.formation_size])
    # break the run with a Warrior of the other faction: nobody in the row is in formation
    state.remove(row[1])
    state.place(row[1], _warrior(state, other, 0))
    assert not any(in_formation(state, c) for c in row[:pool.consts.formation_size])
    assert not check_position(state)


def _warrior(state, card: int, seat: int):
    from sim.allegiance.state import Unit
    hp = state.pool.cards[card].hp
    state.next_uid += 1
    return Unit(card, seat, state.next_uid, hp, hp)


def test_cells_of_lists_every_set_bit_lowest_first():
    rng = random.Random(7)
    for bits in (0, 1, 5, 12, 13, 24, 48, 49, 100):
        for _ in range(300):
            mask = rng.getrandbits(bits) if bits else 0
            assert cells_of(mask) == [i for i in range(mask.bit_length()) if (mask >> i) & 1]


def test_kept_evaluate_terms_follow_hand_edits_and_card_edits(allegiance):
    """A unit replaced by hand after an evaluation, or a card edited in place (the evaluate
    tables cleared, as tests/test_evaluate_coverage.py does), is valued afresh, not from the
    kept terms."""
    import sim.allegiance.evaluate as ev
    eng, pool, _data, _ruleset, decks = allegiance
    state = eng.new_match(pool, decks[:2], 4, log=False)
    cell = state.stronghold_cell(0)
    before = evaluate(state, 0)
    state.cells[cell] = state.cells[cell]._replace(hp=state.cells[cell].hp - 1)
    assert evaluate(state, 0) == evaluate_fresh(state, 0) < before
    warrior = next(c for c in pool.cards if c.type == WARRIOR)
    state.place(pool.board.cells_of_row(0, 0)[0], _warrior(state, warrior.id, 0))
    old = warrior.pierce
    try:
        plain = evaluate(state, 0)
        warrior.pierce = not old  # a keyword's worth is a per-card term
        ev.forget_card_terms()
        assert evaluate(state, 0) == evaluate_fresh(state, 0) != plain
    finally:
        warrior.pierce = old
        ev.forget_card_terms()


def test_roll_draws_what_randint_draws_and_leaves_the_stream_where_randint_does():
    from sim.allegiance.state import AllegianceState
    state = AllegianceState.__new__(AllegianceState)
    state.gen = state.chance_gen = 0  # the stream set below is the state's own
    for seed in range(60):
        for sides in (1, 2, 3, 6, 7, 8, 12, 13, 100):
            reference, state.chance = random.Random(seed), random.Random(seed)
            assert [state.roll(sides) for _ in range(40)] == [reference.randint(1, sides) for _ in range(40)]
            assert state.chance.random() == reference.random()


def _seat_fingerprint(side) -> tuple:
    return (side.ap, tuple(side.hand), tuple(side.deck), tuple(side.discard), tuple(side.muster),
            tuple(side.strongholds), tuple(side.fallen), side.turns, side.supplies, side.cries, side.tactics)


def test_forks_share_seats_until_they_write_them(allegiance):
    """engine.clone forks copy-on-write: every legal action applied on a fork leaves the
    source's seats as they were, and a seat the action does not touch stays shared."""
    eng, pool, _data, _ruleset, decks = allegiance
    shared = checked = 0

    def on_decision(state, _action):
        nonlocal shared, checked
        before = [_seat_fingerprint(side) for side in state.sides]
        for action in eng.legal_actions(state):
            trial = eng.clone(state)
            eng.apply(trial, action)
            assert [_seat_fingerprint(side) for side in state.sides] == before, eng.describe(state, action)
            shared += any(a is b for a, b in zip(trial.sides, state.sides))
            checked += 1

    for seed in range(2):
        r = play_match(eng, pool, [decks[seed % len(decks)], decks[(seed + 1) % len(decks)]], 40 + seed, ["random", "random"], log=False,
                       on_decision=on_decision)
        assert r.error is None, r.error
    assert checked > 200 and shared > checked // 2


def test_evaluate_sees_every_seat_edit(allegiance):
    """A position valued, then edited by hand in a part evaluate reads (hand size, Muster Zone,
    Stronghold deck), is valued afresh, not from the terms kept from the last valuation."""
    eng, pool, _data, _ruleset, decks = allegiance
    state = eng.new_match(pool, decks[:2], 5, log=False)
    warrior = next(c for c in pool.cards if c.type == WARRIOR)
    edits = [lambda s: s.sides[0].hand.pop(),
             lambda s: s.sides[1].muster.append((warrior.id, 0)),
             lambda s: s.sides[0].strongholds.pop(0)]
    for edit in edits:
        before = evaluate(state, 0)
        edit(state)
        assert evaluate(state, 0) == evaluate_fresh(state, 0) != before


def test_replaced_is_replace_for_one_field():
    from sim.allegiance.state import ATTACKS, HP, MOVES, TAP, USED, Unit, replaced
    u = Unit(3, 1, 9, 5, 7, 1, 2, 4, -1, 1, 2, 1, 0, 1, 0)
    for field in (HP, ATTACKS, MOVES, USED, TAP):
        name = Unit._fields[field]
        got = replaced(u, field, 6)
        assert got == u._replace(**{name: 6}) and type(got) is Unit and got.card == 3


def test_forks_share_the_chance_stream_until_one_draws(allegiance):
    """A fork and its source draw the same luck from a stream they share, each from its own copy
    made at its first draw: neither moves the other's stream."""
    from sim.core.rng import copy_stream
    eng, pool, _data, _ruleset, decks = allegiance
    state = eng.new_match(pool, decks[:2], 6, log=False)
    state.roll(6)  # the turn's stream made and drawn from
    reference = copy_stream(state.chance)
    fork = state.fork()
    assert fork.chance is state.chance
    drawn = [fork.roll(12) for _ in range(6)]
    assert fork.chance is not state.chance
    assert [state.roll(12) for _ in range(6)] == drawn == [reference.randint(1, 12) for _ in range(6)]
    deeper = fork.fork()
    assert [deeper.roll(6) for _ in range(6)] == [fork.roll(6) for _ in range(6)]
    assert state.clone().chance is not state.chance  # clone shares nothing


def test_forgetting_card_terms_reaches_the_wide_boards_valuer(allegiance, monkeypatch):
    """A board of more cells than the compiled build's masks hold is valued by a second Valuer
    (``VALUER.wide``: the source, the same weights); a card edited in place must be read afresh
    there too once the tests forget the kept terms. Without a build the hand-off is stood in for
    by a source Valuer, as evaluate.py sets it up where the build is loaded."""
    import sim.allegiance.evaluate as ev
    from cardsdb.loader import Ruleset
    from sim.allegiance import valuation
    from sim.core.compiled import source_module

    eng, base_pool, data, ruleset, _decks = allegiance
    if ev.VALUER.wide is None:
        source = source_module("sim.allegiance.valuation", "sim.allegiance.valuation_source")
        monkeypatch.setattr(ev.VALUER, "wide", source.Valuer(ev.WEIGHTS["weights"]))
    board = ruleset.constants.model_copy(update={"rows_per_side": 6, "columns": 8})
    pool = eng.compile_pool(Ruleset(ruleset.game, "board-6x8", ruleset.chain, board, ruleset.cards, ruleset.hash,
                                    ruleset.schema))
    assert pool.board.n > valuation.MASK_BITS
    decks = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]
    state = eng.new_match(pool, decks[:2], 4, log=False)
    warrior = next(c for c in pool.cards if c.type == WARRIOR)
    state.place(pool.board.cells_of_row(0, 0)[0], _warrior(state, warrior.id, 0))
    old = warrior.pierce
    try:
        plain = evaluate(state, 0)
        assert ev.VALUER.terms(pool) is None and ev.VALUER.wide.tables, "the wide Valuer valued it"
        warrior.pierce = not old
        ev.forget_card_terms()
        assert evaluate(state, 0) == evaluate_fresh(state, 0) != plain
    finally:
        warrior.pierce = old
        ev.forget_card_terms()
