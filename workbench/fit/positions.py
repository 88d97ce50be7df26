"""Self-play positions and what evaluate makes of them, measured in worker processes.

Matches are played over the field (every deck pairing, each seed from both seats, as a ladder
block), by one pilot in both seats. A position is taken at every ``EVERY``-th decision (mid-turn
positions too: those are what greedy judges), valued for the seat to act. Each worker keeps its positions and answers only numbers: per
position the match it came from, the seat's result (1 a win, 0 a loss, 0.5 a draw), and
evaluate's slope along each fitted weight (``slopes``: the central difference of evaluate
between the weight set a step up and a step down). Where evaluate is linear in a weight (most
terms) the slope is exact and does not depend on the other weights, so a logistic model over
the slopes is evaluate itself; for the few products of weights (a Warrior's potency times its
tapped share) it is the slope where the weights stand.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from workbench.fit.params import Param, with_values
from workbench.games import compiled_field, deck_pairings

STEP = 0.05  # relative step of the central difference
EVERY = 3    # a position every 3rd decision: the positions the pilots judge, not only turn starts

_CTX: dict[str, Any] = {}


class Sample(NamedTuple):
    """One worker's measured positions: arrays of equal length."""
    match: np.ndarray   # match number of each position
    result: np.ndarray  # the seat's result: 1 win, 0 loss, 0.5 draw
    slopes: np.ndarray  # positions x params
    value: np.ndarray   # evaluate with the starting weights


def plan_matches(n_decks: int, matches: int, seed: int) -> list[dict]:
    """Match i: a deck pairing of the field on seed ``match_seed(seed, i // 2)``, from both seats."""
    from workbench.runspec import match_seed

    pairings = deck_pairings(n_decks)
    jobs = []
    for i in range(matches):
        a, b = pairings[(i // 2) % len(pairings)]
        jobs.append({"match_no": i, "seed": match_seed(seed, i // 2), "slots": (a, b) if i % 2 == 0 else (b, a)})
    return jobs


def init_worker(payload: dict) -> None:
    from sim.core.weights import engine_with_weights

    if _CTX.get("key") == payload["key"]:
        return
    engine, pool, decks = compiled_field(payload)
    params = [Param(*p) for p in payload["params"]]
    document = payload["document"]
    probes = []
    for i, p in enumerate(params):
        h = abs(p.start) * STEP
        up = [q.start + (h if j == i else 0.0) for j, q in enumerate(params)]
        down = [q.start - (h if j == i else 0.0) for j, q in enumerate(params)]
        probes.append((engine_with_weights(engine, with_values(document, params, up)),
                       engine_with_weights(engine, with_values(document, params, down)), 2 * h))
    _CTX.update(key=payload["key"], engine=engine, pool=pool, probes=probes,
                base=engine_with_weights(engine, document),
                decks=decks, jobs=payload["jobs"], chunk_size=payload["chunk_size"], pilot=payload["pilot"])


def decision_positions(engine, pool, decks, job: dict, pilot: str) -> tuple[list, Any]:
    """Play one match; every ``EVERY``-th position a decision was made in, and the finished state."""
    from sim.core.match import play_match

    taken: list = []
    count = [0]

    def on_decision(state, _action) -> None:
        if count[0] % EVERY == 0:
            taken.append(engine.clone(state))
        count[0] += 1

    a, b = job["slots"]
    result = play_match(engine, pool, [decks[a], decks[b]], job["seed"], [pilot, pilot], log=False,
                        on_decision=on_decision)
    return taken, result


def seat_result(winner, seat: int) -> float:
    if winner is None:
        return 0.5
    return 1.0 if winner == seat else 0.0


def play_chunk(chunk: int) -> tuple[int, Sample]:
    size = _CTX["chunk_size"]
    engine, pool, decks, probes, base = _CTX["engine"], _CTX["pool"], _CTX["decks"], _CTX["probes"], _CTX["base"]
    match, result, slopes, value = [], [], [], []
    for job in _CTX["jobs"][chunk * size:(chunk + 1) * size]:
        taken, finished = decision_positions(engine, pool, decks, job, _CTX["pilot"])
        if finished.error:
            continue  # an engine error is the farm's to report, not a position to learn from
        for state in taken:
            if state.over:
                continue
            seat = state.to_act
            match.append(job["match_no"])
            result.append(seat_result(finished.winner, seat))
            value.append(base.evaluate(state, seat))
            slopes.append([(up.evaluate(state, seat) - down.evaluate(state, seat)) / width
                           for up, down, width in probes])
    n = len(probes)
    return chunk, Sample(np.asarray(match, dtype=np.int64), np.asarray(result, dtype=float),
                         np.asarray(slopes, dtype=float).reshape(-1, n), np.asarray(value, dtype=float))


def merge(samples: list[Sample]) -> Sample:
    return Sample(*(np.concatenate([getattr(s, f) for s in samples]) for f in Sample._fields))
