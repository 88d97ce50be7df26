"""The one match loop every game, the farm, the benchmark and the replay view go through."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from sim.core.contract import Engine
from sim.core.ending import end_as_draw
from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.pilots import make_pilot
from sim.core.rng import Streams
from sim.core.seating import Seating
from sim.core.standings import standings_from_results


@dataclass
class MatchResult:
    seed: int
    winner: int | None
    reason: str
    turns: int
    decisions: int
    wall_ms: float
    results: list[str]
    error: str | None = None
    standings: list | None = None  # sim/core/standings.Standing per seat
    events: EventBuffer | None = None
    ledger: CardLedger | None = None
    state: Any = field(default=None, repr=False)


def play_match(engine: Engine, pool: Any, decks: list[Any], seed: int, pilots: list[str],
               log: bool = True, on_decision=None, pilot_salt: int = 0, seating: Seating | None = None,
               thinking: list | None = None) -> MatchResult:
    """Play one match to its end. Never raises for what happens inside the match: an exception
    is recorded on the result (with the seed, so it can be replayed) and the caller goes on.

    ``on_decision(state, action)`` is called before each action is applied (replays, tests).
    ``seating`` (sim/core/seating.py) seats teams or a boss; ``pilots`` then names a pilot for
    every seat, the boss's too (which has no deck in ``decks``). ``thinking``: the engine each
    seat's pilot thinks with (the game's engine with another weight set, sim/core/weights.py);
    by default the match's own.
    """
    started = time.perf_counter()
    streams = Streams(seed)
    state = None
    decisions = 0
    error = None
    try:
        if seating is None:
            state = engine.new_match(pool, decks, seed, log=log)
        else:
            state = engine.new_match(pool, decks, seed, log=log, seating=seating)
        minds = thinking or [engine] * len(pilots)
        seats = [make_pilot(name, minds[seat], seat, streams.pilot(seat, pilot_salt)) for seat, name in enumerate(pilots)]
        turn_limit = pool.consts.turn_limit
        decision_limit = pool.consts.decision_limit
        turn, this_turn = state.turn, 0
        while not state.over:
            if state.turn != turn:
                turn, this_turn = state.turn, 0
            if turn > turn_limit:
                end_as_draw(state, "turn_limit")
                break
            if this_turn >= decision_limit:
                end_as_draw(state, "decision_limit")
                break
            actions = engine.legal_actions(state)
            action = seats[state.to_act].choose(state, actions)
            if on_decision is not None:
                on_decision(state, action)
            engine.apply(state, action)
            decisions += 1
            this_turn += 1
    except Exception as exc:  # a broken match must not stop the run: keep it, with its seed
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"
        if state is not None:
            end_as_draw(state, "error")
    wall_ms = (time.perf_counter() - started) * 1000.0
    if state is None:
        results = ["draw"] * len(pilots)
        return MatchResult(seed, None, "error", 0, decisions, wall_ms, results, error=error,
                           standings=standings_from_results(results))
    standings = engine.standings(state)
    return MatchResult(seed, state.winner, state.reason, state.turn, decisions, wall_ms,
                       [s.result for s in standings], error, events=state.events, ledger=state.ledger,
                       state=state, standings=standings)
