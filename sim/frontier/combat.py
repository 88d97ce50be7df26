"""Attacks: who a creature may attack (lanes, High-Rise, Warrant and Barricade, Cover) and how
combat resolves (Cover absorbing a hit, Flying over Cover, Overshot through it, Quickdraw
striking first, Barricade shaving hits, Venom after the damage, Stampede's shove, Blast's splash,
a sheriff's first-attack boost, Pack's Attack)."""
from __future__ import annotations

from sim.frontier.effects import (
    SHERIFF_TARGET,
    break_cover,
    check_winner,
    hit_sheriff,
    hit_unit,
    process_deaths,
    run_stack,
)
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import BARRICADE, FLYING, OVERSHOT, PACK, QUICKDRAW, SHOVE, STAMPEDE, TAUNT, VENOM
from sim.frontier.state import LANE_OF, SEAT_OF, SHERIFF, Frame, FrontierState, Unit, code


def power(state: FrontierState, u: Unit) -> int:
    """A creature's Attack as it stands: its own (buffs included) plus Pack's +1 for each other
    Beast its owner controls."""
    if not u.kw & PACK:
        return u.atk
    cards = state.pool.cards
    others = sum(1 for o in state.sides[u.owner].lanes if o is not None and o is not u and cards[o.card].beast)
    return u.atk + others


def attack_options(state: FrontierState, seat: int, attackers: list[Unit]) -> list[tuple[int, list[int]]]:
    """(lane, target codes) for each attacker of ``seat``, the enemy board read once.

    A middle-lane creature attacks the creature in the opposing lane, or the enemy sheriff when
    that lane holds no creature. A High-Rise creature fires at any enemy creature in the middle or
    at an enemy High-Rise creature that is no longer fresh, never at the sheriff. Enemy Warrant
    and Barricade creatures the attacker can reach must be attacked first (a middle-lane one is
    reachable by every attacker, a High-Rise one only by High-Rise attackers, once it is not fresh).
    """
    n_middle = state.pool.n_middle
    enemies = []
    for s, side in enumerate(state.sides):
        if s == seat:
            continue
        lanes = side.lanes
        base = code(s, 0)  # code(s, lane) is base + lane: added inline, this is the hot path
        taunt_mid, taunt_hr, visible = [], [], []
        for u in lanes:
            if u is None:
                continue
            if u.lane < n_middle:
                visible.append(base + u.lane)
                if u.kw & TAUNT:
                    taunt_mid.append(base + u.lane)
            elif not u.fresh:
                visible.append(base + u.lane)
                if u.kw & TAUNT:
                    taunt_hr.append(base + u.lane)
        enemies.append((base, lanes, taunt_mid, taunt_mid + taunt_hr, visible))
    out = []
    for unit in attackers:
        targets: list[int] = []
        lane = unit.lane
        high_rise = lane >= n_middle
        for base, lanes, taunt_mid, taunt_all, visible in enemies:
            if high_rise:
                targets.extend(taunt_all or visible)
            elif taunt_mid:
                targets.extend(taunt_mid)
            else:
                targets.append(base + (lane if lanes[lane] is not None else SHERIFF))
        out.append((lane, targets))
    return out


def attack(state: FrontierState, unit: Unit, target: int) -> None:
    unit = state.own(unit)
    seat = unit.owner
    t_seat, t_lane = SEAT_OF[target], LANE_OF[target]
    side = state.own_side(t_seat)  # the defending seat: its sheriff, Cover or creature is hit
    pool = state.pool
    n_middle = pool.n_middle
    from_middle = unit.lane < n_middle
    unit.attacks_left -= 1
    if not from_middle:
        unit.fresh = False  # once a High-Rise creature attacks it can be targeted normally
    strike = power(state, unit)
    mine = state.own_side(seat)
    if not mine.attacked:
        strike += pool.sheriffs[mine.sheriff].first_attack_bonus  # Malachar's: the first attack each turn
    mine.attacked = True
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, seat, K.ATTACK, unit.card,
                SHERIFF_TARGET if t_lane == SHERIFF else side.lanes[t_lane].card, strike, unit.lane,
                f"p{t_seat}.{'sheriff' if t_lane == SHERIFF else pool.lane_names[t_lane]}")

    # Cover in a middle lane absorbs the hit (the sheriff behind an empty lane too), unless the
    # attacker flies or fires from High-Rise ("ignores Cover in the middle"). Cover is 0/1: an
    # Overshot attacker breaks it and the rest of its Attack goes on to the target behind.
    cover_lane = unit.lane if t_lane == SHERIFF else t_lane
    if from_middle and cover_lane < n_middle and side.cover[cover_lane] > 0 and not unit.kw & FLYING:
        break_cover(state, seat, t_seat, cover_lane, unit.card)
        strike = strike - 1 if unit.kw & OVERSHOT else 0
    card = pool.cards[unit.card]
    # "When it attacks" abilities, Blast and Stampede resolve once the combat is done, after the
    # Last Stands of the creatures it killed: their frames go under the ones process_deaths adds.
    if card.on_attacks:
        state.stack.append(Frame(seat, unit.uid, unit.card, unit.lane, card.on_attacks))
    if card.blast_fx:
        splash = card.blast_fx[0 if t_lane == SHERIFF or t_lane < n_middle else 1]
        state.stack.append(Frame(seat, unit.uid, unit.card, unit.lane, (splash,)))
    if strike > 0:
        if t_lane == SHERIFF:
            hit_sheriff(state, seat, t_seat, strike, unit.card)
        else:
            defender = state.own(side.lanes[t_lane])
            excess = fight(state, unit, defender, strike, from_middle)
            if excess > 0 and from_middle:
                hit_sheriff(state, seat, t_seat, excess, unit.card)  # Overshot spills to the sheriff
            if unit.kw & STAMPEDE and defender.hp > 0 and t_lane < n_middle:
                state.stack.append(Frame(seat, defender.uid, unit.card, t_lane, (SHOVE,)))
    process_deaths(state)
    check_winner(state)
    run_stack(state)


def fight(state: FrontierState, attacker: Unit, defender: Unit, strike: int, from_middle: bool) -> int:
    """(Both units writable: ``state.own``.) Creature combat: both deal their Attack to the
    other's Defense at once, unless exactly one has Quickdraw: it strikes first, and if its enemy
    dies it takes no damage. Barricade shaves each hit it takes; Venom costs a surviving target 1
    more Defense right after its creature deals combat damage (so a Quickdraw creature's Venom
    lands before the enemy could strike back: RULES.md). Returns the attacker's Overshot excess
    (damage beyond the defender's remaining Defense)."""
    consts = state.pool.consts
    d_power = power(state, defender)
    retaliates = d_power > 0 and (from_middle or consts.high_rise_retaliation)
    if defender.kw & BARRICADE:
        strike -= consts.barricade_reduction
    if attacker.kw & BARRICADE:
        d_power -= consts.barricade_reduction
    a_quick = attacker.kw & QUICKDRAW
    d_quick = defender.kw & QUICKDRAW and retaliates
    a_seat, d_seat = attacker.owner, defender.owner
    before = defender.hp
    dealt = taken = 0
    if a_quick and not d_quick:
        dealt = hit_unit(state, a_seat, defender, strike, attacker.card)
        _venom(state, a_seat, attacker, defender, dealt)
        if defender.hp > 0 and retaliates:
            taken = hit_unit(state, d_seat, attacker, d_power, defender.card)
            _venom(state, d_seat, defender, attacker, taken)
    elif d_quick and not a_quick:
        taken = hit_unit(state, d_seat, attacker, d_power, defender.card)
        _venom(state, d_seat, defender, attacker, taken)
        if attacker.hp > 0:
            dealt = hit_unit(state, a_seat, defender, strike, attacker.card)
            _venom(state, a_seat, attacker, defender, dealt)
    else:
        dealt = hit_unit(state, a_seat, defender, strike, attacker.card)
        if retaliates:
            taken = hit_unit(state, d_seat, attacker, d_power, defender.card)
        _venom(state, a_seat, attacker, defender, dealt)
        _venom(state, d_seat, defender, attacker, taken)
    if attacker.kw & OVERSHOT and dealt > before:
        return dealt - before
    return 0


def _venom(state: FrontierState, seat: int, source: Unit, target: Unit, dealt: int) -> None:
    """Venom: ``source`` dealt ``dealt`` combat damage to ``target``; a Venom source costs a
    target still alive ``venom_damage`` more Defense."""
    if dealt > 0 and source.kw & VENOM and target.hp > 0:
        hit_unit(state, seat, target, state.pool.consts.venom_damage, source.card, "venom")
