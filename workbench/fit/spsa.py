"""Weights tuned by self-play strength: simultaneous perturbation stochastic approximation (SPSA;
Spall 1992), the usual way to tune an engine's evaluation by playing it rather than by fitting
a predictor (logistic.py): a better predictor of who wins is not always a better guide to what
to do, and here only play says which.

Each step perturbs every fitted weight at once, by a factor ``exp(+-c_k)`` with random signs,
and plays the weights a step up against the weights a step down: ``pairs`` seeds over the
field, each seed from both seats (deck and seat luck cancel; both sides meet the same deals). The
score difference estimates the slope of strength along the perturbation, and the weights move
up that slope. The weights live on a log scale (a factor, never a sign flip), clipped to a
band around their start. Deterministic from ``seed``: the signs and the match seeds come from it.
"""
from __future__ import annotations

import math
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from workbench.fit.params import Param, with_values
from workbench.games import compiled_field, deck_pairings

BAND = math.log(8.0)   # log factor a weight may move from its start, either way
C0 = 0.2               # perturbation (log factor) at step 0: about +-22%
A0 = 0.3               # step size at step 0, on the log scale per unit of score difference
GAMMA, ALPHA = 0.101, 0.602  # Spall's standard decay exponents

_CTX: dict[str, Any] = {}


class Step(NamedTuple):
    step: int
    score: float          # the up-weights' score minus the down-weights', per match (-1 .. 1)
    matches: int
    theta: list[float]    # log factors after the step


def init_worker(payload: dict) -> None:

    engine, pool, decks = compiled_field(payload)
    _CTX.update(engine=engine, pool=pool, decks=decks, pilot=payload["pilot"], document=payload["document"],
                params=[Param(*p) for p in payload["params"]])


def weights_at(theta) -> list[float]:
    return [p.start * math.exp(t) for p, t in zip(_CTX["params"], theta)]


def play_duels(theta_up, theta_down, jobs: list[dict]) -> float:
    """The up-weights' points minus the down-weights', summed over the jobs (win 1, draw 0.5)."""
    from sim.core.match import play_match
    from sim.core.weights import engine_with_weights

    engine, pool, decks, pilot, doc, params = (_CTX[k] for k in ("engine", "pool", "decks", "pilot", "document",
                                                                    "params"))
    up = engine_with_weights(engine, with_values(doc, params, weights_at(theta_up)))
    down = engine_with_weights(engine, with_values(doc, params, weights_at(theta_down)))
    total = 0.0
    for job in jobs:
        a, b = job["slots"]
        minds = [up, down] if job["up_seat"] == 0 else [down, up]
        result = play_match(engine, pool, [decks[a], decks[b]], job["seed"], [pilot, pilot], log=False,
                            thinking=minds)
        if result.error or result.winner is None:
            continue  # a draw (or an error, a draw too) is even
        total += 1.0 if result.winner == job["up_seat"] else -1.0
    return total


def step_jobs(step: int, pairs: int, n_decks: int, seed: int) -> list[dict]:
    """The matches of one step: ``pairs`` seeds, each played from both seats and both decks'
    sides (up-weights on deck X in seat 0, then on deck Y in seat 1 of the same deal)."""
    from workbench.runspec import match_seed

    pairings = deck_pairings(n_decks)
    jobs = []
    for k in range(pairs):
        index = step * pairs + k
        x, y = pairings[index % len(pairings)]
        s = match_seed(seed, index)
        jobs += [{"seed": s, "slots": (x, y), "up_seat": 0}, {"seed": s, "slots": (x, y), "up_seat": 1}]
    return jobs


def tune(payload: dict, steps: int, pairs: int, seed: int, workers: int, on_step=None) -> tuple[np.ndarray, list[Step]]:
    """Run SPSA for ``steps`` steps; the tuned weights and every step's record."""
    n = len(payload["params"])
    rng = random.Random(f"spsa:{seed}")
    theta = np.zeros(n)
    history: list[Step] = []
    n_decks = len(payload["decks"])
    big_a = max(1.0, steps / 10)
    pool = ProcessPoolExecutor(workers, initializer=init_worker, initargs=(payload,)) if workers > 1 else None
    if pool is None:
        init_worker(payload)
    try:
        for k in range(steps):
            c = C0 / (k + 1) ** GAMMA
            a = A0 / (k + 1 + big_a) ** ALPHA
            delta = np.array([rng.choice((-1.0, 1.0)) for _ in range(n)])
            up, down = np.clip(theta + c * delta, -BAND, BAND), np.clip(theta - c * delta, -BAND, BAND)
            jobs = step_jobs(k, pairs, n_decks, seed)
            if pool is None:
                total = play_duels(up, down, jobs)
            else:
                shares = [jobs[i::workers] for i in range(workers)]
                total = sum(pool.map(play_duels, [up] * workers, [down] * workers, shares))
            score = total / len(jobs)
            theta = np.clip(theta + a * score / (2 * c) * delta, -BAND, BAND)
            history.append(Step(k, score, len(jobs), [float(t) for t in theta]))
            if on_step is not None:
                on_step(history[-1])
    finally:
        if pool is not None:
            pool.shutdown()
    start = np.array([p[1] for p in payload["params"]])
    return start * np.exp(theta), history
