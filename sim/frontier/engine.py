"""Wild Frontier on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.core.card_ids import card_name
from sim.core.contract import results_from_winner
from sim.core.events import EventBuffer
from sim.core.ledger import CardLedger
from sim.core.rng import Streams, shuffle
from sim.core.state import new_generation, release_hold
from sim.frontier import scenario as scenario_mod
from sim.frontier.actions import ABILITY, ATTACK, CHOOSE, END, PLAY, SHERIFF_ACT, SUMMON, Action, ActionTable
from sim.frontier.combat import attack
from sim.frontier.effects import SHERIFF_TARGET, choose
from sim.frontier.evaluate import evaluate
from sim.frontier.invariants import check_invariants
from sim.frontier.kinds import KINDS
from sim.frontier.legal import legal_actions
from sim.frontier.play import play_card, sheriff_discard, summon_deputy, use_deputy_ability
from sim.frontier.pool import Pool
from sim.frontier.sheriffs import NO_SHERIFF
from sim.frontier.state import END as END_PHASE
from sim.frontier.state import FrontierState, Side
from sim.frontier.turns import end_turn, finish_turn, opening_hand_size, start_turn

PSEUDO_CARDS = {SHERIFF_TARGET: "sheriff"}  # what the store calls the pseudo card ids of events


class FrontierDeck:
    """A deck compiled against a pool: card ids (sorted, so a file's line order does not matter),
    the sheriff, the two Deputies, and an optional starting HP and HP cap (Frontier Run carries
    trail HP from fight to fight)."""
    __slots__ = ("id", "cards", "sheriff", "deputies", "hp", "max_hp")

    def __init__(self, deck_id: str, cards: list[int], sheriff: int = NO_SHERIFF,
                 deputies: tuple = (), hp: int | None = None, max_hp: int | None = None):
        self.id, self.cards = deck_id, tuple(sorted(cards))
        self.sheriff, self.deputies, self.hp = sheriff, tuple(deputies), hp
        self.max_hp = max_hp if max_hp is not None else hp


class FrontierEngine:
    name = "frontier"
    kinds = KINDS

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        pool = Pool(ruleset)
        pool.actions = ActionTable(pool)
        return pool

    def compile_deck(self, pool: Pool, deck: Any) -> FrontierDeck:
        cards = []
        for slug in list(deck.cards) + list(deck.deputies):
            if slug not in pool.ids:
                raise ValueError(f"deck {deck.id}: unknown card {slug!r} in rules version {pool.version}")
        for slug, count in deck.cards.items():
            cards.extend([pool.ids[slug]] * count)
        return FrontierDeck(deck.id, cards, pool.sheriff_ids[deck.sheriff],
                            tuple(pool.ids[d] for d in deck.deputies))

    def new_match(self, pool: Pool, decks: list[FrontierDeck], seed: int, log: bool = True) -> FrontierState:
        streams = Streams(seed)
        state = blank_state(pool, len(decks), seed, log)
        shuffled = []
        for seat, deck in enumerate(decks):
            side = state.sides[seat]
            side.deck = list(deck.cards)
            side.decklist = deck.cards
            set_sheriff(state, seat, deck.sheriff, deck.hp, deck.max_hp)
            set_deputies(side, deck.deputies)
            streams.shuffle(seat).shuffle(side.deck)
            shuffled.append(list(side.deck))  # the order before any draw, for the ledger
            hand = opening_hand_size(pool, seat, deck.sheriff)
            for _ in range(min(hand, len(side.deck))):
                side.hand.append(side.deck.pop())
        # every real match keeps its card ledger (card metrics need it even when the event
        # log is sampled away); lookahead clones carry neither
        state.ledger = CardLedger(shuffled)
        for seat, side in enumerate(state.sides):
            state.ledger.opening_hand(seat, side.hand)
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

    def results(self, state: FrontierState) -> list[str]:
        return results_from_winner(len(state.sides), state.winner)

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
        """What ``seat`` may believe (RULES.md, "What a pilot may know"): its own deck order and
        every other seat's hand and deck are unknown, so they are dealt afresh (hand and deck sizes
        kept) from what the seat may know; the chance stream is reseeded.

        Deck lists are open, and every card that leaves a hand or deck goes somewhere public (the
        field, the discard pile), so a seat's hand + deck is always its declared list minus the
        copies seen on the field and in its discard pile: the unknown pool. It is sorted before the
        shuffle, so the belief depends only on that pool and the pilot's stream, never on the
        hidden order. Frontier shows no hidden card to another seat, so nothing is known beyond it.
        """
        c = state.fork()
        for s in range(len(c.sides)):
            side = c.own_side(s)
            if s == seat:
                deck = side.deck = sorted(side.deck)  # a new list: the fork shares the old one
                shuffle(rng, deck)
                continue
            unknown = side.hand + side.deck
            unknown.sort()
            shuffle(rng, unknown)
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
    def card_name(self, pool: Pool, card_id: int) -> str | None:
        return card_name(pool, card_id, PSEUDO_CARDS)


def blank_state(pool: Pool, n_seats: int, chance_key: int, log: bool) -> FrontierState:
    consts = pool.consts
    state = FrontierState.__new__(FrontierState)
    state.gen = new_generation()
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
        side.sheriff = NO_SHERIFF
        side.deputies, side.dzone, side.dused = (), [], []
        side.mana_bonus = side.zix_left = side.trims_left = 0
        side.attacked = False
        side.gen, side.value = state.gen, None
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
    # no hold: sim.core.state reads an unset hold as None; set, the reads do not raise and catch
    # an AttributeError each time (lookahead asks at every step)
    state.hold = None
    return state


def set_sheriff(state: FrontierState, seat: int, sheriff: int, hp: int | None = None,
                max_hp: int | None = None) -> None:
    """The sheriff's starting passives: its starting HP (Ironhold's 35), its discard-to-draw uses
    (Zix's one), its starting Cover (Reedwick's, centre lanes first). ``hp`` and ``max_hp``
    override the starting HP and its cap (Frontier Run's trail HP)."""
    consts = state.pool.consts
    passives = state.pool.sheriffs[sheriff]
    side = state.sides[seat]
    side.sheriff = sheriff
    side.hp = side.max_hp = hp if hp is not None else passives.start_hp
    if max_hp is not None:
        side.max_hp = max(max_hp, side.hp)
    side.zix_left = passives.discard_uses
    for lane in centre_out(state.pool.n_middle)[:passives.start_cover]:
        side.cover[lane] = min(consts.max_cover_per_lane, side.cover[lane] + 1)


def centre_out(n: int) -> list[int]:
    """Middle lanes from the centre outwards: 5 lanes give m3, m2, m4, m1, m5."""
    mid = (n - 1) // 2
    order = [mid]
    for step in range(1, n):
        for lane in (mid - step, mid + step):
            if 0 <= lane < n and lane not in order:
                order.append(lane)
    return order


def set_deputies(side: Side, deputies: tuple) -> None:
    side.deputies = tuple(deputies)
    side.dzone = [0] * len(deputies)  # ready from the first turn
    side.dused = [0] * len(deputies)


ENGINE = FrontierEngine()

__all__ = ["ENGINE", "FrontierEngine", "FrontierDeck", "blank_state"]
