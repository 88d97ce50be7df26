"""What every game's match state shares. A game's state class derives from ``MatchState`` and
has the slots ``sides`` (one per seat), ``turn``, ``chance_key`` and ``chance``."""
from __future__ import annotations

import random

from sim.core.rng import stream


class MatchState:
    __slots__ = ()

    @property
    def n_seats(self) -> int:
        return len(self.sides)

    def rng(self) -> random.Random:
        """This turn's chance stream (coins, dice, random picks), made when first needed: most
        turns need none. A game resets ``chance`` to None when a turn starts."""
        if self.chance is None:
            self.chance = stream(self.chance_key, "chance", self.turn)
        return self.chance
