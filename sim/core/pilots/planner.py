from __future__ import annotations

from typing import Any

from sim.core.hidden import reseed_chance
from sim.core.pilots.base import Pilot
from sim.core.pilots.lookahead import (
    CHANCE_SAMPLES,
    belief,
    best_of,
    finish_turn_greedily,
    one_ply_ranking,
    turn_over,
    used_chance,
)

# With more legal actions than this, only the best PLAN_WIDTH by their one-ply value (the choice
# each opens resolved, as greedy judges them) are planned to the end of the turn: an Allegiance
# turn can offer 45 moves, and planning each costs a greedy turn.
PLAN_WIDTH = 8


class PlannerPilot(Pilot):
    """Plans its whole turn: for each legal action, plays the rest of the turn out greedily on a
    determinized clone, scores the position the turn leaves (after any reply the turn waits on,
    before the next seat's turn begins) with the game's ``evaluate``, and takes the best.

    With many legal actions only the ``PLAN_WIDTH`` best by one-ply value are planned.
    Ending the turn is one more candidate, scored at the same point as a line that plays on. A
    candidate whose outcome draws luck (a coin, a die, a bet) is scored as the mean over
    ``CHANCE_SAMPLES`` reseeded draws, not on one imagined outcome. The pilot re-plans at every
    decision, so it follows the plan only while the plan stays best.
    """

    __slots__ = ()

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        engine, seat, rng = self.engine, self.seat, self.rng
        root = belief(engine, state, seat, rng)
        return best_of(self.candidates(root, actions), lambda action: self.line_value(root, action), rng)

    def candidates(self, root: Any, actions: list) -> list:
        """Every legal action, or the PLAN_WIDTH best by one-ply value when there are more (in
        their legal order, so ties still go to the stream the same way)."""
        if len(actions) <= PLAN_WIDTH:
            return actions
        keep = sorted(one_ply_ranking(self.engine, root, actions, self.seat)[:PLAN_WIDTH])
        return [actions[i] for i in keep]

    def line_value(self, root: Any, action: Any) -> float:
        """The end-of-turn value of taking ``action`` and finishing the turn greedily."""
        engine, rng = self.engine, self.rng
        trial = engine.clone(root)
        engine.apply(trial, action)
        if not used_chance(trial):
            return self._finish(trial)
        total = 0.0
        for sample in range(CHANCE_SAMPLES):
            if sample:
                trial = engine.clone(root)
                reseed_chance(trial, rng)
                engine.apply(trial, action)
            total += self._finish(trial)
        return total / CHANCE_SAMPLES

    def _finish(self, trial: Any) -> float:
        if not turn_over(trial):
            finish_turn_greedily(self.engine, trial, self.seat, self.rng)
        return self.engine.evaluate(trial, self.seat)
