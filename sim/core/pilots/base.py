from __future__ import annotations

import random
from typing import Any


class Pilot:
    """A seat's decision maker: the engine it plays through, its seat, its own RNG stream."""

    __slots__ = ("engine", "seat", "rng")

    def __init__(self, engine: Any, seat: int, rng: random.Random):
        self.engine, self.seat, self.rng = engine, seat, rng

    def choose(self, state: Any, actions: list) -> Any:
        raise NotImplementedError
