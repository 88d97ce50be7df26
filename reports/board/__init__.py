"""The drawn board of the replay page: a game-neutral model (model.py) of what an engine's
``drawn_board`` says stands where, and one SVG renderer (svg.py) for every game."""
from reports.board.model import Board, Card, Cell, Zone, from_plain
from reports.board.svg import draw, pixel_width

__all__ = ["Board", "Card", "Cell", "Zone", "draw", "from_plain", "pixel_width"]
