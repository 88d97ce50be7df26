"""One renderer for every game's board: a ``Board`` (model.py) as inline SVG.

Zones are framed areas (a row of lanes, a grid half, a seat's panel with its numbers), cells the
places cards stand in, cards a name, their current numbers and tags. Colours follow the seat;
the kind of place (High-Rise, back row, Muster Zone, Blight...) tints an empty cell. Every card
carries a tooltip with all it says, for names and tags too long for the card face."""
from __future__ import annotations

import zlib
from html import escape

from reports.board.model import Board, Card, Cell, Zone

CW, CH = 132, 100         # one cell, in pixels
PAD = 8
GUTTER = 76               # left of the board: the names of the rows of cells (zones at the left edge)
SEAT_COLOURS = [("#2563eb", "#dbeafe"), ("#dc2626", "#fee2e2"), ("#16a34a", "#dcfce7"), ("#d97706", "#fef3c7")]
NEUTRAL = ("#64748b", "#f1f5f9")
# the tints of places (sim/core/drawn.py SHADES): each game maps its kinds of place onto them
SHADES = {"": "#f8fafc", "raised": "#e0f2fe", "rear": "#eef2f7", "accent": "#fef9c3", "staging": "#fefce8",
          "aside": "#f5f5f4", "dark": "#3b0764"}
TOKEN_PALETTE = ("#b45309", "#0891b2", "#7c3aed", "#be185d", "#15803d", "#475569", "#0f766e", "#9a3412")
MARK = "#f59e0b"
CHAR_W = {12: 6.9, 11: 6.2, 10: 5.6}  # average glyph widths of the sans-serif text, for fitting


def token_colour(name: str) -> str:
    """A token's colour, chosen by its name (the same name always the same colour, in any game)."""
    return TOKEN_PALETTE[zlib.crc32(name.encode()) % len(TOKEN_PALETTE)]


def colours(seat: int | None) -> tuple[str, str]:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)] if seat is not None and seat >= 0 else NEUTRAL


def fit(text: str, width: float, size: int) -> str:
    """``text`` cut to what fits ``width`` pixels at font ``size`` (an ellipsis when cut)."""
    most = max(int(width / CHAR_W.get(size, size * 0.58)), 3)
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"


def wrap(text: str, width: float, size: int, lines: int) -> list[str]:
    """Words in at most ``lines`` lines of ``width`` pixels, the last one cut if need be."""
    most = max(int(width / CHAR_W.get(size, size * 0.58)), 3)
    out, line = [], ""
    words = text.split()
    for i, word in enumerate(words):
        trial = f"{line} {word}".strip()
        if len(trial) <= most or not line:
            line = trial
            continue
        out.append(line)
        line = word
        if len(out) == lines - 1:
            line = " ".join(words[i:])
            break
    out.append(line)
    return [fit(t, width, size) for t in out[:lines]]


def _text(x: float, y: float, text: str, size: int = 12, weight: str = "normal", fill: str = "#0f172a",
          anchor: str = "start", italic: bool = False) -> str:
    style = ' font-style="italic"' if italic else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
            f'text-anchor="{anchor}"{style}>{escape(text)}</text>')


def _zone(z: Zone, seat_names: dict[int, str]) -> str:
    x, y, w, h = GUTTER + z.x * CW, PAD + z.y * CH, z.w * CW, z.h * CH
    strong, light = colours(z.seat)
    label = z.label
    if z.lines and z.seat in seat_names:  # a seat's panel: its label (with the deck's name) and numbers
        label = f"{label} · {seat_names[z.seat]}"
    if z.lines:
        parts = [f'<rect x="{x + 2:.1f}" y="{y + 2:.1f}" width="{w - 4:.1f}" height="{h - 4:.1f}" rx="6" fill="{light}" '
                 f'stroke="{strong}" stroke-width="{3 if z.active else 1}"/>',
                 _text(x + 10, y + 19, fit(label + ("  ▶ to act" if z.active else ""), w - 20, 12), 12, "bold", strong)]
        for i, line in enumerate(z.lines[:3]):
            parts.append(_text(x + 10, y + 36 + 15 * i, fit(line, w - 20, 11), 11))
        return f'<g class="zone panel" data-seat="{z.seat}">{"".join(parts)}</g>'
    legend = ""
    if z.x == 0:  # a row at the left edge is named in the gutter beside it
        lines = wrap(z.label, GUTTER - 12, 11, 3)
        top = y + h / 2 - 7 * (len(lines) - 1) + 4
        legend = "".join(_text(GUTTER - 8, top + 14 * i, line, 11, "bold", strong, "end") for i, line in enumerate(lines))
    return (f'<g class="zone"><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" fill="none" '
            f'stroke="{strong}" stroke-opacity="0.45" stroke-width="1.5"/>{legend}'
            f'<title>{escape(z.label)}</title></g>')


def _tokens(cell: Cell, x: float, y: float, w: float) -> str:
    parts, right = [], x + w - 4
    for name, count in cell.tokens:
        text = f"{name} {count}"
        width = len(text) * 5.6 + 10
        left = right - width
        parts.append(f'<g class="token" data-token="{escape(name)}"><rect x="{left:.1f}" y="{y + 3:.1f}" '
                     f'width="{width:.1f}" height="15" rx="7" fill="{token_colour(name)}"/>'
                     + _text(left + width / 2, y + 14, text, 10, "bold", "#ffffff", "middle") + "</g>")
        right = left - 3
    return "".join(parts)


def _card(card: Card, cell: Cell, x: float, y: float, w: float, h: float, marked: bool) -> str:
    strong, light = colours(card.seat)
    fill, ink = light, "#0f172a"
    if card.face_down:
        fill, ink = "#334155", "#f8fafc"
    elif card.look == "dark":
        fill, ink = "#4c1d95", "#f5f3ff"
    stroke = MARK if marked else strong
    width = 4 if marked else 3 if card.look == "bold" else 1.5
    dash = ' stroke-dasharray="5 3"' if card.pose == "sideways" else ""
    opacity = ' opacity="0.55"' if card.pose == "down" else ""
    tip = "\n".join(t for t in (card.name if not card.face_down else "a face-down card", card.numbers(),
                                ", ".join(card.tags), cell.id) if t)
    shown = "face-down" if card.face_down else card.name  # a face-down card's name is never drawn
    parts = [f'<g class="card" data-cell="{escape(cell.id)}" data-name="{escape(shown)}"{opacity}>',
             f"<title>{escape(tip)}</title>",
             f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="6" fill="{fill}" stroke="{stroke}" '
             f'stroke-width="{width}"{dash}/>']
    inner = w - 12
    if card.face_down:
        parts.append(_text(x + w / 2, y + h / 2 + 4, "face-down", 12, "bold", ink, "middle", italic=True))
    else:
        names = wrap(card.name, inner, 12, 2)
        for i, line in enumerate(names):
            parts.append(_text(x + 6, y + 15 + 14 * i, line, 12, "bold", ink))
        below = y + 15 + 14 * len(names)
        if card.stats:
            rows = stat_lines(card, inner)
            parts.append('<g class="stats">' + "".join(_text(x + 6, below + 2 + 14 * i, line, 12, "normal", ink)
                                                       for i, line in enumerate(rows)) + "</g>")
            below += 14 * len(rows) + 1
        if card.tags:
            parts.append(_text(x + 6, below + 1, fit(", ".join(card.tags), inner, 10), 10, "normal",
                               "#e2e8f0" if card.look == "dark" else "#475569", italic=True))
    parts.append("</g>")
    return "".join(parts)


def stat_lines(card: Card, width: float) -> list[str]:
    """The card's numbers, as many to a line as fit (two lines at most)."""
    lines: list[str] = []
    for k, v in card.stats:
        item = f"{k} {v}"
        if lines and len(lines[-1]) + 3 + len(item) <= width / CHAR_W[12]:
            lines[-1] += " · " + item
        else:
            lines.append(item)
    return [fit(t, width, 12) for t in lines[:1]] + [fit(" · ".join(lines[1:]), width, 12)] if len(lines) > 1 \
        else [fit(t, width, 12) for t in lines]


def _cell(cell: Cell, marks: set[str]) -> str:
    x, y, w, h = GUTTER + cell.x * CW, PAD + cell.y * CH, cell.w * CW, cell.h * CH
    bx, by, bw, bh = x + 4, y + 4, w - 8, h - 8
    shade = SHADES.get(cell.shade, SHADES[""])
    parts = [f'<g class="cell" data-cell="{escape(cell.id)}"><rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" '
             f'height="{bh:.1f}" rx="6" fill="{shade}" stroke="#cbd5e1" stroke-dasharray="3 3"/>']
    if cell.card is None:
        parts.append(_text(bx + bw / 2, by + bh / 2 + 4, cell.label, 11, "normal", "#94a3b8", "middle"))
    else:
        top = 18 if cell.tokens else 0
        parts.append(_card(cell.card, cell, bx + 2, by + 2 + top, bw - 4, bh - 4 - top, cell.card.name in marks))
        parts.append(_text(bx + bw - 6, by + bh - 6, cell.label, 9, "normal", "#64748b", "end"))
    parts.append(_tokens(cell, bx, by, bw))
    parts.append("</g>")
    return "".join(parts)


def pixel_width(board: Board) -> float:
    """The drawing's own width, in pixels (it shrinks to fit a narrower column)."""
    return GUTTER + board.width * CW + PAD


def draw(board: Board, seat_names: dict[int, str] | None = None, marks: set[str] | frozenset = frozenset(),
         max_width: int | None = None) -> str:
    """The board as an ``<svg>`` element: zones, then cells and their cards. ``seat_names`` label
    the seats' panels (a deck name); cards named in ``marks`` get an amber frame (the step's
    cards, the card chosen)."""
    names = seat_names or {}
    width, height = pixel_width(board), board.height * CH + 2 * PAD
    body = "".join(_zone(z, names) for z in board.zones) + "".join(_cell(c, set(marks)) for c in board.cells)
    limit = max_width or int(width)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="drawn-board" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'width="100%" style="max-width:{limit}px;height:auto;font-family:sans-serif" role="img" '
            f'aria-label="{escape(board.title)} board">{body}</svg>')
