"""A new match, the part every game does the same way: a state with the fields every game's
state has, each seat's deck shuffled on its own stream and dealt, and the card ledger built
from the decks as shuffled. Each game's ``new_match`` adds its seats' own fields and begins
its first turn (engine.py of each game)."""
from __future__ import annotations

import random
from typing import Any, Callable

from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import Streams
from sim.core.state import new_generation


def new_state(cls: type, pool: Any, chance_key: int, log: bool) -> Any:
    """A state of class ``cls`` as a match begins, with no seats yet (``sides`` is empty): seat 0
    to act, turn 0, nothing pending, the first unit uid 1, the chance stream keyed by
    ``chance_key`` (the seed in a real match), an event buffer when ``log``, no ledger yet and a
    fresh copy-on-write generation. The game adds its seats and its own fields."""
    state = cls.__new__(cls)
    state.gen = new_generation()
    state.pool = pool
    state.sides = []
    state.active = state.to_act = 0
    state.turn = 0
    state.over, state.winner, state.reason = False, None, ""
    state.pending = None
    state.next_uid = 1
    state.chance_key, state.chance = chance_key, None
    state.events = EventBuffer() if log else None
    state.ledger = None
    return state


SeatSetup = Callable[[Any, int, Any, random.Random], None]


def deal(state: Any, decks: list[Any], seed: int, seat_setup: SeatSetup) -> None:
    """Each seat's deck (``deck.cards``) into its ``deck`` zone, shuffled on the seat's stream
    ``("shuffle", seat)``; then ``seat_setup(side, seat, deck, rng)`` gives the seat the rest
    (its opening hand with ``draw_opening``, its own fields, other zones shuffled on the same
    stream ``rng``). The card ledger is built from the decks as shuffled, before any draw, and
    records each seat's hand as ``seat_setup`` dealt it (before any mulligan)."""
    streams = Streams(seed)
    shuffled = []
    for seat, deck in enumerate(decks):
        side = state.sides[seat]
        rng = streams.shuffle(seat)
        side.deck = list(deck.cards)
        rng.shuffle(side.deck)
        shuffled.append(list(side.deck))
        seat_setup(side, seat, deck, rng)
    # every real match keeps its card ledger (card metrics need it even when the event log is
    # sampled away); lookahead clones carry neither
    state.ledger = CardLedger(shuffled)
    for seat in range(len(decks)):
        state.ledger.dealt_hand(seat, state.sides[seat].hand)


def draw_opening(side: Any, n: int) -> None:
    """Up to ``n`` cards from the top of the deck (the end of its list) into the hand."""
    deck, hand = side.deck, side.hand
    for _ in range(min(n, len(deck))):
        hand.append(deck.pop())


def record_opening_hands(state: Any) -> None:
    """The ledger's opening hands as the hands stand now (after any mulligan); a position with
    no ledger (a scenario's) records nothing."""
    if state.ledger is None:
        return
    for seat, side in enumerate(state.sides):
        state.ledger.opening_hand(seat, side.hand)
