"""The seeded random walks the conformance suite (tests/test_conformance.py) checks, for any
registered engine: matches of uniform random play over the game's starter decks, stopped where
the match loop stops them (the turn and decision limits). Kept apart from the checks so another
process can play the same walks and compare their event digests."""
from __future__ import annotations

import itertools
import json
import random
import sys
from collections.abc import Callable
from functools import cache
from typing import Any

from tests.conftest import DATA


class NoLegalAction(AssertionError):
    """The engine offered no action in a match that is not over."""


@cache
def starter_game(name: str) -> tuple:
    """(engine, pool, every ordered pair of the game's compiled starter decks)."""
    from cardsdb.loader import load_ruleset
    from sim.registry import engine

    data, ruleset = load_ruleset(name, "base", DATA)
    eng = engine(name)
    pool = eng.compile_pool(ruleset)
    decks = [eng.compile_deck(pool, d) for d in sorted(data.decks.values(), key=lambda d: d.id) if d.starter]
    pairs = list(itertools.permutations(decks, 2)) or [(decks[0], decks[0])]
    return eng, pool, pairs


def walk(name: str, seed: int, visit: Callable[[Any, Any], None] | None = None) -> Any:
    """Play seed ``seed``'s walk to its end and return the final state. ``visit(state, action)``
    is called at each decision before the chosen action is applied."""
    eng, pool, pairs = starter_game(name)
    choice = random.Random(seed)
    state = eng.new_match(pool, list(pairs[seed % len(pairs)]), seed, log=True)
    turn, this_turn = state.turn, 0
    while not state.over:
        if state.turn != turn:
            turn, this_turn = state.turn, 0
        if turn > pool.consts.turn_limit or this_turn >= pool.consts.decision_limit:
            break  # the match loop calls it a draw here; the engine never learns of it
        legal = eng.legal_actions(state)
        if not legal:
            raise NoLegalAction(f"no legal action at turn {state.turn} before the end")
        action = choice.choice(legal)
        if visit is not None:
            visit(state, action)
        eng.apply(state, action)
        this_turn += 1
    return state


def digests(name: str, seeds: range) -> dict[str, str]:
    """Seed -> the event digest of its walk."""
    return {str(seed): walk(name, seed).events.digest() for seed in seeds}


if __name__ == "__main__":  # python -m tests.conformance_walk GAME FIRST STOP
    game, first, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(digests(game, range(first, stop))))
