"""Brawls: who may attack whom, and an attack from its declaration to its end.

An attack is a frame on the stack (frames.AttackFrame): stage 0 puts the attacker's "when it
attacks" abilities on the stack; stage 1 offers the defender's Ambushes (one decision per offer,
until it passes or has none left); stage 2 resolves the brawl, unless the attack was negated or
the attacker ended up Downed, removed or in STASIS (or the defender left the field or went into
STASIS: there is nothing left to brawl with).
"""
from __future__ import annotations

from typing import NamedTuple

from sim.alleyway import field
from sim.alleyway.field import atk_of, def_of, emit
from sim.alleyway.frames import AttackFrame, Ctx
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.kinds import LEADER as LEADER_TARGET
from sim.alleyway.kinds import PLAYER
from sim.alleyway.pool import AMBUSH, COLLATERAL, GUARD, INFILTRATE, LIFESTEAL, PIERCE, TWICE, UNATTACKABLE
from sim.alleyway.resolve import push_effects, run, take_choice
from sim.alleyway.state import (
    BACK_BASE,
    DEFEATED,
    DIRECT,
    DORMANT,
    LEADER,
    AlleyState,
    Back,
    Pending,
    Unit,
    back_slot,
    code,
    decode,
)
from sim.core.events import AIMED_ATTACK

PASS = -1


class Knock(NamedTuple):
    """What a brawl did to the character that lost it, for COLLATERAL: the winner (attacker or
    defender: "when it KOs (or Downs) a character in a brawl"), where the loser stood, "down" or "ko"."""
    by: Unit
    seat: int
    lane: int
    what: str


# --- who may attack, and whom ----------------------------------------------------------------------

def attacks_allowed(state: AlleyState, u: Unit) -> int:
    """Once a turn; ATTACKING AGAIN gives at most one more."""
    extra = u.extra + (1 if u.kw & TWICE and u.active else 0)
    return 1 + min(state.pool.consts.max_extra_attacks, extra)


def can_attack(state: AlleyState, u: Unit) -> bool:
    """Standing, in ATK, not ZZZ, not held by FREEZE, STUN, SUPPRESS or STASIS, not turn 1."""
    if u.downed or not u.atk_pos or u.stasis or u.freeze or u.suppress:
        return False
    if state.turn <= state.pool.consts.no_attack_turns or u.entered == state.turn:
        return False
    if u.no_attack == state.turn or (u.stun and u.stun == state.sides[u.owner].turns):  # its owner's next turn
        return False
    return u.attacks < attacks_allowed(state, u)


def attack_targets(state: AlleyState, u: Unit) -> list[int]:
    """Target codes the character may attack: an enemy character (MUST BE ATTACKED FIRST ones
    first; CAN'T BE ATTACKED ones only when no other can be; none in STASIS), the enemy directly
    when they have no standing character (always with INFILTRATE), or a Dormant leader."""
    out: list[int] = []
    infiltrate = u.kw & INFILTRATE and u.active
    allow_leader = state.pool.consts.attack_dormant_leader
    for s in state.opponents(u.seat):
        side = state.sides[s]
        present = [v for v in side.lanes if v is not None and not v.stasis]
        guards = [v for v in present if v.kw & GUARD and v.active]
        if guards:
            chars = guards
        else:
            open_ = [v for v in present if not (v.kw & UNATTACKABLE and v.active)]
            chars = open_ if open_ else present
        out.extend(code(s, v.lane) for v in chars)
        if infiltrate or not any(v.standing for v in side.lanes if v is not None):
            out.append(code(s, DIRECT))
        if allow_leader and not guards and side.leader >= 0 and side.leader_state == DORMANT:
            out.append(code(s, LEADER))
    return out


def declare(state: AlleyState, u: Unit, target: int) -> None:
    u = state.own(u)
    u.attacks += 1
    s, index = decode(target)
    d = state.unit(target) if index < BACK_BASE else None
    if state.events is not None:
        shown = d.card if d is not None else PLAYER if index == DIRECT else LEADER_TARGET
        where = "direct" if index == DIRECT else "leader" if index == LEADER else state.pool.lane_names[index]
        emit(state, u.seat, K.ATTACK, u.card, shown, atk_of(state, u), u.lane, f"p{s}.{where}")
        if len(state.sides) > 2:
            emit(state, u.seat, K.AIMED, u.card, amount=s, detail=AIMED_ATTACK)
    state.stack.append(AttackFrame(u.uid, target, 0, False, d.uid if d is not None else 0))
    run(state)


# --- the attack frame ------------------------------------------------------------------------------

def step(state: AlleyState, frame: AttackFrame) -> bool:
    a_uid, d_uid, stage = frame.attacker, frame.defender, frame.stage
    a = state.find(a_uid)
    if stage == 0:
        frame.stage = 1
        if a is not None:
            field.fire(state, a, "attacks", foe=d_uid)
        return False
    if stage == 1:
        if d_uid and goes_on(state, frame):
            defending = decode(frame.target).seat
            slots = springable(state, defending)
            if slots:
                state.pending = Pending(defending, "spring", slots + [PASS])
                return True
        frame.stage = 2
        return False
    state.stack.pop()
    if goes_on(state, frame):
        resolve(state, a, frame.target, state.find(d_uid) if d_uid else None)
    else:
        emit(state, state.active, K.BRAWL, a.card if a is not None else -1, detail="stopped")
    return False


def goes_on(state: AlleyState, frame: AttackFrame) -> bool:
    if frame.negated:
        return False
    a = state.find(frame.attacker)
    if a is None or a.downed or a.stasis or a.seat != state.active:
        return False
    if state.sides[decode(frame.target).seat].out:
        # the defending seat went out meanwhile (an Ambush made it draw from an empty deck): it
        # is no longer an opponent, so the attack has no one to brawl (RULES.md, Game modes)
        return False
    d_uid = frame.defender
    if d_uid:
        d = state.find(d_uid)
        if d is None or d.stasis or d.seat != decode(frame.target).seat:
            return False
    return True


def springable(state: AlleyState, seat: int, without_attack: bool = False) -> list[int]:
    """Back-row codes of the face-down Ambushes ``seat`` may spring now: not JAMmed, with the
    Authority its cost asks when paid on springing; ``without_attack``: only Continuous ones set
    since an earlier turn (flipped on their owner's turn or when offered)."""
    side = state.sides[seat]
    if side.jam or side.out:
        return []
    cards = state.pool.cards
    pay = state.pool.consts.ambush_cost_on == "spring"
    out = []
    for slot, b in enumerate(side.back):
        if b is None or b.face_up or cards[b.card].type != AMBUSH:
            continue
        if without_attack and (not cards[b.card].continuous or b.set_turn >= state.turn):
            continue
        if pay and field.cost_of(state, seat, cards[b.card]) > side.authority:
            continue
        out.append(code(seat, BACK_BASE + slot))
    return out


def choose_spring(state: AlleyState, option: int) -> None:
    p = take_choice(state, option)
    frame = state.stack[-1]  # the attack that offered the spring (brawl.step, stage 1)
    if option == PASS:
        frame.stage = 2
    else:
        spring(state, p.seat, back_slot(option), foe=frame.attacker, host=frame.defender)
    run(state)


def spring(state: AlleyState, seat: int, slot: int, foe: int, host: int = 0) -> None:
    """Flip an Ambush face-up: pay (when paid on springing), then its effects. A Continuous one
    stays face-up; an Equip one attaches to the character attacked; the rest go to the Gutter."""
    side = state.sides[seat]
    b = side.back[slot]
    card = state.pool.cards[b.card]
    if state.pool.consts.ambush_cost_on == "spring":
        side.authority -= field.cost_of(state, seat, card)
    emit(state, seat, K.SPRING, b.card, lane=BACK_BASE + slot, detail="attack" if foe else "flip")
    field.touch(state)
    if card.stays:
        attach = host if card.equip is not None else 0
        side.back[slot] = Back(b.card, True, b.set_turn, attach, seat)
        if attach:
            u = state.find(attach)
            if u is not None:
                field.recompute_equips(state, u)
    else:
        side.back[slot] = None
        side.gutter.append(b.card)
    for ab in reversed(card.triggers.get("sprung", ())):
        push_effects(state, Ctx(seat, b.card, 0, foe, host if card.equip is not None else 0), ab.effects)


# --- the brawl -------------------------------------------------------------------------------------

def resolve(state: AlleyState, a: Unit, target: int, d: Unit | None) -> None:
    # both owned before anything changes them, so every reference below is the one on the field
    # (the identity checks further down rely on it)
    a = state.own(a)
    if d is not None:
        d = state.own(d)
    s, index = decode(target)
    seat = a.seat
    a_atk = atk_of(state, a)
    if index == DIRECT:
        lost = field.lose_morale(state, s, a_atk, by=seat, cause="direct attack")
        lifesteal(state, a, lost)
        emit(state, seat, K.BRAWL, a.card, PLAYER, a_atk, a.lane, "direct")
        won(state, a, 0)
        after_brawl(state, a, 0, None)
        return
    if index == LEADER:
        side = state.sides[s]
        side.influence = max(0, side.influence - a_atk)
        emit(state, seat, K.LEADER_HIT, a.card, LEADER_TARGET, a_atk, a.lane, f"p{s} influence {side.influence}")
        if side.influence == 0:
            side.leader_state = DEFEATED
            field.touch(state)
            emit(state, seat, K.LEADER_DEFEATED, side.leader)
        won(state, a, 0)
        after_brawl(state, a, 0, None)
        return
    d_lane, d_seat, d_uid = d.lane, d.seat, d.uid
    knock = None  # what the brawl did to its loser (for COLLATERAL)
    if d.atk_pos and not d.downed:
        d_atk = atk_of(state, d)
        if a_atk == d_atk:
            emit(state, seat, K.BRAWL, a.card, d.card, 0, d_lane, "tie")
            # a BRITTLE one is KO'd instead: a KO this brawl dealt, for the other's PROMOTE
            # (until 2026-12-07 a tie counted none)
            a_uid = a.uid
            if field.down(state, a, d_seat) and state.find(a_uid) is None:
                d.kos += 1
            if field.down(state, d, seat) and state.find(d_uid) is None:
                a.kos += 1
        else:
            winner, loser = (a, d) if a_atk > d_atk else (d, a)
            loser_seat, loser_lane = loser.seat, loser.lane
            diff = abs(a_atk - d_atk)
            emit(state, seat, K.BRAWL, a.card, d.card, diff, d_lane, "atk>atk" if winner is a else "atk<atk")
            lifesteal(state, winner, field.lose_morale(state, loser_seat, diff, by=winner.seat, cause="brawl"))
            if field.down(state, loser, winner.seat):
                gone = state.find(loser.uid) is None  # BRITTLE: KO'd instead
                if gone:
                    winner.kos += 1
                knock = Knock(winner, loser_seat, loser_lane, "ko" if gone else "down")
            won(state, winner, loser.uid)
    else:
        d_def = def_of(state, d)
        if a_atk > d_def:
            was_down = d.downed
            emit(state, seat, K.BRAWL, a.card, d.card, a_atk - d_def, d_lane, "ko" if was_down else "down")
            if was_down:
                if field.ko(state, d, seat):
                    knock = Knock(a, d_seat, d_lane, "ko")
                    a.kos += 1
            elif field.down(state, d, seat):
                knock = Knock(a, d_seat, d_lane, "ko" if state.find(d_uid) is None else "down")
                if knock.what == "ko":
                    a.kos += 1
            if a.kw & PIERCE and a.active:
                lifesteal(state, a, field.lose_morale(state, d_seat, a_atk - d_def, by=seat, cause="pierce"))
            won(state, a, d_uid)
        elif a_atk < d_def:
            emit(state, seat, K.BRAWL, a.card, d.card, d_def - a_atk, d_lane, "blocked")
            lifesteal(state, d, field.lose_morale(state, seat, d_def - a_atk, by=d_seat, cause="blocked"))
            won(state, d, a.uid)
        else:
            emit(state, seat, K.BRAWL, a.card, d.card, 0, d_lane, "blocked even")
    after_brawl(state, a, d_uid, knock)


def after_brawl(state: AlleyState, a: Unit, d_uid: int, knock) -> None:
    """What follows every brawl, a direct attack and an attack on a Dormant leader included (they
    count as brawls: LIFESTEAL, "wins a brawl"; RULES.md): BLEED on the attacker and the defender
    (``d_uid``, 0 for none), COLLATERAL, and PROMOTE at once for a Striver that met its condition."""
    if state.over:
        return
    for u in (a, state.find(d_uid)):
        if u is not None and u.bleed and state.find(u.uid) is u:
            u = state.own(u)
            u.mod_atk -= u.bleed
            u.mod_def -= u.bleed
            field.refresh(u)
            emit(state, u.seat, K.STATUS, u.card, amount=u.bleed, lane=u.lane, detail=f"bleed p{u.seat}")
    if knock is not None:
        collateral(state, knock)
    for u in (a, state.find(d_uid)):
        if u is not None and state.find(u.uid) is u:
            field.check_promotion(state, u)


def won(state: AlleyState, u: Unit, foe: int) -> None:
    """A character won a brawl: it counts toward PROMOTE, and "when it wins" abilities fire (its
    own, and its side's Dormant leader's)."""
    u = state.own(u)
    u.wins += 1
    side = state.sides[u.seat]
    if side.leader >= 0 and side.leader_state == DORMANT:
        for ab in reversed(state.pool.cards[side.leader].dormant.get("won", ())):
            field.push_ability(state, ab, Ctx(u.seat, side.leader, 0, foe))
    field.fire(state, u, "won", foe)


def lifesteal(state: AlleyState, u: Unit, lost: int) -> None:
    """LIFESTEAL: the Morale it takes from an opponent in a brawl, its owner gains."""
    if lost > 0 and u.kw & LIFESTEAL and u.active:
        field.gain_morale(state, u.seat, lost, "lifesteal")


def collateral(state: AlleyState, knock: Knock) -> None:
    """COLLATERAL: the KO (or Down) a working winner still on the field dealt also hits the
    characters in the lanes either side of the loser's. With three or more seats it needs both
    seats still playing: a seat that went out during the brawl (the brawl's Morale, PIERCE, a
    BOUNTY's draw from an empty deck) is out of the game, its cards beyond reach and its effects
    stopped (RULES.md, COLLATERAL; until 2026-12-07 it spread onto a seat out of the game)."""
    by = knock.by
    if not (by.kw & COLLATERAL and by.active and state.find(by.uid) is by):
        return
    sides = state.sides
    lanes = sides[knock.seat].lanes
    for side_lane in (knock.lane - 1, knock.lane + 1):
        if sides[knock.seat].out or sides[by.seat].out:
            return  # (checked again after the first lane: a KO's BOUNTY may put a seat out)
        if 0 <= side_lane < len(lanes):
            v = lanes[side_lane]
            if v is None or v.stasis:
                continue
            emit(state, by.seat, K.STATUS, by.card, v.card, 0, side_lane, f"collateral {knock.what} p{knock.seat}")
            if knock.what == "ko":
                field.ko(state, v, by.seat)
            else:
                field.down(state, v, by.seat)
