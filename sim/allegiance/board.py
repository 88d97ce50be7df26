"""The battlefield's geometry, computed once per rules version: cells, names, straight lines,
distances, neighbours and the halves of the board.

Cells are integers ``row * columns + column``. Global rows run from seat 0's back row (row 0 is
seat 0's D) to seat 1's back row: with 4 rows a side, rows 0-3 are seat 0's D, C, B, A and rows
4-7 are seat 1's A, B, C, D, so the two A rows touch. A cell's name says whose half it is on and
its row letter there, with columns numbered 1..6 the same for both seats: ``p0.B3``, ``p1.A6``.

Distances are Chebyshev (a diagonal step is one step): "range 2" reaches two cells along a row,
a column or a diagonal. ``line`` holds the distance between two cells on one straight line (same
row, same column or exact diagonal) and ``NO_LINE`` (a distance nothing reaches) otherwise, so
"in range along a line" is one table look-up and one bit test.
"""
from __future__ import annotations

LETTERS = "ABCDEF"
NO_LINE = 31


class Board:
    __slots__ = ("rows_per_side", "rows", "cols", "n", "row", "col", "side", "line", "cheb",
                 "orth", "king", "orth_mask", "side_mask", "row_b", "names", "index", "all_mask",
                 "row_mask", "_reach", "_balls", "_run_starts")

    def __init__(self, rows_per_side: int, columns: int):
        r, c = rows_per_side, columns
        self.rows_per_side, self.rows, self.cols = r, 2 * r, c
        n = self.n = 2 * r * c
        self.row = [i // c for i in range(n)]
        self.col = [i % c for i in range(n)]
        self.side = [0 if self.row[i] < r else 1 for i in range(n)]
        self.line = [NO_LINE] * (n * n)
        self.cheb = [0] * (n * n)
        for a in range(n):
            for b in range(n):
                dr, dc = abs(self.row[a] - self.row[b]), abs(self.col[a] - self.col[b])
                d = max(dr, dc)
                self.cheb[a * n + b] = d
                if dr == 0 or dc == 0 or dr == dc:
                    self.line[a * n + b] = d
        self.orth = [tuple(b for b in range(n) if abs(self.row[a] - self.row[b]) + abs(self.col[a] - self.col[b]) == 1)
                     for a in range(n)]
        self.king = [tuple(b for b in range(n) if self.cheb[a * n + b] == 1) for a in range(n)]
        self.orth_mask = [sum(1 << b for b in self.orth[a]) for a in range(n)]
        self.row_mask = [sum(1 << i for i in range(n) if self.row[i] == row) for row in range(self.rows)]
        self.side_mask = [sum(1 << i for i in range(n) if self.side[i] == s) for s in (0, 1)]
        self.all_mask = (1 << n) - 1
        self.row_b = [self.cells_of_row(s, 1) for s in (0, 1)]
        self.names = [self._name(i) for i in range(n)]
        self.index = {name: i for i, name in enumerate(self.names)}
        self._reach: dict[tuple[int, int], list[int]] = {}
        self._balls: dict[int, list[int]] = {}
        self._run_starts: dict[int, int] = {}

    def ball(self, steps: int) -> list[int]:
        """For each cell, the mask of cells within ``steps`` orthogonal steps (blockers ignored)."""
        masks = self._balls.get(steps)
        if masks is None:
            row, col, n = self.row, self.col, self.n
            masks = [sum(1 << b for b in range(n) if abs(row[a] - row[b]) + abs(col[a] - col[b]) <= steps)
                     for a in range(n)]
            self._balls[steps] = masks
        return masks

    def reach_masks(self, line_mask: int, any_mask: int) -> list[int]:
        """For each cell, the mask of cells at a distance whose bit is set in ``line_mask`` along
        a straight line, or in ``any_mask`` in any direction (shared by every ability alike)."""
        key = (line_mask, any_mask)
        masks = self._reach.get(key)
        if masks is None:
            n, line, cheb = self.n, self.line, self.cheb
            masks = []
            for a in range(n):
                base = a * n
                masks.append(sum(1 << b for b in range(n)
                                 if (line_mask >> line[base + b]) & 1 or (any_mask >> cheb[base + b]) & 1))
            self._reach[key] = masks
        return masks

    def runs(self, mask: int, size: int) -> int:
        """The cells of ``mask`` that stand in a run of at least ``size`` set cells side by side
        in one row (a formation). Bit arithmetic instead of a walk from every cell: a window of
        ``size`` cells starting at c is full when c and the size-1 cells after it are all set."""
        starts = self._run_starts.get(size)
        if starts is None:  # the cells a window can start on without running off its row
            starts = self._run_starts[size] = sum(1 << c for c in range(self.n) if self.col[c] + size <= self.cols)
        full = mask & starts
        for k in range(1, size):
            full &= mask >> k
        cells = full
        for k in range(1, size):
            cells |= full << k
        return cells

    def global_row(self, seat: int, letter_index: int) -> int:
        """The global row of a seat's row A (0), B (1), ..."""
        r = self.rows_per_side
        return r - 1 - letter_index if seat == 0 else r + letter_index

    def cells_of_row(self, seat: int, letter_index: int) -> list[int]:
        row = self.global_row(seat, letter_index)
        return [row * self.cols + col for col in range(self.cols)]

    def _name(self, cell: int) -> str:
        seat = self.side[cell]
        row = self.row[cell]
        letter = self.rows_per_side - 1 - row if seat == 0 else row - self.rows_per_side
        return f"p{seat}.{LETTERS[letter]}{self.col[cell] + 1}"

    def cell(self, name: str) -> int:
        if name not in self.index:
            raise ValueError(f"unknown cell {name!r} (cells are named like p0.B3 or p1.A6: "
                             f"the half, the row letter A-{LETTERS[self.rows_per_side - 1]}, "
                             f"the column 1-{self.cols})")
        return self.index[name]


# cells_of reads a mask CHUNK bits at a time from tables (the set bits of every chunk value, one
# table per chunk position) instead of bit by bit: the hottest loop of legal actions and evaluate
CHUNK = 12
_CHUNK_MASK = (1 << CHUNK) - 1
_CHUNK_BITS = [tuple(b for b in range(CHUNK) if (value >> b) & 1) for value in range(1 << CHUNK)]
_CHUNK_CELLS: list[list[tuple[int, ...]]] = []


def _chunk_cells(position: int) -> list[tuple[int, ...]]:
    while len(_CHUNK_CELLS) <= position:  # made as far as the largest board needs
        base = len(_CHUNK_CELLS) * CHUNK
        _CHUNK_CELLS.append([tuple(base + b for b in bits) for bits in _CHUNK_BITS])
    return _CHUNK_CELLS[position]


def cells_of(mask: int) -> list[int]:
    """The cells whose bits are set, lowest first."""
    out: list[int] = []
    position = 0
    while mask:
        chunk = mask & _CHUNK_MASK
        if chunk:
            table = _CHUNK_CELLS[position] if position < len(_CHUNK_CELLS) else _chunk_cells(position)
            out.extend(table[chunk])
        mask >>= CHUNK
        position += 1
    return out
