"""Per seat, per card: what happened to the card in one match (the raw material of card metrics).

The engine reports draws and plays; the ledger keeps counts and first turns, so the farm can
write ``card_games`` rows without scanning events. Turns here are the seat's own turn numbers
(its first turn is 1), which is what "turn first played" means to a designer.
A lookahead clone has no ledger.

The ledger is built from each seat's deck as shuffled, before anything is drawn (the card drawn
next is the list's last element): where a card's first copy lay in that order is fixed by the
shuffle alone, before any decision, so it is a randomised instrument for what the card does
(reports/attribution.py reads each twin's place as a dose: how often a card lying there gets played).

The hand as first dealt is kept beside the opening hand, and whether the seat redrew, so a
keep/redraw choice can be read per card (the event log names only the seat that redrew). A seat
never offered a redraw (a game without one) has ``redrew`` None, and its dealt hand is its opening
hand.
"""
from __future__ import annotations

from typing import NamedTuple


class CardRow(NamedTuple):
    """One seat's record of one card in one match (a ``card_games`` row without its keys)."""
    card: int
    copies: int
    opening: int
    drawn: int
    first_drawn: int | None
    played: int
    first_played: int | None
    deck_position: int | None   # the first copy's place in the shuffled deck, 0 = the top card
    dealt: int                  # copies in the hand as first dealt, before any redraw


class CardLedger:
    __slots__ = ("copies", "position", "dealt", "opening", "drawn", "first_drawn", "played", "first_played",
                 "redrew")

    def __init__(self, shuffled: list[list[int]]):
        """``shuffled``: each seat's deck in its shuffled order, drawn from the end."""
        n = len(shuffled)
        self.copies: list[dict[int, int]] = [{} for _ in range(n)]
        self.position: list[dict[int, int]] = [{} for _ in range(n)]
        for seat, deck in enumerate(shuffled):
            counts, position = self.copies[seat], self.position[seat]
            top = len(deck) - 1
            for i, card in enumerate(deck):
                counts[card] = counts.get(card, 0) + 1
                position[card] = top - i  # the last copy seen in list order is the one nearest the top
        self.dealt: list[dict[int, int]] = [{} for _ in range(n)]
        self.opening: list[dict[int, int]] = [{} for _ in range(n)]
        # per seat: True once it redrew, False when it kept, None while it was never offered a redraw
        self.redrew: list[bool | None] = [None] * n
        self.drawn: list[dict[int, int]] = [{} for _ in range(n)]
        self.first_drawn: list[dict[int, int]] = [{} for _ in range(n)]
        self.played: list[dict[int, int]] = [{} for _ in range(n)]
        self.first_played: list[dict[int, int]] = [{} for _ in range(n)]

    def dealt_hand(self, seat: int, hand: list[int]) -> None:
        """Record the hand as first dealt, before any mulligan."""
        self.dealt[seat] = _counts(hand)

    def mulligan(self, seat: int, redraw: bool) -> None:
        """The seat kept (``redraw`` False) or redrew its hand; a seat that redrew and then kept
        the new hand still counts as having redrawn."""
        self.redrew[seat] = bool(self.redrew[seat]) or redraw

    def opening_hand(self, seat: int, hand: list[int]) -> None:
        """Record the opening hand as it stands after any mulligan."""
        counts = self.opening[seat]
        counts.clear()
        for card in hand:
            counts[card] = counts.get(card, 0) + 1

    def draw(self, seat: int, card: int, own_turn: int) -> None:
        drawn = self.drawn[seat]
        drawn[card] = drawn.get(card, 0) + 1
        self.first_drawn[seat].setdefault(card, own_turn)

    def play(self, seat: int, card: int, own_turn: int) -> None:
        played = self.played[seat]
        played[card] = played.get(card, 0) + 1
        self.first_played[seat].setdefault(card, own_turn)

    def rows(self, seat: int):
        """A CardRow for each card the seat's deck held or the seat played (tokens, cards from
        outside the deck), by card id."""
        for card in sorted(self.copies[seat].keys() | self.played[seat].keys()):
            yield CardRow(card, self.copies[seat].get(card, 0), self.opening[seat].get(card, 0),
                          self.drawn[seat].get(card, 0), self.first_drawn[seat].get(card),
                          self.played[seat].get(card, 0), self.first_played[seat].get(card),
                          self.position[seat].get(card), self.dealt[seat].get(card, 0))


def _counts(cards: list[int]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for card in cards:
        counts[card] = counts.get(card, 0) + 1
    return counts
