"""Card numbers in the event log's ``card`` and ``target`` columns: a real card is its pool
number (0 and up); below that are pseudo ids, which name no card. ``NO_ID`` (nothing) and
``SEAT`` (the seat itself, hit or healed directly) mean the same in every game; a game numbers
its own below ``SEAT`` (AlleyWay's Dormant leader) and names each for the store."""
from __future__ import annotations

from typing import Any

from sim.core.events import NO_ID

SEAT = -2  # the seat itself in a target column: a direct attack, damage to the player or sheriff

__all__ = ["NO_ID", "SEAT", "card_name"]


def card_name(pool: Any, card_id: int, pseudo: dict[int, str]) -> str | None:
    """The stored name of a card number: the card's slug, a pseudo id's name from ``pseudo``,
    or None (``NO_ID``, or a pseudo id the game does not name)."""
    if card_id >= 0:
        return pool.cards[card_id].slug
    return pseudo.get(card_id)
