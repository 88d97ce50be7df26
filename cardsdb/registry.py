"""The games whose data this package holds (the one place that lists them)."""
from __future__ import annotations

import importlib
from pathlib import Path

GAMES = {"frontier": "cardsdb.frontier", "alleyway": "cardsdb.alleyway", "allegiance": "cardsdb.allegiance"}

DATA_ROOT = Path(__file__).resolve().parent


def schema(game: str):
    if game not in GAMES:
        raise KeyError(game)
    return importlib.import_module(GAMES[game]).SCHEMA
