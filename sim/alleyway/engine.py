"""AlleyWay Brawlers on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.alleyway import board as board_mod
from sim.alleyway import brawl, effects, play, resolve, turns
from sim.alleyway import scenario as scenario_mod
from sim.alleyway.actions import (
    ACTIVATE,
    ATTACK,
    AWAKEN,
    CHOOSE,
    DEPLOY,
    FLIP,
    GUTTER,
    HEAVY,
    KEEP,
    NEXT,
    PLAY,
    PROMOTE,
    REDRAW,
    SET,
    SWITCH,
    Action,
)
from sim.alleyway.blank import blank_state
from sim.alleyway.evaluate import evaluate
from sim.alleyway.frames import ATTACK as ATTACK_FRAME
from sim.alleyway.frames import COST, ENDTURN, FX, OFFER
from sim.alleyway.hidden import determinize
from sim.alleyway.invariants import check_invariants
from sim.alleyway.kinds import KINDS, PSEUDO_CARDS
from sim.alleyway.legal import legal_actions
from sim.alleyway.pool import Pool
from sim.alleyway.state import AlleyState, Side
from sim.core.card_ids import card_name
from sim.core.contract import EngineDefaults, results_from_winner
from sim.core.decks import CompiledDeck, card_number, card_numbers
from sim.core.setup import deal, draw_opening
from sim.core.standings import standings_from_outs
from sim.core.state import release_hold


class AlleyDeck(CompiledDeck):
    """A deck compiled against a pool: its cards (sim.core.decks), the Hideout (sorted too) and
    the leader."""
    __slots__ = ("hideout", "leader")

    def __init__(self, deck_id: str, cards: list[int], hideout: list[int], leader: int):
        super().__init__(deck_id, cards)
        self.hideout, self.leader = tuple(sorted(hideout)), leader


CHOICES = {
    "target": effects.choose, "back": effects.choose, "opponent": effects.choose, "plunder_field": effects.choose,
    "bet": effects.choose, "card": effects.choose, "spring": brawl.choose_spring, "offer": turns.choose_offer,
    "limit": turns.choose_limit, "equip": play.choose_equip, "cost_discard": play.choose_cost,
    "cost_sacrifice": play.choose_cost,
}

# the step function of each kind of frame: the modules that own them push frames and run the
# stack, so resolve.py, which runs it, is handed them here instead of importing them
resolve.wire({FX: effects.step, ATTACK_FRAME: brawl.step, OFFER: turns.step_offer, COST: play.step_cost,
              ENDTURN: turns.step_end}, turns.end_turn_of_the_out)


class AlleyWayEngine(EngineDefaults):
    modes = ("duel", "ffa")
    name = "alleyway"
    kinds = KINDS

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        return Pool(ruleset)

    def compile_deck(self, pool: Pool, deck: Any) -> AlleyDeck:
        leader = card_number(pool, deck.id, deck.leader, " as its leader")
        return AlleyDeck(deck.id, card_numbers(pool, deck.id, deck.cards),
                         card_numbers(pool, deck.id, deck.hideout, " in its Hideout"), leader)

    def new_match(self, pool: Pool, decks: list[AlleyDeck], seed: int, log: bool = True) -> AlleyState:
        consts = pool.consts
        state = blank_state(pool, len(decks), seed, log)

        def seat_setup(side: Side, _seat: int, deck: AlleyDeck, _rng) -> None:
            side.hideout = list(deck.hideout)
            side.cards = tuple(sorted(deck.cards + deck.hideout))
            side.leader = deck.leader
            side.influence = pool.cards[deck.leader].influence
            side.redraws = consts.redraws
            draw_opening(side, consts.opening_hand)

        deal(state, decks, seed, seat_setup)
        turns.begin_match(state)  # the opening hands are recorded after the redraws
        return state

    # --- play -------------------------------------------------------------------------------
    def legal_actions(self, state: AlleyState) -> list[Action]:
        return legal_actions(state)

    def apply(self, state: AlleyState, action: Action) -> None:
        kind, a, b, c = action
        if kind == CHOOSE:
            if state.pending is None:
                raise ValueError("nothing to choose")
            CHOICES[state.pending.what](state, a)
        elif kind == NEXT:
            turns.next_phase(state)
        elif kind == ATTACK:
            brawl.declare(state, state.sides[state.active].lanes[a], b)
        elif kind == DEPLOY:
            play.deploy(state, a, b == 1, c)
        elif kind == HEAVY:
            play.heavy(state, a, b == 1, c)
        elif kind == SET:
            play.set_card(state, a)
        elif kind == PLAY:
            play.play_hustle(state, a)
        elif kind == FLIP:
            play.flip(state, a)
        elif kind == SWITCH:
            play.switch(state, a)
        elif kind == ACTIVATE:
            play.activate(state, a)
        elif kind == GUTTER:
            play.use_gutter(state, a)
        elif kind == AWAKEN:
            play.awaken(state, a == 1, b)
        elif kind == PROMOTE:
            play.paid_promote(state, a)
        elif kind in (KEEP, REDRAW):
            turns.mulligan(state, kind == REDRAW)
        else:
            raise ValueError(f"unknown action {action!r}")

    def in_choice(self, state: AlleyState) -> bool:
        return state.pending is not None and state.pending.seat == state.to_act

    def results(self, state: AlleyState) -> list[str]:
        if len(state.sides) == 2:
            return results_from_winner(2, state.winner)
        return [s.result for s in self.standings(state)]  # a seat out loses even when the rest draw

    def standings(self, state: AlleyState) -> list:
        return standings_from_outs(len(state.sides), state.outs, state.winner)

    # --- lookahead --------------------------------------------------------------------------
    def clone(self, state: AlleyState) -> AlleyState:
        return state.fork()  # characters shared copy-on-write (state.py)

    def begin_held_turn(self, state) -> None:
        """Begin the turn a held lookahead clone waits on (sim/core/state.py ``hold_turns``)."""
        turns.begin_turn(state, release_hold(state))
        resolve.run(state)

    def evaluate(self, state: AlleyState, seat: int) -> float:
        return evaluate(state, seat)

    def determinize(self, state: AlleyState, seat: int, rng: random.Random) -> AlleyState:
        return determinize(state, seat, rng)

    # --- people -----------------------------------------------------------------------------
    def describe(self, state: AlleyState, action: Action) -> str:
        return scenario_mod.describe(state, action)

    def lane_name(self, pool: Pool, lane: int) -> str:
        return board_mod.lane_name(pool, lane)

    def board(self, state: AlleyState) -> dict:
        return board_mod.board(state)

    def check_invariants(self, state: AlleyState) -> list[str]:
        return check_invariants(state)

    # --- scenarios --------------------------------------------------------------------------
    def scenario_state(self, pool: Pool, setup: dict, seed: int) -> AlleyState:
        return scenario_mod.scenario_state(pool, setup, seed)

    def parse_action(self, state: AlleyState, text: str) -> Action:
        return scenario_mod.parse_action(self, state, text)

    def snapshot(self, state: AlleyState) -> dict:
        return scenario_mod.snapshot(state)

    # --- the store --------------------------------------------------------------------------
    def card_name(self, pool: Pool, card_id: int) -> str | None:
        return card_name(pool, card_id, PSEUDO_CARDS)


ENGINE = AlleyWayEngine()

__all__ = ["ENGINE", "AlleyWayEngine", "AlleyDeck"]
