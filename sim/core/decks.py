"""What the farm may do to a compiled deck without knowing its game.

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
