"""The heuristic value of a position for one seat, used by the greedy pilot.

Life matters more as it runs low; a creature is worth its stats plus its keywords; cards in
hand, Cover, ready Deputies and banked Mana are potential. The weights are plain numbers a pilot
designer can tune."""
from __future__ import annotations

from sim.frontier.combat import power
from sim.frontier.pool import (AMBUSH, BARRICADE, DOUBLE_BARREL, FERAL, FLYING, IRONCLAD, OVERSHOT, PACK,
                               QUICKDRAW, STAMPEDE, VENOM, WANTED, WARRANT)
from sim.frontier.state import ON_FIELD, FrontierState

WIN = 10_000.0
W_LIFE = 1.0
W_LOW_LIFE = 0.08      # extra per point of life below the rules' starting HP, squared: danger grows near 0
W_BOARD = 1.0
W_HAND = 0.6
W_COVER = 0.8
W_GOLD = 0.15
W_DEPUTY_READY = 1.5   # a Deputy in the zone that may be summoned
W_MANA_BONUS = 0.5
W_SKIP = 0.6           # an attack a shoved creature will lose
KW_VALUE = ((QUICKDRAW, 0.5), (DOUBLE_BARREL, 1.0), (FLYING, 0.5), (WARRANT, 0.5), (AMBUSH, 0.0),
            (OVERSHOT, 0.5), (WANTED, 0.5), (VENOM, 0.5), (BARRICADE, 1.0), (IRONCLAD, 0.5),
            (STAMPEDE, 0.3), (FERAL, -0.2))


_KW_WORTH: dict[int, float] = {}


def keyword_worth(kw: int) -> float:
    """The summed worth of a keyword mask (memoised: few masks occur)."""
    worth = _KW_WORTH.get(kw)
    if worth is None:
        worth = _KW_WORTH[kw] = sum(w for bit, w in KW_VALUE if kw & bit)
    return worth


def unit_value(state: FrontierState, u) -> float:
    atk = power(state, u) if u.kw & PACK else u.atk
    hp = u.hp
    v = atk + hp + 0.5 * (atk if atk < hp else hp)
    if u.kw:
        v += keyword_worth(u.kw)
    if u.skip:
        v -= W_SKIP * u.skip
    return v


def side_value(state: FrontierState, seat: int) -> float:
    side = state.sides[seat]
    # danger is measured from the larger of the seat's cap and the rules' starting HP, so a
    # sheriff with few HP (a Frontier Run enemy) is in danger from the start and one with many
    # (trail HP) still minds every point it loses
    missing = max(side.max_hp, state.pool.consts.starting_hp) - side.hp
    v = W_LIFE * side.hp - W_LOW_LIFE * missing * missing / 10.0
    board = 0.0
    for u in side.lanes:
        if u is not None:
            board += unit_value(state, u)
    v += W_BOARD * board + W_HAND * len(side.hand) + W_COVER * sum(side.cover) + W_GOLD * side.gold
    if side.dzone:
        turns = side.turns
        v += W_DEPUTY_READY * sum(1 for z in side.dzone if z != ON_FIELD and z <= turns + 1)
    v += W_MANA_BONUS * side.mana_bonus
    return v


def evaluate(state: FrontierState, seat: int) -> float:
    if state.over:
        if state.winner is None:
            return 0.0
        return WIN if state.winner == seat else -WIN
    mine = side_value(state, seat)
    theirs = max(side_value(state, s) for s in range(len(state.sides)) if s != seat)
    return mine - theirs
