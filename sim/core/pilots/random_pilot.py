from __future__ import annotations

from typing import Any

from sim.core.pilots.base import Pilot


class RandomPilot(Pilot):
    """Uniform over the legal actions, from the seat's own stream."""

    __slots__ = ()

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        return actions[self.rng.randrange(len(actions))]
