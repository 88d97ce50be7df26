"""Evaluate's table of positions already valued: a lookahead meets the same position many times.

A greedy decision scores a move that draws luck over several reseeded draws, and a Soul Combat
has two outcomes, so most of its samples end in a position valued a moment before; a move and
its first step (``move p0.A3`` before its cell) leave the units where they were; two orders of
the same moves (the planner's lines) meet. About half of greedy's and the planner's
evaluations are of a position already valued in the same decision.

The key holds every part of the position evaluate reads, by value (units are immutable tuples,
so a hand edit of a unit or a seat changes the key): the cells, the Blight, the seat to act (a
boost counts on its own turn), and of each seat its Stronghold deck, its Muster Zone, its hand
size and whether it has begun a turn. A hit returns the very floats the walk made, so the
values, and every choice made on them, are the same bits. Card edits clear the table with the
per-card terms it belongs to (``evaluate.terms``).

The table is keyed by the key's hash, the entry holding the key and the values: hashing a key
hashes every unit on the board, so it is done once per evaluation, not again to store a new
entry. Two keys with one hash share a slot (the later replaces the earlier), never a value.
``evaluate.evaluate`` reads and writes the table inline (it is its hottest path).
"""
from __future__ import annotations

# positions kept per rules version; the table is emptied when full (the hits come from
# positions of the same decision, a few hundred evaluations apart at most)
LIMIT = 2048


def position_key(state) -> tuple:
    """Everything evaluate reads of a position that is not over, as one hashable value."""
    a, b = state.sides
    return (state.active, state.blight, tuple(state.cells),
            tuple(a.strongholds), tuple(a.muster), len(a.hand), a.turns > 0,
            tuple(b.strongholds), tuple(b.muster), len(b.hand), b.turns > 0)
