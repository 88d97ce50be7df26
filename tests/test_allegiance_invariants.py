"""Allegiance over thousands of random matches breaks no invariant: no two units on one cell (nor
a unit on Blight), nothing moved through or onto a blocker, shields within their caps, AP never
negative, cards and Blight tokens conserved, one Stronghold a side."""
from itertools import combinations

import pytest

from sim.allegiance.actions import CELL, P_MOVE
from sim.core.match import play_match


def path_exists(state, start: int, goal: int, steps: int) -> bool:
    """An independent search: orthogonal steps through cells with no unit and no Blight."""
    board = state.pool.board
    cols = board.cols

    def open_cell(c):
        return state.cells[c] is None and not (state.blight >> c) & 1

    frontier, seen = [start], {start}
    for _ in range(steps):
        nxt = []
        for c in frontier:
            r, k = divmod(c, cols)
            for dr, dk in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                rr, kk = r + dr, k + dk
                if 0 <= rr < board.rows and 0 <= kk < cols:
                    d = rr * cols + kk
                    if d not in seen and open_cell(d):
                        seen.add(d)
                        nxt.append(d)
        if goal in nxt:
            return True
        frontier = nxt
    return False


def checked_match(eng, pool, decks, seed, pilots, log=True):
    """(result, problems, moves checked) of one match with every invariant checked before each
    decision and each move's destination checked against an independent path search."""
    problems = []
    moves = [0]

    def check(state, action):
        found = eng.check_invariants(state)
        if found:
            problems.append((state.turn, found))
        if action.kind == CELL and state.pending[0] == P_MOVE:
            moves[0] += 1
            start = state.pending[1]
            steps = pool.cards[state.cells[start].card].move
            if not path_exists(state, start, action.a, steps):
                problems.append((state.turn, [f"move {pool.board.names[start]} -> {pool.board.names[action.a]} "
                                              "passes through or onto a blocker"]))

    result = play_match(eng, pool, decks, seed, pilots, log=log, on_decision=check)
    final = eng.check_invariants(result.state)
    if final:
        problems.append((result.turns, final))
    return result, problems, moves[0]


def random_matches(seeds: range) -> tuple[dict, int, list]:
    """Play two random matches per seed (both seatings), the deck pairing cycling over every
    pair of the shipped decks; (reasons, moves checked, failures)."""
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset("allegiance", "base")
    eng = engine("allegiance")
    pool = eng.compile_pool(ruleset)
    every = [eng.compile_deck(pool, data.decks[d]) for d in sorted(data.decks)]
    pairings = list(combinations(every, 2)) + [(d, d) for d in every]
    reasons: dict[str, int] = {}
    moves = 0
    failures = []
    for seed in seeds:
        a, b = pairings[seed % len(pairings)]
        for order in ([a, b], [b, a]):
            result, problems, moved = checked_match(eng, pool, order, seed, ["random", "random"], log=False)
            if result.error is not None or problems:
                failures.append((seed, order[0].id, order[1].id, result.error, problems[:1]))
            reasons[result.reason] = reasons.get(result.reason, 0) + 1
            moves += moved
    return reasons, moves, failures


@pytest.mark.slow
def test_eight_hundred_random_matches_keep_every_invariant():
    """400 seeds from both seats, in two worker processes; the soak
    (`workbench bench --soak 20000`, tests/test_soak.py) plays far more, checked every turn."""
    import multiprocess

    chunks = [range(start, start + 100) for start in range(0, 400, 100)]
    with multiprocess.get_context("spawn").Pool(2) as workers:
        parts = workers.map(random_matches, chunks)
    reasons: dict[str, int] = {}
    for part_reasons, _moves, failures in parts:
        assert not failures, failures[0]
        for reason, n in part_reasons.items():
            reasons[reason] = reasons.get(reason, 0) + n
    assert sum(reasons.values()) == 800
    assert set(reasons) <= {"siege", "rout", "overrun", "turn_limit"}
    assert sum(moves for _r, moves, _f in parts) > 16_000  # the path check really ran


def test_greedy_matches_keep_every_invariant(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    for seed in range(6):
        result, problems, _moves = checked_match(eng, pool, decks if seed % 2 else decks[::-1], seed,
                                                 ["greedy", "greedy"])
        assert result.error is None and not problems, (seed, result.error, problems[:1])


def test_the_invariant_check_can_fail(allegiance):
    """Broken states are caught (the check is not vacuous)."""
    eng, pool, _data, _rules, decks = allegiance
    state = eng.new_match(pool, decks, 5)
    cell = state.stronghold_cell(0)
    sh = state.cells[cell]
    state.cells[cell] = sh._replace(absorb=pool.consts.absorb_cap + 1)
    state.sides[0].ap = -1
    other = state.stronghold_cell(1)
    state.blight |= 1 << other                      # a unit on a Blight token
    state.sides[1].hand.append(state.sides[1].hand[0])  # a card in two places
    problems = " | ".join(eng.check_invariants(state))
    for words in ("out of their caps", "negative AP", "share the cell", "not conserved"):
        assert words in problems, (words, problems)


def test_the_path_check_can_fail(allegiance):
    eng, pool, _data, _rules, decks = allegiance
    state = eng.new_match(pool, decks, 5)
    board = pool.board
    a, b, c = board.cell("p0.A1"), board.cell("p0.A2"), board.cell("p0.A3")
    assert path_exists(state, a, c, 2)
    state.blight |= 1 << b
    assert not path_exists(state, a, c, 2) and path_exists(state, a, c, 4)
