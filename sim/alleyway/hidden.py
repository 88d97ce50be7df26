"""What a seat may see, and the state as it may believe it (``determinize``).

Hidden from a seat: its own deck's order; every other seat's hand, deck order and face-down
back-row cards. MARKED lifts exactly two of those for the seat that holds it: it sees its
opponents' hands and face-down cards (never deck order), and only it does. Nothing else reveals a
hidden card, except a choice that shows one to its chooser (choosing which card to PLUNDER from, or
discard from, an opponent's hand: that hand is shown while the choice is open).

The belief keeps what the seat knows: hand sizes, which back-row slots hold a face-down card,
Gutters, the field, the Hideouts (built from the deck lists, promotions are seen), and the
multiset of each seat's cards not yet seen (hand + deck + face-down cards, as in Wild Frontier's
determinize: the opponent's deck list is taken as known).
"""
from __future__ import annotations

import random

from sim.alleyway.field import has_keyword_source
from sim.alleyway.pool import AMBUSH, HUSTLE, MARKED
from sim.alleyway.state import AlleyState, Back


def sees_hidden(state: AlleyState, seat: int) -> bool:
    """MARKED: the seat has a working MARKED source (a character on the field whose effects work,
    or a face-up Continuous card)."""
    return has_keyword_source(state, seat, MARKED)


def shown_hand(state: AlleyState, seat: int, other: int) -> bool:
    """``seat`` is choosing a card from ``other``'s hand right now (the hand is shown to it)."""
    p = state.pending
    return (p is not None and p.seat == seat and p.what == "card" and p.data is not None
            and p.data[0] in ("discard", "plunder") and p.data[1] == other and p.fx is not None
            and getattr(p.fx, "source", "hand") in ("hand", ""))


def determinize(state: AlleyState, seat: int, rng: random.Random) -> AlleyState:
    c = state.clone()
    cards = state.pool.cards
    marked = sees_hidden(state, seat)
    for s, side in enumerate(c.sides):
        if s == seat or marked or shown_hand(state, seat, s):
            rng.shuffle(side.deck)
            continue
        hidden_slots = [i for i, b in enumerate(side.back) if b is not None and not b.face_up]
        unknown = side.hand + side.deck + [side.back[i].card for i in hidden_slots]
        rng.shuffle(unknown)
        for i in hidden_slots:
            # a face-down card is some Hustle or Ambush the seat has not seen
            j = next(k for k, card in enumerate(unknown) if cards[card].type in (HUSTLE, AMBUSH))
            b = side.back[i]
            side.back[i] = Back(unknown.pop(j), False, b.set_turn, b.host, b.owner)
        n = len(side.hand)
        side.hand, side.deck = unknown[:n], unknown[n:]
    c.chance_key = rng.getrandbits(64)
    c.chance = None
    return c
