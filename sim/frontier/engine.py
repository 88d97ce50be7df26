"""Wild Frontier on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.core.contract import results_from_winner
from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import Streams
from sim.frontier import scenario as scenario_mod
from sim.frontier.actions import ATTACK, CHOOSE, END, END_TURN, PLAY, Action
from sim.frontier.combat import attack, attack_targets
from sim.frontier.effects import choose
from sim.frontier.evaluate import evaluate
from sim.frontier.invariants import check_invariants
from sim.frontier.kinds import KINDS
from sim.frontier.play import affordable, castable, play_card
from sim.frontier.pool import CREATURE, Pool
from sim.frontier.state import END as END_PHASE
from sim.frontier.state import FrontierState, Side
from sim.frontier.turns import end_turn, finish_turn, start_turn


class FrontierDeck:
    """A deck compiled against a pool: card ids, sorted so a file's line order does not matter."""
    __slots__ = ("id", "cards")

    def __init__(self, deck_id: str, cards: list[int]):
        self.id, self.cards = deck_id, tuple(sorted(cards))


class FrontierEngine:
    name = "frontier"
    kinds = KINDS

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        return Pool(ruleset)

    def compile_deck(self, pool: Pool, deck: Any) -> FrontierDeck:
        cards = []
        for slug, count in deck.cards.items():
            if slug not in pool.ids:
                raise ValueError(f"deck {deck.id}: unknown card {slug!r} in rules version {pool.version}")
            cards.extend([pool.ids[slug]] * count)
        return FrontierDeck(deck.id, cards)

    def new_match(self, pool: Pool, decks: list[FrontierDeck], seed: int, log: bool = True) -> FrontierState:
        consts = pool.consts
        streams = Streams(seed)
        state = blank_state(pool, len(decks), seed, log)
        for seat, deck in enumerate(decks):
            side = state.sides[seat]
            side.deck = list(deck.cards)
            side.decklist = deck.cards
            streams.shuffle(seat).shuffle(side.deck)
            for _ in range(min(consts.opening_hand, len(side.deck))):
                side.hand.append(side.deck.pop())
        # every real match keeps its card ledger (card metrics need it even when the event
        # log is sampled away); lookahead clones carry neither
        state.ledger = CardLedger([list(d.cards) for d in decks])
        for seat, side in enumerate(state.sides):
            state.ledger.opening_hand(seat, side.hand)
        start_turn(state, 0)
        return state

    # --- play -------------------------------------------------------------------------------
    def legal_actions(self, state: FrontierState) -> list[Action]:
        if state.over:
            return []
        if state.pending is not None:
            return [Action(CHOOSE, option) for option in state.pending[2]]
        seat = state.active
        side = state.sides[seat]
        cards = state.pool.cards
        actions = [END_TURN]
        empty = [lane for lane, u in enumerate(side.lanes) if u is None]
        seen: list[int] = []
        for card_id in side.hand:
            if card_id in seen:
                continue
            seen.append(card_id)
            card = cards[card_id]
            if not affordable(side, card):
                continue
            if card.type == CREATURE:
                for lane in empty:
                    actions.append(Action(PLAY, card_id, lane))
            elif castable(state, seat, card):
                actions.append(Action(PLAY, card_id, -1))
        for u in side.lanes:
            if u is not None and u.attacks_left > 0 and u.atk > 0:
                for target in attack_targets(state, u):
                    actions.append(Action(ATTACK, u.lane, target))
        return actions

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
        else:
            raise ValueError(f"unknown action {action!r}")

    def in_choice(self, state: FrontierState) -> bool:
        return state.pending is not None

    def results(self, state: FrontierState) -> list[str]:
        return results_from_winner(len(state.sides), state.winner)

    # --- lookahead --------------------------------------------------------------------------
    def clone(self, state: FrontierState) -> FrontierState:
        return state.clone()

    def evaluate(self, state: FrontierState, seat: int) -> float:
        return evaluate(state, seat)

    def determinize(self, state: FrontierState, seat: int, rng: random.Random) -> FrontierState:
        """What ``seat`` may believe: its own deck order and every other seat's hand and deck
        are unknown, so they are reshuffled (hand sizes kept); the chance stream is reseeded."""
        c = state.clone()
        for s, side in enumerate(c.sides):
            if s == seat:
                rng.shuffle(side.deck)
                continue
            unknown = side.hand + side.deck
            rng.shuffle(unknown)
            n = len(side.hand)
            side.hand, side.deck = unknown[:n], unknown[n:]
        c.chance_key = rng.getrandbits(64)
        c.chance = None
        return c

    # --- people -----------------------------------------------------------------------------
    def describe(self, state: FrontierState, action: Action) -> str:
        return scenario_mod.describe(state, action)

    def lane_name(self, pool: Pool, lane: int) -> str:
        return pool.lane_names[lane]

    def board(self, state: FrontierState) -> dict:
        return scenario_mod.board(state)

    def check_invariants(self, state: FrontierState) -> list[str]:
        return check_invariants(state)

    # --- scenarios --------------------------------------------------------------------------
    def scenario_state(self, pool: Pool, setup: dict, seed: int) -> FrontierState:
        return scenario_mod.scenario_state(pool, setup, seed)

    def parse_action(self, state: FrontierState, text: str) -> Action:
        return scenario_mod.parse_action(self, state, text)

    def snapshot(self, state: FrontierState) -> dict:
        return scenario_mod.snapshot(state)

    # --- the store --------------------------------------------------------------------------
    def card_name(self, pool: Pool, card_id: int) -> str:
        """The stored name of a card id in events (negative ids are not cards)."""
        if card_id == -2:
            return "sheriff"
        return pool.cards[card_id].slug if card_id >= 0 else None


def blank_state(pool: Pool, n_seats: int, chance_key: int, log: bool) -> FrontierState:
    consts = pool.consts
    state = FrontierState.__new__(FrontierState)
    state.pool = pool
    state.sides = []
    for _ in range(n_seats):
        side = Side.__new__(Side)
        side.hp = side.max_hp = consts.starting_hp
        side.mana = side.gold = side.gold_bonus = side.turns = 0
        side.hand, side.deck, side.discard = [], [], []
        side.lanes = [None] * pool.n_lanes
        side.cover = [0] * pool.n_middle
        side.decklist = ()
        state.sides.append(side)
    state.active = state.to_act = 0
    state.turn = 0
    state.phase = "setup"
    state.over, state.winner, state.reason = False, None, ""
    state.stack, state.pending, state.temp = [], None, []
    state.next_uid = 1
    state.chance_key, state.chance = chance_key, None
    state.events = EventBuffer() if log else None
    state.ledger = None
    return state


ENGINE = FrontierEngine()

__all__ = ["ENGINE", "FrontierEngine", "FrontierDeck", "blank_state"]
