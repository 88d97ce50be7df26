"""What the active seat does on its turn besides attacking: deploy a character (over one of its
own when the row is full), a Heavy on its sacrifices, set a card face-down, play a Hustle (an Equip
onto a character, a Continuous one into the back row), activate a set Hustle or flip a Continuous
Ambush, switch a position, ACTIVATE a character, use a Gutter ability, AWAKEN the leader, pay for a
PROMOTE. Costs with a discard or a sacrifice are chosen first (a frames.CostFrame)."""
from __future__ import annotations

from sim.alleyway import field, hidden, targets, turns
from sim.alleyway.brawl import spring
from sim.alleyway.field import GUTTER, emit
from sim.alleyway.frames import CostFrame, Ctx, EffectsFrame, EquipChoice
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.pool import AMBUSH, HUSTLE
from sim.alleyway.resolve import push_effects, run, take_choice
from sim.alleyway.state import BACK_BASE, ON_FIELD, AlleyState, Back, GutterUse, Pending, code

# --- characters ------------------------------------------------------------------------------------


def pay_from_hand(state: AlleyState, seat: int, card_id: int) -> int:
    """Take a card from hand, pay its Authority (after discounts), count it as played."""
    side = state.sides[seat]
    cost = field.cost_of(state, seat, state.pool.cards[card_id])
    side.hand.remove(card_id)
    if state.known:
        hidden.left_hand(state, seat, card_id)
    side.authority -= cost
    if state.ledger is not None:
        state.ledger.play(seat, card_id, side.turns)
    return cost


def deploy(state: AlleyState, card_id: int, atk_pos: bool, lane: int) -> None:
    """Pay its Authority and put it in the lane; a character already there (a full row) goes to
    the Gutter. Then its "when deployed" abilities, and the other seats' Continuous Ambush offer."""
    seat = state.active
    side = state.sides[seat]
    cost = pay_from_hand(state, seat, card_id)
    old = side.lanes[lane]
    if old is not None:
        field.leave(state, old, GUTTER, by=seat)
    _enter_from_hand(state, seat, card_id, lane, atk_pos, cost, K.DEPLOY, "")


def heavy(state: AlleyState, card_id: int, atk_pos: bool, mask: int) -> None:
    """A Heavy sacrifices the characters in the lanes of ``mask`` (to the Gutter; a token
    vanishes unless REMAINS) and takes the first of their lanes."""
    seat = state.active
    side = state.sides[seat]
    cost = pay_from_hand(state, seat, card_id)
    lanes = [lane for lane in range(len(side.lanes)) if mask >> lane & 1]
    for lane in lanes:
        field.leave(state, side.lanes[lane], GUTTER, sacrificed=True, by=seat)
    names = ",".join(state.pool.lane_names[lane] for lane in lanes)
    _enter_from_hand(state, seat, card_id, lanes[0], atk_pos, cost, K.HEAVY, f" sacrificed {names}")


def _enter_from_hand(state, seat, card_id, lane, atk_pos, cost, kind, note) -> None:
    u = field.enter(state, seat, card_id, lane, atk_pos)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, kind, card_id, amount=cost, lane=lane,
             detail=f"{u.atk}/{u.df} {'atk' if atk_pos else 'def'}{note}")
    turns.offer(state)              # resolves after the deploy abilities on top of it
    field.fire(state, u, "deployed")
    run(state)


def switch(state: AlleyState, lane: int) -> None:
    u = state.own(state.sides[state.active].lanes[lane])
    u.atk_pos = not u.atk_pos
    u.switched = state.turn
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, state.active, K.SWITCH, u.card, lane=lane, detail="atk" if u.atk_pos else "def")


def can_switch(state: AlleyState, u) -> bool:
    """Once per turn, not Downed, FROZEN or in STASIS; after it attacked this turn only with
    ``switch_after_attack`` (base rules, as the guide says; false in switch-before-attacking)."""
    if u.downed or u.freeze or u.stasis or u.switched == state.turn:
        return False
    return not u.attacks or state.pool.consts.switch_after_attack


def awaken(state: AlleyState, atk_pos: bool, lane: int) -> None:
    """The leader takes the field like a character, at full strength (ZZZ unless it says not)."""
    seat = state.active
    side = state.sides[seat]
    old = side.lanes[lane]
    if old is not None:
        field.leave(state, old, GUTTER, by=seat)
    side.leader_state = ON_FIELD
    field.touch(state)
    u = field.enter(state, seat, side.leader, lane, atk_pos)
    if state.pool.cards[side.leader].ready_on_awaken:
        u.entered = 0
    if state.ledger is not None:
        state.ledger.play(seat, side.leader, side.turns)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.AWAKEN, side.leader, lane=lane, detail=f"{u.atk}/{u.df}")
    field.fire(state, u, "awakened")
    run(state)


def awaken_ready(state: AlleyState, seat: int) -> bool:
    side = state.sides[seat]
    if side.leader < 0 or side.leader_state != 0:
        return False
    kind, n = state.pool.cards[side.leader].awaken
    if kind == "own_turn":
        return side.turns >= n
    if kind == "morale_at_most":
        return side.morale <= n
    if kind == "gutter_characters":
        cards = state.pool.cards
        return sum(1 for c in side.gutter if cards[c].type == 0) >= n
    return getattr(side, {"kos": "kos", "coin_flips": "flips", "plundered": "plundered",
                          "burn_dealt": "burn_dealt"}[kind]) >= n


def paid_promote(state: AlleyState, lane: int) -> None:
    side = state.sides[state.active]
    u = side.lanes[lane]
    side.authority -= state.pool.cards[u.card].promote.count
    field.promote(state, u)
    run(state)


# --- Hustles and Ambushes --------------------------------------------------------------------------

def free_slot(state: AlleyState, seat: int) -> int:
    for slot, b in enumerate(state.sides[seat].back):
        if b is None:
            return slot
    return -1


def set_card(state: AlleyState, card_id: int) -> None:
    seat = state.active
    side = state.sides[seat]
    card = state.pool.cards[card_id]
    slot = free_slot(state, seat)
    side.hand.remove(card_id)
    if card.type == AMBUSH and state.pool.consts.ambush_cost_on == "set":
        side.authority -= field.cost_of(state, seat, card)
    side.back[slot] = Back(card_id, False, state.turn, 0, seat)
    hidden.set_from_hand(state, seat)  # which card went face-down, the others did not see
    if state.ledger is not None:
        state.ledger.play(seat, card_id, side.turns)
    emit(state, seat, K.SET, card_id, lane=BACK_BASE + slot)


def play_hustle(state: AlleyState, card_id: int) -> None:
    seat = state.active
    card = state.pool.cards[card_id]
    cost = pay_from_hand(state, seat, card_id)
    emit(state, seat, K.HUSTLE, card_id, amount=cost)
    cast(state, seat, card_id, free_slot(state, seat) if card.stays else -1)


def flip(state: AlleyState, slot: int) -> None:
    """On your turn: activate a set Hustle (paying its Authority now) or flip a Continuous Ambush
    set since an earlier turn."""
    seat = state.active
    side = state.sides[seat]
    b = side.back[slot]
    card = state.pool.cards[b.card]
    if card.type == AMBUSH:
        spring(state, seat, slot, foe=0)
        run(state)
        return
    cost = field.cost_of(state, seat, card)
    side.authority -= cost
    emit(state, seat, K.FLIP, b.card, amount=cost, lane=BACK_BASE + slot)
    if not card.stays:
        side.back[slot] = None
    cast(state, seat, b.card, slot if card.stays else -1)


def cast(state: AlleyState, seat: int, card_id: int, slot: int) -> None:
    """A Hustle's effects; then it goes to the Gutter, or stays face-up (Continuous) in ``slot``,
    or attaches to a character of yours (Equip) in ``slot``."""
    card = state.pool.cards[card_id]
    side = state.sides[seat]
    if card.equip is not None:
        side.back[slot] = Back(card_id, True, state.turn, 0, seat)  # face-up, waiting for its host
        field.touch(state)  # a face-up card is a source of auras and discounts
        hosts = equip_hosts(state, seat)
        if len(hosts) > 1:
            state.pending = Pending(seat, "equip", hosts, data=EquipChoice(card_id, slot))
            state.to_act = seat
            return
        attach(state, seat, card_id, slot, state.unit(hosts[0]))
        run(state)
        return
    if card.continuous:
        side.back[slot] = Back(card_id, True, state.turn, 0, seat)
        field.touch(state)
    else:
        side.gutter.append(card_id)
    for ab in reversed(card.triggers.get("played", ())):
        push_effects(state, Ctx(seat, card_id), ab.effects)
    run(state)


def equip_hosts(state: AlleyState, seat: int) -> list[int]:
    return [code(seat, u.lane) for u in state.sides[seat].lanes if u is not None and not u.stasis]


def attach(state: AlleyState, seat: int, card_id: int, slot: int, u) -> None:
    u = state.own(u)  # recompute_equips changes it: the event below reads the owned one
    state.sides[seat].back[slot] = Back(card_id, True, state.turn, u.uid, seat)
    field.recompute_equips(state, u)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.EQUIP, card_id, u.card, lane=u.lane, detail=f"{u.atk}/{u.df}")
    for ab in reversed(state.pool.cards[card_id].triggers.get("played", ())):
        push_effects(state, Ctx(seat, card_id, 0, 0, u.uid), ab.effects)


def choose_equip(state: AlleyState, option: int) -> None:
    p = take_choice(state, option)
    attach(state, p.seat, p.data.card, p.data.slot, state.unit(option))
    run(state)


def castable(state: AlleyState, seat: int, card, from_hand: bool) -> bool:
    """A Hustle can be played when it has room (a Continuous one or an Equip needs a back-row slot
    when it comes from the hand), an Equip a character to attach to, and each of its chosen
    targets (unless optional) a character to choose."""
    if card.stays and from_hand and free_slot(state, seat) < 0:
        return False
    if card.equip is not None:
        return bool(equip_hosts(state, seat))
    for ab in card.triggers.get("played", ()):
        for fx in ab.effects:
            if fx.target is not None and fx.target.pick == "chosen" and not fx.target.optional:
                if not targets.characters(state, fx, Ctx(seat, card.id)):
                    return False
    return True


# --- ACTIVATE and Gutter abilities -----------------------------------------------------------------

def can_pay(state: AlleyState, seat: int, ab, u=None) -> bool:
    side = state.sides[seat]
    if ab.authority > side.authority or (ab.morale and ab.morale >= side.morale):
        return False
    if ab.discard > len(side.hand):
        return False
    if ab.sacrifice > sum(1 for v in side.lanes if v is not None and (u is None or v.uid != u.uid)):
        return False
    if ab.no_attack and (u is None or u.attacks):
        return False
    return True


def activate(state: AlleyState, lane: int) -> None:
    seat = state.active
    side = state.sides[seat]
    u = state.own(side.lanes[lane])
    ab = state.pool.cards[u.card].activate
    u.acted = state.turn
    if ab.no_attack:
        u.no_attack = state.turn
    emit(state, seat, K.ACTIVATE, u.card, lane=lane)
    _pay(state, seat, ab, Ctx(seat, u.card, u.uid), exclude=u.uid)


def use_gutter(state: AlleyState, card_id: int) -> None:
    """Once per turn each (each card, each copy: until 2026-12-07 once per card name), on your
    turn; some cost the card itself, which is EXILED. A copy EXILED by its cost has left the
    Gutter, so nothing is recorded for it (the other copies there are other cards); a use that
    leaves the card in the Gutter is recorded, and ``gutter_ready`` counts those against the
    copies still there."""
    seat = state.active
    side = state.sides[seat]
    ab = state.pool.cards[card_id].gutter[0]
    emit(state, seat, K.GUTTER_USE, card_id)
    if ab.exile_self:
        side.gutter.remove(card_id)
        side.exile.append(card_id)
    else:
        state.once.append(GutterUse(seat, card_id))
    _pay(state, seat, ab, Ctx(seat, card_id), exclude=0)


def gutter_ready(state: AlleyState, seat: int, card_id: int) -> bool:
    """A copy in the Gutter not used this turn (copies are alike: the uses recorded this turn
    count against the copies there), and the cost can be paid."""
    ab = state.pool.cards[card_id].gutter
    if not ab:
        return False
    use = GutterUse(seat, card_id)
    if use in state.once and state.once.count(use) >= state.sides[seat].gutter.count(card_id):
        return False
    return can_pay(state, seat, ab[0])


def _pay(state: AlleyState, seat: int, ab, context: Ctx, exclude: int) -> None:
    side = state.sides[seat]
    side.authority -= ab.authority
    if ab.morale:
        field.lose_morale(state, seat, ab.morale, by=seat, cause="cost", cost=True)  # a price: no BARRICADE
    if ab.discard or ab.sacrifice:
        state.stack.append(CostFrame(context, ab, ab.discard, ab.sacrifice, exclude))
    else:
        state.stack.append(EffectsFrame(context, ab.effects, 0))
    run(state)


def step_cost(state: AlleyState, frame: CostFrame) -> bool:
    """Choose the cards to discard, then the characters to sacrifice; then the effects."""
    seat = frame.ctx.seat
    side = state.sides[seat]
    if frame.discards > 0 and side.hand:
        state.pending = Pending(seat, "cost_discard", sorted(set(side.hand)))
        return True
    lanes = [code(seat, v.lane) for v in side.lanes if v is not None and v.uid != frame.keep]
    if frame.sacrifices > 0 and lanes:
        state.pending = Pending(seat, "cost_sacrifice", lanes)
        return True
    state.stack.pop()
    push_effects(state, frame.ctx, frame.ability.effects)
    return False


def choose_cost(state: AlleyState, option: int) -> None:
    p = take_choice(state, option)
    frame = state.stack[-1]
    if p.what == "cost_discard":
        field.to_gutter_from_hand(state, p.seat, option, "cost")
        frame.discards -= 1
    else:
        field.leave(state, state.unit(option), GUTTER, sacrificed=True, by=p.seat)
        frame.sacrifices -= 1
    run(state)


__all__ = ["deploy", "heavy", "switch", "awaken", "set_card", "play_hustle", "flip", "activate", "use_gutter",
           "step_cost", "choose_cost", "choose_equip", "HUSTLE"]
