"""Effects on one character: ATK/DEF changes, position, Down / stand / KO / EXILE / back to the
hand, CHARM, attacking again, and the statuses (POISON, BURN, STOKE, BLEED, SHOCK, FREEZE, STASIS,
STUN, SHIELD, SILENCE, SUPPRESS, BOUNTY, CLEANSE, REWIND). Each returns True if it worked (for
"if you do"). Timed statuses last "until the end of its owner's next turn": they hold the owner's
turn count they last through and end in turns.py."""
from __future__ import annotations

from sim.alleyway import field
from sim.alleyway.field import DECK, EXILE, HAND, emit, refresh
from sim.alleyway.frames import Ctx
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.pool import STATUS_BITS
from sim.alleyway.state import AlleyState, Bounty, TimedChange, Unit, code, decode


def until_next(state: AlleyState, u: Unit) -> int:
    """The owner's turn count at the end of its next turn (the owner's, not the seat that holds it
    now: a CHARMed character's "owner's next turn" is still its owner's)."""
    return state.sides[u.owner].turns + 1


def immune(u: Unit, status: str) -> bool:
    return bool(u.immune & STATUS_BITS[status]) and u.active


def _status(state: AlleyState, c: Ctx, u: Unit, name: str, amount: int = 0) -> None:
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, c.seat, K.STATUS, c.card, u.card, amount, u.lane, f"{name} p{u.seat}")


def buff(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if fx.until == "permanent":
        u.mod_atk += fx.atk
        u.mod_def += fx.df
    else:
        u.tmp_atk += fx.atk
        u.tmp_def += fx.df
        if fx.until == "turn":
            seat = state.active
            last = state.sides[seat].turns
        else:  # until the end of your (the effect's owner's) next turn
            seat = c.seat
            last = state.sides[seat].turns + 1
        state.temp.append(TimedChange(u.uid, fx.atk, fx.df, seat, last))
    refresh(u)
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, c.seat, K.BUFF, c.card, u.card, fx.atk, u.lane, f"{fx.atk:+d}/{fx.df:+d} {fx.until}")
    return True


def temp_change(state: AlleyState, u: Unit, atk: int, df: int) -> None:
    """An ATK/DEF change until the end of this turn (SHOCK's DEF loss)."""
    u.tmp_atk += atk
    u.tmp_def += df
    state.temp.append(TimedChange(u.uid, atk, df, state.active, state.sides[state.active].turns))
    refresh(u)


def position(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if u.downed or u.freeze:  # FREEZE: it "can't attack or change position", by an effect either
        return False
    want = (not u.atk_pos) if fx.to == "switch" else fx.to == "atk"
    if want == u.atk_pos:
        return False
    u.atk_pos = want
    if state.events is not None:  # (its words are not built in lookahead)
        emit(state, c.seat, K.SWITCH, u.card, lane=u.lane, detail=f"p{u.seat} {'atk' if want else 'def'}")
    return True


def bounce(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    return field.leave(state, u, HAND if fx.to == "hand" else DECK, by=c.seat)


def down(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    return field.down(state, u, c.seat)


def stand(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    return field.stand(state, u)


def ko(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    return field.ko(state, u, c.seat)


def exile(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    return field.leave(state, u, EXILE, by=c.seat)


def charm(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """Control until the end of the turn: it moves to your row and may attack for you."""
    me = c.seat
    if u.seat == me or u.leader:
        return False
    lane = field.empty_lane(state, me)
    if lane < 0:
        return False
    home = code(u.seat, u.lane)
    state.sides[u.seat].lanes[u.lane] = None
    u.charm_home = home if u.charm_home < 0 else u.charm_home
    u.seat, u.lane = me, lane
    u.attacks = u.extra = u.switched = u.entered = u.no_attack = 0
    state.sides[me].lanes[lane] = u
    field.touch(state)
    emit(state, me, K.CHARM, u.card, lane=lane, detail=f"from p{decode(home).seat}")
    return True


def swap(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """ATK and DEF trade places (as a permanent change, so later changes land where they say)."""
    a, d = u.atk, u.df
    u.mod_atk += d - a
    u.mod_def += a - d
    refresh(u)
    emit(state, c.seat, K.BUFF, c.card, u.card, 0, u.lane, "swap")
    return True


def attack_again(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if u.extra >= state.pool.consts.max_extra_attacks:
        return False
    u.extra += 1
    _status(state, c, u, "attack_again")
    return True


def _timed(name: str):
    def apply(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
        if immune(u, name):
            return False
        setattr(u, name, until_next(state, u))
        field.touch(state)
        if name == "freeze":
            u.atk_pos = False
        _status(state, c, u, name)
        return True
    apply.__name__ = name
    return apply


freeze, stasis, stun, silence = _timed("freeze"), _timed("stasis"), _timed("stun"), _timed("silence")


def shield(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if u.shield:
        return False
    u.shield = True
    _status(state, c, u, "shield")
    return True


def cleanse(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """Its statuses are gone; what POISON and BLEED already took stays taken (REWIND undoes that)."""
    had = (u.stasis or u.freeze or u.stun or u.suppress or u.silence or u.poison or u.burn or u.bleed
           or u.bounty)
    u.stasis = u.freeze = u.stun = u.suppress = u.silence = 0
    u.poison = u.poison_left = u.burn = u.burn_left = u.bleed = 0
    u.burn_by = ()
    u.sup_atk = 0
    u.bounty = ()
    refresh(u)
    field.touch(state)
    if had:
        _status(state, c, u, "cleanse")
    return bool(had)


def rewind(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """Its ATK and DEF changes are undone, back to the printed numbers (Equips stay attached)."""
    changed = u.mod_atk or u.mod_def or u.tmp_atk or u.tmp_def or u.sup_atk
    u.mod_atk = u.mod_def = u.tmp_atk = u.tmp_def = u.sup_atk = 0
    state.temp = [t for t in state.temp if t.uid != u.uid]
    refresh(u)
    _status(state, c, u, "rewind")
    return bool(changed)


def poison(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if immune(u, "poison"):
        return False
    u.poison = max(u.poison, fx.amount)
    u.poison_left = state.pool.consts.status_turns
    _status(state, c, u, "poison", fx.amount)
    return True


def burn(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """BURN X on a character already burning: the larger burn, for 3 turns again (only STOKE adds).
    The burn kept is its burner's: a BURN no larger than the one on it changes only the count, so
    its Morale stays the first burner's ``burn_dealt`` (RULES.md, BURN)."""
    if immune(u, "burn"):
        return False
    if fx.amount > u.burn:
        u.burn = fx.amount
        u.burn_by = ((c.seat, fx.amount),)
    u.burn_left = state.pool.consts.status_turns
    _status(state, c, u, "burn", fx.amount)
    return True


def stoke(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """STOKE X: BURN X; on a burning character the burn grows by X, that part the stoker's."""
    if immune(u, "burn"):
        return False
    if u.burn:
        u.burn += fx.amount
        u.burn_by = burn_share(u.burn_by, c.seat, fx.amount)
    else:
        u.burn = fx.amount
        u.burn_by = ((c.seat, fx.amount),)
    u.burn_left = state.pool.consts.status_turns
    _status(state, c, u, "stoke", fx.amount)
    return True


def burn_share(shares: tuple, seat: int, amount: int) -> tuple:
    """``shares`` (seat, amount) pairs, in the order the seats first burned it, with ``amount``
    more for ``seat``."""
    for i, (s, had) in enumerate(shares):
        if s == seat:
            return shares[:i] + ((s, had + amount),) + shares[i + 1:]
    return shares + ((seat, amount),)


def bleed(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if immune(u, "bleed"):
        return False
    u.bleed += fx.amount
    _status(state, c, u, "bleed", fx.amount)
    return True


def shock(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """SHOCK X: X at least its DEF, it goes Down; otherwise it loses X DEF this turn."""
    if immune(u, "shock"):
        return False
    _status(state, c, u, "shock", fx.amount)
    if fx.amount >= field.def_of(state, u):
        return field.down(state, u, c.seat)
    temp_change(state, u, 0, -fx.amount)
    return True


def suppress(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    """Pinned down: it loses X ATK and can't attack until the end of its owner's next turn."""
    if immune(u, "suppress"):
        return False
    u.sup_atk = max(u.sup_atk, fx.amount)
    u.suppress = until_next(state, u)
    refresh(u)
    _status(state, c, u, "suppress", fx.amount)
    return True


def bounty(state: AlleyState, u: Unit, fx, c: Ctx) -> bool:
    if immune(u, "bounty"):
        return False
    u.bounty = u.bounty + (Bounty(c.seat, fx.amount),)
    _status(state, c, u, "bounty", fx.amount)
    return True


OPS = {
    "buff": buff, "position": position, "bounce": bounce, "down": down, "stand": stand, "ko": ko,
    "exile": exile, "charm": charm, "swap": swap, "attack_again": attack_again, "freeze": freeze,
    "stasis": stasis, "stun": stun, "shield": shield, "silence": silence, "cleanse": cleanse,
    "rewind": rewind, "poison": poison, "burn": burn, "stoke": stoke, "bleed": bleed, "shock": shock,
    "suppress": suppress, "bounty": bounty,
}
