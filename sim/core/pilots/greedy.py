from __future__ import annotations

from typing import Any

from sim.core.hidden import reseed_chance
from sim.core.pilots.base import Pilot
from sim.core.pilots.lookahead import (
    CHANCE_SAMPLES,
    FOLLOW_UP_DEPTH,
    best_of,
    follow_up_value,
    used_chance,
)


class GreedyPilot(Pilot):
    """One-ply lookahead: try each legal action on a determinized clone, score the result with the
    game's ``evaluate``, take the best; ties go to the pilot's own stream.

    The clone is made once per decision by ``determinize`` (hidden cards resampled, chance
    reseeded from the pilot's stream), then copied per action, so every candidate meets the same
    imagined luck and none sees the real future. A move that draws luck (a coin, a die, a bet,
    a random target) is scored as the mean over ``CHANCE_SAMPLES`` draws of it.
    """

    __slots__ = ()

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        engine = self.engine
        belief = engine.determinize(state, self.seat, self.rng)
        belief.chance = None  # drawn lazily: a move that draws luck makes it (lookahead.used_chance)

        def value_of(action: Any) -> float:
            trial = engine.clone(belief)
            engine.apply(trial, action)
            value = self._value(trial, FOLLOW_UP_DEPTH)
            return self._expected(belief, action, value) if used_chance(trial) else value

        return best_of(actions, value_of, self.rng)

    def _expected(self, belief: Any, action: Any, first: float) -> float:
        """A move that drew luck, scored as the mean over CHANCE_SAMPLES draws, not one."""
        engine = self.engine
        total = first
        for _ in range(CHANCE_SAMPLES - 1):
            trial = engine.clone(belief)
            reseed_chance(trial, self.rng)
            engine.apply(trial, action)
            total += self._value(trial, FOLLOW_UP_DEPTH)
        return total / CHANCE_SAMPLES

    def _value(self, state: Any, depth: int) -> float:
        return follow_up_value(self.engine, state, self.seat, depth)
