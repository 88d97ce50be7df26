"""Today against a revision, block pair by block pair: each pair played the same work on both
sides one right after the other, so the machine's load is nearly the same for both, and the
ratio of the pair is what the code changed. The spread is that of the pairs' ratios."""
from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Block:
    """What one side measured over one block: ``count`` units (matches, decisions, candidates)
    in ``cpu`` seconds of its process and ``wall`` seconds."""
    count: float
    cpu: float
    wall: float

    def per(self, clock: str) -> float:
        """Units per second of ``clock`` ("cpu" or "wall")."""
        return self.count / max(1e-9, getattr(self, clock))

    def cost(self, clock: str) -> float:
        """Seconds of ``clock`` per unit."""
        return getattr(self, clock) / max(1, self.count)


@dataclass(frozen=True, slots=True)
class Ratio:
    """today / REV of one figure: its median over the block pairs, the interquartile range of
    the pairs' ratios, and the figure pooled over all blocks on each side."""
    rev: float
    today: float
    median: float
    low: float
    high: float
    pairs: int


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q3


def compare(rev: list[Block], today: list[Block], clock: str, as_cost: bool = False) -> Ratio:
    """The figure per ``clock`` second (or, ``as_cost``, seconds per unit) on both sides, pooled,
    and the ratio today / REV pair by pair."""
    def figure(b: Block) -> float:
        return b.cost(clock) if as_cost else b.per(clock)

    ratios = [figure(t) / max(1e-12, figure(r)) for r, t in zip(rev, today)]
    pooled = [Block(sum(b.count for b in side), sum(b.cpu for b in side), sum(b.wall for b in side))
              for side in (rev, today)]
    low, high = quartiles(ratios)
    return Ratio(figure(pooled[0]), figure(pooled[1]), statistics.median(ratios), low, high, len(ratios))


def shown(x: float) -> str:
    """A figure to read: whole numbers from 100 up, three significant figures below (0.143)."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"
