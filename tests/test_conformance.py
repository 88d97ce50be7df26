"""One conformance suite over every registered engine (issue 15, item 1): a fourth game gets
these checks by registering in sim/registry.py (and marking starter decks in its data).

The checks, at the positions of seeded random walks over the starter decks
(tests/conformance_walk.py):

- the contract's methods exist (sim/core/contract.py declares which are required, which optional);
- legal actions are never empty before the end, and every legal action applies (on a clone)
  without raising and leaves a position that is sound and, unless over, has legal actions;
- invariants hold (each engine's ``check_invariants``) on the walk and after every action tried;
- a clone is independent of its original both ways: actions applied on clones leave the
  original's fingerprint unchanged, and the walk's own action leaves a clone's unchanged;
- a held clone (``hold_turns``) begun with ``begin_held_turn`` stands where an unheld one stands;
- ``determinize`` changes only hidden information: what the seat sees (the public ``board``, its
  own hand, its legal actions in words when it is to act) is unchanged, the belief is sound, the
  original untouched;
- ``describe`` and ``parse_action`` round-trip for every legal action;
- the board, lane names, card names and results are plain and readable;
- in a duel, ``evaluate`` is zero-sum (the lookahead pilots' duel shortcut rests on it);
- the same seed gives the same event digest in another process.

Every position of a walk gets the first checks; every ``DEEP_EVERY``-th the rest. The walks of
one game run once per test session and are shared by the tests (``conformance``); a check's
problems name the game, seed, position and action. ``test_positions_and_actions_tried`` prints
what was tried (``-s`` shows it)."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache

import pytest

from sim.core.contract import OPTIONAL, REQUIRED, EngineDefaults, contract_gaps
from sim.core.state import hold_turns, turn_held
from sim.registry import ENGINES, engine
from tests.conformance_walk import NoLegalAction, starter_game, walk
from tests.conftest import DATA, ROOT

GAMES = sorted(ENGINES)
POSITIONS = 1000  # per game: whole walks from seed 0 until this many decisions were checked
SLOW_POSITIONS, SLOW_FIRST_SEED = 4000, 1000
MAX_WALKS = 200  # a bound, should a game's walks be very short
DEEP_EVERY = 4  # every fourth position also gets the clone, determinize and round-trip checks
CHECKS = ("legal", "apply", "invariants", "clone", "held", "determinize", "round_trip", "people", "zero_sum")
HELD_STEPS = 200  # a bound on the random actions a held clone takes to reach its turn's end
KEEP = 12  # problems kept per check (the first ones say enough)
PLAIN = (type(None), bool, int, float, str)


@dataclass(slots=True)
class Tally:
    """What one game's walks tried, and what they found wrong (per check)."""
    matches: int = 0
    positions: int = 0  # decisions on the walks
    actions: int = 0  # legal actions applied on a clone
    follow_ups: int = 0  # positions those actions led to, checked in turn
    deep: int = 0  # positions given the clone, determinize and round-trip checks
    round_trips: int = 0
    held: int = 0  # held clones that reached their turn's end and began the next one
    determinized: int = 0  # (position, seat) beliefs checked
    resampled: int = 0  # beliefs whose snapshot differs from the truth (hidden cards dealt afresh)
    digests: dict = field(default_factory=dict)
    problems: dict = field(default_factory=lambda: {check: [] for check in CHECKS})

    def found(self, check: str, where: str, what: str) -> None:
        if len(self.problems[check]) < KEEP:
            self.problems[check].append(f"{where}: {what}")


# --- what the checks compare -----------------------------------------------------------------------

def fingerprint(eng, state) -> tuple:
    """The state as the engine's public surface shows it: snapshot, board, legal actions in words,
    each seat's value, and how many events it logged."""
    actions = [] if state.over else [eng.describe(state, a) for a in eng.legal_actions(state)]
    values = tuple(eng.evaluate(state, seat) for seat in range(len(state.sides)))
    logged = None if state.events is None else len(state.events)
    return eng.snapshot(state), eng.board(state), actions, values, logged


def visible(eng, state, seat: int) -> dict:
    """What ``seat`` sees: the public board, its own hand, and its choices in words if it is to act."""
    to_act = not state.over and state.to_act == seat
    return {"board": eng.board(state), "hand": eng.snapshot(state)[f"p{seat}"]["hand"],
            "actions": sorted(eng.describe(state, a) for a in eng.legal_actions(state)) if to_act else None}


def failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


# --- the checks at one position -----------------------------------------------------------------

class Checker:
    """The ``visit`` hook of one walk: checks each position before the walk's action is applied."""

    def __init__(self, eng, name: str, seed: int, tally: Tally):
        self.eng, self.name, self.seed, self.tally = eng, name, seed, tally
        self.position = 0
        self.watch = None  # (clone, its fingerprint, where): the walk's action must leave it alone

    def where(self, state, action=None) -> str:
        said = f", action {self.eng.describe(state, action)!r}" if action is not None else ""
        return (f"{self.name} seed {self.seed} position {self.position} "
                f"(turn {state.turn}, p{state.to_act} to act{said})")

    def __call__(self, state, action) -> None:
        self.check_watch()
        self.position += 1
        self.tally.positions += 1
        legal = self.eng.legal_actions(state)
        self.check_sound(state, self.where(state))
        if not isinstance(self.eng.in_choice(state), bool):
            self.tally.found("people", self.where(state), "in_choice is not a bool")
        if self.position % DEEP_EVERY:
            self.try_actions(state, legal, deep=False)
            return
        self.tally.deep += 1
        before = fingerprint(self.eng, state)
        self.try_actions(state, legal, deep=True)
        if fingerprint(self.eng, state) != before:
            self.tally.found("clone", self.where(state), "applying actions on clones changed the original")
        self.round_trip(state, legal)
        self.check_held(state)
        for seat in range(len(state.sides)):
            self.check_determinize(state, seat, before)
        self.check_board(state)
        self.check_zero_sum(state)
        watch = self.eng.clone(state)
        self.watch = (watch, fingerprint(self.eng, watch), self.where(state, action))

    def check_watch(self) -> None:
        """The walk's last action, applied on the original, left the clone taken before it alone."""
        if self.watch is not None:
            clone, seen, where = self.watch
            self.watch = None
            if fingerprint(self.eng, clone) != seen:
                self.tally.found("clone", where, "applying the action on the original changed its clone")

    def check_sound(self, state, where: str) -> None:
        broken = self.eng.check_invariants(state)
        if broken:
            self.tally.found("invariants", where, "; ".join(broken))
        if not state.over and not self.eng.legal_actions(state):
            self.tally.found("legal", where, "no legal action before the end")

    def try_actions(self, state, legal: list, deep: bool) -> None:
        """Every legal action applies on a clone without raising and leads somewhere sound; deep,
        the first of them also leaves a second clone of the same original alone."""
        sibling = self.eng.clone(state) if deep else None
        seen = fingerprint(self.eng, sibling) if deep else None
        for action in legal:
            self.tally.actions += 1
            trial = self.eng.clone(state)
            try:
                self.eng.apply(trial, action)
            except Exception as exc:  # noqa: BLE001 - the engine's bug, reported with its position
                self.tally.found("apply", self.where(state, action), failure(exc))
                continue
            self.tally.follow_ups += 1
            self.check_sound(trial, self.where(state, action) + " then")
        if deep and fingerprint(self.eng, sibling) != seen:
            self.tally.found("clone", self.where(state), "applying actions on clones changed another clone")

    def check_held(self, state) -> None:
        """A held clone (``hold_turns``) stops where its turn passes; begun with
        ``begin_held_turn``, it stands where a clone that never held stands after the same actions."""
        held, plain = self.eng.clone(state), self.eng.clone(state)
        hold_turns(held)
        rng = random.Random(self.seed * 100_003 + self.position)
        try:
            for _ in range(HELD_STEPS):
                if held.over or turn_held(held) is not None:
                    break
                action = rng.choice(self.eng.legal_actions(held))
                self.eng.apply(held, action)
                self.eng.apply(plain, action)
            if turn_held(held) is None:
                return  # the match ended (or the bound came) before the turn passed
            self.eng.begin_held_turn(held)
        except Exception as exc:  # noqa: BLE001
            self.tally.found("held", self.where(state), failure(exc))
            return
        self.tally.held += 1
        if fingerprint(self.eng, held) != fingerprint(self.eng, plain):
            self.tally.found("held", self.where(state), "the held turn, begun, differs from the turn that never held")

    def round_trip(self, state, legal: list) -> None:
        for action in legal:
            self.tally.round_trips += 1
            text = self.eng.describe(state, action)
            try:
                back = self.eng.parse_action(state, text)
            except Exception as exc:  # noqa: BLE001
                self.tally.found("round_trip", self.where(state, action), failure(exc))
                continue
            if back != action:
                self.tally.found("round_trip", self.where(state, action), f"{text!r} parses as {back!r}")

    def check_determinize(self, state, seat: int, before: tuple) -> None:
        where = self.where(state) + f", belief of p{seat}"
        self.tally.determinized += 1
        rng = random.Random(self.seed * 100_003 + self.position * 7 + seat)
        try:
            belief = self.eng.determinize(state, seat, rng)
            if visible(self.eng, belief, seat) != visible(self.eng, state, seat):
                self.tally.found("determinize", where, "what the seat sees changed")
            broken = self.eng.check_invariants(belief)
            if broken:
                self.tally.found("determinize", where, "; ".join(broken))
            if self.eng.snapshot(belief) != before[0]:
                self.tally.resampled += 1
            if not state.over and seat == state.to_act:  # a pilot plays on its belief
                self.eng.apply(belief, rng.choice(self.eng.legal_actions(belief)))
        except Exception as exc:  # noqa: BLE001
            self.tally.found("determinize", where, failure(exc))
        if fingerprint(self.eng, state) != before:
            self.tally.found("determinize", where, "determinize changed the original")

    def check_zero_sum(self, state) -> None:
        """In a duel ``evaluate`` is zero-sum: the lookahead pilots read the other seat's best as
        the seat's worst on that promise (sim/core/pilots/lookahead.py ``zero_sum``)."""
        if len(state.sides) != 2 or getattr(state, "teams", None) is not None:
            return
        mine, theirs = self.eng.evaluate(state, 0), self.eng.evaluate(state, 1)
        if mine != -theirs:
            self.tally.found("zero_sum", self.where(state), f"evaluate {mine} for p0 but {theirs} for p1")

    def check_board(self, state) -> None:
        board = self.eng.board(state)
        rows = board.get("seats", []) + board.get("field", [])
        if set(board) != {"seats", "field"} or len(board["seats"]) != len(state.sides):
            self.tally.found("people", self.where(state), f"board is not one row per seat and the field: {board}")
        bad = [row for row in rows if not isinstance(row, dict) or not all(isinstance(v, PLAIN) for v in row.values())]
        if bad:
            self.tally.found("people", self.where(state), f"board rows are not flat plain values: {bad[0]}")

    def check_end(self, state) -> None:
        """Once the walk is over: what its events name reads back, and the results agree with the winner."""
        where = f"{self.name} seed {self.seed} end"
        ev, pool = state.events, starter_game(self.name)[1]
        lanes = sorted(lane for lane in set(ev.lane) if lane >= 0)
        names = [self.eng.lane_name(pool, lane) for lane in lanes]
        if not all(isinstance(name, str) and name for name in names) or len(set(names)) != len(names):
            self.tally.found("people", where, f"lanes {lanes} are not named one name each: {names}")
        for card in sorted(set(ev.card) | set(ev.target)):
            if not isinstance(self.eng.card_name(pool, card), (str, type(None))):
                self.tally.found("people", where, f"card {card} has no name")
        if state.over:
            results = self.eng.results(state)
            expect = ["draw"] * len(state.sides) if state.winner is None else [
                "win" if seat == state.winner else "loss" for seat in range(len(state.sides))]
            if results != expect:
                self.tally.found("people", where, f"results {results} for winner {state.winner}")


def run_walks(name: str, first_seed: int, positions: int) -> Tally:
    """Whole walks from ``first_seed`` on until ``positions`` decisions were checked."""
    eng = engine(name)
    tally = Tally()
    for seed in range(first_seed, first_seed + MAX_WALKS):
        if tally.positions >= positions:
            break
        checker = Checker(eng, name, seed, tally)
        try:
            final = walk(name, seed, checker)
        except Exception as exc:  # noqa: BLE001 - the walk itself found no action, or its action raised
            check = "legal" if isinstance(exc, NoLegalAction) else "apply"
            tally.found(check, f"{name} seed {seed} position {checker.position} (on the walk)", failure(exc))
            continue
        checker.check_watch()
        checker.check_end(final)
        tally.matches += 1
        tally.digests[str(seed)] = final.events.digest()
    return tally


@cache
def conformance(name: str) -> Tally:
    return run_walks(name, 0, POSITIONS)


# --- the tests -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", GAMES)
def test_the_contract_methods_exist(name):
    eng = engine(name)
    assert contract_gaps(eng) == []
    assert eng.name == name
    assert set(REQUIRED) | set(OPTIONAL) >= {"legal_actions", "apply", "board", "lane_name"}


def test_a_free_for_all_game_without_the_aimed_event_is_a_gap():
    """The free-for-all reports read who aimed at whom from sim/core/events.AIMED alone."""
    from sim.core.events import EventKinds

    class FreeForAll(EngineDefaults):
        name, kinds, modes = "ffa-game", EventKinds(["attack"]), ("duel", "ffa")

    assert any("'aimed'" in gap for gap in contract_gaps(FreeForAll()))
    FreeForAll.kinds = EventKinds(["attack", "aimed"])
    assert not any("'aimed'" in gap for gap in contract_gaps(FreeForAll()))


def test_a_missing_method_is_a_gap_and_an_optional_one_has_a_default():
    class Bare:
        name, kinds = "bare", None

    class WithDefaults(EngineDefaults):
        name, kinds = "defaults", None

    assert any("'legal_actions'" in gap for gap in contract_gaps(Bare()))
    assert any("optional method 'board'" in gap for gap in contract_gaps(Bare()))
    assert not any(name in gap for gap in contract_gaps(WithDefaults()) for name in OPTIONAL)


@pytest.mark.parametrize("name", GAMES)
def test_the_default_board_reads_any_engines_snapshot(name):
    """An engine that inherits EngineDefaults gets a replay board from its snapshot."""
    eng, pool, pairs = starter_game(name)
    state = eng.new_match(pool, list(pairs[0]), 1)

    class Borrowed(EngineDefaults):
        snapshot = staticmethod(eng.snapshot)

    board = Borrowed().board(state)
    assert [row["seat"] for row in board["seats"]] == [f"p{s}" for s in range(len(state.sides))]
    assert all(isinstance(v, PLAIN) for row in board["seats"] for v in row.values())
    assert Borrowed().lane_name(pool, 3) == "3"


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("name", GAMES)
def test_the_walks_pass(name, check):
    """legal: never empty before the end; apply: every legal action applies on a clone; invariants;
    clone: independent both ways; held: a held turn begins where an unheld one does; determinize:
    only hidden information changes; round_trip: describe/parse_action; people: boards, lane and
    card names, results; zero_sum: a duel's evaluate is zero-sum."""
    problems = conformance(name).problems[check]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", GAMES)
def test_the_walks_reach_what_they_check(name):
    """Held clones reach their turn's end, beliefs really deal hidden cards afresh."""
    tally = conformance(name)
    assert tally.held > tally.deep // 2
    assert tally.resampled > tally.determinized // 4


@pytest.mark.parametrize("name", GAMES)
def test_the_replay_reads_every_engine_through_the_contract(name):
    """workbench/replay.py asks no engine what it can do: every turn has its board, every lane
    its name."""
    from cardsdb.loader import load_ruleset
    from sim.core.match import play_match
    from workbench.replay import BoardWatcher, timeline

    eng, pool, pairs = starter_game(name)
    watcher = BoardWatcher(eng)
    result = play_match(eng, pool, list(pairs[0]), 7, ["random", "random"], on_decision=watcher)
    ruleset = load_ruleset(name, "base", DATA)[1]
    steps = timeline(eng, pool, ruleset, result, watcher.boards)["timeline"]
    assert len(steps) == len(set(result.events.turn)) > 2
    assert all(set(step["board"]) == {"seats", "field"} for step in steps)
    placed = [e for step in steps for e in step["events"] if " @ " in e]
    lanes = {result.events.lane[i] for i in range(len(result.events)) if result.events.lane[i] >= 0}
    assert placed and {eng.lane_name(pool, lane) for lane in lanes} <= {e.split(" @ ")[1].split()[0] for e in placed}
    json.dumps(steps)  # plain values, as the dashboard takes them


@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_gives_the_same_event_digest_in_another_process(name):
    ours = conformance(name).digests
    res = subprocess.run([sys.executable, "-m", "tests.conformance_walk", name, "0", str(len(ours))],
                         check=False, capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={"PYTHONHASHSEED": "4242", "PATH": "/usr/bin:/bin"})
    assert res.returncode == 0, res.stderr
    theirs = json.loads(res.stdout)
    assert theirs == ours and len(ours) >= 2
    assert len(set(ours.values())) == len(ours)  # and the seed matters


class Proxy:
    """An engine with one method broken, for the test that the checks can fail."""

    def __init__(self, eng):
        self.eng = eng

    def __getattr__(self, attr):
        return getattr(self.eng, attr)


class SharedClone(Proxy):
    def clone(self, state):
        return state  # not a copy: what a clone does happens to its original


class OwnHandDealtAfresh(Proxy):
    def determinize(self, state, seat, rng):
        belief = self.eng.determinize(state, seat, rng).clone()  # a deep copy, to change by hand
        side = belief.sides[seat]
        n = len(side.hand)
        side.hand, side.deck = side.deck[-n:], side.deck[:-n] + side.hand  # the seat's own hand resampled
        return belief


class FavoursSeatZero(Proxy):
    def evaluate(self, state, seat):
        return self.eng.evaluate(state, seat) + (1.0 if seat == 0 else 0.0)  # not zero-sum


def mid_game(name: str):
    """A deep copy of the first position of seed 0's walk from turn 4 on where every seat holds
    cards in hand and deck, with the walk's action there."""
    found = []

    def keep(state, action):
        if not found and state.turn >= 4 and all(len(side.deck) > len(side.hand) > 0 for side in state.sides):
            found.append((state.clone(), action))

    walk(name, 0, keep)
    return found[0]


@pytest.mark.parametrize("name", GAMES)
def test_the_checks_can_fail(name):
    """A clone that is not a copy, a belief that deals the seat's own hand afresh, and a duel's
    evaluate that is not zero-sum are caught."""
    for broken, check in ((SharedClone, "clone"), (OwnHandDealtAfresh, "determinize"), (FavoursSeatZero, "zero_sum")):
        state, action = mid_game(name)
        tally = Tally()
        checker = Checker(broken(engine(name)), name, 0, tally)
        checker.position = DEEP_EVERY - 1  # the next position is a deep one
        checker(state, action)
        assert tally.problems[check], (broken.__name__, tally.problems)


def test_positions_and_actions_tried():
    """The counts the closing note gives (shown with ``-s``)."""
    lines = []
    for name in GAMES:
        t = conformance(name)
        lines.append(f"{name}: {t.matches} matches, {t.positions} positions, {t.actions} actions applied on clones "
                     f"({t.follow_ups} follow-up positions), {t.deep} deep positions, {t.round_trips} round trips, "
                     f"{t.held} held turns, {t.determinized} beliefs ({t.resampled} resampled)")
        assert t.positions >= POSITIONS and not any(t.problems.values())
    print("\nconformance: " + "\nconformance: ".join(lines))
    assert sum(conformance(name).positions for name in GAMES) >= 3000


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_longer_walks_pass_every_check(name):
    tally = run_walks(name, SLOW_FIRST_SEED, SLOW_POSITIONS)
    print(f"\nconformance (slow) {name}: {tally.matches} matches, {tally.positions} positions, "
          f"{tally.actions} actions applied")
    found = [p for check in CHECKS for p in tally.problems[check]]
    assert tally.positions >= SLOW_POSITIONS and not found, "\n".join(found)
