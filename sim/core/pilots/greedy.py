from __future__ import annotations

from typing import Any

from sim.core.pilots.base import Pilot
from sim.core.pilots.lookahead import CHANCE_SAMPLES, reseed_chance, used_chance

# How many follow-up choices inside the action just tried the pilot resolves in lookahead before
# it scores: its own (the target or cell of its action: the best one) and another seat's reply
# that the action waits on (a defender's answer: the worst one for the pilot). 1 means "play the
# card and its best target", not a deeper search.
FOLLOW_UP_DEPTH = 1


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
        best_value = float("-inf")
        best: list = []
        for action in actions:
            trial = engine.clone(belief)
            engine.apply(trial, action)
            value = self._value(trial, FOLLOW_UP_DEPTH)
            if used_chance(trial):
                value = self._expected(belief, action, value)
            if value > best_value:
                best_value, best = value, [action]
            elif value == best_value:
                best.append(action)
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]

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
        engine = self.engine
        if depth > 0 and not state.over and engine.in_choice(state):
            mine = state.to_act == self.seat
            best = float("-inf") if mine else float("inf")
            for follow_up in engine.legal_actions(state):
                trial = engine.clone(state)
                engine.apply(trial, follow_up)
                value = self._value(trial, depth - 1)
                best = max(best, value) if mine else min(best, value)
            return best
        return engine.evaluate(state, self.seat)
