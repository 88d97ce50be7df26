"""The effect vocabulary at work: targets, damage, healing, deaths and Last Stand, the resolution
stack and the choices it waits on, and the win check. Card behaviour is data (pool.Fx); this
module is the only place that knows what each effect does."""
from __future__ import annotations

from sim.core.card_ids import NO_ID, SEAT
from sim.core.ending import finish as end_match
from sim.frontier.draw import draw_card
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import DEPUTY, FERAL, FLIP_CHARGED, IRONCLAD, LAST_STAND, MIDDLE_TIER, SPELL, WANTED
from sim.frontier.state import (
    LANE_OF,
    MODE,
    OVERDRIVE,
    PASS,
    SEAT_OF,
    SHERIFF,
    Frame,
    FrontierState,
    Pending,
    TempChange,
    Unit,
    code,
    replaced,
)

SHERIFF_TARGET = SEAT  # "the sheriff" in an event's target column
NO_TARGET_OPS = ("draw", "gain_gold", "flip")


# --- damage, healing, deaths ---------------------------------------------------------------------

def hit_sheriff(state: FrontierState, source_seat: int, seat: int, amount: int, card: int) -> None:
    """Damage a sheriff. Each instance dealt to an enemy earns its dealer Gold next turn.
    A sheriff's damage reduction (Ironhold) applies to every instance; a hit reduced to 0 is no
    instance."""
    amount -= state.pool.sheriffs[state.sides[seat].sheriff].damage_reduction
    if amount <= 0:
        return
    side = state.own_side(seat)
    side.hp -= amount
    if seat != source_seat:
        state.own_side(source_seat).gold_bonus += 1
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, source_seat, K.DAMAGE, card, SHERIFF_TARGET, amount, NO_ID, f"p{seat}")


def hit_unit(state: FrontierState, source_seat: int, unit: Unit, amount: int, card: int,
             detail: str | None = None, shaved: bool = True) -> int:
    """Damage a creature (made writable by the caller: ``state.own``); returns the damage dealt.
    Spell damage is shaved by Ironclad, unless ``shaved`` is false (the fixed damage Ironclad
    takes from a destroy effect is already its own rule's number)."""
    if shaved and card >= 0 and unit.kw & IRONCLAD and state.pool.cards[card].type == SPELL:
        amount -= state.pool.consts.ironclad_spell_reduction
    if amount <= 0:
        return 0
    unit.hp -= amount
    ev = state.events
    if ev is not None:
        ev.emit(state.turn, source_seat, K.DAMAGE, card, unit.card, amount, unit.lane, detail)
    return amount


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
        side = state.own_side(target_seat)
        side.hp += gained
        if state.events is not None:
            state.events.emit(state.turn, seat, K.HEAL, card, SHERIFF_TARGET, gained, NO_ID, f"p{target_seat}")


def break_cover(state: FrontierState, attacker_seat: int, seat: int, lane: int, card: int) -> None:
    """An attack breaks one Cover Token; a sheriff with Mana per broken Cover (Reedwick) banks it
    for the next turn."""
    side = state.own_side(seat)
    side.cover = replaced(side.cover, lane, side.cover[lane] - 1)
    side.mana_bonus += state.pool.sheriffs[side.sheriff].mana_per_cover_broken
    if state.events is not None:
        state.events.emit(state.turn, attacker_seat, K.COVER_HIT, card, -1, 1, lane, f"p{seat}")


def process_deaths(state: FrontierState) -> None:
    """Remove every creature at 0 Defense or less (active seat first, lane by lane) and put its
    Last Stand on the stack. A destroyed Deputy goes back to its owner's Deputy Zone, where it
    rests before it can be summoned again (RULES.md, "Deputies")."""
    if not _anyone_dead(state):
        return  # most calls: a quick scan, no removal loop
    n = len(state.sides)
    cards = state.pool.cards
    for k in range(n):
        seat = (state.active + k) % n
        side = state.sides[seat]
        lanes = side.lanes
        for lane in range(len(lanes)):
            u = lanes[lane]
            if u is None or u.hp > 0:
                continue
            side = state.own_side(seat)  # the seat changes (the same lanes, now its own)
            lanes = side.lanes
            lanes[lane] = None
            ev = state.events
            if cards[u.card].type == DEPUTY:
                slot = side.deputies.index(u.card)
                side.dzone = replaced(side.dzone, slot, side.turns + 1 + state.pool.consts.deputy_rest_turns)
                if ev is not None:
                    ev.emit(state.turn, seat, K.DESTROY, u.card, NO_ID, 0, lane, "deputy")
                    ev.emit(state.turn, seat, K.DEPUTY_RETURN, u.card, NO_ID, side.dzone[slot], lane)
            else:
                side.discard = side.discard + [u.card]
                if ev is not None:
                    ev.emit(state.turn, seat, K.DESTROY, u.card, NO_ID, 0, lane)
            if u.kw & LAST_STAND:
                effects = cards[u.card].on_destroyed
                if effects:
                    state.stack.append(Frame(seat, u.uid, u.card, lane, effects))


def _anyone_dead(state: FrontierState) -> bool:
    for side in state.sides:
        for u in side.lanes:
            if u is not None and u.hp <= 0:
                return True
    return False


def check_winner(state: FrontierState) -> None:
    if state.over:
        return
    for side in state.sides:
        if side.hp <= 0:
            break
    else:
        return  # nobody fell: the common case, without building the list
    fallen = [seat for seat, side in enumerate(state.sides) if side.hp <= 0]
    alive = [seat for seat in range(len(state.sides)) if seat not in fallen]
    finish(state, alive[0] if len(alive) == 1 else None, "hp")


def finish(state: FrontierState, winner: int | None, reason: str) -> None:
    """The match ends (sim.core.ending); the effects still stacked never resolve."""
    state.stack.clear()
    end_match(state, winner, reason, K.GAME_OVER)


# --- targets -------------------------------------------------------------------------------------

def _sides(state: FrontierState, seat: int, side: str) -> list[int]:
    if side == "friendly":
        return [seat]
    if side == "enemy":
        return [s for s in range(len(state.sides)) if s != seat]
    return list(range(len(state.sides)))


def can_single_target(seat: int, u: Unit) -> bool:
    """May an effect of ``seat`` pick this creature alone? Not a Wanted one (from anyone), not a
    Feral one of its own side, not an enemy's fresh High-Rise one."""
    if u.kw & WANTED:
        return False
    if u.owner == seat:
        return not u.kw & FERAL
    return not u.fresh


def candidates(state: FrontierState, seat: int, fx, src_uid: int, src_lane: int) -> list[int]:
    """Options an effect of ``seat`` may take: target codes, or for the engine's own choices
    (Overdrive, Stampede's shove, a modal effect's modes) the option codes in state.py.
    Single-target picks (chosen, random, opposing) respect Wanted, Feral and High-Rise dodging;
    board-wide picks ("all") and lane effects reach every creature."""
    pool = state.pool
    op = fx.op
    if op == "overdrive":
        u = state.find_uid(src_uid)
        return [OVERDRIVE, PASS] if u is not None and state.sides[seat].gold >= fx.amount else []
    if op == "shove":
        u = state.find_uid(src_uid)  # the defender being shoved
        if u is None or u.lane >= pool.n_middle:
            return []
        lanes = state.sides[u.owner].lanes
        free = [code(u.owner, lane) for lane in range(pool.n_middle) if lanes[lane] is None]
        return free + [PASS] if free else []
    if op == "modal":
        return [MODE - i for i, mode in enumerate(fx.modes)
                if has_targets(state, seat, mode, src_uid, src_lane)]
    pick, kind = fx.pick, fx.kind
    if pick == "self":
        u = state.find_uid(src_uid) if src_uid >= 0 else None
        return [code(u.owner, u.lane)] if u is not None else []
    if pick == "opposing":
        if src_lane < 0 or src_lane >= pool.n_middle:
            return []
        out = []
        for s in _sides(state, seat, "enemy"):
            u = state.sides[s].lanes[src_lane]
            if u is not None and not u.kw & WANTED:
                out.append(code(s, src_lane))
        return out
    if kind == "lane":
        return _lane_candidates(state, seat, fx, src_lane)
    single = pick in ("chosen", "random")
    tier = fx.tier
    out = []
    for s in _sides(state, seat, fx.side):
        if kind in ("creature", "character"):
            for u in state.sides[s].lanes:
                if u is None:
                    continue
                if single and not can_single_target(seat, u):
                    continue
                if tier and (u.lane < pool.n_middle) != (tier == MIDDLE_TIER):
                    continue
                out.append(code(s, u.lane))
        if kind in ("sheriff", "character"):
            out.append(code(s, SHERIFF))
    return out


def _lane_candidates(state: FrontierState, seat: int, fx, src_lane: int) -> list[int]:
    """Lanes: for Cover, friendly middle lanes with room; for any other effect, middle lanes
    holding a creature of the sides it names (a lane choice is coded with the first such side)."""
    pool = state.pool
    if fx.pick == "own":
        lanes = [src_lane] if 0 <= src_lane < pool.n_middle else []
    else:
        lanes = range(pool.n_middle)
    sides = _sides(state, seat, fx.side)
    if fx.op == "cover":
        room = pool.consts.max_cover_per_lane
        cover = state.sides[seat].cover
        return [code(seat, lane) for lane in lanes if cover[lane] < room or fx.pick == "all"]
    return [code(sides[0], lane) for lane in lanes
            if any(state.sides[s].lanes[lane] is not None for s in sides)]


def has_targets(state: FrontierState, seat: int, effects: tuple, src_uid: int = -1, src_lane: int = -1) -> bool:
    """Each chosen-target effect has an option now (a spell, an off-board ability or a mode that
    has none cannot be used)."""
    for fx in effects:
        if fx.pick != "chosen":
            continue
        kind = fx.kind
        if kind == "character" or kind == "sheriff":
            continue  # a sheriff is always there to pick
        if kind == "creature" and not fx.tier:
            if not _any_creature(state, seat, fx.side):
                return False
        elif not candidates(state, seat, fx, src_uid, src_lane):
            return False
    return True


def _any_creature(state: FrontierState, seat: int, side: str) -> bool:
    """Is there a creature of these sides that a single-target effect of ``seat`` may pick?"""
    for s in _sides(state, seat, side):
        for u in state.sides[s].lanes:
            if u is not None and can_single_target(seat, u):
                return True
    return False


# --- resolution ----------------------------------------------------------------------------------

def run_effects(state: FrontierState, seat: int, src_uid: int, src_card: int, src_lane: int,
                effects: tuple) -> None:
    if effects:
        state.stack.append(Frame(seat, src_uid, src_card, src_lane, effects))
        run_stack(state)


def run_stack(state: FrontierState) -> None:
    """Resolve effect frames until the stack is empty or a seat must choose."""
    stack = state.stack
    while stack and not state.over:
        frame = stack[-1]
        effects, i = frame.effects, frame.next
        if i >= len(effects):
            stack.pop()
            continue
        frame.next = i + 1
        fx = effects[i]
        seat = frame.seat
        if fx.op in NO_TARGET_OPS:
            targets: list[int] = []
        else:
            targets = candidates(state, seat, fx, frame.uid, frame.lane)
            if not targets:
                if state.events is not None and not fx.quiet:
                    state.events.emit(state.turn, seat, K.FIZZLE, frame.card, detail=fx.op)
                continue
            if fx.pick == "chosen" and len(targets) > 1:
                state.pending = Pending(seat, fx, tuple(targets), frame.uid, frame.card, frame.lane)
                state.to_act = seat
                return
            if fx.pick == "random" and len(targets) > 1:
                targets = [targets[state.rng().randrange(len(targets))]]
        apply_effect(state, seat, fx, targets, frame.card, frame.uid, frame.lane)
        process_deaths(state)
        check_winner(state)
    state.to_act = state.active


def choose(state: FrontierState, target: int) -> None:
    """Finish the pending effect with the chosen option, then resume the stack."""
    seat, fx, options, uid, card, lane = state.pending
    if target not in options:
        raise ValueError(f"option {target} is not among the options {options}")
    state.pending = None
    if state.events is not None:
        _log_choice(state, seat, fx, target, card)
    apply_effect(state, seat, fx, [target], card, uid, lane)
    process_deaths(state)
    check_winner(state)
    run_stack(state)


def _log_choice(state: FrontierState, seat: int, fx, target: int, card: int) -> None:
    if target < 0:
        state.events.emit(state.turn, seat, K.CHOOSE, card, NO_ID, target, NO_ID, fx.op)
        return
    t_seat, lane = SEAT_OF[target], LANE_OF[target]
    unit = state.sides[t_seat].lanes[lane] if lane != SHERIFF and fx.kind != "lane" and fx.op != "shove" else None
    state.events.emit(state.turn, seat, K.CHOOSE, card,
                      unit.card if unit is not None else SHERIFF_TARGET if lane == SHERIFF else NO_ID,
                      0, NO_ID if lane == SHERIFF else lane, f"p{t_seat}")


def apply_effect(state: FrontierState, seat: int, fx, targets: list[int], card: int,
                 src_uid: int = -1, src_lane: int = -1) -> None:
    op = fx.op
    ev = state.events
    if op == "draw":
        for _ in range(fx.amount):
            if state.sides[seat].deck:
                draw_card(state, seat)
        return
    if op == "gain_gold":
        state.own_side(seat).gold += fx.amount
        if ev is not None:
            ev.emit(state.turn, seat, K.GOLD_GAIN, card, NO_ID, fx.amount)
        return
    if op == "flip":
        fire_flip(state, seat, src_uid, card)
        return
    if op in ("modal", "overdrive", "shove"):
        _apply_choice(state, seat, fx, targets[0], card, src_uid, src_lane)
        return
    for target in targets:
        t_seat, lane = SEAT_OF[target], LANE_OF[target]
        if op == "cover":
            side = state.own_side(t_seat)
            room = state.pool.consts.max_cover_per_lane - side.cover[lane]
            added = min(fx.amount, room)
            if added > 0:
                side.cover = replaced(side.cover, lane, side.cover[lane] + added)
                if ev is not None:
                    ev.emit(state.turn, seat, K.COVER_UP, card, NO_ID, added, lane)
            continue
        if lane == SHERIFF:
            if op == "damage":
                hit_sheriff(state, seat, t_seat, fx.amount, card)
            elif op == "heal":
                heal_sheriff(state, seat, t_seat, fx.amount, card)
            continue
        if fx.kind == "lane":  # every creature of the named sides in that lane
            units = [state.sides[s].lanes[lane] for s in _sides(state, seat, fx.side)]
        else:
            units = [state.sides[t_seat].lanes[lane]]
        for u in units:
            if u is not None and u.hp > 0:  # not one that died earlier in this same effect
                _apply_to_unit(state, seat, fx, state.own(u), card)


def _apply_to_unit(state: FrontierState, seat: int, fx, u: Unit, card: int) -> None:
    """``u`` is writable (``state.own``)."""
    op = fx.op
    ev = state.events
    if op == "damage":
        hit_unit(state, seat, u, fx.amount, card)
    elif op == "heal":
        heal_unit(state, seat, u, fx.amount, card)
    elif op == "destroy":
        if u.kw & IRONCLAD:  # Ironclad: a destroy effect only deals its fixed damage, a spell's too
            hit_unit(state, seat, u, state.pool.consts.ironclad_destroy_damage, card, "ironclad", shaved=False)
        else:
            u.hp = min(u.hp, 0)
    elif op == "buff":
        new_atk = max(0, u.atk + fx.atk)
        applied_atk, u.atk = new_atk - u.atk, new_atk
        u.hp += fx.hp
        u.max_hp += fx.hp
        if fx.until == "end_of_turn":
            state.temp.append(TempChange(u.uid, applied_atk, fx.hp, 0))
        if ev is not None:
            ev.emit(state.turn, seat, K.BUFF, card, u.card, applied_atk, u.lane,
                    f"{applied_atk:+d}/{fx.hp:+d} {fx.until}")
    elif op == "grant":
        added = fx.kw & ~u.kw
        u.kw |= fx.kw
        if fx.until == "end_of_turn":
            if added:
                state.temp.append(TempChange(u.uid, 0, 0, added))
        elif state.temp:  # a lasting grant of a keyword this turn gave "until end of turn": it stays
            state.temp = [t._replace(kw=t.kw & ~fx.kw) if t.uid == u.uid and t.kw & fx.kw else t for t in state.temp]
        if ev is not None:
            ev.emit(state.turn, seat, K.GRANT, card, u.card, added, u.lane, fx.until)
    else:
        raise ValueError(f"effect {op!r} has no meaning for a creature")


def _apply_choice(state: FrontierState, seat: int, fx, option: int, card: int, src_uid: int,
                  src_lane: int) -> None:
    ev = state.events
    if fx.op == "modal":
        mode = MODE - option
        state.stack.append(Frame(seat, src_uid, card, src_lane, fx.modes[mode]))
        return
    if option == PASS:
        return
    u = state.own(state.find_uid(src_uid))
    if fx.op == "overdrive":  # pay the extra Gold for the boost
        state.own_side(seat).gold -= fx.amount
        u.atk += fx.atk
        u.hp += fx.hp
        u.max_hp += fx.hp
        if ev is not None:
            ev.emit(state.turn, seat, K.OVERDRIVE, card, u.card, fx.amount, u.lane, f"+{fx.atk}/+{fx.hp}")
    elif fx.op == "shove":  # Stampede: the defender moves and loses its next attack
        lanes = state.own_side(u.owner).lanes  # u was owned, and so its seat: the same lanes
        old, new = u.lane, LANE_OF[option]
        lanes[old], lanes[new] = None, u
        u.lane = new
        u.skip += state.pool.consts.stampede_lost_attacks
        if ev is not None:
            ev.emit(state.turn, seat, K.SHOVE, card, u.card, new, old, f"p{u.owner}")


def fire_flip(state: FrontierState, seat: int, src_uid: int, card: int) -> None:
    """A Flip: every other friendly Flip-Charged creature not yet charged charges, and its
    'when: charged' ability resolves (in lane order)."""
    frames = []
    for u in state.own_side(seat).lanes:
        if u is None or u.uid == src_uid or not u.kw & FLIP_CHARGED or u.charged:
            continue
        u = state.own(u)
        u.charged = True
        if state.events is not None:
            state.events.emit(state.turn, seat, K.CHARGE, card, u.card, 0, u.lane)
        effects = state.pool.cards[u.card].on_charged
        if effects:
            frames.append(Frame(seat, u.uid, u.card, u.lane, effects))
    state.stack.extend(reversed(frames))
    if state.events is not None:
        state.events.emit(state.turn, seat, K.FLIP, card, NO_ID, len(frames))

