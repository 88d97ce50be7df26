from __future__ import annotations

import random
from typing import Any


class RandomPilot:
    """Uniform over the legal actions, from the seat's own stream."""

    __slots__ = ("engine", "seat", "rng")

    def __init__(self, engine: Any, seat: int, rng: random.Random):
        self.engine, self.seat, self.rng = engine, seat, rng

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        return actions[self.rng.randrange(len(actions))]
