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
