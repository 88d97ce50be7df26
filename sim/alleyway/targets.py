"""Who an effect can hit: characters by target phrase, back-row cards, cards in a zone.

STASIS: a character in STASIS can't be targeted by anything, and board-wide effects pass it by
too ("frozen in time"), except CLEANSE, which ends it. CAN'T BE TARGETED: an opponent's effects
can't *choose* it (random and board-wide effects still reach it), while its effects work.

Turf Defense: a partner is not an enemy (``state.opponents`` leaves it out), and an effect on
"any" side leaves the partner's characters out too (``state.reachable``): "your partner's cards
can't be targeted by yours" (**decided**: nor reached by random or board-wide effects); "friendly"
is the seat's own side only.
"""
from __future__ import annotations

from sim.alleyway.frames import Ctx
from sim.alleyway.pool import UNTARGETABLE
from sim.alleyway.state import BACK_BASE, AlleyState, Unit, code


def fits_state(u: Unit, want: str) -> bool:
    if want == "any":
        return True
    if want == "standing":
        return not u.downed
    if want == "downed":
        return u.downed
    if want == "atk":
        return u.atk_pos and not u.downed
    return u.downed or not u.atk_pos  # "def"


def characters(state: AlleyState, fx, ctx: Ctx) -> list[int]:
    """Target codes of the characters ``fx`` may hit now."""
    t = fx.target
    pick = t.pick
    reach_stasis = fx.op == "cleanse"
    if pick in ("self", "foe", "host"):
        uid = ctx.self_uid if pick == "self" else ctx.foe if pick == "foe" else ctx.host
        u = state.find(uid)
        if u is None or (u.stasis and not reach_stasis) or not fits_state(u, t.state):
            return []
        return [code(u.seat, u.lane)]
    seat = ctx.seat
    if t.side == "friendly":
        seats = [seat]
    elif t.side == "enemy":
        seats = state.opponents(seat)
    else:  # "any": every seat still playing, a partner's cards left out (Turf Defense)
        seats = state.reachable(seat)
    chosen = pick == "chosen"
    out = []
    for s in seats:
        for u in state.sides[s].lanes:
            if u is None or (u.stasis and not reach_stasis) or not fits_state(u, t.state):
                continue
            if chosen and s != seat and u.kw & UNTARGETABLE and u.active:
                continue
            out.append(code(s, u.lane))
    return out


def enemy_choosable(state: AlleyState, seat: int) -> list[int]:
    """Enemy characters an effect of ``seat`` may choose (PLUNDER from the field, CHARM)."""
    out = []
    for s in state.opponents(seat):
        for u in state.sides[s].lanes:
            if u is None or u.stasis or (u.kw & UNTARGETABLE and u.active) or u.leader:
                continue
            out.append(code(s, u.lane))
    return out


def back_cards(state: AlleyState, seat: int, face: str) -> list[int]:
    """Back-row codes of opponents' cards a destroy effect of ``seat`` may hit."""
    out = []
    for s in state.opponents(seat):
        for slot, b in enumerate(state.sides[s].back):
            if b is None:
                continue
            if face == "any" or (face == "up") == b.face_up:
                out.append(code(s, BACK_BASE + slot))
    return out


def distinct(cards, fits=None) -> list[int]:
    """Distinct card ids in a zone, optionally those that fit, sorted (the order of a zone is not
    shown to a chooser: a deck's order is hidden)."""
    return sorted({c for c in cards if fits is None or fits(c)})
