"""The heuristic value of a position for one seat, used by the greedy pilot.

Life matters more as it runs low; a creature is worth its stats plus its keywords; cards in
hand and Cover are potential. The weights are plain numbers a pilot designer can tune."""
from __future__ import annotations

from sim.frontier.pool import AMBUSH, DOUBLE_BARREL, FLYING, QUICKDRAW, WARRANT
from sim.frontier.state import FrontierState

WIN = 10_000.0
W_LIFE = 1.0
W_LOW_LIFE = 0.08      # extra per point of missing life squared: danger grows near 0
W_BOARD = 1.0
W_HAND = 0.6
W_COVER = 0.8
W_GOLD = 0.15
KW_VALUE = ((QUICKDRAW, 0.5), (DOUBLE_BARREL, 1.0), (FLYING, 0.5), (WARRANT, 0.5), (AMBUSH, 0.0))


def unit_value(u) -> float:
    v = u.atk + u.hp + 0.5 * min(u.atk, u.hp)
    kw = u.kw
    if kw:
        for bit, worth in KW_VALUE:
            if kw & bit:
                v += worth
    return v


def side_value(state: FrontierState, seat: int) -> float:
    side = state.sides[seat]
    missing = side.max_hp - side.hp
    v = W_LIFE * side.hp - W_LOW_LIFE * missing * missing / 10.0
    board = 0.0
    for u in side.lanes:
        if u is not None:
            board += unit_value(u)
    v += W_BOARD * board + W_HAND * len(side.hand) + W_COVER * sum(side.cover) + W_GOLD * side.gold
    return v


def evaluate(state: FrontierState, seat: int) -> float:
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    mine = side_value(state, seat)
    theirs = max(side_value(state, s) for s in range(len(state.sides)) if s != seat)
    return mine - theirs
