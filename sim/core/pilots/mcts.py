from __future__ import annotations

import math
from typing import Any

from sim.core.pilots.base import Pilot
from sim.core.pilots.lookahead import belief, finish_turn_greedily, one_ply_ranking, turn_over, zero_sum
from sim.core.portable_math import floor_root, log_count, tanh
from sim.core.state import turn_held
from sim.core.weights import search_setting

DEFAULT_BUDGET = 40     # playouts per decision when the name gives none (``mcts``) and the game's
                        # weights.yaml names no ``search: mcts_budget``
EXPLORATION = 0.7       # UCB's c, on rewards in [0, 1]
VALUE_SCALE = 10.0      # evaluate points above the root's value that move the reward from 0.5 to
                        # about 0.88 (tanh); measured, a decision's candidates differ by 6-18 points
                        # (median) in the three games' evaluate, while positions sit 20-40 from 0
WIDEN_BASE = 1          # progressive widening: a node may have WIDEN_BASE * visits ** (1 / WIDEN_ROOT)
WIDEN_ROOT = 4          # children (at least WIDEN_BASE), tried in the order of their one-ply value
HORIZON_TURNS = 2       # turn ends a playout crosses before it is scored: 2 = through the next seat's
                        # turn (a game's ``search: mcts_horizon`` overrides it)
TURN_BLEND = 0.0        # with a horizon above 1, the weight of the reward where the first turn ends
                        # against the reward at the horizon (a game's ``search: mcts_turn_blend``)
WORLDS = 16             # determinizations per decision, shared by the root actions in turn
ROOT_WIDTH = 8          # the root opens its ROOT_WIDTH best actions by one-ply value at once (as the
                        # planner plans them), then widens like any node


class Node:
    """One information set's statistics, reached by an action from its parent. ``total`` is
    the reward of the seat that chose the action; ``avail`` counts the visits of the parent in
    which the action was legal (information-set UCB: an action that a determinization does not
    allow is not penalised for it)."""

    __slots__ = ("visits", "total", "avail", "children", "order")

    def __init__(self):
        self.visits = 0
        self.total = 0.0
        self.avail = 0
        self.children: dict = {}
        self.order: list | None = None  # legal actions by one-ply value, best first


class Worlds:
    """The determinizations of one decision, made as they are first needed (so the same pilot
    stream makes the same worlds). A root action's k-th playout is played in world k, so every
    root action meets the same imagined hands and luck: two moves are compared on the same
    worlds (common random numbers), not blurred by different ones."""

    __slots__ = ("engine", "state", "seat", "rng", "made")

    def __init__(self, engine: Any, state: Any, seat: int, rng):
        self.engine, self.state, self.seat, self.rng = engine, state, seat, rng
        self.made: list = []

    def get(self, k: int) -> Any:
        while len(self.made) <= k:
            self.made.append(belief(self.engine, self.state, self.seat, self.rng))
        return self.made[k]


class MCTSPilot(Pilot):
    """Determinized Monte Carlo tree search, the single-observer information-set form (SO-ISMCTS,
    Cowling, Powley and Whitehouse 2012): every playout samples a new determinization of what
    the seat cannot see (and new luck), and all playouts share one tree whose nodes are the
    seat's information sets, keyed by the actions taken.

    Why one shared tree, not a tree per determinization: the budget is small (tens to hundreds
    of playouts), and split over several trees each would see too few playouts to rank moves;
    a shared tree spends all of them on the one decision, averaging over hidden cards and chance
    as it goes (a coin card is judged on many coins, not one imagined outcome).

    A playout descends by UCB among the actions legal in its determinization, adding one child
    per playout under progressive widening (children are opened in the order of their one-ply
    value, so large action sets start with the plausible moves); then it finishes the turn with
    the cheap greedy policy and scores the position the turn leaves with the game's
    ``evaluate`` (``HORIZON_TURNS`` = 2 goes on through the next seat's turn; a game may set
    its own horizon, and blend in the reward where the first turn ended). Other seats'
    decisions in the tree are searched as theirs: they choose by their own reward. Deterministic
    from the pilot's own stream.
    """

    __slots__ = ("budget", "reference", "horizon", "turn_blend", "root")
    takes_budget = True

    def __init__(self, engine: Any, seat: int, rng, budget: int | None = None):
        super().__init__(engine, seat, rng)
        self.budget = budget or search_setting(engine, "mcts_budget", DEFAULT_BUDGET)
        self.horizon = max(1, search_setting(engine, "mcts_horizon", HORIZON_TURNS))
        self.turn_blend = search_setting(engine, "mcts_turn_blend", TURN_BLEND) if self.horizon > 1 else 0.0
        self.reference: dict[int, float] = {}  # per seat, the root position's value (set per decision)
        self.root = None  # the decision's first world, where a seat's reference is read

    def choose(self, state: Any, actions: list) -> Any:
        if len(actions) == 1:
            return actions[0]
        root = Node()
        worlds = Worlds(self.engine, state, self.seat, self.rng)
        self.root = worlds.get(0)
        self.reference = {self.seat: self.engine.evaluate(self.root, self.seat)}
        for _ in range(self.budget):
            self.playout(worlds, root)
        legal = set(actions)
        scored = [(child.visits, child.total / child.visits if child.visits else 0.0, action)
                  for action, child in root.children.items() if action in legal]
        top = max(visits_mean[:2] for visits_mean in scored)
        best = [action for visits, mean, action in scored if (visits, mean) == top]
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]

    # --- one playout -------------------------------------------------------------------------
    def playout(self, worlds: "Worlds", root: Node) -> None:
        """Choose a root action, play it in the next world that action has not met yet, descend
        the tree, finish the horizon greedily, and back the reward up the path."""
        engine, seat, rng = self.engine, self.seat, self.rng
        action, child, fresh = self.select(worlds.get(0), root, seat, at_root=True)
        sim = engine.clone(worlds.get(child.visits % WORLDS))
        engine.apply(sim, action)
        path: list[tuple[Node, int]] = [(child, seat)]
        node = child
        turns_left = self.horizon
        first_turn = None  # every seat's reward where the first turn ended, when a blend weighs it
        while not sim.over and turns_left > 0:
            if turn_held(sim) is not None:
                if self.turn_blend and first_turn is None:
                    first_turn = self.rewards(sim, range(len(sim.sides)))
                turns_left -= 1
                if turns_left > 0:
                    engine.begin_held_turn(sim)
                continue
            if fresh:  # past the tree: the cheap policy plays the rest of the turn
                finish_turn_greedily(engine, sim, seat, rng)
                if not turn_over(sim):
                    break  # a turn longer than lookahead plans: score it where it stands
                continue
            mover = sim.to_act
            action, child, fresh = self.select(sim, node, mover)
            engine.apply(sim, action)
            path.append((child, mover))
            node = child
        rewards = self.rewards(sim, {mover for _child, mover in path})
        if first_turn is not None and not sim.over:  # a match won or lost is the truth, not blended
            blend = self.turn_blend
            rewards = {s: blend * first_turn[s] + (1.0 - blend) * r for s, r in rewards.items()}
        for child, mover in path:
            child.visits += 1
            child.total += rewards[mover]
        root.visits += 1

    def rewards(self, sim: Any, movers) -> dict[int, float]:
        """Each mover's own reward (``reward``). In a duel the other seat's is 1 - the seat's
        (``zero_sum``: the squash is odd around each seat's reference, which are opposite)."""
        if zero_sum(sim):
            mine = self.reward(sim, self.seat)
            return {m: mine if m == self.seat else 1.0 - mine for m in movers}
        return {m: self.reward(sim, m) for m in movers}

    def reward(self, sim: Any, seat: int) -> float:
        """``seat``'s reward in [0, 1]: its evaluate squashed around its value of the root position
        (``reference``). A finished match is valued by ``evaluate`` too, as greedy and the
        planner value it: a win (a partner's included) is 1 and a loss 0 to the last digit
        (evaluate's win is thousands of points), and a draw is evaluate's 0 against where the
        seat stands: a loss for a seat far ahead, a rescue for one far behind, not a flat 0.5.
        Why around the root and not around 0: most positions of a match sit 20-40 points from
        0, where tanh(value / 10) is flat (0.96-0.999), so candidates 6 points apart scored
        within a few thousandths of each other, far below UCB's exploration term: the search
        could hardly tell its root moves apart."""
        reference = self.reference.get(seat)
        if reference is None:
            reference = self.reference[seat] = self.engine.evaluate(self.root, seat)
        # portable_math, not math: the C library's tanh may differ in the last bit between machines
        return 0.5 + 0.5 * tanh((self.engine.evaluate(sim, seat) - reference) / VALUE_SCALE)

    # --- selection and expansion -------------------------------------------------------------
    def select(self, sim: Any, node: Node, mover: int, at_root: bool = False) -> tuple[Any, Node, bool]:
        """The action to take at ``node`` in this determinization: a new child when widening
        allows one, else the best by UCB among the legal children."""
        engine = self.engine
        actions = engine.legal_actions(sim)
        if node.order is None:
            node.order = self.one_ply_order(sim, actions, mover)
        children = node.children
        legal = set(actions)
        # floor(WIDEN_BASE * (visits + 1) ** (1 / WIDEN_ROOT)), in integers (no C library pow)
        widened = floor_root(WIDEN_BASE ** WIDEN_ROOT * (node.visits + 1), WIDEN_ROOT)
        allowed = max(ROOT_WIDTH if at_root else 1, widened)
        if len(children) < allowed or not any(action in children for action in actions):
            for action in node.order:
                if action in legal and action not in children:
                    child = children[action] = Node()
                    child.avail = 1
                    return action, child, True
            for action in actions:  # legal here, unseen in the determinization that ordered them
                if action not in children:
                    child = children[action] = Node()
                    child.avail = 1
                    return action, child, True
        best_score, best_action = -1.0, None  # sqrt is IEEE-exact; log is portable_math's
        for action, child in children.items():
            if action not in legal:
                continue
            child.avail += 1
            if child.visits == 0:
                score = 2.0
            else:
                score = child.total / child.visits + EXPLORATION * math.sqrt(log_count(child.avail) / child.visits)
            if score > best_score:
                best_score, best_action = score, action
        return best_action, children[best_action], False

    def one_ply_order(self, sim: Any, actions: list, mover: int) -> list:
        """Legal actions by their one-ply value for the seat that moves (the greedy prior)."""
        if len(actions) <= WIDEN_BASE:
            return list(actions)
        return [actions[i] for i in one_ply_ranking(self.engine, sim, actions, mover)]
