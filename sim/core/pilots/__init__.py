"""Pilots: the seats' decision makers. A pilot is built per match and seat with its own RNG
stream, and sees the state only through the engine contract (``determinize`` for lookahead).

A pilot is named by a short text: ``random``, ``greedy``, ``planner``, or ``mcts:400`` (a pilot
that takes a budget writes it after a colon; without one it uses its default). ``@<set>`` after
the name makes it think with another of the game's weight sets (``greedy@fitted``:
``weights-fitted.yaml`` beside the game's evaluate, sim/core/weights.py; ``@hand`` is the game's
``weights.yaml``). Without ``@`` a pilot thinks with the set its game names for it in
``weights.yaml``'s ``pilot_sets`` (a set measured stronger for that pilot), else the hand set. The
name is what runs store, so the same name means the same pilot within a version of the code.
"""
from __future__ import annotations

import random
from typing import Any

from sim.core.pilots.greedy import GreedyPilot
from sim.core.pilots.mcts import MCTSPilot
from sim.core.pilots.planner import PlannerPilot
from sim.core.pilots.random_pilot import RandomPilot
from sim.core.weights import HAND, check_weight_set_name, pilot_set, weighted_engine, weights_file

PILOTS = {"random": RandomPilot, "greedy": GreedyPilot, "planner": PlannerPilot, "mcts": MCTSPilot}


def split_pilot(name: str) -> tuple[str, int | None]:
    """``mcts:400`` -> ("mcts", 400); ``greedy`` -> ("greedy", None); a weight set after ``@`` is
    checked for its form and left out (``weight_set``). ValueError in words."""
    pilot, at, weights = str(name).partition("@")
    if at:
        try:
            check_weight_set_name(weights)
        except ValueError as exc:
            raise ValueError(f"pilot {name!r}: {exc}") from None
    base, sep, arg = pilot.partition(":")
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


def weight_set(name: str) -> str | None:
    """``greedy@fitted`` -> "fitted"; None for a pilot that names no set (``thinking_engine``)."""
    return str(name).partition("@")[2] or None


def thinking_engine(name: str, engine: Any) -> Any:
    """The engine the pilot ``name`` thinks with: the weight set it names, else the one the game
    names for its kind (``pilot_sets`` in weights.yaml), else the hand set (the game's engine).
    An engine already given a weight set (play_match's ``thinking``, fit-weights' candidates)
    is kept as it is for a name that names none."""
    named = weight_set(name)
    if named is None and getattr(engine, "weights_given", False):
        return engine
    return weighted_engine(engine, named or pilot_set(engine, split_pilot(name)[0]))


def weights_fingerprint(pilots, engine: Any) -> str:
    """A hash of the weight files the pilots think with: the hand ``weights.yaml`` (its search
    settings too) and each set a pilot names or its kind is given. A run spec carries it, so a
    run played before a weight set changed (``fit-weights --replace``, an edit) is neither reused
    nor resumed after. Empty when no pilot reads weights (random play)."""
    import hashlib

    files = set()
    for name in pilots:
        base = split_pilot(name)[0]
        if PILOTS[base] is RandomPilot:
            continue
        files.add(weights_file(engine, HAND))
        files.add(weights_file(engine, weight_set(name) or pilot_set(engine, base)))
    if not files:
        return ""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def check_pilot(name: str, engine: Any = None) -> str:
    """The name if it names a pilot (and, given the game's engine, a weight set the game has);
    ValueError with the known pilots otherwise."""
    split_pilot(name)
    if engine is not None:
        thinking_engine(name, engine)
    return name


def known_pilots() -> list[str]:
    """The pilot names, a budgeted pilot shown with its budget form."""
    return [f"{n}[:N]" if getattr(c, "takes_budget", False) else n for n, c in PILOTS.items()]


def make_pilot(name: str, engine: Any, seat: int, rng: random.Random):
    base, budget = split_pilot(name)
    engine = thinking_engine(name, engine)
    cls = PILOTS[base]
    if getattr(cls, "takes_budget", False):
        return cls(engine, seat, rng, budget)
    return cls(engine, seat, rng)
