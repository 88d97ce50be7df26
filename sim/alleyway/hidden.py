"""What a seat may see, what it was shown, and the state as it may believe it (``determinize``).

Hidden from a seat: its own deck's order; every other seat's hand, deck order and face-down
back-row cards. Deck lists are open (and the Hideouts are built from them), and every card that
enters or leaves a seat's hand, deck or face-down cards is seen doing so except between those
zones (a draw, a SEARCH, a redraw, setting a card), so the multiset of a seat's hidden cards is
what every other seat may work out: its list minus the copies seen elsewhere (in a duel; see
RULES.md, "What a pilot may know").

Shown cards stay known (``state.known``, ``Known`` entries: who saw it, whose it is, the zone,
the card, and where in the zone):

    HAND  ``card`` is in ``owner``'s hand: a PLUNDERed card (shown to both players), a card
          recovered from the public Gutter, a character sent back to the hand, a hand shown by a
          choice from it or seen through MARKED
    DECK  ``card`` is at index ``at`` of ``owner``'s deck (0 the bottom): a character put on top of
          the deck; it becomes a HAND entry when drawn, and is forgotten when the deck is shuffled
    BACK  ``card`` is the face-down card in back-row slot ``at`` set on turn ``set_turn`` (seen through
          MARKED)

A known card is forgotten when it legitimately becomes unknown again: shuffled into the deck (a
redraw, SEARCH), or when a card of the same name leaves that hand face up (it may have been the
known one). MARKED lifts the rest for the seat that holds it: it sees its opponents' hands and
face-down cards (never deck order), and only it does; what it saw is remembered at each turn's
start (``remember_marked``). A choice from an opponent's hand (which card to PLUNDER or discard)
shows that hand to the chooser: it sees it while the choice is open, and remembers it.

``determinize`` keeps what the seat knows (hand sizes, deck sizes, which slots hold a face-down
card, Gutters, the field, the Hideouts, the known cards) and deals the rest afresh from the sorted
unknown pool, so the belief depends only on what the seat may know and the pilot's stream.
"""
from __future__ import annotations

import random
from typing import NamedTuple

from sim.alleyway.pool import AMBUSH, HUSTLE, MARKED
from sim.alleyway.sources import has_keyword_source
from sim.alleyway.state import AlleyState, Back
from sim.core.hidden import believe, shuffled_pool

HAND, DECK, BACK = 0, 1, 2
SETTABLE = (HUSTLE, AMBUSH)  # the cards a seat may set face-down from its hand


class Known(NamedTuple):
    """``observer`` was shown that ``owner``'s ``card`` is in ``zone`` (HAND, DECK, BACK): for DECK
    at index ``at``, for BACK in slot ``at``, set on turn ``set_turn``."""
    observer: int
    owner: int
    zone: int
    card: int
    at: int = 0
    set_turn: int = 0


def sees_hidden(state: AlleyState, seat: int) -> bool:
    """MARKED: the seat has a working MARKED source (a character on the field whose effects work,
    or a face-up Continuous card)."""
    return has_keyword_source(state, seat, MARKED)


def shown_hand(state: AlleyState, seat: int, other: int) -> bool:
    """``seat`` is choosing a card from ``other``'s hand right now (the hand is shown to it)."""
    p = state.pending
    return (p is not None and p.seat == seat and p.what == "card" and p.data is not None
            and p.data.why in ("discard", "plunder") and p.data.seat == other and p.fx is not None
            and getattr(p.fx, "source", "hand") in ("hand", ""))


# --- the record of shown cards (every hook is a no-op on the common empty record) ---------------

def learn_hand(state: AlleyState, owner: int, card: int, observers) -> None:
    """``observers`` saw ``card`` go into ``owner``'s hand."""
    add = tuple(Known(o, owner, HAND, card) for o in observers if o != owner)
    if add:
        state.known = state.known + add


def others(state: AlleyState, seat: int) -> list[int]:
    return [s for s in range(len(state.sides)) if s != seat]


def learn_deck_top(state: AlleyState, owner: int, card: int) -> None:
    """Every seat (the owner too: its deck order is hidden from it) saw ``card`` put on top of
    ``owner``'s deck."""
    at = len(state.sides[owner].deck) - 1
    state.known = state.known + tuple(Known(o, owner, DECK, card, at) for o in range(len(state.sides)))


def show_hand(state: AlleyState, observer: int, owner: int) -> None:
    """``observer`` is shown ``owner``'s whole hand (what it knew of it before is now all of it)."""
    keep = tuple(e for e in state.known if not (e.observer == observer and e.owner == owner and e.zone == HAND))
    state.known = keep + tuple(Known(observer, owner, HAND, card) for card in state.sides[owner].hand)


def left_hand(state: AlleyState, owner: int, card: int) -> None:
    """``card`` left ``owner``'s hand face up: each seat that knew a copy of it there forgets one
    (the card that left may have been that copy)."""
    out, dropped = [], []
    for e in state.known:
        if e.owner == owner and e.zone == HAND and e.card == card and e.observer not in dropped:
            dropped.append(e.observer)
            continue
        out.append(e)
    if dropped:
        state.known = tuple(out)


def set_from_hand(state: AlleyState, owner: int) -> None:
    """``owner`` set a card face-down from its hand: the others saw a card go but not which, so
    each forgets every card it knew in that hand that could have been set (a Hustle or an
    Ambush): any of them may now be the face-down one ("a known card is forgotten when it may
    have become unknown again")."""
    if not state.known:
        return
    cards = state.pool.cards
    kept = tuple(e for e in state.known
                 if not (e.owner == owner and e.zone == HAND and cards[e.card].type in SETTABLE))
    if len(kept) != len(state.known):
        state.known = kept


def forget_hand(state: AlleyState, owner: int) -> None:
    """``owner``'s hand went into its deck (a redraw)."""
    state.known = tuple(e for e in state.known if not (e.owner == owner and e.zone == HAND))


def forget_deck(state: AlleyState, owner: int) -> None:
    """``owner``'s deck was shuffled: no position in it is known any more."""
    if state.known:
        state.known = tuple(e for e in state.known if not (e.owner == owner and e.zone == DECK))


def drew(state: AlleyState, owner: int, to_hand: bool = True) -> None:
    """``owner``'s top card left its deck (drawn, or taken by PLUNDER when not ``to_hand``): a card
    known to be there is now known in its hand (to the other seats; the owner sees its own hand)."""
    top = len(state.sides[owner].deck)  # the index the card had
    out, changed = [], False
    for e in state.known:
        if e.owner == owner and e.zone == DECK and e.at >= top:
            changed = True
            if to_hand and e.at == top and e.observer != owner:
                out.append(Known(e.observer, owner, HAND, e.card))
            continue
        out.append(e)
    if changed:
        state.known = tuple(out)


def remember_marked(state: AlleyState) -> None:
    """A seat that sees through MARKED remembers the hands and face-down cards it sees, its
    opponents' only (not a Turf Defense partner's: "you can see your opponent's hand"), called
    at each turn's start, so it keeps them after MARKED is gone."""
    sides = state.sides
    for seat in range(len(sides)):
        if sides[seat].out or not sees_hidden(state, seat):
            continue
        opponents = state.opponents(seat)
        for other, side in enumerate(sides):
            if other not in opponents or side.out:
                continue
            keep = tuple(e for e in state.known if not (e.observer == seat and e.owner == other and e.zone != DECK))
            seen = [Known(seat, other, HAND, card) for card in side.hand]
            seen += [Known(seat, other, BACK, b.card, slot, b.set_turn) for slot, b in enumerate(side.back)
                     if b is not None and not b.face_up]
            state.known = keep + tuple(seen)


# --- the belief -----------------------------------------------------------------------------------

def determinize(state: AlleyState, seat: int, rng: random.Random) -> AlleyState:
    """``seat``'s belief (sim/core/hidden.py ``believe``), each seat dealt by ``_deal`` with what
    ``seat`` knows of it."""
    cards = state.pool.cards
    known = state.known
    # MARKED shows the opponents' hidden cards, not a Turf Defense partner's
    marked = state.opponents(seat) if sees_hidden(state, seat) else ()

    def deal_seat(clone: AlleyState, s: int, own: bool, rng: random.Random) -> None:
        mine = [e for e in known if e.observer == seat and e.owner == s] if known else ()
        seen = own or s in marked
        _deal(clone.sides[s], cards, mine, seen or shown_hand(state, seat, s), seen, rng)

    return believe(state.fork(), seat, rng, deal_seat)


def _deal(side, cards, mine, see_hand: bool, see_back: bool, rng: random.Random) -> None:
    """Deal one seat's hidden cards afresh: the deck always, the hand unless ``see_hand``, the
    face-down cards unless ``see_back``; known cards stay where they are known to be."""
    back, hand, deck = side.back, side.hand, side.deck
    fd = [] if see_back else [i for i, b in enumerate(back) if b is not None and not b.face_up]
    pool = deck if see_hand else hand + deck  # the clone's own lists: free to reuse
    for i in fd:
        pool.append(back[i].card)
    n_hand, n_deck = len(hand), len(deck)
    kh: list = []
    kd: dict = {}
    kb: dict = {}
    for e in mine:
        zone, card, a = e.zone, e.card, e.at
        if zone == HAND:
            if see_hand or len(kh) >= n_hand or card not in pool:
                continue
            kh.append(card)
        elif zone == DECK:
            if a >= n_deck or a in kd or card not in pool:
                continue
            kd[a] = card
        else:
            if a not in fd or a in kb or back[a].set_turn != e.set_turn or card not in pool:
                continue
            kb[a] = card
        pool.remove(card)
    shuffled_pool(pool, rng)  # the belief depends on the pool, never on the hidden order
    for i in fd:
        card = kb.get(i)
        if card is None:
            card = _take_settable(cards, pool)
            if card is None:  # only a stale known card can be it
                card = _take_settable(cards, kh)
            if card is None:  # (the true face-down cards are all in pool + kh + kd)
                card = kd.pop(next(k for k in sorted(kd) if cards[kd[k]].type in SETTABLE))
        b = back[i]
        back[i] = Back(card, False, b.set_turn, b.host, b.owner)
    if not see_hand:
        m = n_hand - len(kh)
        side.hand = kh + pool[:m]
        pool = pool[m:]
    if kd:
        rest = iter(pool)
        side.deck = [kd[i] if i in kd else next(rest) for i in range(n_deck)]
    else:
        side.deck = pool


def _take_settable(cards, pool: list):
    for k, card in enumerate(pool):
        if cards[card].type in SETTABLE:
            return pool.pop(k)
    return None
