"""Pilots: the seats' decision makers. A pilot is built per match and seat with its own RNG
stream, and sees the state only through the engine contract (``determinize`` for lookahead)."""
from __future__ import annotations

import random
from typing import Any

from sim.core.pilots.greedy import GreedyPilot
from sim.core.pilots.random_pilot import RandomPilot

PILOTS = {"random": RandomPilot, "greedy": GreedyPilot}


def make_pilot(name: str, engine: Any, seat: int, rng: random.Random):
    try:
        cls = PILOTS[name]
    except KeyError:
        raise ValueError(f"unknown pilot {name!r} (known: {', '.join(PILOTS)})") from None
    return cls(engine, seat, rng)
