"""The state as a seat may believe it: what every game's ``determinize`` shares (contract.py).

A belief is a lookahead clone whose hidden cards are dealt afresh from what the seat may know,
seat by seat in seat order, and whose chance stream is reseeded, both from the pilot's stream:
no lookahead sees the true order of hidden cards or the luck to come. Each pool of unknown
cards is sorted before it is shuffled, so the belief depends only on what the seat may know and
the pilot's stream, never on the hidden order. Hand and deck sizes are kept.

What a seat may know is each game's own (its ``deal_seat`` hook): Frontier and Allegiance show
no hidden card to another seat (``redeal_open``); AlleyWay remembers the cards it was shown and
sees through MARKED (sim/alleyway/hidden.py).
"""
from __future__ import annotations

import random
from typing import Any, Callable

from sim.core.rng import shuffle

# deal_seat(clone, seat, own, rng): deal that seat's hidden cards afresh in the clone; ``own`` is
# True for the believing seat itself (which knows its hand but not its deck's order)
DealSeat = Callable[[Any, int, bool, random.Random], None]


def believe(clone: Any, seat: int, rng: random.Random, deal_seat: DealSeat) -> Any:
    """``clone`` (a fresh lookahead copy) made into ``seat``'s belief: every seat's hidden cards
    dealt by ``deal_seat`` in seat order, then the chance stream reseeded."""
    for s in range(len(clone.sides)):
        deal_seat(clone, s, s == seat, rng)
    reseed_chance(clone, rng)
    return clone


def reseed_chance(state: Any, rng: random.Random) -> None:
    """Other luck from here on, drawn from ``rng``: the turn's chance stream is remade from a new
    key when next used."""
    state.chance_key = rng.getrandbits(64)
    state.chance = None


def shuffled_pool(cards: list, rng: random.Random) -> list:
    """``cards`` (a list the caller may change) sorted, then shuffled in place, and returned."""
    cards.sort()
    shuffle(rng, cards)
    return cards


def redeal_open(side: Any, own: bool, rng: random.Random) -> None:
    """One seat's hand and deck dealt afresh in a game that shows no hidden card and where every
    card leaving a hand or deck goes somewhere public, so a seat's hand + deck is its open deck
    list minus the copies seen elsewhere. The believing seat (``own``) knows its hand, not its
    deck's order; another seat's hand and deck are dealt from their pooled cards. The seat gets
    new lists (a fork may share the old ones)."""
    if own:
        side.deck = shuffled_pool(side.deck[:], rng)
        return
    unknown = shuffled_pool(side.hand + side.deck, rng)
    n = len(side.hand)
    side.hand, side.deck = unknown[:n], unknown[n:]
