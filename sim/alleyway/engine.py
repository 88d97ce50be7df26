"""AlleyWay Brawlers on the engine contract (sim/core/contract.py)."""
from __future__ import annotations

import random
from typing import Any

from sim.alleyway import board as board_mod
from sim.alleyway import brawl, drawn, effects, invariants, play, resolve, scenario, turns
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
from sim.alleyway.kinds import KINDS, PSEUDO_CARDS
from sim.alleyway.legal import legal_actions
from sim.alleyway.pool import Pool
from sim.alleyway.state import AlleyState, Side, TurfState
from sim.core.contract import results_from_winner
from sim.core.decks import CompiledDeck, card_number, card_numbers
from sim.core.game_engine import GameEngine
from sim.core.seating import Seating
from sim.core.setup import deal, draw_opening
from sim.core.standings import standings_from_outs, standings_from_teams
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


TURF_TEAMS = (0, 0, 1)  # Turf Defense: two partners, then the boss


def turf_state(pool: Pool, decks: list, seed: int, log: bool, seating: Seating) -> tuple[list, TurfState]:
    """Turf Defense's seats: the partners' two decks, then the boss's deck (shuffled like any on
    its seat's stream), in a TurfState with its teams, Morale cap and phase 1."""
    if len(decks) != 2:
        raise ValueError(f"Turf Defense takes the two partners' decks (the boss's seat is added), not {len(decks)}")
    boss = pool.bosses.get(seating.boss)
    if boss is None:
        known = ", ".join(sorted(pool.bosses)) or "none"
        raise ValueError(f"no boss {seating.boss!r} in rules version {pool.version} (known: {known})")
    teams = tuple(seating.teams) if seating.teams is not None else TURF_TEAMS
    if teams != TURF_TEAMS:
        raise ValueError(f"Turf Defense seats the teams {TURF_TEAMS} (two partners, then the boss), not {teams}")
    decks = list(decks) + [AlleyDeck(boss.id, list(boss.cards), list(boss.hideout), boss.leader)]
    state = blank_state(pool, 3, seed, log, cls=TurfState)
    state.sides[2].morale = boss.morale
    state.seat_boss(boss, teams, 2)
    return decks, state


class AlleyWayEngine(GameEngine):
    modes = ("duel", "ffa", "series", "turf")
    name = "alleyway"
    kinds = KINDS
    scenario_module = scenario
    drawn_module = drawn
    invariants_module = invariants
    pseudo_cards = PSEUDO_CARDS

    # --- setup ------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Pool:
        return Pool(ruleset)

    def compile_deck(self, pool: Pool, deck: Any) -> AlleyDeck:
        leader = card_number(pool, deck.id, deck.leader, " as its leader")
        return AlleyDeck(deck.id, card_numbers(pool, deck.id, deck.cards),
                         card_numbers(pool, deck.id, deck.hideout, " in its Hideout"), leader)

    def new_match(self, pool: Pool, decks: list[AlleyDeck], seed: int, log: bool = True,
                  seating: Seating | None = None) -> AlleyState:
        """A match of ``decks`` (seat 0 first). ``seating`` (sim/core/seating.py) only for a mode
        that needs it: ``Seating("turf", boss=ID)`` (teams (0, 0, 1) by default) is Turf Defense,
        the two decks the partners (seats 0 and 1) and the boss ``ID`` of the rules version
        (cardsdb/alleyway/bosses/ID.yaml) added as seat 2 (``turf_state``)."""
        if seating is not None and seating.mode == "turf":
            decks, state = turf_state(pool, decks, seed, log, seating)
        elif seating is not None and seating.mode not in ("duel", "ffa"):
            raise ValueError(f"AlleyWay plays no mode {seating.mode!r} (modes: {', '.join(self.modes)})")
        else:
            state = blank_state(pool, len(decks), seed, log)
        consts = pool.consts

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
        """Where each seat finished (sim/core/standings.Standing). Turf Defense places teams
        (``standings_from_teams``): the partners both win when the boss is beaten, the one who
        went out too."""
        if state.teams is not None:
            return standings_from_teams(state.teams, state.outs, state.winner)
        return standings_from_outs(len(state.sides), state.outs, state.winner)

    def outcome(self, state: AlleyState) -> dict | None:
        """Turf Defense's facts beyond the standings (stored as JSON with the match): the boss, its
        phase at the end (1 = its first), its life (Morale) left and at the start, and the prize
        card the partners' win pays (None when they did not win). None for a duel or a
        free-for-all."""
        if state.teams is None:
            return None
        boss = state.boss
        won = state.over and state.winner is not None and state.teams[state.winner] != state.teams[boss]
        return {"boss": state.boss_def.id, "phase": state.boss_phase + 1, "boss_life": state.sides[boss].morale,
                "boss_life_max": state.caps[boss], "prize": state.prize if won else None}

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

    # --- people (describe, drawn board, event words, invariants, scenarios: sim/core/game_engine.py)
    def lane_name(self, pool: Pool, lane: int) -> str:
        return board_mod.lane_name(pool, lane)

    def board(self, state: AlleyState) -> dict:
        return board_mod.board(state)


ENGINE = AlleyWayEngine()

__all__ = ["ENGINE", "AlleyWayEngine", "AlleyDeck", "turf_state"]
