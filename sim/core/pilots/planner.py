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
from sim.core.weights import search_setting

# With more legal actions than this, only the best PLAN_WIDTH by their one-ply value (the choice
# each opens resolved, as greedy judges them) are planned to the end of the turn: an Allegiance
# turn can offer 45 moves, and planning each costs a greedy turn.
PLAN_WIDTH = 8

# Determinizations (worlds) each candidate is planned in when the name gives none (``planner``)
# and the game's weights.yaml names no ``search: planner_worlds``: a line's value is its mean
# over the worlds, every candidate meeting the same worlds. ``planner:3`` plans in 3.
DEFAULT_WORLDS = 1


class PlannerPilot(Pilot):
    """Plans its whole turn: for each legal action, plays the rest of the turn out greedily on a
    determinized clone, scores the position the turn leaves (after any reply the turn waits on,
    before the next seat's turn begins) with the game's ``evaluate``, and takes the best.

    Hidden cards are imagined in ``worlds`` determinizations (``planner:N``; the game's
    ``search: planner_worlds`` by default) and a line's value is its mean over them, so a move is
    not chosen for one imagined set of the opponent's hidden cards. With many legal actions only
    the ``PLAN_WIDTH`` best by one-ply value (in the first world) are planned.
    Ending the turn is one more candidate, scored at the same point as a line that plays on. A
    candidate whose outcome draws luck (a coin, a die, a bet) is scored as the mean over
    ``CHANCE_SAMPLES`` reseeded draws, not on one imagined outcome. The pilot re-plans at every
    decision, so it follows the plan only while the plan stays best.
    """

    __slots__ = ("worlds",)
    takes_budget = True

    def __init__(self, engine: Any, seat: int, rng, worlds: int | None = None):
        super().__init__(engine, seat, rng)
        self.worlds = worlds or search_setting(engine, "planner_worlds", DEFAULT_WORLDS)

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        engine, seat, rng = self.engine, self.seat, self.rng
        roots = [belief(engine, state, seat, rng) for _ in range(self.worlds)]
        return best_of(self.candidates(roots[0], actions),
                       lambda action: sum(self.line_value(root, action) for root in roots) / len(roots), rng)

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
