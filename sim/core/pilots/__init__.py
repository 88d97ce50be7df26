"""Pilots: the seats' decision makers. A pilot is built per match and seat with its own RNG
stream, and sees the state only through the engine contract (``determinize`` for lookahead).

A pilot is named by a short text: ``random``, ``greedy``, ``planner``, or ``mcts:400`` (a pilot
that takes a budget writes it after a colon; without one it uses its default). The name is
what runs store, so the same name always means the same pilot.
"""
from __future__ import annotations

import random
from typing import Any

from sim.core.pilots.greedy import GreedyPilot
from sim.core.pilots.mcts import MCTSPilot
from sim.core.pilots.planner import PlannerPilot
from sim.core.pilots.random_pilot import RandomPilot

PILOTS = {"random": RandomPilot, "greedy": GreedyPilot, "planner": PlannerPilot, "mcts": MCTSPilot}


def split_pilot(name: str) -> tuple[str, int | None]:
    """``mcts:400`` -> ("mcts", 400); ``greedy`` -> ("greedy", None). ValueError in words."""
    base, sep, arg = str(name).partition(":")
    cls = PILOTS.get(base)
    if cls is None:
        raise ValueError(f"unknown pilot {name!r} (known: {', '.join(known_pilots())})")
    if not sep:
        return base, None
    if not getattr(cls, "takes_budget", False):
        raise ValueError(f"pilot {base!r} takes no budget (write {base!r}, not {name!r})")
    if not arg.isdigit() or not 1 <= int(arg) <= 1_000_000:
        raise ValueError(f"pilot {name!r}: the budget after ':' must be a whole number from 1 to 1000000")
    return base, int(arg)


def check_pilot(name: str) -> str:
    """The name if it names a pilot; ValueError with the known pilots otherwise."""
    split_pilot(name)
    return name


def known_pilots() -> list[str]:
    """The pilot names, a budgeted pilot shown with its budget form."""
    return [f"{n}[:N]" if getattr(c, "takes_budget", False) else n for n, c in PILOTS.items()]


def make_pilot(name: str, engine: Any, seat: int, rng: random.Random):
    base, budget = split_pilot(name)
    cls = PILOTS[base]
    if getattr(cls, "takes_budget", False):
        return cls(engine, seat, rng, budget)
    return cls(engine, seat, rng)
