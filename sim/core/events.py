"""A columnar event buffer: one Python list per column, appended to, never an object per event.

Games emit events through ``emit``; the farm turns the columns into Arrow arrays in one step.
Kinds are small integers; each game registers its kind names once (see ``EventKinds``).
A lookahead clone carries ``None`` instead of a buffer, so logging costs nothing there.
"""
from __future__ import annotations

import hashlib

NO_ID = -1  # "no card / no target / no lane" in the integer columns

# The one event kind every game that seats more than two registers and emits: a seat aimed an
# attack or an effect at another seat (amount = that seat, detail = AIMED_ATTACK or AIMED_EFFECT).
# The free-for-all reports (reports/ffa.py ffa_targets) read who went after whom from these
# alone, never from a game's own event words.
AIMED = "aimed"
AIMED_ATTACK, AIMED_EFFECT = "attack", "effect"


class EventKinds:
    """The names of a game's event kinds, in a fixed order (the index is the stored code)."""

    def __init__(self, names: list[str]):
        self.names = list(names)
        for code, name in enumerate(self.names):
            setattr(self, name.upper(), code)

    def name(self, code: int) -> str:
        return self.names[code]


class EventBuffer:
    COLUMNS = ("turn", "seat", "kind", "card", "target", "amount", "lane", "detail")
    __slots__ = COLUMNS

    def __init__(self):
        self.turn: list[int] = []
        self.seat: list[int] = []
        self.kind: list[int] = []
        self.card: list[int] = []
        self.target: list[int] = []
        self.amount: list[int] = []
        self.lane: list[int] = []
        self.detail: list[str | None] = []

    def emit(self, turn: int, seat: int, kind: int, card: int = NO_ID, target: int = NO_ID,
             amount: int = 0, lane: int = NO_ID, detail: str | None = None) -> None:
        self.turn.append(turn)
        self.seat.append(seat)
        self.kind.append(kind)
        self.card.append(card)
        self.target.append(target)
        self.amount.append(amount)
        self.lane.append(lane)
        self.detail.append(detail)

    def __len__(self) -> int:
        return len(self.kind)

    def columns(self) -> dict[str, list]:
        return {name: getattr(self, name) for name in self.COLUMNS}

    def digest(self) -> str:
        """A fingerprint of every event, for determinism checks across processes."""
        h = hashlib.sha256()
        for name in self.COLUMNS:
            h.update(name.encode())
            h.update(repr(getattr(self, name)).encode())
        return h.hexdigest()
