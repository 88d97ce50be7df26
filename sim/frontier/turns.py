"""The turn: Draw, Resource, Action and End phases, drawing and the deck-out loss."""
from __future__ import annotations

from sim.core.state import holds_turn, new_turn
from sim.frontier.draw import draw_card
from sim.frontier.effects import finish, run_stack
from sim.frontier.kinds import KINDS as K
from sim.frontier.pool import DOUBLE_BARREL
from sim.frontier.state import ACTION, DRAW, END, RESOURCE, Frame, FrontierState


def attacks_per_turn(kw: int) -> int:
    return 2 if kw & DOUBLE_BARREL else 1


def start_turn(state: FrontierState, seat: int) -> None:
    consts = state.pool.consts
    new_turn(state, seat)
    side = state.own_side(seat)
    side.turns += 1
    ev = state.events

    state.phase = DRAW
    first_turn_of_first_player = side.turns == 1 and seat == 0
    if consts.first_player_draws or not first_turn_of_first_player:
        if not side.deck:
            if ev is not None:
                ev.emit(state.turn, seat, K.DECK_OUT)
            finish(state, state.opponent(seat), "deck_out")
            return
        draw_card(state, seat)

    state.phase = RESOURCE
    side.mana = side.turns + side.mana_bonus  # Reedwick's Mana from broken Cover comes now
    if seat > 0 and side.turns <= consts.second_seat_bonus_mana_turns:
        side.mana += 1
    side.mana_bonus = 0
    carried = side.gold if consts.gold_carries_over else 0
    side.gold = carried + consts.gold_per_turn + side.gold_bonus * consts.gold_per_damage_instance
    sheriff = state.pool.sheriffs[side.sheriff]
    side.gold += sheriff_gold(sheriff, side.turns)
    side.gold_bonus = 0
    if ev is not None:
        ev.emit(state.turn, seat, K.TURN_START, amount=side.mana, detail=f"gold={side.gold}")

    state.phase = ACTION
    side.attacked = False
    side.trims_left = sheriff.trims_per_turn if side.turns % 2 == 0 else 0  # Cogsworth's even turns
    for u in side.lanes:
        if u is not None:
            u = state.own(u)
            # a creature Stampede shoved loses its next attack(s)
            u.attacks_left = max(0, attacks_per_turn(u.kw) - u.skip)
            u.skip = 0
    _unit_triggers(state, seat, "on_turn_start")


def opening_hand_size(pool, seat: int, sheriff: int) -> int:
    """The sheriff's opening hand (Zix's is bigger), and any extra cards a rules version gives the
    seats acting later."""
    consts = pool.consts
    return pool.sheriffs[sheriff].opening_hand + (consts.second_seat_extra_cards if seat > 0 else 0)


def sheriff_gold(sheriff, turns: int) -> int:
    """A sheriff's extra Gold at the Resource Phase of its ``turns``-th own turn: every few turns
    (Calloway's every third), on the first turn (Cogsworth's)."""
    gold = sheriff.first_turn_gold if turns == 1 else 0
    if sheriff.gold_every and turns % sheriff.gold_every == 0:
        gold += sheriff.gold
    return gold


def end_turn(state: FrontierState) -> None:
    """The End Phase: end-of-turn triggers first (they may ask for a target), then finish."""
    state.phase = END
    _unit_triggers(state, state.active, "on_turn_end")
    if state.pending is None and not state.over:
        finish_turn(state)


def finish_turn(state: FrontierState) -> None:
    """"Until end of turn" effects expire; play passes to the next seat."""
    for uid, atk, hp, kw in state.temp:
        u = state.find_uid(uid)
        if u is None:
            continue
        u = state.own(u)
        u.atk = max(0, u.atk - atk)
        u.max_hp -= hp
        u.hp = min(u.hp, u.max_hp) if hp > 0 else u.hp - hp
        u.kw &= ~kw  # granted keywords the creature did not have before
    state.temp.clear()
    nxt = state.opponent(state.active)
    if not holds_turn(state, nxt):
        start_turn(state, nxt)


def _unit_triggers(state: FrontierState, seat: int, trigger: str) -> None:
    cards = state.pool.cards
    # pushed last lane first, so the stack resolves them in lane order
    for u in reversed(state.sides[seat].lanes):
        if u is None:
            continue
        effects = getattr(cards[u.card], trigger)
        if effects:
            state.stack.append(Frame(seat, u.uid, u.card, u.lane, effects))
    if state.stack:
        run_stack(state)

