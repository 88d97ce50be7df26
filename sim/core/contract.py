"""The engine contract: the one small protocol every game implements.

Pilots, the match loop, the scenario runner and the farm know nothing else about a game.

A *pool* is a rules version compiled for fast play (immutable, shared by every match of that
version); it must expose ``consts`` with at least ``turn_limit`` and ``decision_limit``, and
``ids`` (card id as written in the data -> the engine's card number). A game that plays the
``series`` mode also exposes in ``consts`` the series' terms, ``series_best_of``,
``rank_points_win``, ``rank_points_loss`` and ``rank_points_sweep`` (sim/core/series.py).
A *compiled deck* (``compile_deck``) must expose ``cards``: the card numbers of its main deck in
the order ``new_match`` shuffles them (sim/core/decks.py replaces cards in place there).
``new_match`` builds the card ledger from each seat's deck as shuffled, before the first draw.
A *state* must expose:

    to_act   the seat that must decide now (not always the active seat: a defender may choose)
    turn     player-turns started so far (1 on the first turn), used for the turn limit
    over, winner, reason
             winner is a seat or None (a draw); reason names how the match ended
             (hp, deck_out, turn_limit, decision_limit, error, ...)
    events   an EventBuffer, or None in lookahead clones and unlogged matches
    ledger   a CardLedger, or None in lookahead clones

Actions are small immutable values (named tuples), cheap to compare and to print.

Every method below is *required* except those in ``OPTIONAL``: an engine may leave those out by
inheriting ``EngineDefaults``, whose versions work from the required ones. So the application
calls any contract method without asking whether the engine has it; ``contract_gaps`` lists
what an engine lacks, and tests/test_conformance.py runs it (and the behaviour checks) over
every registered engine.
"""
from __future__ import annotations

import random
from typing import Any, Protocol

from sim.core.drawn import from_rows
from sim.core.events import AIMED, EventKinds
from sim.core.words import plain, said


class Engine(Protocol):
    name: str
    kinds: EventKinds
    modes: tuple[str, ...]  # run modes it plays: "duel", "ffa" (optional: EngineDefaults has the duel);
    # an engine that plays "ffa" registers and emits the event kind sim/core/events.AIMED

    # --- setup -------------------------------------------------------------------------------
    def compile_pool(self, ruleset: Any) -> Any:
        """Turn a resolved rules version (cardsdb) into the engine's fast pool."""

    def compile_deck(self, pool: Any, deck: Any) -> Any:
        """Turn a deck model into what ``new_match`` takes (raises ValueError naming the card)."""

    def new_match(self, pool: Any, decks: list[Any], seed: int, log: bool = True) -> Any:
        """A fresh match, one deck per seat in seat order (seat 0 acts first). ``log`` turns the
        event buffer on; the card ledger is always kept in a real match. An engine with a team or
        boss mode also takes ``seating`` (sim/core/seating.Seating); it is passed only then."""

    # --- play --------------------------------------------------------------------------------
    def legal_actions(self, state: Any) -> list:
        """Every choice open to ``state.to_act``; never empty while the match is not over."""

    def apply(self, state: Any, action: Any) -> None:
        """Carry out the action, resolve every trigger, emit events."""

    def in_choice(self, state: Any) -> bool:
        """True inside an action: the seat to act finishes an action it took (choosing a target
        or a cell), or answers one another seat took (a defender's Tactic)."""

    def results(self, state: Any) -> list[str]:
        """'win', 'loss' or 'draw' per seat once the match is over."""

    # --- lookahead ---------------------------------------------------------------------------
    def clone(self, state: Any) -> Any:
        """A cheap copy with logging off (no events, no ledger). It may share parts with its
        source copy-on-write (Frontier's and AlleyWay's forks share units and seats until one
        side changes them), so a clone is changed only through the engine (``apply``,
        ``begin_held_turn``) and the lookahead helpers (``hold_turns``, ``reseed_chance``);
        code that edits a position by hand (tests, scenario tools) takes the state's own deep
        copy, ``state.clone()``."""

    def begin_held_turn(self, state: Any) -> None:
        """In a clone held by ``sim.core.state.hold_turns`` whose turn has passed (``turn_held``),
        begin the waiting seat's turn (draw, resources, start-of-turn triggers)."""

    def evaluate(self, state: Any, seat: int) -> float:
        """The game's heuristic value of the state for ``seat`` (higher is better)."""

    def determinize(self, state: Any, seat: int, rng: random.Random) -> Any:
        """A clone as ``seat`` may believe it: hidden cards resampled and the chance stream
        reseeded from ``rng``, so no lookahead sees the future."""

    # --- people ------------------------------------------------------------------------------
    def describe(self, state: Any, action: Any) -> str:
        """The action in words a designer reads (and ``parse_action`` reads back)."""

    def lane_name(self, pool: Any, lane: int) -> str:
        """The name of a lane or cell index as events store it (``m3``, ``hr1``, ``C4``...)."""

    def board(self, state: Any) -> dict:
        """What every seat sees of the table, for replays: ``{"seats": [row per seat],
        "field": [row per card on the field]}``, rows being flat dicts of plain values. Hidden
        zones appear as counts and a face-down card without its name."""

    def drawn_board(self, state: Any) -> dict:
        """The table as a replay draws it (sim/core/drawn.py): zones, the cells cards stand in,
        and each card with its name and current numbers, as plain values. Public, like ``board``."""

    def event_words(self, pool: Any, seat: int, kind: int, card: int, target: int, amount: int, lane: int,
                    detail: str | None) -> str:
        """One logged event (its columns as stored) as a sentence a designer reads
        (sim/core/words.py), not the engine's shorthand."""

    def check_invariants(self, state: Any) -> list[str]:
        """Broken invariants in words; empty when the state is sound."""

    def standings(self, state: Any) -> list:
        """Once the match is over, where each seat finished (sim/core/standings.py ``Standing``:
        placement, when and by whom it went out, result)."""

    def outcome(self, state: Any) -> dict | None:
        """A finished match's mode-specific facts, plain values stored as JSON (optional)."""

    def card_name(self, pool: Any, card_id: int) -> str | None:
        """The stored name of a card id in the event log (special negative ids included)."""

    # --- scenarios ---------------------------------------------------------------------------
    def scenario_state(self, pool: Any, setup: dict, seed: int) -> Any:
        """A state built from a scenario's declared position."""

    def parse_action(self, state: Any, text: str) -> Any:
        """The legal action a scenario step names; ValueError (with the legal ones) if none."""

    def snapshot(self, state: Any) -> dict:
        """A plain nested dict of what a scenario can check (life, resources, zones, board); each
        seat's part is under ``p<seat>``, its ``hand`` a list of card ids as written."""


class EngineDefaults:
    """The optional methods' defaults, for an engine that inherits them."""

    # the run modes the engine plays (workbench/runspec.MODES): a duel at least
    modes: tuple[str, ...] = ("duel",)

    def outcome(self, state: Any) -> dict | None:
        """What a finished match of a mode leaves beyond its standings, as plain values stored
        with the match (JSON in ``matches.outcome``): e.g. Turf Defense's boss, the phase it
        reached, its life left, the prize card won. None: nothing more."""
        return None

    def standings(self, state: Any) -> list:
        """Placements from the results alone: 1 for a win, 2 for a loss, none in a draw."""
        from sim.core.standings import standings_from_results

        return standings_from_results(self.results(state))

    def lane_name(self, pool: Any, lane: int) -> str:
        return str(lane)

    def board(self, state: Any) -> dict:
        """The snapshot's plain per-seat values, one row per seat, and no field rows."""
        snap = self.snapshot(state)
        seats = [{"seat": key, **{k: v for k, v in part.items() if not isinstance(v, (dict, list))}}
                 for key, part in snap.items() if isinstance(part, dict) and key.startswith("p")]
        return {"seats": seats, "field": []}

    def drawn_board(self, state: Any) -> dict:
        """A panel per seat and its field rows as cards, from ``board`` (sim/core/drawn.py)."""
        return from_rows(self.board(state))

    def event_words(self, pool: Any, seat: int, kind: int, card: int, target: int, amount: int, lane: int,
                    detail: str | None) -> str:
        """The generic sentence of sim/core/words.py, cards by their stored names."""
        return plain(said(self, pool, lambda c: self.card_name(pool, c) or "", seat, kind, card, target, amount,
                          lane, detail))


ATTRIBUTES = ("name", "kinds")
METHODS = tuple(name for name, value in vars(Engine).items() if callable(value) and not name.startswith("_"))
OPTIONAL = tuple(name for name in vars(EngineDefaults) if not name.startswith("_"))
REQUIRED = tuple(name for name in METHODS if name not in OPTIONAL)


def contract_gaps(engine: Any) -> list[str]:
    """What ``engine`` lacks of the contract, in words (empty when it has everything)."""
    gaps = [f"attribute {name!r}" for name in ATTRIBUTES if not hasattr(engine, name)]
    for name in METHODS:
        if not callable(getattr(engine, name, None)):
            how = " (or inherit sim.core.contract.EngineDefaults)" if name in OPTIONAL else ""
            gaps.append(f"{'optional' if name in OPTIONAL else 'required'} method {name!r}{how}")
    kinds = getattr(engine, "kinds", None)
    if "ffa" in getattr(engine, "modes", ()) and AIMED not in getattr(kinds, "names", ()):
        gaps.append(f"event kind {AIMED!r} (a game that seats more than two says who aimed at whom: "
                    "sim/core/events.AIMED)")
    return gaps


def results_from_winner(n_seats: int, winner: int | None) -> list[str]:
    """Results when one seat wins and the rest lose, or all draw."""
    if winner is None:
        return ["draw"] * n_seats
    return ["win" if seat == winner else "loss" for seat in range(n_seats)]
