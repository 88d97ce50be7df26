"""The effect vocabulary at work: targets, damage, healing, deaths and Last Stand, the resolution
stack and the choices it waits on, and the win check. Card behaviour is data (pool.Fx); this
module is the only place that knows what each effect does."""
from __future__ import annotations

from sim.core.events import NO_ID
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import LAST_STAND
from sim.frontier.state import SHERIFF, FrontierState, Unit, code

# frame layout on state.stack: [seat, source uid, source card, source lane, effects, next index]
SEAT, UID, CARD, LANE, EFFECTS, NEXT = range(6)
SHERIFF_TARGET = -2  # "the sheriff" in an event's target column


# --- damage, healing, deaths ---------------------------------------------------------------------

def hit_sheriff(state: FrontierState, source_seat: int, seat: int, amount: int, card: int) -> None:
    """Damage a sheriff. Each instance dealt to an enemy earns its dealer Gold next turn."""
    if amount <= 0:
        return
    side = state.sides[seat]
    side.hp -= amount
    if seat != source_seat:
        state.sides[source_seat].gold_bonus += 1
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, source_seat, K.DAMAGE, card, SHERIFF_TARGET, amount, NO_ID, f"p{seat}")


def hit_unit(state: FrontierState, source_seat: int, unit: Unit, amount: int, card: int) -> None:
    if amount <= 0:
        return
    unit.hp -= amount
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, source_seat, K.DAMAGE, card, unit.card, amount, unit.lane)


def heal_unit(state: FrontierState, seat: int, unit: Unit, amount: int, card: int) -> None:
    gained = min(amount, unit.max_hp - unit.hp)
    if gained > 0:
        unit.hp += gained
        if state.events is not None:
            state.events.emit(state.turn, seat, K.HEAL, card, unit.card, gained, unit.lane)


def heal_sheriff(state: FrontierState, seat: int, target_seat: int, amount: int, card: int) -> None:
    side = state.sides[target_seat]
    gained = min(amount, side.max_hp - side.hp)
    if gained > 0:
        side.hp += gained
        if state.events is not None:
            state.events.emit(state.turn, seat, K.HEAL, card, SHERIFF_TARGET, gained, NO_ID, f"p{target_seat}")


def process_deaths(state: FrontierState) -> None:
    """Remove every creature at 0 Defense or less (active seat first, lane by lane) and put its
    Last Stand on the stack."""
    n = len(state.sides)
    for k in range(n):
        seat = (state.active + k) % n
        side = state.sides[seat]
        lanes = side.lanes
        for lane in range(len(lanes)):
            u = lanes[lane]
            if u is None or u.hp > 0:
                continue
            lanes[lane] = None
            side.discard.append(u.card)
            if state.events is not None:
                state.events.emit(state.turn, seat, K.DESTROY, u.card, NO_ID, 0, lane)
            if u.kw & LAST_STAND:
                effects = state.pool.cards[u.card].on_destroyed
                state.stack.append([seat, u.uid, u.card, lane, effects, 0])


def check_winner(state: FrontierState) -> None:
    if state.over:
        return
    fallen = [seat for seat, side in enumerate(state.sides) if side.hp <= 0]
    if not fallen:
        return
    alive = [seat for seat in range(len(state.sides)) if seat not in fallen]
    finish(state, alive[0] if len(alive) == 1 else None, "hp")


def finish(state: FrontierState, winner: int | None, reason: str) -> None:
    state.over, state.winner, state.reason = True, winner, reason
    state.pending = None
    state.stack.clear()
    if state.events is not None:
        state.events.emit(state.turn, NO_ID if winner is None else winner, K.GAME_OVER, detail=reason)


# --- targets -------------------------------------------------------------------------------------

def _sides(state: FrontierState, seat: int, side: str) -> list[int]:
    if side == "friendly":
        return [seat]
    if side == "enemy":
        return [s for s in range(len(state.sides)) if s != seat]
    return list(range(len(state.sides)))


def candidates(state: FrontierState, seat: int, fx, src_uid: int, src_lane: int) -> list[int]:
    """Target codes an effect of ``seat`` may hit. Single-target picks (chosen, random) cannot
    reach an enemy High-Rise creature that is still fresh; board-wide picks ("all") can."""
    pool = state.pool
    out: list[int] = []
    kind, pick = fx.kind, fx.pick
    if pick == "self":
        u = state.find_uid(src_uid) if src_uid >= 0 else None
        return [code(u.owner, u.lane)] if u is not None else []
    if pick == "opposing":
        if src_lane < 0 or src_lane >= pool.n_middle:
            return []
        for s in _sides(state, seat, "enemy"):
            if state.sides[s].lanes[src_lane] is not None:
                out.append(code(s, src_lane))
        return out
    if kind == "lane":
        room = pool.consts.max_cover_per_lane
        if pick == "own":
            lanes = [src_lane] if 0 <= src_lane < pool.n_middle else []
        else:
            lanes = range(pool.n_middle)
        for s in _sides(state, seat, fx.side):
            cover = state.sides[s].cover
            out.extend(code(s, lane) for lane in lanes if cover[lane] < room or pick == "all")
        return out
    single = pick in ("chosen", "random")
    for s in _sides(state, seat, fx.side):
        if kind in ("creature", "character"):
            for u in state.sides[s].lanes:
                if u is None:
                    continue
                if single and s != seat and u.fresh:
                    continue  # a fresh High-Rise creature dodges single-target effects
                out.append(code(s, u.lane))
        if kind in ("sheriff", "character"):
            out.append(code(s, SHERIFF))
    return out


# --- resolution ----------------------------------------------------------------------------------

def run_effects(state: FrontierState, seat: int, src_uid: int, src_card: int, src_lane: int,
                effects: tuple) -> None:
    if effects:
        state.stack.append([seat, src_uid, src_card, src_lane, effects, 0])
        run_stack(state)


def run_stack(state: FrontierState) -> None:
    """Resolve effect frames until the stack is empty or a seat must choose a target."""
    stack = state.stack
    while stack and not state.over:
        frame = stack[-1]
        effects, i = frame[EFFECTS], frame[NEXT]
        if i >= len(effects):
            stack.pop()
            continue
        frame[NEXT] = i + 1
        fx = effects[i]
        seat = frame[SEAT]
        if fx.op in ("draw", "gain_gold"):
            targets: list[int] = []
        else:
            targets = candidates(state, seat, fx, frame[UID], frame[LANE])
            if not targets:
                if state.events is not None:
                    state.events.emit(state.turn, seat, K.FIZZLE, frame[CARD], detail=fx.op)
                continue
            if fx.pick == "chosen" and len(targets) > 1:
                state.pending = (seat, fx, tuple(targets), frame[UID], frame[CARD], frame[LANE])
                state.to_act = seat
                return
            if fx.pick == "random" and len(targets) > 1:
                targets = [targets[state.rng().randrange(len(targets))]]
        apply_effect(state, seat, fx, targets, frame[CARD])
        process_deaths(state)
        check_winner(state)
    state.to_act = state.active


def choose(state: FrontierState, target: int) -> None:
    """Finish the pending effect on the chosen target, then resume the stack."""
    seat, fx, options, _uid, card, _lane = state.pending
    if target not in options:
        raise ValueError(f"target {target} is not among the options {options}")
    state.pending = None
    if state.events is not None:
        t_seat, lane = target >> 4, target & 15
        unit = state.sides[t_seat].lanes[lane] if lane != SHERIFF and fx.kind != "lane" else None
        state.events.emit(state.turn, seat, K.CHOOSE, card,
                          unit.card if unit is not None else SHERIFF_TARGET if lane == SHERIFF else NO_ID,
                          0, NO_ID if lane == SHERIFF else lane, f"p{t_seat}")
    apply_effect(state, seat, fx, [target], card)
    process_deaths(state)
    check_winner(state)
    run_stack(state)


def apply_effect(state: FrontierState, seat: int, fx, targets: list[int], card: int) -> None:
    op = fx.op
    ev = state.events
    if op == "draw":
        from sim.frontier.turns import draw_card
        for _ in range(fx.amount):
            if state.sides[seat].deck:
                draw_card(state, seat)
        return
    if op == "gain_gold":
        state.sides[seat].gold += fx.amount
        if ev is not None:
            ev.emit(state.turn, seat, K.GOLD_GAIN, card, NO_ID, fx.amount)
        return
    for target in targets:
        t_seat, lane = target >> 4, target & 15
        side = state.sides[t_seat]
        if op == "cover":
            room = state.pool.consts.max_cover_per_lane - side.cover[lane]
            added = min(fx.amount, room)
            if added > 0:
                side.cover[lane] += added
                if ev is not None:
                    ev.emit(state.turn, seat, K.COVER_UP, card, NO_ID, added, lane)
            continue
        if lane == SHERIFF:
            if op == "damage":
                hit_sheriff(state, seat, t_seat, fx.amount, card)
            elif op == "heal":
                heal_sheriff(state, seat, t_seat, fx.amount, card)
            continue
        u = side.lanes[lane]
        if u is None or u.hp <= 0:
            continue  # died earlier in this same effect
        if op == "damage":
            hit_unit(state, seat, u, fx.amount, card)
        elif op == "heal":
            heal_unit(state, seat, u, fx.amount, card)
        elif op == "destroy":
            u.hp = min(u.hp, 0)
        elif op == "buff":
            new_atk = max(0, u.atk + fx.atk)
            applied_atk, u.atk = new_atk - u.atk, new_atk
            u.hp += fx.hp
            u.max_hp += fx.hp
            if fx.until == "end_of_turn":
                state.temp.append((u.uid, applied_atk, fx.hp))
            if ev is not None:
                ev.emit(state.turn, seat, K.BUFF, card, u.card, applied_atk, lane,
                        f"{applied_atk:+d}/{fx.hp:+d} {fx.until}")
