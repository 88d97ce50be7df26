"""A tiny N-seat game on the engine contract, to show sim/core does not assume two seats:
seats take turns adding 1 or 2 to a shared counter; whoever reaches the target wins."""
from sim.core.contract import EngineDefaults, results_from_winner
from sim.core.events import EventBuffer, EventKinds


class Consts:
    turn_limit = 100
    decision_limit = 10


class Pool:
    consts = Consts()


class ToyState:
    def __init__(self, n):
        self.n, self.count, self.turn, self.to_act = n, 0, 1, 0
        self.over, self.winner, self.reason = False, None, ""
        self.events, self.ledger = EventBuffer(), None


class ToyEngine(EngineDefaults):
    name = "toy"
    kinds = EventKinds(["add"])

    def __init__(self, n):
        self.n = n

    def compile_pool(self, ruleset):
        return Pool()

    def new_match(self, pool, decks, seed, log=True):
        return ToyState(self.n)

    def legal_actions(self, state):
        return [1, 2]

    def apply(self, state, action):
        state.count += action
        state.events.emit(state.turn, state.to_act, 0, amount=action)
        if state.count >= 21:
            state.over, state.winner, state.reason = True, state.to_act, "target"
            return
        state.to_act = (state.to_act + 1) % state.n
        state.turn += 1

    def results(self, state):
        return results_from_winner(self.n, state.winner)
