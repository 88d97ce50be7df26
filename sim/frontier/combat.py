"""Attacks: who a creature may attack (lanes, High-Rise, Warrant, Cover) and how combat resolves
(Cover absorbing a hit, Flying over Cover, Quickdraw striking first, mutual damage)."""
from __future__ import annotations

from sim.frontier.effects import check_winner, hit_sheriff, hit_unit, process_deaths, run_stack
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import FLYING, QUICKDRAW, WARRANT
from sim.frontier.state import SHERIFF, FrontierState, Unit, code


def attack_targets(state: FrontierState, unit: Unit) -> list[int]:
    """Target codes the unit may attack now.

    A middle-lane creature attacks the creature in the opposing lane, or the enemy sheriff when
    that lane holds no creature. A High-Rise creature fires at any enemy creature in the middle or
    at an enemy High-Rise creature that is no longer fresh, never at the sheriff. Enemy Warrant
    creatures the attacker can reach must be attacked first (a middle-lane Warrant is reachable
    by every attacker, a High-Rise one only by High-Rise attackers, once it is not fresh).
    """
    n_middle = state.pool.n_middle
    high_rise = unit.lane >= n_middle
    out: list[int] = []
    for seat in range(len(state.sides)):
        if seat == unit.owner:
            continue
        lanes = state.sides[seat].lanes
        warrant = [code(seat, u.lane) for u in lanes if u is not None and u.kw & WARRANT
                   and (u.lane < n_middle or (high_rise and not u.fresh))]
        if warrant:
            out.extend(warrant)
        elif high_rise:
            out.extend(code(seat, u.lane) for u in lanes if u is not None and not u.fresh)
        else:
            out.append(code(seat, unit.lane if lanes[unit.lane] is not None else SHERIFF))
    return out


def attack(state: FrontierState, unit: Unit, target: int) -> None:
    seat = unit.owner
    t_seat, t_lane = target >> 4, target & 15
    side = state.sides[t_seat]
    n_middle = state.pool.n_middle
    from_middle = unit.lane < n_middle
    unit.attacks_left -= 1
    if not from_middle:
        unit.fresh = False  # once a High-Rise creature attacks it can be targeted normally
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, seat, K.ATTACK, unit.card,
                -2 if t_lane == SHERIFF else side.lanes[t_lane].card, unit.atk, unit.lane,
                f"p{t_seat}.{'sheriff' if t_lane == SHERIFF else state.pool.lane_names[t_lane]}")

    # Cover in a middle lane absorbs the hit (the sheriff behind an empty lane too), unless the
    # attacker flies or fires from High-Rise ("ignores Cover in the middle").
    cover_lane = unit.lane if t_lane == SHERIFF else t_lane
    if from_middle and cover_lane < n_middle and side.cover[cover_lane] > 0 and not unit.kw & FLYING:
        side.cover[cover_lane] -= 1
        if ev is not None:
            ev.emit(state.turn, seat, K.COVER_HIT, unit.card, -1, 1, cover_lane)
    elif t_lane == SHERIFF:
        hit_sheriff(state, seat, t_seat, unit.atk, unit.card)
    else:
        fight(state, unit, side.lanes[t_lane], from_middle)
    # "When it attacks" abilities resolve once the combat is done, after the Last Stands of the
    # creatures it killed: their frame goes under the ones process_deaths puts on the stack.
    effects = state.pool.cards[unit.card].on_attacks
    if effects:
        state.stack.append([seat, unit.uid, unit.card, unit.lane, effects, 0])
    process_deaths(state)
    check_winner(state)
    run_stack(state)


def fight(state: FrontierState, attacker: Unit, defender: Unit, from_middle: bool) -> None:
    """Creature combat: both deal their Attack to the other's Defense at once, unless exactly one
    has Quickdraw: it strikes first, and if its enemy dies it takes no damage."""
    retaliates = defender.atk > 0 and (from_middle or state.pool.consts.high_rise_retaliation)
    a_quick = attacker.kw & QUICKDRAW
    d_quick = defender.kw & QUICKDRAW and retaliates
    a_seat, d_seat = attacker.owner, defender.owner
    if a_quick and not d_quick:
        hit_unit(state, a_seat, defender, attacker.atk, attacker.card)
        if defender.hp > 0 and retaliates:
            hit_unit(state, d_seat, attacker, defender.atk, defender.card)
    elif d_quick and not a_quick:
        hit_unit(state, d_seat, attacker, defender.atk, defender.card)
        if attacker.hp > 0:
            hit_unit(state, a_seat, defender, attacker.atk, attacker.card)
    else:
        hit_unit(state, a_seat, defender, attacker.atk, attacker.card)
        if retaliates:
            hit_unit(state, d_seat, attacker, defender.atk, defender.card)
