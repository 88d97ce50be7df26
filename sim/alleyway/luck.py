"""Luck: coin flips and die rolls from the turn's chance stream, DOUBLE OR NOTHING and LOADED DICE.

"If tails" parts follow the same flip: a coin effect carries both branches and flips once. A flip
"fails" when it comes up tails (the heads side is the one the card hopes for; for DOUBLE OR NOTHING
tails is "not at all"); a roll fails below its ``at_least``. LOADED DICE: once per turn, a failed
flip or roll of a seat with a working LOADED DICE source is tried again."""
from __future__ import annotations

from sim.alleyway.field import emit
from sim.alleyway.frames import Ctx
from sim.alleyway.kinds import KINDS as K
from sim.alleyway.pool import LOADED_DICE
from sim.alleyway.resolve import push_effects
from sim.alleyway.sources import has_keyword_source
from sim.alleyway.state import AlleyState, Pending


def _retry(state: AlleyState, seat: int) -> bool:
    """Use this turn's LOADED DICE retry, if the seat has one left."""
    side = state.sides[seat]
    if side.loaded_turn == state.turn or not has_keyword_source(state, seat, LOADED_DICE):
        return False
    side.loaded_turn = state.turn
    return True


def flip(state: AlleyState, seat: int, card: int) -> bool:
    """Flip a coin for ``seat``: True is heads."""
    side = state.sides[seat]
    side.flips += 1
    heads = state.rng().random() < 0.5
    emit(state, seat, K.COIN, card, amount=int(heads), detail="heads" if heads else "tails")
    if not heads and _retry(state, seat):
        side.flips += 1
        heads = state.rng().random() < 0.5
        emit(state, seat, K.COIN, card, amount=int(heads), detail="loaded dice: " + ("heads" if heads else "tails"))
    return heads


def roll(state: AlleyState, seat: int, card: int, at_least: int) -> int:
    side = state.sides[seat]
    side.flips += 1
    pips = state.rng().randint(1, 6)
    emit(state, seat, K.ROLL, card, amount=pips)
    if pips < at_least and _retry(state, seat):
        side.flips += 1
        pips = state.rng().randint(1, 6)
        emit(state, seat, K.ROLL, card, amount=pips, detail="loaded dice")
    return pips


def start(state: AlleyState, fx, c: Ctx) -> bool:
    seat = c.seat
    if fx.op == "coin":
        push_effects(state, c, fx.heads if flip(state, seat, c.card) else fx.tails)
        return False
    if fx.op == "roll":
        hit = roll(state, seat, c.card, fx.at_least) >= fx.at_least
        push_effects(state, c, fx.hit if hit else fx.miss)
        return False
    # DOUBLE OR NOTHING: the owner chooses whether to bet
    state.pending = Pending(seat, "bet", (1, 0), fx, c)
    return True


def bet(state: AlleyState, fx, c: Ctx, betting: bool) -> None:
    seat = c.seat
    emit(state, seat, K.BET, c.card, amount=int(betting))
    if not betting:
        times = 1
    else:
        times = 2 if flip(state, seat, c.card) else 0
    if times and fx.then:
        push_effects(state, c, fx.then)  # "if you do": it happened
    for _ in range(times):
        push_effects(state, c, fx.do)
