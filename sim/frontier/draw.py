"""Drawing a card: the turn's draw (turns.py), a draw effect (effects.py) and the sheriff's
discard-to-draw (play.py) all draw through here."""
from __future__ import annotations

from sim.frontier.kinds import KINDS as K
from sim.frontier.state import FrontierState


def draw_card(state: FrontierState, seat: int) -> None:
    """Move the top card of the deck to the hand; over the hand limit it is burned (discarded)."""
    side = state.own_side(seat)
    card = side.deck[-1]
    side.deck = side.deck[:-1]  # a new list: forks share the old one (state.py)
    ev = state.events
    if len(side.hand) >= state.pool.consts.hand_limit:
        side.discard = side.discard + [card]
        if ev is not None:
            ev.emit(state.turn, seat, K.BURN, card)
        return
    side.hand = side.hand + [card]
    if state.ledger is not None:
        state.ledger.draw(seat, card, side.turns)
    if ev is not None:
        ev.emit(state.turn, seat, K.DRAW, card)
