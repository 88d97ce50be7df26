"""Per seat, per card: what happened to the card in one match (the raw material of card metrics).

The engine reports draws and plays; the ledger keeps counts and first turns, so the farm can
write ``card_games`` rows without scanning events. Turns here are the seat's own turn numbers
(its first turn is 1), which is what "turn first played" means to a designer.
A lookahead clone has no ledger.
"""
from __future__ import annotations


class CardLedger:
    __slots__ = ("copies", "opening", "drawn", "first_drawn", "played", "first_played")

    def __init__(self, decks: list[list[int]]):
        n = len(decks)
        self.copies: list[dict[int, int]] = [{} for _ in range(n)]
        for seat, deck in enumerate(decks):
            counts = self.copies[seat]
            for card in deck:
                counts[card] = counts.get(card, 0) + 1
        self.opening: list[dict[int, int]] = [{} for _ in range(n)]
        self.drawn: list[dict[int, int]] = [{} for _ in range(n)]
        self.first_drawn: list[dict[int, int]] = [{} for _ in range(n)]
        self.played: list[dict[int, int]] = [{} for _ in range(n)]
        self.first_played: list[dict[int, int]] = [{} for _ in range(n)]

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
        """(card, copies, opening, drawn, first_drawn, played, first_played) for each card the
        seat's deck held or the seat played (tokens, cards from outside the deck), by card id."""
        for card in sorted(self.copies[seat].keys() | self.played[seat].keys()):
            yield (card, self.copies[seat].get(card, 0), self.opening[seat].get(card, 0),
                   self.drawn[seat].get(card, 0), self.first_drawn[seat].get(card),
                   self.played[seat].get(card, 0), self.first_played[seat].get(card))
