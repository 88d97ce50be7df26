"""The turn: the opening-hand redraw, the start of a turn (stand up, Authority, draw, POISON and
BURN, turn-start abilities, Continuous Ambushes offered to the other seats), the phases, and the
end of a turn (turn-end abilities, discarding down to the hand limit, UNDEAD rising, CHARM ending,
timed changes and statuses running out)."""
from __future__ import annotations

from sim.alleyway import field, hidden
from sim.alleyway.brawl import PASS, spring, springable
from sim.alleyway.field import emit
from sim.alleyway.frames import EndTurnFrame, OfferFrame
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.resolve import run, take_choice
from sim.alleyway.state import (
    BRAWL,
    DEFEATED,
    DEPLOYMENT,
    ENDING,
    MULLIGAN,
    ON_FIELD,
    REGROUP,
    AlleyState,
    Pending,
    back_slot,
    decode,
)
from sim.core.rng import stream
from sim.core.setup import record_opening_hands
from sim.core.state import holds_turn, new_turn

# --- the opening hand ------------------------------------------------------------------------------

def begin_match(state: AlleyState) -> None:
    """Every seat may redraw its opening hand (``redraws`` times), in turn order; then turn 1."""
    state.phase = MULLIGAN
    _next_to_decide(state)


def mulligan(state: AlleyState, redraw: bool) -> None:
    seat = state.to_act
    side = state.sides[seat]
    if state.ledger is not None:  # a real match: which hand the seat kept goes into card_games
        state.ledger.mulligan(seat, redraw)
    if redraw:
        side.deck.extend(side.hand)
        side.hand.clear()
        if state.known:
            hidden.forget_hand(state, seat)
            hidden.forget_deck(state, seat)
        stream(state.chance_key, "redraw", seat, side.redraws).shuffle(side.deck)
        # the new hand is luck: making the turn's chance stream (no draw from it, so the match's
        # events are the same) tells lookahead so (lookahead.used_chance), and a pilot judges a
        # redraw over several imagined hands, not one
        state.rng()
        side.redraws -= 1
        n = min(state.pool.consts.opening_hand, len(side.deck))
        for _ in range(n):
            side.hand.append(side.deck.pop())
        emit(state, seat, K.REDRAW, amount=n)
    else:
        side.redraws = 0
    _next_to_decide(state)


def _next_to_decide(state: AlleyState) -> None:
    """The first seat in turn order that may still redraw decides next; when none, turn 1."""
    n = len(state.sides)
    for k in range(n):
        seat = (state.first + k) % n
        if state.sides[seat].redraws > 0:
            state.to_act = seat
            return
    _opening_done(state)


def _opening_done(state: AlleyState) -> None:
    record_opening_hands(state)
    begin_turn(state, state.first)
    run(state)


# --- the start of a turn ---------------------------------------------------------------------------

def authority_for(state: AlleyState, seat: int) -> int:
    """1 to start and 1 more every turn, up to 15; going second, 1 extra on the first turn; TAX."""
    c = state.pool.consts
    side = state.sides[seat]
    amount = min(c.authority_cap, c.authority_start + c.authority_per_turn * (side.turns - 1))
    if side.turns == 1 and seat != state.first:
        amount += c.second_seat_bonus
    return max(0, amount - side.tax)


def begin_turn(state: AlleyState, seat: int) -> None:
    """Everything at the start of a turn that needs no decision; the abilities and offers it
    starts are left on the stack for ``run``."""
    consts = state.pool.consts
    new_turn(state, seat)
    state.phase = DEPLOYMENT
    state.once.clear()
    side = state.sides[seat]
    side.turns += 1
    hidden.remember_marked(state)
    side.barricade = 0  # BARRICADE lasts until this seat's next turn
    round_len = len(state.alive())
    for u in side.lanes:
        if u is None:
            continue
        if u.attacks or u.extra:  # owned (copied in a fork) only when this changes it
            u = state.own(u)
            u.attacks = u.extra = 0
        if u.downed and state.turn - u.down_turn >= round_len:
            field.stand(state, u)  # after a full round, back up in DEF
    side.authority = authority_for(state, seat)
    draws = consts.draw_per_turn
    if seat == state.boss:  # Turf Defense: the boss draws and gets Authority extra each turn
        boss, phase = state.boss_def, state.boss_phase
        side.authority += boss.extra_authority + boss.authority[phase]
        draws += boss.extra_draws + boss.draws[phase]
    side.tax = 0
    emit(state, seat, K.TURN_START, amount=side.authority)
    skip_draw = seat == state.first and side.turns == 1 and not consts.first_player_draws
    if not skip_draw:
        field.draw(state, seat, draws)
        if state.over or side.out:
            return  # (3+ seats: it decked out; ``run`` passes its turn on)
    for u in side.units():
        tick(state, u)
        if state.over:
            return
    for u in side.units():
        u = state.own(u)
        u.turns_on += 1
        field.check_promotion(state, u)
    others = tuple(state.opponents(seat))
    if others:
        state.stack.append(OfferFrame(others, 0))
    field.fire_side(state, seat, "turn_start")


def tick(state: AlleyState, u) -> None:
    """POISON and BURN at the start of the owner's turn, for 3 of its turns."""
    if not (u.poison or u.burn):
        return
    u = state.own(u)
    if u.poison:
        u.mod_atk -= u.poison
        field.refresh(u)
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, u.seat, K.STATUS, u.card, amount=u.poison, lane=u.lane, detail=f"poison p{u.seat}")
        u.poison_left -= 1
        if u.poison_left <= 0:
            u.poison = 0
    if u.burn:
        # each seat's part of the burn costs its Morale apart, and counts toward that seat's
        # ``burn_dealt`` (Cinder's AWAKEN) when the seat burning is an opponent: another seat's
        # BURN or STOKE on the same character is not its (RULES.md, BURN)
        for by, amount in u.burn_by:
            if by >= 0 and state.sides[by].out:
                by = -1  # an out seat's effects stop: its burn still burns, for nobody (RULES.md, BURN)
            lost = field.lose_morale(state, u.seat, amount, by=by, cause="burn")
            if 0 <= by != u.seat:
                state.sides[by].burn_dealt += lost
        u.burn_left -= 1
        if u.burn_left <= 0:
            u.burn = 0
            u.burn_by = ()


# --- Continuous Ambushes offered to the other seats -------------------------------------------------

def flippable(state: AlleyState, seat: int) -> list[int]:
    """Face-down Continuous Ambushes ``seat`` may flip without an attack: set since an earlier
    turn, not JAMmed, affordable."""
    return springable(state, seat, without_attack=True)


def offer(state: AlleyState) -> None:
    """Offer the other seats their Continuous Ambushes (after the active seat deploys)."""
    others = tuple(state.opponents(state.active))
    if others:
        state.stack.append(OfferFrame(others, 0))


def step_offer(state: AlleyState, frame: OfferFrame) -> bool:
    seats, i = frame.seats, frame.index
    while i < len(seats):
        slots = flippable(state, seats[i])
        if slots:
            frame.index = i
            state.pending = Pending(seats[i], "offer", slots + [PASS])
            return True
        i += 1
    state.stack.pop()
    return False


def choose_offer(state: AlleyState, option: int) -> None:
    p = take_choice(state, option)
    frame = state.stack[-1]
    if option == PASS:
        frame.index += 1
    else:
        spring(state, p.seat, back_slot(option), foe=0)
    run(state)


# --- phases and the end of a turn ----------------------------------------------------------------

NEXT_PHASE = {DEPLOYMENT: BRAWL, BRAWL: REGROUP}


def next_phase(state: AlleyState) -> None:
    if state.phase == REGROUP:
        state.phase = ENDING
        state.stack.append(EndTurnFrame(0))
        run(state)
    else:
        state.phase = NEXT_PHASE[state.phase]


def step_end(state: AlleyState, frame: EndTurnFrame) -> bool:
    stage = frame.stage
    if stage == 0:
        frame.stage = 1
        field.fire_side(state, state.active, "turn_end")
        return False
    if stage == 1:
        side = state.sides[state.active]
        if len(side.hand) > state.pool.consts.hand_limit:
            state.pending = Pending(state.active, "limit", sorted(set(side.hand)))
            return True
        frame.stage = 2
        return False
    state.stack.pop()
    cleanup(state)
    nxt = state.next_seat(state.active)
    if nxt >= 0 and not holds_turn(state, nxt):
        begin_turn(state, nxt)
    return False


def end_turn_of_the_out(state: AlleyState) -> None:
    """With three or more seats, the active seat went out (Morale 0, an empty deck) and the match
    goes on: its turn stops at once, nothing more of it resolves (no pending choice, no end-of-turn
    abilities), the turn's timed changes run out, and the next seat still playing begins."""
    state.stack.clear()
    state.pending = None
    cleanup(state)
    nxt = state.next_seat(state.active)
    if not holds_turn(state, nxt):
        begin_turn(state, nxt)


def choose_limit(state: AlleyState, card: int) -> None:
    p = take_choice(state, card)
    field.to_gutter_from_hand(state, p.seat, card, "hand limit")
    run(state)


def cleanup(state: AlleyState) -> None:
    """The end of the turn: UNDEAD rises, CHARM ends, "until the end of the turn" and "of your
    next turn" changes and timed statuses of the ending seat run out, JAM too."""
    for rising in state.risen:
        rise(state, rising.owner, rising.card, rising.under)
    state.risen.clear()
    for side in state.sides:
        for u in side.units():
            if u.charm_home >= 0:
                uncharm(state, u)
    seat = state.active
    turns = state.sides[seat].turns
    if state.temp:
        keep = []
        for entry in state.temp:
            if entry.seat == seat and turns >= entry.last:
                u = state.find(entry.uid)
                if u is not None:
                    u = state.own(u)
                    u.tmp_atk -= entry.atk
                    u.tmp_def -= entry.df
                    field.refresh(u)
            else:
                keep.append(entry)
        state.temp = keep
    side = state.sides[seat]
    field.touch(state)
    for u in side.units():
        if not ((u.freeze and u.freeze <= turns) or (u.stasis and u.stasis <= turns)
                or (u.silence and u.silence <= turns) or (u.suppress and u.suppress <= turns)
                or (u.stun and u.stun <= turns)):
            continue  # nothing ends: not owned (copied in a fork)
        u = state.own(u)
        if u.freeze and u.freeze <= turns:
            u.freeze = 0
        if u.stasis and u.stasis <= turns:
            u.stasis = 0
        if u.silence and u.silence <= turns:
            u.silence = 0
        if u.suppress and u.suppress <= turns:
            u.suppress = u.sup_atk = 0
            field.refresh(u)
        if u.stun and u.stun <= turns:
            u.stun = 0
    if side.jam and side.jam <= turns:
        side.jam = 0


def rise(state: AlleyState, owner: int, card: int, under: tuple = ()) -> None:
    """UNDEAD: the first time it's KO'd it rises from the Gutter at the end of the turn, in DEF,
    with half its ATK and DEF; a promoted Striver with the lower levels that went to the Gutter
    with it (``under``, those still there) under it again."""
    side = state.sides[owner]
    lane = field.empty_lane(state, owner)
    is_leader = card == side.leader
    if lane < 0 or side.out or (is_leader and side.leader_state != DEFEATED) or \
            (not is_leader and card not in side.gutter):
        return
    if is_leader:
        side.leader_state = ON_FIELD  # a KO'd UNDEAD leader (Veyr) rises too
    else:
        side.gutter.remove(card)
    u = field.enter(state, owner, card, lane, False)
    if under:
        back = tuple(c for c in under if c in side.gutter)
        for c in back:
            side.gutter.remove(c)
        u.under = back
    frac = state.pool.consts.undead_fraction
    u.mod_atk = int(u.base_atk * frac) - u.base_atk
    u.mod_def = int(u.base_def * frac) - u.base_def
    u.undead_used = True
    field.refresh(u)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, owner, K.RISE, card, lane=lane, detail=f"{u.atk}/{u.df}")


def uncharm(state: AlleyState, u) -> None:
    """CHARM ends: it goes back to its owner's row (its own lane if free), or to the Gutter when
    that row is full (a token vanishes instead: "it never goes to the Gutter")."""
    u = state.own(u)
    home_seat, home_lane = decode(u.charm_home)
    u.charm_home = -1
    field.touch(state)
    state.sides[u.seat].lanes[u.lane] = None
    home = state.sides[home_seat]
    lane = home_lane if home.lanes[home_lane] is None else field.empty_lane(state, home_seat)
    u.seat = home_seat
    if lane < 0:
        u.lane = home_lane
        if not u.token:
            home.gutter.extend(u.under + (u.card,))
        field.detach_all(state, u.uid)
        emit(state, home_seat, K.TO_GUTTER, u.card, detail="charm ended, row full")
        return
    u.lane = lane
    home.lanes[lane] = u
    emit(state, home_seat, K.CHARM, u.card, lane=lane, detail="returns")


__all__ = ["begin_match", "mulligan", "begin_turn", "next_phase", "step_offer", "step_end", "choose_offer",
           "choose_limit", "offer", "ENDING"]
