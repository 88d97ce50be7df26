"""The drawn board: what a replay draws of a table, as plain data (``engine.drawn_board(state)``).

A game says *what* stands *where*; one renderer (reports/board/) draws every game from it, so
no drawing code knows a game. The data crosses layers as plain dicts and lists (the dashboard
gets it from workbench/replay.py, and ``reports`` imports no ``sim``); reports/board/model.py
reads it back into dataclasses. Coordinates are in cells (a card's place is one cell wide and
one high), from the top left.

    board  {"title", "width", "height", "zones": [zone], "cells": [cell]}
    zone   {"label", "seat", "x", "y", "w", "h", "lines": [str], "active": bool}
           a framed area: a row of lanes, a grid half, a seat's panel (its numbers as lines)
    cell   {"id", "label", "x", "y", "w", "h", "card": card | None, "tokens": [[name, count]],
            "shade": str}   a place a card can stand; ``shade`` is one of SHADES, the tint of the
           renderer's own vocabulary that each game maps its kinds of place onto (Frontier's
           High-Rise is "raised", AlleyWay's back row "rear", Allegiance's Blight "dark"...)
    card   {"name", "seat", "stats": [[label, value]], "tags": [str], "face_down": bool,
            "pose": "" | "sideways" | "down", "kind": str, "look": str}
           ``kind`` is the game's own word for the card (a tooltip's, a test's); ``look`` one of
           LOOKS, how the renderer draws it ("dark": a hazard, not a seat's card; "bold": a card
           the seat's game hangs on, drawn with a heavy frame)
    tokens are drawn each in a colour of the renderer's palette chosen by its name

Like ``board``, it shows only what every seat sees: a face-down card is drawn without its name.
"""
from __future__ import annotations

from typing import Any

SHADES = ("", "raised", "rear", "accent", "staging", "aside", "dark")
LOOKS = ("", "dark", "bold")


def card(name: str, seat: int | None, stats: list | tuple = (), tags: list | tuple = (), face_down: bool = False,
         pose: str = "", kind: str = "unit", look: str = "") -> dict:
    assert look in LOOKS, look
    return {"name": name, "seat": seat, "stats": [[str(k), v] for k, v in stats], "tags": [t for t in tags if t],
            "face_down": bool(face_down), "pose": pose, "kind": kind, "look": look}


def cell(cell_id: str, label: str, x: float, y: float, held: dict | None = None, tokens: list | tuple = (),
         shade: str = "", w: float = 1.0, h: float = 1.0) -> dict:
    assert shade in SHADES, shade
    return {"id": cell_id, "label": label, "x": x, "y": y, "w": w, "h": h, "card": held,
            "tokens": [[str(k), int(n)] for k, n in tokens if n], "shade": shade}


def zone(label: str, seat: int | None, x: float, y: float, w: float, h: float, lines: list | tuple = (),
         active: bool = False) -> dict:
    return {"label": label, "seat": seat, "x": x, "y": y, "w": w, "h": h, "lines": [str(t) for t in lines],
            "active": bool(active)}


def board(title: str, zones: list[dict], cells: list[dict]) -> dict:
    """The whole board; its size is what its zones and cells cover."""
    boxes = zones + cells
    width = max((b["x"] + b["w"] for b in boxes), default=1.0)
    height = max((b["y"] + b["h"] for b in boxes), default=1.0)
    return {"title": title, "width": width, "height": height, "zones": zones, "cells": cells}


def numbers_line(pairs: list | tuple) -> str:
    """``[("HP", 30), ("Mana", 3)]`` as ``HP 30 · Mana 3`` (pairs whose value is None left out)."""
    return " · ".join(f"{k} {v}" for k, v in pairs if v is not None)


PANEL_H = 0.75  # a seat's panel: two lines of numbers


def from_rows(board_rows: dict[str, Any], title: str = "") -> dict:
    """A drawn board from the table board (``engine.board``'s seats and field rows), for an engine
    that draws nothing of its own: a panel per seat and its field rows as cards in one row."""
    zones, cells = [], []
    y = 0.0
    for s, row in enumerate(board_rows.get("seats", [])):
        key = row.get("seat", f"p{s}")
        mine = [r for r in board_rows.get("field", []) if r.get("seat") == key]
        numbers = [(k, v) for k, v in row.items() if k not in ("seat", "to_act") and not isinstance(v, (dict, list))]
        width = max(len(mine), 5)
        zones.append(zone(f"{key}", s, 0, y, width, PANEL_H, [numbers_line(numbers)], bool(row.get("to_act"))))
        y += PANEL_H
        zones.append(zone(f"{key} field", s, 0, y, width, 1))
        for i, r in enumerate(mine):
            name = str(r.get("card") or "")
            stats = [(k, v) for k, v in r.items() if k not in ("seat", "card", "lane", "cell") and v is not None
                     and not isinstance(v, bool) and v != ""]
            label = str(r.get("lane") or r.get("cell") or i + 1)
            cells.append(cell(f"{key}.{label}", label, i, y, card(name, s, stats) if name else None))
        y += 1
    return board(title, zones, cells)
