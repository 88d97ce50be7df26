"""The games whose data this package holds (the one place that lists them).

What a game's data package provides (``cardsdb/<game>/__init__.py`` exports ``SCHEMA``): the
pydantic models ``Card``, ``Deck`` and ``Constants``; ``check_deck(deck, cards, consts)`` ->
[(card, field, message)]; ``budget_cost(card, consts)``, ``stat_points(card, consts)`` and
``budget_points(card, consts)`` (the stat budget); ``card_summary(card, consts)`` (the shared
columns of the store's ``cards`` table); ``faction_field`` (the card field naming its faction or
clan, whose display names ``cardsdb/<game>/factions.yaml`` holds)."""
from __future__ import annotations

import importlib
from pathlib import Path

GAMES = {"frontier": "cardsdb.frontier", "alleyway": "cardsdb.alleyway", "allegiance": "cardsdb.allegiance"}

DATA_ROOT = Path(__file__).resolve().parent


def schema(game: str):
    if game not in GAMES:
        raise KeyError(game)
    return importlib.import_module(GAMES[game]).SCHEMA
