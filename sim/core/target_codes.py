"""Target codes: a seat and an index there packed into one integer, ``seat * stride + index``.

What an attack or an effect points at travels as one integer, not a record: actions carry it and
a choice's options are integers, so action tables can be indexed by it. A game makes its codes
once, at import, with ``TargetCodes(stride, record, seats)`` (Frontier: a seat's lane or its
sheriff, stride 16, read back as a ``Target``; AlleyWay: a seat's lane, back-row slot, the player
or its Dormant leader, stride 32, read back as a ``Place``), and gives its modules the parts as
module-level names, so that a hot path pays no attribute lookup per call:

    code      (seat, index) -> the code, a plain function
    decode    code -> the game's record of (seat, index), a plain function reading ``records``
    seat_of   every code's seat, a tuple of ints (the hot paths index it: a tuple index is cheaper
    index_of  than unpacking a named tuple); index_of likewise its index
    records   every code read as the game's record, made once

The tables cover ``seats`` seats; ``decode`` reads a code past them by arithmetic.
"""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

Record = TypeVar("Record")


class TargetCodes(Generic[Record]):
    """A game's target codes: ``stride`` indexes per seat, read back as ``record(seat, index)``,
    tables made for ``seats`` seats."""
    __slots__ = ("stride", "seats", "seat_of", "index_of", "records", "code", "decode")

    def __init__(self, stride: int, record: Callable[[int, int], Record], seats: int):
        if stride < 1 or seats < 1:
            raise ValueError(f"target codes need a stride and seats of at least 1, not {stride} and {seats}")
        size = stride * seats
        seat_of = tuple(target // stride for target in range(size))
        index_of = tuple(target % stride for target in range(size))
        records = tuple(record(seat, index) for seat, index in zip(seat_of, index_of))

        # closures, not methods: a caller binds them to module names and calls them with no
        # attribute lookup (the stride and the table are the closure's own cells)
        def code(seat: int, index: int) -> int:
            """A seat's ``index`` as one integer (``decode`` reads it back)."""
            return seat * stride + index

        def decode(target: int) -> Record:
            """What ``target`` points at, as the game's record (seat, index)."""
            return records[target] if target < size else record(target // stride, target % stride)

        self.stride, self.seats = stride, seats
        self.seat_of, self.index_of, self.records = seat_of, index_of, records
        self.code, self.decode = code, decode

    def __repr__(self) -> str:
        return f"TargetCodes(stride={self.stride}, seats={self.seats})"
