"""What sim/core holds for every engine (issue 15, "shared code once"): the deck lookups, the
skeletons of new_match and determinize, how a match ends and the pseudo card ids. Each is
checked here on small hand-made objects, so a game-free change to sim/core is caught without
playing a game; the conformance suite checks the engines built on them."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from sim.core.card_ids import NO_ID, SEAT, card_name
from sim.core.decks import CompiledDeck, card_numbers, replace_cards
from sim.core.ending import finish
from sim.core.events import EventBuffer
from sim.core.hidden import believe, redeal_open
from sim.core.setup import deal, draw_opening, new_state, record_opening_hands
from sim.core.state import new_turn

POOL = SimpleNamespace(ids={"a": 0, "b": 1, "c": 2}, version="base",
                       cards=[SimpleNamespace(slug=s) for s in "abc"])


class State:
    __slots__ = ("gen", "pool", "sides", "active", "to_act", "turn", "over", "winner", "reason",
                 "pending", "next_uid", "chance_key", "chance", "events", "ledger")


def seat(hand=(), deck=()):
    return SimpleNamespace(hand=list(hand), deck=list(deck))


def test_card_numbers_repeat_copies_and_name_the_deck_and_card():
    assert card_numbers(POOL, "d", {"b": 2, "a": 1}) == [1, 1, 0]
    with pytest.raises(ValueError, match=r"deck d: unknown card 'z' in its Hideout in rules version base"):
        card_numbers(POOL, "d", {"a": 1, "z": 1}, " in its Hideout")


def test_a_compiled_deck_is_sorted_and_its_subclass_survives_a_replacement():
    class Deck(CompiledDeck):
        __slots__ = ("leader",)

        def __init__(self, cards, leader):
            super().__init__("d", cards)
            self.leader = leader

    deck = Deck([2, 0, 1, 0], 7)
    assert deck.cards == (0, 0, 1, 2)
    new = replace_cards(deck, {0: 2})
    assert (type(new), new.id, new.cards, new.leader) == (Deck, "d", (2, 2, 1, 2), 7)
    assert deck.cards == (0, 0, 1, 2)


def test_new_state_deal_and_opening_hands():
    state = new_state(State, POOL, 99, log=True)
    assert (state.turn, state.to_act, state.over, state.pending, state.chance_key) == (0, 0, False, None, 99)
    assert isinstance(state.events, EventBuffer) and state.ledger is None
    state.sides = [seat(), seat()]
    decks = [SimpleNamespace(cards=tuple(range(10))), SimpleNamespace(cards=tuple(range(10)))]
    given = []

    def seat_setup(side, s, deck, rng):
        given.append((s, rng.random()))
        draw_opening(side, 3)

    deal(state, decks, 5, seat_setup)
    again = new_state(State, POOL, 99, log=False)
    again.sides = [seat(), seat()]
    deal(again, decks, 5, lambda side, s, deck, rng: draw_opening(side, 3))
    assert [s.hand for s in state.sides] == [s.hand for s in again.sides]  # the seed decides
    assert state.sides[0].deck != state.sides[1].deck or state.sides[0].hand != state.sides[1].hand
    for side in state.sides:
        assert len(side.hand) == 3 and sorted(side.hand + side.deck) == list(range(10))
    assert [s for s, _ in given] == [0, 1] and given[0][1] != given[1][1]  # each seat its own stream
    # the ledger saw the decks before the draw: the hand is the top (the list's end) of that order
    record_opening_hands(state)
    assert state.ledger.opening[0] == {card: 1 for card in state.sides[0].hand}
    record_opening_hands(SimpleNamespace(ledger=None, sides=[]))  # a scenario's position: nothing


def test_a_belief_depends_on_what_the_seat_knows_not_on_the_hidden_order():
    def position(order):
        return SimpleNamespace(sides=[seat([5], [1, 2, 3]), seat([9, 8], order)], chance_key=1, chance=object())

    def deal_seat(clone, s, own, rng):
        redeal_open(clone.sides[s], own, rng)

    beliefs = [believe(position(order), 0, random.Random(4), deal_seat) for order in ([7, 6, 4], [4, 7, 6])]
    mine, other = beliefs[0].sides
    assert mine.hand == [5] and sorted(mine.deck) == [1, 2, 3]  # its hand is its own to see
    assert len(other.hand) == 2 and sorted(other.hand + other.deck) == [4, 6, 7, 8, 9]
    assert [(s.hand, s.deck) for s in beliefs[0].sides] == [(s.hand, s.deck) for s in beliefs[1].sides]
    assert beliefs[0].chance is None and beliefs[0].chance_key != 1  # luck reseeded


def test_finish_logs_the_game_over_and_a_draw_has_no_seat():
    state = SimpleNamespace(turn=4, pending="a choice", events=EventBuffer(), over=False)
    finish(state, None, "hp", game_over=7)
    assert (state.over, state.winner, state.reason, state.pending) == (True, None, "hp", None)
    assert (state.events.seat, state.events.kind, state.events.detail) == ([NO_ID], [7], ["hp"])
    quiet = SimpleNamespace(turn=1, pending=None, events=None)
    finish(quiet, 1, "deck_out", game_over=7)
    assert (quiet.winner, quiet.reason) == (1, "deck_out")


def test_pseudo_card_ids_and_a_new_turn():
    assert [card_name(POOL, i, {SEAT: "player"}) for i in (2, SEAT, NO_ID, SEAT - 1)] == ["c", "player", None, None]
    state = SimpleNamespace(turn=3, active=0, to_act=1, chance=object())
    new_turn(state, 1)
    assert (state.turn, state.active, state.to_act, state.chance) == (4, 1, 1, None)


def test_target_codes_round_trip_inside_and_beyond_their_tables():
    """A game's target codes (sim/core/target_codes.py) read back what they packed, from the
    tables and past them, and the two games' codes keep their strides."""
    from typing import NamedTuple

    from sim.alleyway.state import code as alley_code
    from sim.alleyway.state import decode as alley_decode
    from sim.core.target_codes import TargetCodes
    from sim.frontier.state import LANE_OF, SEAT_OF
    from sim.frontier.state import code as frontier_code
    from sim.frontier.state import decode as frontier_decode

    class Spot(NamedTuple):
        seat: int
        index: int

    codes = TargetCodes(8, Spot, 2)
    for seat in range(4):  # seats 2 and 3 lie past the tables
        for index in range(8):
            target = codes.code(seat, index)
            assert target == seat * 8 + index and codes.decode(target) == Spot(seat, index)
    assert codes.seat_of[13] == 1 and codes.index_of[13] == 5
    assert frontier_code(1, 3) == 19 and frontier_decode(19) == (1, 3) and (SEAT_OF[19], LANE_OF[19]) == (1, 3)
    assert alley_code(2, 5) == 69 and alley_decode(69) == (2, 5) and alley_decode(alley_code(20, 1)) == (20, 1)
    with pytest.raises(ValueError):
        TargetCodes(0, Spot, 2)
