"""Allegiance on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.allegiance import drawn, invariants, scenario
from sim.allegiance.actions import (
    ATTACK,
    CELL,
    DECLINE,
    DEPLOY,
    DISCARD,
    END,
    MOVE,
    MUSTER,
    P_DEPLOY,
    SOUL,
    SUPPLY,
    SUPPORT,
    TACTIC,
    Action,
)
from sim.allegiance.blank import blank_state
from sim.allegiance.combat import answer, declare_attack, soul_combat
from sim.allegiance.effects import reveal_stronghold
from sim.allegiance.evaluate import evaluate
from sim.allegiance.field import deploy, move, muster, play_supply, start_deploy, start_move, use_support
from sim.allegiance.kinds import KINDS
from sim.allegiance.legal import legal_actions
from sim.allegiance.pool import FACTION_CODES, Pool
from sim.allegiance.state import AllegianceState, Side
from sim.allegiance.turns import discard, end_turn, start_turn
from sim.core.decks import CompiledDeck, card_number, card_numbers
from sim.core.game_engine import GameEngine
from sim.core.hidden import believe, redeal_open, shuffled_pool
from sim.core.setup import deal, draw_opening, record_opening_hands
from sim.core.state import release_hold


class AllegianceDeck(CompiledDeck):
    """A deck compiled against a pool: its main deck (sim.core.decks), the two Strongholds
    (sorted too) and the Bastion, the faction."""
    __slots__ = ("strongholds", "bastion", "faction")

    def __init__(self, deck_id: str, cards: list[int], strongholds: list[int], bastion: int, faction: int):
        super().__init__(deck_id, cards)
        self.strongholds, self.bastion, self.faction = tuple(sorted(strongholds)), bastion, faction


class AllegianceEngine(GameEngine):
    name = "allegiance"
    kinds = KINDS
    scenario_module = scenario
    drawn_module = drawn
    invariants_module = invariants
    # no pseudo_cards: Allegiance names no pseudo card

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        return Pool(ruleset)

    def compile_deck(self, pool: Pool, deck: Any) -> AllegianceDeck:
        cards = card_numbers(pool, deck.id, deck.cards)
        strongholds = [card_number(pool, deck.id, s, " among its Strongholds") for s in deck.strongholds]
        return AllegianceDeck(deck.id, cards, strongholds, card_number(pool, deck.id, deck.bastion, " as its Bastion"),
                              FACTION_CODES[deck.faction])

    def new_match(self, pool: Pool, decks: list[AllegianceDeck], seed: int, log: bool = True) -> AllegianceState:
        consts = pool.consts
        state = blank_state(pool, seed, log)

        def seat_setup(side: Side, _seat: int, deck: AllegianceDeck, rng: random.Random) -> None:
            strongholds = list(deck.strongholds)
            rng.shuffle(strongholds)  # on the seat's shuffle stream, after its deck
            side.strongholds = [deck.bastion] + strongholds  # drawn from the end: the Bastion comes last
            side.decklist = deck.cards
            side.fortress = tuple(sorted(side.strongholds))
            side.faction = deck.faction
            draw_opening(side, consts.opening_hand)

        deal(state, decks, seed, seat_setup)
        record_opening_hands(state)
        # setup: each seat reveals its top Stronghold onto row B (D6 column, turn 0's dice)
        for seat in range(len(decks)):
            reveal_stronghold(state, seat)
        start_turn(state, 0)
        return state

    # --- play -------------------------------------------------------------------------------
    def legal_actions(self, state: AllegianceState) -> list[Action]:
        return legal_actions(state)

    def apply(self, state: AllegianceState, action: Action) -> None:
        kind = action.kind
        if kind == MOVE:
            start_move(state, action.a)
        elif kind == CELL:
            if state.pending.step == P_DEPLOY:
                deploy(state, action.a)
            else:
                move(state, action.a)
        elif kind == ATTACK:
            declare_attack(state, action.a, action.b, action.c, action.d)
        elif kind == END:
            end_turn(state)
        elif kind == DEPLOY:
            start_deploy(state, action.a, action.b)
        elif kind == MUSTER:
            muster(state, action.a)
        elif kind == SUPPORT:
            use_support(state, action.a, action.b, action.c)
        elif kind == SUPPLY:
            play_supply(state, action.a, action.b)
        elif kind == SOUL:
            soul_combat(state, action.a, action.b)
        elif kind == TACTIC:
            answer(state, action.a)
        elif kind == DECLINE:
            answer(state, -1)
        elif kind == DISCARD:
            discard(state, action.a)
        else:
            raise ValueError(f"unknown action {action!r}")

    def in_choice(self, state: AllegianceState) -> bool:
        """Inside an action: a cell to choose, a discard to make, or the defender's answer."""
        return state.pending is not None

    # --- lookahead --------------------------------------------------------------------------
    def clone(self, state: AllegianceState) -> AllegianceState:
        return state.fork()

    def begin_held_turn(self, state) -> None:
        """Begin the turn a held lookahead clone waits on (sim/core/state.py ``hold_turns``)."""
        start_turn(state, release_hold(state))

    def evaluate(self, state: AllegianceState, seat: int) -> float:
        return evaluate(state, seat)

    def determinize(self, state: AllegianceState, seat: int, rng: random.Random) -> AllegianceState:
        """What ``seat`` may believe (sim/core/hidden.py; RULES.md, "What a pilot may know"): its
        own deck order, the other seat's hand and deck, and the order of every unrevealed
        Stronghold (the Bastion stays last) are unknown. Every card leaving a hand or deck goes to
        the battlefield, the Muster Zone or the discard pile, and Allegiance shows no hidden card
        to another seat, so nothing is known beyond the open deck lists (``redeal_open``)."""
        return believe(state.fork(keep_chance=False), seat, rng, _deal_seat)

    # --- people (describe, boards, event words, invariants, scenarios: sim/core/game_engine.py) --
    def lane_name(self, pool: Pool, lane: int) -> str:
        """Events keep a cell in their lane column: its name, like p0.B3."""
        return pool.board.names[lane]


def _deal_seat(clone: AllegianceState, seat: int, own: bool, rng: random.Random) -> None:
    side = clone.own_side(seat)
    redeal_open(side, own, rng)
    if len(side.strongholds) > 2:  # the top one is revealed, the Bastion (index 0) comes last
        side.strongholds[1:] = shuffled_pool(side.strongholds[1:], rng)


ENGINE = AllegianceEngine()

__all__ = ["ENGINE", "AllegianceEngine", "AllegianceDeck"]
