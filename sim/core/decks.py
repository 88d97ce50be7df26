"""Compiled decks: what every game's has (``CompiledDeck``, card numbers looked up with the deck
named in the error), and what the farm may do to one without knowing its game.

Every engine's compiled deck exposes ``cards``: the ids of its main deck in the order
``new_match`` shuffles them. Replacing ids in place (never re-sorting) keeps every other card
where it was, so a shuffle on the same seed puts the replacement exactly where the original card
would have been: the twins of an intervention share everything else (``workbench value``).
"""
from __future__ import annotations

import copy
from typing import Any


def replace_cards(deck: Any, replacements: dict[int, int]) -> Any:
    """A copy of ``deck`` with each card id in ``replacements`` replaced, at the same places."""
    new = copy.copy(deck)
    new.cards = type(deck.cards)(replacements.get(card, card) for card in deck.cards)
    return new


def compile_decks(engine: Any, pool: Any, deck_models: list[Any],
                  substitute: dict[str, dict[str, str]] | None = None) -> list[Any]:
    """A run's decks compiled against its pool, one per deck slot, with the run's intervention
    (``substitute``: deck slot -> {card id: replacement id}) applied: what a worker plays and a
    replay plays again."""
    decks = [engine.compile_deck(pool, d) for d in deck_models]
    for slot, replaced in (substitute or {}).items():
        decks[int(slot)] = replace_cards(decks[int(slot)], {pool.ids[a]: pool.ids[b] for a, b in replaced.items()})
    return decks


class CompiledDeck:
    """What every game's compiled deck has: its ``id`` and ``cards``, the main deck's card
    numbers sorted (a file's line order does not matter; ``new_match`` shuffles them in this
    order). A game's deck class adds its own slots (a sheriff, a leader, Strongholds)."""
    __slots__ = ("id", "cards")

    def __init__(self, deck_id: str, cards: list[int]):
        self.id, self.cards = deck_id, tuple(sorted(cards))


def card_number(pool: Any, deck_id: str, slug: str, where: str = "") -> int:
    """The pool's number of a card a deck names (``where`` says where the deck names it);
    ValueError naming the deck and the card when the rules version has no such card."""
    number = pool.ids.get(slug)
    if number is None:
        raise ValueError(f"deck {deck_id}: unknown card {slug!r}{where} in rules version {pool.version}")
    return number


def card_numbers(pool: Any, deck_id: str, counts: dict[str, int], where: str = "") -> list[int]:
    """A deck's ``counts`` (card id -> copies) as pool numbers, each repeated by its copies."""
    numbers: list[int] = []
    for slug, count in counts.items():
        numbers.extend([card_number(pool, deck_id, slug, where)] * count)
    return numbers
