"""Wild Frontier on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.core.decks import CompiledDeck, card_number, card_numbers
from sim.core.game_engine import GameEngine
from sim.core.hidden import believe, redeal_open
from sim.core.setup import deal, draw_opening, record_opening_hands
from sim.core.state import release_hold
from sim.frontier import drawn, invariants, scenario
from sim.frontier.actions import ABILITY, ATTACK, CHOOSE, END, PLAY, SHERIFF_ACT, SUMMON, Action, ActionTable
from sim.frontier.blank import blank_state, set_deputies, set_sheriff
from sim.frontier.combat import attack
from sim.frontier.effects import SHERIFF_TARGET, choose
from sim.frontier.evaluate import evaluate
from sim.frontier.kinds import KINDS
from sim.frontier.legal import legal_actions
from sim.frontier.play import play_card, sheriff_discard, summon_deputy, use_deputy_ability
from sim.frontier.pool import Pool
from sim.frontier.sheriffs import NO_SHERIFF
from sim.frontier.state import END as END_PHASE
from sim.frontier.state import FrontierState, Side
from sim.frontier.turns import end_turn, finish_turn, opening_hand_size, start_turn

PSEUDO_CARDS = {SHERIFF_TARGET: "sheriff"}  # what the store calls the pseudo card ids of events


class FrontierDeck(CompiledDeck):
    """A deck compiled against a pool: its cards (sim.core.decks), the sheriff, the two Deputies,
    and an optional starting HP and HP cap (Frontier Run carries trail HP from fight to fight)."""
    __slots__ = ("sheriff", "deputies", "hp", "max_hp")

    def __init__(self, deck_id: str, cards: list[int], sheriff: int = NO_SHERIFF,
                 deputies: tuple = (), hp: int | None = None, max_hp: int | None = None):
        super().__init__(deck_id, cards)
        self.sheriff, self.deputies, self.hp = sheriff, tuple(deputies), hp
        self.max_hp = max_hp if max_hp is not None else hp


class FrontierEngine(GameEngine):
    name = "frontier"
    kinds = KINDS
    scenario_module = scenario
    drawn_module = drawn
    invariants_module = invariants
    pseudo_cards = PSEUDO_CARDS

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        pool = Pool(ruleset)
        pool.actions = ActionTable(pool)
        return pool

    def compile_deck(self, pool: Pool, deck: Any) -> FrontierDeck:
        return FrontierDeck(deck.id, card_numbers(pool, deck.id, deck.cards), pool.sheriff_ids[deck.sheriff],
                            tuple(card_number(pool, deck.id, d, " among its deputies") for d in deck.deputies))

    def new_match(self, pool: Pool, decks: list[FrontierDeck], seed: int, log: bool = True) -> FrontierState:
        state = blank_state(pool, len(decks), seed, log)

        def seat_setup(side: Side, seat: int, deck: FrontierDeck, _rng) -> None:
            side.decklist = deck.cards
            set_sheriff(state, seat, deck.sheriff, deck.hp, deck.max_hp)
            set_deputies(side, deck.deputies)
            draw_opening(side, opening_hand_size(pool, seat, deck.sheriff))

        deal(state, decks, seed, seat_setup)
        record_opening_hands(state)
        start_turn(state, 0)
        return state

    # --- play -------------------------------------------------------------------------------
    def legal_actions(self, state: FrontierState) -> list[Action]:
        return legal_actions(state)

    def apply(self, state: FrontierState, action: Action) -> None:
        kind = action.kind
        if kind == END:
            end_turn(state)
        elif kind == PLAY:
            play_card(state, state.active, action.a, action.b)
        elif kind == ATTACK:
            attack(state, state.sides[state.active].lanes[action.a], action.b)
        elif kind == CHOOSE:
            choose(state, action.a)
            if state.pending is None and state.phase == END_PHASE and not state.over:
                finish_turn(state)
        elif kind == SUMMON:
            summon_deputy(state, state.active, action.a, action.b)
        elif kind == ABILITY:
            use_deputy_ability(state, state.active, action.a)
        elif kind == SHERIFF_ACT:
            sheriff_discard(state, state.active, action.a)
        else:
            raise ValueError(f"unknown action {action!r}")

    def in_choice(self, state: FrontierState) -> bool:
        return state.pending is not None

    # --- lookahead --------------------------------------------------------------------------
    def clone(self, state: FrontierState) -> FrontierState:
        # lookahead changes a clone only through apply, so it may share units copy-on-write
        return state.fork()

    def begin_held_turn(self, state) -> None:
        """Begin the turn a held lookahead clone waits on (sim/core/state.py ``hold_turns``)."""
        start_turn(state, release_hold(state))

    def evaluate(self, state: FrontierState, seat: int) -> float:
        return evaluate(state, seat)

    def determinize(self, state: FrontierState, seat: int, rng: random.Random) -> FrontierState:
        """What ``seat`` may believe (sim/core/hidden.py; RULES.md, "What a pilot may know"): its
        own deck order and every other seat's hand and deck are unknown. Every card leaving a hand
        or deck goes to the field or the discard pile, and Frontier shows no hidden card to another
        seat, so nothing is known beyond the open deck lists (``redeal_open``)."""
        return believe(state.fork(), seat, rng, _deal_seat)

    # --- people (describe, boards, event words, invariants, scenarios: sim/core/game_engine.py) --
    def lane_name(self, pool: Pool, lane: int) -> str:
        return pool.lane_names[lane]


def _deal_seat(clone: FrontierState, seat: int, own: bool, rng: random.Random) -> None:
    redeal_open(clone.own_side(seat), own, rng)


ENGINE = FrontierEngine()

__all__ = ["ENGINE", "FrontierEngine", "FrontierDeck"]
