"""The effect vocabulary at work: each effect finds its targets, asks for a choice when the card
lets its owner choose (with SKIP when optional), and applies. "If you do" (``then``) runs only when
the effect worked. Effects on one character live in statuses.py; this module holds the dispatch,
the player-level effects (Morale, cards, Authority, JAM, TAX, PLUNDER, ...) and luck."""
from __future__ import annotations

from sim.alleyway import field, hidden, luck, statuses, targets
from sim.alleyway.field import emit
from sim.alleyway.frames import ATTACK, CardChoice, Ctx, EffectsFrame
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.pool import CHARACTER
from sim.alleyway.resolve import push_effects, run, take_choice
from sim.alleyway.state import AlleyState, Pending, back_slot, code, decode
from sim.core.events import AIMED_EFFECT, NO_ID

SKIP = -1
# effects aimed at one opponent (a choice when several are still playing)
AT_OPPONENT = {"drain", "tax", "jam", "plunder", "exile_gutter"}
SELF_ONLY = {"heal", "barricade", "gain_authority", "search", "call", "recover", "revive", "token"}


def step(state: AlleyState, frame: EffectsFrame) -> bool:
    effects, i = frame.effects, frame.next
    if i >= len(effects):
        state.stack.pop()
        return False
    frame.next = i + 1
    return start(state, effects[i], frame.ctx)


def fizzle(state: AlleyState, fx, c: Ctx) -> None:
    emit(state, c.seat, K.FIZZLE, c.card, detail=fx.op)


def done(state: AlleyState, fx, c: Ctx, ok: bool) -> None:
    """After an effect: its "if you do" part, when it worked."""
    if ok and fx.then:
        push_effects(state, c, fx.then)


def start(state: AlleyState, fx, c: Ctx) -> bool:
    """Begin one effect; True when it waits on a choice."""
    op = fx.op
    seat = c.seat
    if fx.target is not None:
        cands = targets.characters(state, fx, c)
        if not cands:
            fizzle(state, fx, c)
            return False
        pick = fx.target.pick
        if pick == "chosen" and (len(cands) > 1 or fx.target.optional):
            options = cands + [SKIP] if fx.target.optional else cands
            state.pending = Pending(seat, "target", options, fx, c)
            return True
        if pick == "random" and len(cands) > 1:
            cands = [cands[state.rng().randrange(len(cands))]]
        done(state, fx, c, on_characters(state, fx, c, cands))
        return False
    if op in ("coin", "roll", "double_or_nothing"):
        return luck.start(state, fx, c)
    if op == "negate":
        frame = next((f for f in reversed(state.stack) if f.kind == ATTACK), None)
        if frame is None or frame.negated:
            fizzle(state, fx, c)
            return False
        frame.negated = True
        emit(state, seat, K.NEGATE, c.card)
        done(state, fx, c, True)
        return False
    if op == "destroy_backrow":
        cands = targets.back_cards(state, seat, fx.face)
        if not cands:
            fizzle(state, fx, c)
            return False
        if fx.pick == "chosen" and len(cands) > 1:
            state.pending = Pending(seat, "back", cands, fx, c)
            return True
        if fx.pick == "random" and len(cands) > 1:
            cands = [cands[state.rng().randrange(len(cands))]]
        done(state, fx, c, destroy_back(state, seat, cands))
        return False
    if op in SELF_ONLY or (op in ("draw", "discard", "lose_morale") and fx.who == "you"):
        return on_player(state, fx, c, seat)
    opponents = state.opponents(seat)
    if not opponents:
        fizzle(state, fx, c)
        return False
    if len(opponents) > 1:
        state.pending = Pending(seat, "opponent", opponents, fx, c)
        return True
    return on_player(state, fx, c, opponents[0])


def on_characters(state: AlleyState, fx, c: Ctx, codes: list[int]) -> bool:
    op = statuses.OPS[fx.op]
    ok = False
    for t in codes:
        u = state.unit(t)
        if u is not None and not state.over:
            # owned before the op: a status op changes it, and may call field (which owns too)
            ok = op(state, state.own(u), fx, c) or ok
    return ok


def destroy_back(state: AlleyState, seat: int, codes: list[int]) -> bool:
    """The card goes to its owner's Gutter without doing anything (an Equip leaves its host)."""
    ok = False
    for t in codes:
        s, slot = decode(t).seat, back_slot(t)
        side = state.sides[s]
        b = side.back[slot]
        if b is None:
            continue
        side.back[slot] = None
        state.sides[b.owner].gutter.append(b.card)
        field.touch(state)
        emit(state, seat, K.DESTROY, b.card, lane=decode(t).index, detail=f"p{s} {'up' if b.face_up else 'down'}")
        if b.host:
            host = state.find(b.host)
            if host is not None:
                field.recompute_equips(state, host)
        ok = True
    return ok


# --- player-level effects --------------------------------------------------------------------------

def on_player(state: AlleyState, fx, c: Ctx, victim: int) -> bool:
    """An effect on a player (``victim`` is the opponent it hits, or the effect's owner)."""
    op = fx.op
    seat = c.seat
    amount = fx.amount
    ok = True
    if op == "lose_morale":
        ok = field.lose_morale(state, victim, amount, by=seat, cause=state.pool.cards[c.card].slug) > 0
    elif op == "heal":
        ok = field.gain_morale(state, seat, amount, "heal") > 0
    elif op == "drain":
        field.lose_morale(state, victim, amount, by=seat, cause="drain")
        if not state.over:
            field.gain_morale(state, seat, amount, "drain")
    elif op == "barricade":
        state.sides[seat].barricade += amount
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.STATUS, c.card, amount=amount, detail=f"barricade p{seat}")
    elif op == "tax":
        state.sides[victim].tax += amount
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.STATUS, c.card, amount=amount, detail=f"tax p{victim}")
    elif op == "gain_authority":
        state.sides[seat].authority += amount
        emit(state, seat, K.AUTHORITY, c.card, amount=amount)
    elif op == "jam":
        side = state.sides[victim]
        side.jam = side.turns + 1
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.STATUS, c.card, detail=f"jam p{victim}")
    elif op == "draw":
        ok = field.draw(state, victim, amount) > 0
    elif op == "discard":
        return discard(state, fx, c, victim, amount)
    elif op == "token":
        ok = make_tokens(state, seat, fx)
    elif op in ("search", "call", "recover", "revive"):
        return fetch(state, fx, c)
    elif op == "plunder":
        return plunder(state, fx, c, victim)
    elif op == "exile_gutter":
        return exile_gutter(state, fx, c, victim)
    else:
        raise ValueError(f"unknown effect {op!r}")
    done(state, fx, c, ok)
    return False


def discard(state: AlleyState, fx, c: Ctx, victim: int, left: int) -> bool:
    hand = state.sides[victim].hand
    if not hand:
        done(state, fx, c, left < fx.amount)
        return False
    if fx.pick == "chosen" and (fx.optional or (len(set(hand)) > 1 and len(hand) > left)):
        options = targets.distinct(hand) + ([SKIP] if fx.optional else [])
        state.pending = Pending(c.seat, "card", options, fx, c, left, CardChoice("discard", victim))
        if c.seat != victim:
            hidden.show_hand(state, c.seat, victim)  # the choice shows the hand to the chooser
        return True
    while left > 0 and hand:
        card = hand[state.rng().randrange(len(hand))] if fx.pick == "random" else hand[-1]
        field.to_gutter_from_hand(state, victim, card)
        left -= 1
    done(state, fx, c, True)
    return False


def fetch(state: AlleyState, fx, c: Ctx) -> bool:
    """SEARCH, CALL, recover, revive: the owner picks a card that fits from the deck or the Gutter."""
    seat = c.seat
    side = state.sides[seat]
    cards = state.pool.cards
    zone = side.deck if fx.op in ("search", "call") else side.gutter
    needs_lane = fx.op in ("call", "revive")
    if needs_lane and field.empty_lane(state, seat) < 0:
        fizzle(state, fx, c)
        return False

    def fits(card_id: int) -> bool:
        card = cards[card_id]
        if needs_lane and card.type != CHARACTER:
            # a character: a Heavy too (its sacrifices are how it is played from the hand, and
            # revive or CALL is not playing it; until 2026-12-07 every Heavy was refused), and a
            # REMAINS Skeleton (RULES.md); it takes an empty lane like any other
            return False
        return fx.filter is None or fx.filter.fits(card)

    options = targets.distinct(zone, fits)
    if not options:
        fizzle(state, fx, c)
        if fx.op == "search":
            shuffle_deck(state, seat)
        return False
    if len(options) > 1 or fx.optional:
        state.pending = Pending(seat, "card", options + [SKIP] if fx.optional else options, fx, c, 1,
                                CardChoice(fx.op, seat))
        return True
    done(state, fx, c, take(state, fx, c, options[0]))
    return False


def take(state: AlleyState, fx, c: Ctx, card: int) -> bool:
    seat = c.seat
    side = state.sides[seat]
    op = fx.op
    if op in ("search", "recover"):
        (side.deck if op == "search" else side.gutter).remove(card)
        side.hand.append(card)
        if op == "search":  # "Your opponent isn't shown what you took"
            shuffle_deck(state, seat)
        else:  # recovered from the public Gutter: every seat saw it go to the hand
            hidden.learn_hand(state, seat, card, hidden.others(state, seat))
        emit(state, seat, K.SEARCH if op == "search" else K.RECOVER, card)
        return True
    lane = field.empty_lane(state, seat)
    if lane < 0:
        return False
    (side.deck if op == "call" else side.gutter).remove(card)
    if op == "call":
        shuffle_deck(state, seat)
    u = field.enter(state, seat, card, lane, fx.position == "atk")
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.CALL if op == "call" else K.REVIVE, card, lane=lane, detail=f"{u.atk}/{u.df}")
    field.fire(state, u, "deployed")
    return True


def shuffle_deck(state: AlleyState, seat: int) -> None:
    state.rng().shuffle(state.sides[seat].deck)
    hidden.forget_deck(state, seat)


def make_tokens(state: AlleyState, seat: int, fx) -> bool:
    made = 0
    for _ in range(fx.count):
        lane = field.empty_lane(state, seat)
        if lane < 0:
            break
        u = field.enter(state, seat, fx.card, lane, fx.position == "atk")
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.TOKEN, fx.card, lane=lane, detail=f"{u.atk}/{u.df}")
        made += 1
    return made > 0


def plunder(state: AlleyState, fx, c: Ctx, victim: int) -> bool:
    """Take a card from an opponent: from the hand (at random unless you choose), the top of the
    deck or the Gutter into your hand, or a character onto your side for good. Shown to both."""
    seat = c.seat
    other = state.sides[victim]
    if fx.source == "field":
        cands = [t for t in targets.enemy_choosable(state, seat) if decode(t).seat == victim]
        if not cands or field.empty_lane(state, seat) < 0:
            fizzle(state, fx, c)
            return False
        if len(cands) > 1:
            state.pending = Pending(seat, "plunder_field", cands, fx, c)
            return True
        done(state, fx, c, plunder_character(state, seat, state.unit(cands[0])))
        return False
    zone = {"hand": other.hand, "deck": other.deck, "gutter": other.gutter}[fx.source]
    if not zone:
        fizzle(state, fx, c)
        return False
    if fx.source == "deck":
        card = zone[-1]
    elif fx.pick == "chosen" and len(set(zone)) > 1:
        state.pending = Pending(seat, "card", targets.distinct(zone), fx, c, 1, CardChoice("plunder", victim))
        if fx.source == "hand":
            hidden.show_hand(state, seat, victim)  # the choice shows the hand to the chooser
        return True
    else:
        card = zone[state.rng().randrange(len(zone))] if fx.pick == "random" else zone[0]
    done(state, fx, c, plunder_card(state, seat, victim, fx.source, card))
    return False


def plunder_card(state: AlleyState, seat: int, victim: int, source: str, card: int) -> bool:
    other = state.sides[victim]
    if source == "deck":
        other.deck.pop()  # the top card ("the top of their deck"), not the lowest copy of it
        if state.known:
            hidden.drew(state, victim, to_hand=False)  # its top card went to the plunderer's hand
    else:
        {"hand": other.hand, "gutter": other.gutter}[source].remove(card)
        if source == "hand" and state.known:
            hidden.left_hand(state, victim, card)
    state.sides[seat].hand.append(card)
    # "A plundered card is shown to both players": to every other seat at the table (the victim,
    # and with more seats the others too: they see it go into the plunderer's hand)
    hidden.learn_hand(state, seat, card, range(len(state.sides)))
    state.sides[seat].plundered += 1
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.PLUNDER, card, detail=f"p{victim} {source}")
    return True


def plunder_character(state: AlleyState, seat: int, u) -> bool:
    lane = field.empty_lane(state, seat)
    if u is None or lane < 0:
        return False
    u = state.own(u)
    victim = u.seat
    state.sides[victim].lanes[u.lane] = None
    u.seat = u.owner = seat
    u.lane = lane
    u.charm_home = -1
    # "Each character attacks once a turn": what it did on its old side's turn does not count
    # on its new side's (CHARM resets the same; not ZZZ: it is not deployed)
    u.attacks = u.extra = u.switched = 0
    state.sides[seat].lanes[lane] = u
    field.touch(state)
    state.sides[seat].plundered += 1
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.PLUNDER, u.card, lane=lane, detail=f"p{victim} field")
    return True


def exile_gutter(state: AlleyState, fx, c: Ctx, victim: int) -> bool:
    cards = state.pool.cards
    gutter = state.sides[victim].gutter
    options = targets.distinct(gutter, (lambda k: fx.filter.fits(cards[k])) if fx.filter else None)
    if not options:
        fizzle(state, fx, c)
        return False
    if fx.pick == "chosen" and len(options) > 1:
        state.pending = Pending(c.seat, "card", options, fx, c, 1, CardChoice("exile_gutter", victim))
        return True
    chosen = options if fx.pick == "all" else options[:1]
    for card in chosen:
        while card in gutter:
            exile_from_gutter(state, c.seat, victim, card)
            if fx.pick != "all":
                break
    done(state, fx, c, True)
    return False


def exile_from_gutter(state: AlleyState, seat: int, victim: int, card: int) -> None:
    side = state.sides[victim]
    side.gutter.remove(card)
    side.exile.append(card)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, seat, K.EXILE, card, detail=f"p{victim} gutter")


# --- choices ---------------------------------------------------------------------------------------

def choose(state: AlleyState, option: int) -> None:
    """Finish the effect waiting on a choice, then resume the stack."""
    p = take_choice(state, option)
    fx, c = p.fx, p.ctx
    what = p.what
    if state.events is not None:
        emit(state, p.seat, K.CHOOSE, c.card if c else NO_ID, amount=option, detail=what)
        if what == "opponent":  # asked only of several opponents, so only with more than two seats
            emit(state, p.seat, K.AIMED, c.card if c else NO_ID, amount=option, detail=AIMED_EFFECT)
    if what == "target":
        if option == SKIP:
            done(state, fx, c, False)
        else:
            done(state, fx, c, on_characters(state, fx, c, [option]))
    elif what == "back":
        done(state, fx, c, destroy_back(state, c.seat, [option]))
    elif what == "opponent":
        if on_player(state, fx, c, option):
            state.to_act = state.pending.seat
            return
    elif what == "plunder_field":
        done(state, fx, c, plunder_character(state, c.seat, state.unit(option)))
    elif what == "bet":
        luck.bet(state, fx, c, option == 1)
    elif what == "card":
        if _card_choice(state, p, option):
            state.to_act = state.pending.seat
            return
    else:
        raise ValueError(f"unknown choice {what!r}")
    run(state)


def _card_choice(state: AlleyState, p: Pending, card: int) -> bool:
    fx, c = p.fx, p.ctx
    kind, who = p.data.why, p.data.seat
    if card == SKIP:
        done(state, fx, c, False)
        return False
    if kind == "discard":
        field.to_gutter_from_hand(state, who, card)
        left = p.left - 1
        if left > 0:
            return discard(state, fx, c, who, left)
        done(state, fx, c, True)
    elif kind == "plunder":
        done(state, fx, c, plunder_card(state, c.seat, who, fx.source, card))
    elif kind == "exile_gutter":
        exile_from_gutter(state, c.seat, who, card)
        done(state, fx, c, True)
    else:
        done(state, fx, c, take(state, fx, c, card))
    return False


def character_code(u) -> int:
    return code(u.seat, u.lane)


__all__ = ["step", "start", "choose", "SKIP"]
