"""The base of every game's engine class (``sim/<game>/engine.py``): the contract methods the
games write the same way, each reading the game's own modules, which the engine class names.

An engine class derives from ``GameEngine`` and names, as class attributes:

    scenario_module    describe(state, action), board(state), scenario_state(pool, setup, seed),
                       snapshot(state)  (``sim/<game>/scenario.py``)
    drawn_module       drawn_board(state), event_words(engine, pool, seat, kind, card, target,
                       amount, lane, detail)  (``sim/<game>/drawn.py``)
    invariants_module  check_invariants(state)  (``sim/<game>/invariants.py``)
    pseudo_cards       what the store calls the game's pseudo card ids (sim/core/card_ids.py);
                       none by default

and writes the rest of the contract itself. A game overrides any of these that it does another
way (AlleyWay's ``board`` lives in its ``board.py``, its ``results`` come from its standings).
The play and lookahead methods (``apply``, ``legal_actions``, ``clone``, ``evaluate``,
``in_choice``, ``begin_held_turn``) stay in each engine: they are on the hot path, or differ.

The optional methods' defaults come from ``EngineDefaults`` (sim/core/contract.py); what is here
is not a default of the contract, only what the games here share.
"""
from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Any, Mapping

from sim.core.card_ids import card_name
from sim.core.contract import EngineDefaults, results_from_winner
from sim.core.scenario import named_action


class GameEngine(EngineDefaults):
    """An engine made of its game's modules (see the module's note)."""

    scenario_module: ModuleType
    drawn_module: ModuleType
    invariants_module: ModuleType
    pseudo_cards: Mapping[int, str] = MappingProxyType({})

    # --- play -------------------------------------------------------------------------------
    def results(self, state: Any) -> list[str]:
        """The winner wins and every other seat loses; all draw when there is no winner."""
        return results_from_winner(len(state.sides), state.winner)

    # --- people -----------------------------------------------------------------------------
    def describe(self, state: Any, action: Any) -> str:
        return self.scenario_module.describe(state, action)

    def board(self, state: Any) -> dict:
        return self.scenario_module.board(state)

    def drawn_board(self, state: Any) -> dict:
        return self.drawn_module.drawn_board(state)

    def event_words(self, pool: Any, seat: int, kind: int, card: int, target: int, amount: int, lane: int,
                    detail: str | None) -> str:
        return self.drawn_module.event_words(self, pool, seat, kind, card, target, amount, lane, detail)

    def check_invariants(self, state: Any) -> list[str]:
        return self.invariants_module.check_invariants(state)

    # --- scenarios --------------------------------------------------------------------------
    def scenario_state(self, pool: Any, setup: dict, seed: int) -> Any:
        return self.scenario_module.scenario_state(pool, setup, seed)

    def parse_action(self, state: Any, text: str) -> Any:
        """The legal action whose ``describe`` words are ``text`` (or a unique prefix of them)."""
        return named_action(self, state, text)

    def snapshot(self, state: Any) -> dict:
        return self.scenario_module.snapshot(state)

    # --- the store --------------------------------------------------------------------------
    def card_name(self, pool: Any, card_id: int) -> str | None:
        return card_name(pool, card_id, self.pseudo_cards)
