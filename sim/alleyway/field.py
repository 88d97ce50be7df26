"""The field: characters entering and leaving it, their ATK and DEF, Down / stand up / KO, Morale,
drawing, triggers, PROMOTE, Equips and auras. Every other module changes the field through here."""
from __future__ import annotations

from operator import add

from sim.alleyway import hidden
from sim.alleyway.frames import Ctx, EffectsFrame
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.pool import BRITTLE, LEADER_CARD, NO_DISCOUNT, REMAINS, SHIELD, UNDEAD
from sim.alleyway.resolve import eliminate
from sim.alleyway.state import BACK_BASE, DEFEATED, DORMANT, AbilityUse, AlleyState, Rising, Unit, code
from sim.core.events import NO_ID

GUTTER, HAND, DECK, EXILE = 0, 1, 2, 3
DEST_KIND = {GUTTER: K.TO_GUTTER, HAND: K.BOUNCE, DECK: K.BOUNCE, EXILE: K.EXILE}


# --- stats ---------------------------------------------------------------------------------------

def refresh(u: Unit) -> None:
    """Recompute ATK and DEF from their parts (auras are added when read)."""
    a = u.base_atk + u.mod_atk + u.tmp_atk + u.eq_atk - u.sup_atk
    d = u.base_def + u.mod_def + u.tmp_def + u.eq_def
    u.atk = a if a > 0 else 0
    u.df = d if d > 0 else 0


def touch(state: AlleyState) -> None:
    """Something that can change an aura happened (a character came, went, went Down, stood up,
    lost or got its effects back; a back-row card turned face-up or left; a leader changed):
    auras (and cost discounts) are recomputed the next time one is read."""
    state.auras_stale = state.discounts_stale = True


def atk_of(state: AlleyState, u: Unit) -> int:
    if state.auras_stale:
        update_auras(state)
    a = u.atk + state.sides[u.seat].aura_atk
    return a if a > 0 else 0


def def_of(state: AlleyState, u: Unit) -> int:
    if state.auras_stale:
        update_auras(state)
    d = u.df + state.sides[u.seat].aura_def
    return d if d > 0 else 0


def update_auras(state: AlleyState) -> None:
    """Static ATK/DEF changes from every source that works now: active characters, face-up
    Continuous cards and Dormant leaders. A "friendly" aura counts for its own seat, any other
    for every other seat; with teams (Turf Defense) for every seat of another team only (never a
    partner's: "your partner's cards can't be targeted by yours"), and the boss's phase adds its
    ATK and DEF to the boss's side. (Run after most moves in lookahead, so it reads the pool's
    table of auras by card and sums per seat, in integers, without building lists; a duel adds
    its two seats' sums directly.)"""
    state.auras_stale = False
    teams = state.teams
    pool = state.pool
    if teams is None and not pool.has_aura:
        return
    sides = state.sides
    if teams is None and len(sides) == 2:  # (a pool without auras returned above)
        aura_of, dormant_aura_of = pool.aura_of, pool.dormant_aura_of
        side0, side1 = sides
        own_a0, own_d0, oth_a0, oth_d0 = _seat_auras(side0, aura_of, dormant_aura_of)
        own_a1, own_d1, oth_a1, oth_d1 = _seat_auras(side1, aura_of, dormant_aura_of)
        side0.aura_atk, side0.aura_def = own_a0 + oth_a1, own_d0 + oth_d1
        side1.aura_atk, side1.aura_def = own_a1 + oth_a0, own_d1 + oth_d0
        return
    if pool.has_aura:
        aura_of, dormant_aura_of = pool.aura_of, pool.dormant_aura_of
        sums = [_seat_auras(side, aura_of, dormant_aura_of) for side in sides]
    else:
        sums = [_NO_AURAS] * len(sides)
    for seat, side in enumerate(sides):
        atk, df = sums[seat][0], sums[seat][1]
        for s, total in enumerate(sums):
            if (s != seat) if teams is None else (teams[s] != teams[seat]):
                atk += total[2]
                df += total[3]
        if teams is not None and seat == state.boss:
            boss, phase = state.boss_def, state.boss_phase
            atk += boss.atk[phase]
            df += boss.df[phase]
        side.aura_atk, side.aura_def = atk, df


_NO_AURAS = (0, 0, 0, 0)


def _seat_auras(side, aura_of, dormant_aura_of) -> tuple:
    """What one seat's friendly auras give itself (ATK, DEF), then what its other auras give the
    seats they reach (ATK, DEF); all zero for a seat out."""
    if side.out:
        return _NO_AURAS
    # The three sources (lanes, face-up back row, a Dormant leader) add alike, written out three
    # times on purpose: gathering them into one list and summing once (the form before
    # 2026-12-03) costs 2.3x per call (1.3 against 0.57 µs on 2,056 seats of seeded matches), and
    # this runs after most lookahead moves.
    own_a = own_d = oth_a = oth_d = 0
    for u in side.lanes:
        if u is None:
            continue
        aura = aura_of[u.card]
        if aura and not (u.downed or u.stasis or u.silence):  # u.active, inlined
            if aura[2] == "friendly":
                own_a += aura[0]
                own_d += aura[1]
            else:
                oth_a += aura[0]
                oth_d += aura[1]
    for b in side.back:
        if b is not None and b.face_up:
            aura = aura_of[b.card]
            if aura:
                if aura[2] == "friendly":
                    own_a += aura[0]
                    own_d += aura[1]
                else:
                    oth_a += aura[0]
                    oth_d += aura[1]
    if side.leader >= 0 and side.leader_state == DORMANT:
        aura = dormant_aura_of[side.leader]
        if aura:
            if aura[2] == "friendly":
                own_a += aura[0]
                own_d += aura[1]
            else:
                oth_a += aura[0]
                oth_d += aura[1]
    return own_a, own_d, oth_a, oth_d


# Cost discounts are kept per seat (``state.discounts``, by pool.COST_KINDS) and recomputed only
# after something that can change them: the legal actions read a cost for every card in hand at
# every decision, and rescanning the lanes for each was a large part of a random decision. They
# come from the same sources as the auras, so every change that makes the auras stale
# (``touch``) makes them stale too (except a seat going out: its discounts stay what they were).

def discounts(state: AlleyState, seat: int) -> tuple:
    """What ``seat``'s working sources take off each cost kind now."""
    if state.discounts_stale:
        update_discounts(state)
    return state.discounts[seat]


def update_discounts(state: AlleyState) -> None:
    state.discounts_stale = False
    if not state.pool.has_discount:
        return
    cards = state.pool.cards
    state.discounts = tuple(seat_discounts(side, cards) for side in state.sides)


def seat_discounts(side, cards) -> tuple:
    """What a seat's working characters and face-up back-row cards take off each cost kind, from
    scratch."""
    total = NO_DISCOUNT  # summed in place, not from a list of sources: this runs after every change
    for u in side.lanes:
        if u is not None and u.active:
            by_kind = cards[u.card].discount_by_kind
            if by_kind is not None:
                total = tuple(map(add, total, by_kind))
    for b in side.back:
        if b is not None and b.face_up:
            by_kind = cards[b.card].discount_by_kind
            if by_kind is not None:
                total = tuple(map(add, total, by_kind))
    return total


def discount(state: AlleyState, seat: int, card) -> int:
    """How much less ``card`` costs ``seat`` now (negative: more)."""
    if not state.pool.has_discount:
        return 0
    return discounts(state, seat)[card.cost_kind]


def cost_of(state: AlleyState, seat: int, card) -> int:
    cost = card.cost - discount(state, seat, card)
    return cost if cost > 0 else 0


# --- entering the field --------------------------------------------------------------------------

def enter(state: AlleyState, seat: int, card_id: int, lane: int, atk_pos: bool, owner: int | None = None) -> Unit:
    """A character takes a lane: printed stats, its keywords, ZZZ (entered this turn)."""
    card = state.pool.cards[card_id]
    u = Unit.__new__(Unit)
    u.card, u.uid = card_id, state.next_uid
    state.next_uid += 1
    u.seat, u.owner, u.lane = seat, seat if owner is None else owner, lane
    u.atk_pos, u.downed, u.down_turn = atk_pos, False, 0
    u.base_atk, u.base_def = card.atk, card.df
    u.mod_atk = u.mod_def = u.tmp_atk = u.tmp_def = u.eq_atk = u.eq_def = u.sup_atk = 0
    u.kw, u.immune = card.kw, card.immune
    u.entered, u.switched, u.attacks, u.extra, u.acted, u.no_attack = state.turn, 0, 0, 0, 0, 0
    u.under, u.token = (), card.token
    u.wins = u.kos = u.turns_on = 0
    u.shield, u.undead_used = bool(card.kw & SHIELD), False
    u.poison = u.poison_left = u.burn = u.burn_left = u.bleed = 0
    u.burn_by = ()  # (seat, amount): whose BURN is how much of it
    u.freeze = u.stasis = u.stun = u.silence = u.suppress = 0
    u.bounty, u.charm_home, u.leader = (), -1, card.type == LEADER_CARD
    u.gen = state.gen
    u.memo = None
    refresh(u)
    state.sides[seat].lanes[lane] = u
    touch(state)
    return u


def empty_lane(state: AlleyState, seat: int) -> int:
    for lane, u in enumerate(state.sides[seat].lanes):
        if u is None:
            return lane
    return -1


def fire(state: AlleyState, u: Unit, when: str, foe: int = 0) -> None:
    """Put a character's abilities for ``when`` on the stack (if its effects work)."""
    if not u.active:
        return
    abilities = state.pool.cards[u.card].triggers.get(when)
    if abilities:
        for ab in reversed(abilities):
            push_ability(state, ab, Ctx(u.seat, u.card, u.uid, foe))


def push_ability(state: AlleyState, ability, context: Ctx) -> bool:
    if ability.once:
        key = AbilityUse(context.seat, context.card, context.self_uid, ability.index, ability.when)
        if key in state.once:
            return False
        state.once.append(key)
    state.stack.append(EffectsFrame(context, ability.effects, 0))
    return True


def side_sources(state: AlleyState, seat: int, when: str, skip_uid: int = 0, foe: int = 0) -> list:
    """(ability, ctx) of every working source on a side with abilities for ``when``: characters in
    lane order, then face-up Continuous cards, then the Dormant leader."""
    cards = state.pool.cards
    side = state.sides[seat]
    out = []
    for u in side.lanes:
        if u is not None and u.uid != skip_uid and u.active:
            for ab in cards[u.card].triggers.get(when, ()):
                out.append((ab, Ctx(seat, u.card, u.uid, foe)))
    for b in side.back:
        if b is not None and b.face_up and cards[b.card].continuous:
            for ab in cards[b.card].triggers.get(when, ()):
                out.append((ab, Ctx(seat, b.card, 0, foe, b.host)))
    if side.leader >= 0 and side.leader_state == DORMANT:
        for ab in cards[side.leader].dormant.get(when, ()):
            out.append((ab, Ctx(seat, side.leader, 0, foe)))
    return out


def fire_side(state: AlleyState, seat: int, when: str, skip_uid: int = 0, foe: int = 0) -> None:
    for ab, context in reversed(side_sources(state, seat, when, skip_uid, foe)):
        push_ability(state, ab, context)


def emit(state: AlleyState, seat: int, kind: int, card: int = NO_ID, target: int = NO_ID, amount: int = 0,
         lane: int = NO_ID, detail: str | None = None) -> None:
    if state.events is not None:
        state.events.emit(state.turn, seat, kind, card, target, amount, lane, detail)


# --- Down, stand up, KO, leaving -----------------------------------------------------------------

def down(state: AlleyState, u: Unit, by: int) -> bool:
    """Down a standing character: it drops to DEF and its effects stop. SHIELD stops it once
    (not while SILENCED: RULES.md); BRITTLE turns it into a KO."""
    if u.downed:
        return False
    u = state.own(u)
    if u.shield and not u.silence:
        u.shield = False
        emit(state, u.seat, K.SHIELD, u.card, lane=u.lane, detail="down")
        return False
    if u.kw & BRITTLE and u.active:
        return leave(state, u, GUTTER, ko=True, by=by)  # KO'd instead (it is defeated all the same)
    u.downed, u.atk_pos, u.down_turn = True, False, state.turn
    touch(state)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, by, K.DOWN, u.card, lane=u.lane, detail=f"p{u.seat}")
    return True


def stand(state: AlleyState, u: Unit) -> bool:
    if not u.downed:
        return False
    u = state.own(u)
    u.downed = False
    touch(state)
    emit(state, u.seat, K.STAND, u.card, lane=u.lane)
    return True


def ko(state: AlleyState, u: Unit, by: int) -> bool:
    """KO: straight to the Gutter, unless a SHIELD stops it (not while SILENCED)."""
    if u.shield and not u.silence:
        u = state.own(u)
        u.shield = False
        emit(state, u.seat, K.SHIELD, u.card, lane=u.lane, detail="ko")
        return False
    leave(state, u, GUTTER, ko=True, by=by)
    return True


def leave(state: AlleyState, u: Unit, dest: int, ko: bool = False, sacrificed: bool = False, by: int = -1) -> bool:
    """Take a character off the field to the Gutter, the hand, the top of the deck or EXILE. Its
    Equips go to the Gutter; a promoted Striver's lower levels go with it (back to the hand: the
    level 1 card to the hand, the higher ones to the Hideout); a token vanishes unless REMAINS
    sends it to the Gutter after a KO or a sacrifice; a leader goes back beside the field (to the
    hand) or is defeated. A KO fires "when KO'd", BOUNTY, "when an ally is KO'd" and "when an
    enemy is KO'd", and schedules UNDEAD."""
    pool = state.pool
    side = state.sides[u.seat]
    owner = state.sides[u.owner]
    side.lanes[u.lane] = None
    touch(state)
    detach_all(state, u.uid)
    card = pool.cards[u.card]
    if ko:
        kind = K.KO
    elif sacrificed:
        kind = K.SACRIFICE
    else:
        kind = DEST_KIND[dest]
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, by if by >= 0 else u.seat, kind, u.card, lane=u.lane, detail=f"p{u.seat}")
    if u.leader:
        owner.leader_state = DORMANT if dest in (HAND, DECK) else DEFEATED
        if owner.leader_state == DEFEATED:
            emit(state, u.owner, K.LEADER_DEFEATED, u.card)
    elif u.token:
        # REMAINS is a keyword of the card: not while SILENCED (a Downed one's still works, RULES.md)
        if card.kw & REMAINS and dest == GUTTER and (ko or sacrificed) and not u.silence:
            owner.gutter.append(u.card)
    else:
        cards = u.under + (u.card,)
        if dest == GUTTER:
            owner.gutter.extend(cards)
        elif dest == EXILE:
            owner.exile.extend(cards)
        else:
            (owner.hand if dest == HAND else owner.deck).append(cards[0])
            owner.hideout.extend(cards[1:])
            # the card was on the field: every seat saw where it went
            if dest == HAND:
                hidden.learn_hand(state, u.owner, cards[0], hidden.others(state, u.owner))
            else:
                hidden.learn_deck_top(state, u.owner, cards[0])
    if ko:
        _after_ko(state, u, card, by)
    return True


def _after_ko(state: AlleyState, u: Unit, card, by: int) -> None:
    if 0 <= by != u.seat:
        state.sides[by].kos += 1
    # pushed in reverse: its own "when KO'd" resolves first, then allies', then enemies'
    for opp in reversed(state.opponents(u.seat)):
        fire_side(state, opp, "enemy_ko", foe=0)
    fire_side(state, u.seat, "ally_ko", skip_uid=u.uid)
    # SILENCED, its own "when KO'd" and UNDEAD do not work ("its effects and abilities don't
    # work"); Downed, they still do (RULES.md, DOWNED & KO). BOUNTY is another seat's status on it.
    silenced = u.silence
    if not silenced:
        for ab in reversed(card.triggers.get("ko", ())):
            push_ability(state, ab, Ctx(u.seat, u.card))
    for bounty in u.bounty:
        if not state.sides[bounty.seat].out:
            draw(state, bounty.seat, bounty.amount)
    if u.kw & UNDEAD and not u.undead_used and not u.token and not silenced:
        state.risen.append(Rising(u.owner, u.card, u.under))  # an UNDEAD leader (Veyr) rises too


# --- Equips ----------------------------------------------------------------------------------------

def detach_all(state: AlleyState, uid: int) -> None:
    for side in state.sides:
        for slot, b in enumerate(side.back):
            if b is not None and b.host == uid:
                side.back[slot] = None
                state.sides[b.owner].gutter.append(b.card)
                emit(state, b.owner, K.TO_GUTTER, b.card, lane=BACK_BASE + slot, detail="equip")


def put_out(state: AlleyState, seat: int, reason: str, by: int = -1) -> None:
    """A seat is out (resolve.eliminate); when the match goes on (three or more seats), the Equips
    that join it to another seat come off."""
    eliminate(state, seat, reason, by)
    if not state.over:
        drop_equips_across(state, seat)


def drop_equips_across(state: AlleyState, seat: int) -> None:
    """``seat`` went out and the match goes on: an Equip between it and another seat, its Equip on
    another seat's character or another seat's Equip on its character (a CHARM or a PLUNDER put
    them there), goes to its player's Gutter, as when the host leaves the field, and the host
    loses what it gave. Its Equips on its own characters stay where they lie, out of the game with
    the rest of its cards (RULES.md, Game modes). The host's seat is its owner's: a CHARMed one
    goes back to it at the end of the turn."""
    hosts = []
    for s, side in enumerate(state.sides):  # seats, then slots, in order: the events' order
        for slot, b in enumerate(side.back):
            if b is None or not b.host:
                continue
            host = state.find(b.host)
            if host is None or (s == seat) == (host.owner == seat):
                continue  # both the out seat's, or neither
            side.back[slot] = None
            state.sides[b.owner].gutter.append(b.card)
            emit(state, b.owner, K.TO_GUTTER, b.card, lane=BACK_BASE + slot, detail=f"equip, p{seat} out")
            hosts.append(host)
    if hosts:
        touch(state)  # a face-up card left a back row: a source of auras and discounts
        for u in hosts:
            recompute_equips(state, u)


def recompute_equips(state: AlleyState, u: Unit) -> None:
    """An Equip gives its host its ATK, DEF and keywords while attached."""
    u = state.own(u)
    cards = state.pool.cards
    card = cards[u.card]
    atk = df = bits = immune = 0
    for side in state.sides:
        for b in side.back:
            if b is not None and b.host == u.uid:
                ea, ed, eb, ei = cards[b.card].equip
                atk, df, bits, immune = atk + ea, df + ed, bits | eb, immune | ei
    u.eq_atk, u.eq_def = atk, df
    u.kw, u.immune = card.kw | bits, card.immune | immune
    refresh(u)


# --- PROMOTE -------------------------------------------------------------------------------------

def check_promotion(state: AlleyState, u: Unit) -> None:
    """A Striver whose condition (brawls won, KOs, turns survived) is met promotes at once."""
    card = state.pool.cards[u.card]
    if card.promote is None or u.downed or u.seat != u.owner:
        return
    kind, n = card.promote
    if (kind == "wins" and u.wins >= n) or (kind == "kos" and u.kos >= n) or (kind == "turns" and u.turns_on >= n):
        promote(state, u)


def promote(state: AlleyState, u: Unit) -> bool:
    """The next level comes out of the Hideout and takes its place, in the same position, with
    ZZZ. Statuses, changes and Equips stay; brawl counters start again."""
    cards = state.pool.cards
    nxt = cards[u.card].next
    owner = state.sides[u.owner]
    if nxt < 0 or nxt not in owner.hideout:
        return False
    owner.hideout.remove(nxt)
    u = state.own(u)
    u.under = u.under + (u.card,)
    u.card = nxt
    new = cards[nxt]
    u.base_atk, u.base_def = new.atk, new.df
    recompute_equips(state, u)
    if new.kw & SHIELD:
        u.shield = True
    u.entered = state.turn
    u.wins = u.kos = u.turns_on = 0
    touch(state)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, u.seat, K.PROMOTE, nxt, lane=u.lane, detail=f"{u.atk}/{u.df}")
    if state.ledger is not None:
        state.ledger.play(u.owner, nxt, owner.turns)
    fire(state, u, "promoted")
    return True


# --- Morale and cards ----------------------------------------------------------------------------

def lose_morale(state: AlleyState, seat: int, amount: int, by: int = -1, cause: str = "", cost: bool = False) -> int:
    """A seat loses Morale (BARRICADE prevents what it can); at 0 it is out. Returns the loss.
    ``cost``: a Morale cost the seat pays (ACTIVATE, a Gutter ability) is a price, not damage it
    would take: paid in full, BARRICADE untouched (until 2026-12-07 BARRICADE absorbed it)."""
    side = state.sides[seat]
    if amount <= 0 or side.out:
        return 0
    if side.barricade and not cost:
        blocked = min(side.barricade, amount)
        side.barricade -= blocked
        amount -= blocked
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.MORALE, amount=0, detail=f"barricade -{blocked}")
        if amount <= 0:
            return 0
    side.morale -= amount
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, by if by >= 0 else seat, K.MORALE, amount=-amount, detail=f"p{seat} {cause}")
    if side.morale <= 0:
        side.morale = 0
        put_out(state, seat, "morale", by)
    elif seat == state.boss:
        boss_phase(state)
    return amount


def boss_phase(state: AlleyState) -> None:
    """Turf Defense: the boss's Morale fell to a mark on its bar, so its phase changes (one event
    per phase entered; phases only go forward)."""
    boss = state.boss_def
    was = state.boss_phase
    now = boss.phase_at(state.sides[state.boss].morale, was)
    if now == was:
        return
    state.boss_phase = now
    if boss.atk[now] != boss.atk[was] or boss.df[now] != boss.df[was]:
        touch(state)  # the phase's ATK and DEF are an aura of the boss's side
    for k in range(was + 1, now + 1):
        emit(state, state.boss, K.PHASE, amount=k + 1, detail=boss.names[k])


def gain_morale(state: AlleyState, seat: int, amount: int, cause: str = "") -> int:
    side = state.sides[seat]
    room = (state.pool.consts.morale_cap if state.boss < 0 else state.caps[seat]) - side.morale
    gained = min(amount, room)
    if gained > 0 and not side.out:
        side.morale += gained
        if state.events is not None:  # (its words are not built in lookahead)
            emit(state, seat, K.MORALE, amount=gained, detail=f"p{seat} {cause}")
        return gained
    return 0


def draw(state: AlleyState, seat: int, n: int = 1) -> int:
    """Draw from the top of the deck; a seat that must draw from an empty deck is out."""
    side = state.sides[seat]
    drawn = 0
    for _ in range(n):
        if state.over or side.out:
            break
        if not side.deck:
            emit(state, seat, K.DECK_OUT)
            put_out(state, seat, "deck_out")
            break
        card = side.deck.pop()
        side.hand.append(card)
        if state.known:
            hidden.drew(state, seat)
        drawn += 1
        if state.ledger is not None:
            state.ledger.draw(seat, card, side.turns)
        emit(state, seat, K.DRAW, card)
    return drawn


def to_gutter_from_hand(state: AlleyState, seat: int, card: int, cause: str = "discard") -> None:
    side = state.sides[seat]
    side.hand.remove(card)
    side.gutter.append(card)
    if state.known:
        hidden.left_hand(state, seat, card)
    emit(state, seat, K.DISCARD, card, detail=cause)


def target_code(u: Unit) -> int:
    return code(u.seat, u.lane)
