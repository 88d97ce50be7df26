"""The board model: a drawn board read back from the plain data a replay carries.

An engine says what stands where as plain dicts (the format is written down in
sim/core/drawn.py; ``reports`` imports no ``sim``, so it arrives through the replay function the
app entry hands in). These dataclasses are what the renderer (svg.py) draws, and what a test
builds by hand. Nothing here knows a game: zones, cells and cards with their numbers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Card:
    name: str
    seat: int | None = None
    stats: tuple[tuple[str, str], ...] = ()   # ("ATK", "3"), ("DEF", "2/4"): its current numbers
    tags: tuple[str, ...] = ()                # "fresh: dodges", "DEF position", "weapon Iron Sword"...
    face_down: bool = False                   # drawn as a card back, without its name
    pose: str = ""                            # "" upright, "sideways" (a defensive position), "down" (dimmed)
    kind: str = "unit"                        # the game's word (unit, stronghold, leader...): tooltips, tests
    look: str = ""                            # how it is drawn: "" plain, "dark" (a hazard), "bold" (heavy frame)

    def numbers(self) -> str:
        return " · ".join(f"{k} {v}" for k, v in self.stats)


@dataclass(frozen=True)
class Cell:
    id: str
    label: str
    x: float
    y: float
    w: float = 1.0
    h: float = 1.0
    card: Card | None = None
    tokens: tuple[tuple[str, int], ...] = ()  # ("Cover", 1), ("Absorb", 2)
    shade: str = ""                           # the place's tint: "", raised, rear, accent, staging, aside, dark


@dataclass(frozen=True)
class Zone:
    label: str
    seat: int | None
    x: float
    y: float
    w: float
    h: float
    lines: tuple[str, ...] = ()               # a panel's numbers
    active: bool = False                      # the seat to act


@dataclass(frozen=True)
class Board:
    title: str
    width: float
    height: float
    zones: tuple[Zone, ...] = ()
    cells: tuple[Cell, ...] = field(default_factory=tuple)

    def cards(self) -> list[Card]:
        return [c.card for c in self.cells if c.card is not None]

    def cell(self, cell_id: str) -> Cell:
        return next(c for c in self.cells if c.id == cell_id)


def _card(d: dict | None) -> Card | None:
    if d is None:
        return None
    return Card(str(d["name"]), d.get("seat"), tuple((str(k), str(v)) for k, v in d.get("stats", [])),
                tuple(str(t) for t in d.get("tags", [])), bool(d.get("face_down")), d.get("pose", ""),
                d.get("kind", "unit"), d.get("look", ""))


def from_plain(d: dict) -> Board:
    """A drawn board (plain dicts, as an engine's ``drawn_board`` gives it) as a ``Board``."""
    zones = tuple(Zone(str(z["label"]), z.get("seat"), float(z["x"]), float(z["y"]), float(z["w"]), float(z["h"]),
                       tuple(z.get("lines", [])), bool(z.get("active"))) for z in d.get("zones", []))
    cells = tuple(Cell(str(c["id"]), str(c["label"]), float(c["x"]), float(c["y"]), float(c.get("w", 1)),
                       float(c.get("h", 1)), _card(c.get("card")), tuple((str(k), int(n)) for k, n in c.get("tokens", [])),
                       c.get("shade", "")) for c in d.get("cells", []))
    return Board(str(d.get("title", "")), float(d.get("width", 1)), float(d.get("height", 1)), zones, cells)
