"""Finding a card or a deck: by part of its name or id (case-insensitive), and the games whose
runs hold it (so a link naming only the card or deck opens the right game). Pure lookups over
the store's ``cards`` and ``runs`` tables; the dashboard's search box shows what ``find`` returns."""
from __future__ import annotations

from pathlib import Path

import polars as pl

from reports import db

LIMIT = 12  # results shown at most: a longer list asks for more letters


def find(cards: pl.DataFrame, decks: list[str], text: str, limit: int = LIMIT) -> list[dict]:
    """The cards (``card``, ``name`` columns) and decks whose name or id holds ``text``, in any
    case: cards first (those whose name starts with it first), then decks; at most ``limit``.
    Each result: ``kind`` ("card" or "deck"), ``id``, ``name``."""
    needle = text.strip().lower()
    if not needle:
        return []
    found = []
    for row in cards.unique("card", keep="first", maintain_order=True).iter_rows(named=True):
        name = row["name"] or row["card"]
        if needle in name.lower() or needle in row["card"].lower():
            found.append({"kind": "card", "id": row["card"], "name": name, "_first": not name.lower().startswith(needle)})
    found.sort(key=lambda r: (r["_first"], r["name"].lower()))
    found += [{"kind": "deck", "id": d, "name": d, "_first": False} for d in sorted(decks) if needle in d.lower()]
    return [{k: v for k, v in r.items() if k != "_first"} for r in found[:limit]]


def games_with_card(path: str | Path, card: str) -> list[str]:
    """The games whose rules versions hold a card of this id, in name order."""
    return sorted(db.query(path, "SELECT DISTINCT game FROM cards WHERE card = ?", [card])["game"].to_list())


def games_with_deck(path: str | Path, deck: str) -> list[str]:
    """The games with a run that played this deck, in name order."""
    frame = db.query(path, "SELECT DISTINCT game FROM runs WHERE list_contains(string_split(decks, ','), ?)", [deck])
    return sorted(frame["game"].to_list())
