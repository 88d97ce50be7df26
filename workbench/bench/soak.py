"""``workbench bench --soak N``: N random matches of every game through the real farm, into a
scratch store, with event logs off, to show that nothing goes wrong at length (issue 14, item 6).

Per game it counts what the store holds: matches, engine errors (``matches.error``) and invariant
violations. Invariants are checked inside the workers by ``CheckedEngine``, a wrapper around the
game's engine that runs ``check_invariants`` as the match goes and raises ``InvariantViolation``
on the first problem; the match loop records that like any other exception, so a violation is a
stored error with its seed (replayable), told apart by its name. Meanwhile the writer (this
process) has its resident memory sampled; memory is flat when the peak of the run's second half
is at most ``FLAT_MARGIN`` above the peak of its first half (a leak grows with the matches
stored; start-up costs all land in the first half).
"""
from __future__ import annotations

import math
import resource
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench import chunk as duel_chunk

SOAK_PILOT = "random"
FLAT_MARGIN = 0.10
SAMPLE_SECONDS = 0.25
CHECKS = ("turn", "decision")  # when the invariants are checked: at each turn's start, or after every action


class InvariantViolation(Exception):
    """A state broke one of its game's invariants (the message names it and the turn)."""


class CheckedEngine:
    """The game's engine, with its invariants checked on the match's state: after setup, and
    then after every action (``every_decision``) or after each action that begins a turn or ends
    the match. Everything else is the engine's own."""

    def __init__(self, engine: Any, every_decision: bool):
        self._engine = engine
        self._every_decision = every_decision

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def new_match(self, *args, **kwargs) -> Any:
        state = self._engine.new_match(*args, **kwargs)
        self._check(state)
        return state

    def apply(self, state: Any, action: Any) -> None:
        turn = state.turn
        self._engine.apply(state, action)
        if self._every_decision or state.turn != turn or state.over:
            self._check(state)

    def _check(self, state: Any) -> None:
        problems = self._engine.check_invariants(state)
        if problems:
            raise InvariantViolation(f"turn {state.turn}: {problems[0]}")


def init_checked_worker(payload: dict) -> None:
    """The farm's duel worker set-up, then its engine wrapped so the invariants are checked
    (``payload["soak_check"]``: one of CHECKS)."""
    duel_chunk.init_worker(payload)
    engine = duel_chunk.worker_engine()
    if not isinstance(engine, CheckedEngine):  # a run's setup is kept per process: wrap once
        duel_chunk.use_engine(CheckedEngine(engine, payload["soak_check"] == "decision"))


WORKER = (init_checked_worker, duel_chunk.play_chunk)


def rss_bytes() -> int:
    """This process's resident memory now (Linux ``/proc``; elsewhere the peak so far)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass(slots=True)
class RssSample:
    seconds: float  # since the workers started
    rss: int        # bytes


class RssSampler:
    """The writer's memory over a run: a sample every ``interval`` seconds from a thread started
    once the workers exist (the farm's ``on_start``: a fork must not copy a running thread), and
    one each time a chunk is stored."""

    def __init__(self, interval: float = SAMPLE_SECONDS):
        self.interval = interval
        self.samples: list[RssSample] = []
        self._started = time.perf_counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sample(self) -> None:
        self.samples.append(RssSample(time.perf_counter() - self._started, rss_bytes()))

    def start(self) -> None:
        self._started = time.perf_counter()
        self.sample()
        self._thread = threading.Thread(target=self._run, name="soak-rss", daemon=True)
        self._thread.start()

    def on_chunk(self, _chunk: int, _units: int) -> None:
        self.sample()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()


@dataclass(slots=True)
class Memory:
    """Resident memory of the writer over a run, in bytes."""
    start: int
    peak: int
    end: int
    first_half_peak: int
    second_half_peak: int
    samples: int

    @property
    def growth(self) -> float:
        """How far the second half's peak is above the first half's (0.05 = 5%)."""
        return self.second_half_peak / max(1, self.first_half_peak) - 1.0

    @property
    def flat(self) -> bool:
        return self.growth <= FLAT_MARGIN


def memory(samples: list[RssSample]) -> Memory:
    """The figures of a run's samples; the halves split the run's time in two."""
    if not samples:
        raise ValueError("no memory samples")
    middle = (samples[0].seconds + samples[-1].seconds) / 2
    first = [s.rss for s in samples if s.seconds <= middle]
    second = [s.rss for s in samples if s.seconds > middle] or first[-1:]
    return Memory(samples[0].rss, max(s.rss for s in samples), samples[-1].rss, max(first), max(second),
                  len(samples))


@dataclass(slots=True)
class SoakFigures:
    game: str
    matches: int
    errors: int          # engine errors: stored matches.error other than an invariant violation
    violations: int      # stored matches.error that are InvariantViolation
    memory: Memory
    seconds: float       # wall
    writer_cpu_s: float  # this process during the run
    worker_cpu_s: float  # the worker processes (reaped when the run ends)
    first_problem: str = ""  # the first error's first line, with its seed
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.errors == 0 and self.violations == 0 and self.memory.flat


def matches_per_pairing(total: int, n_pairings: int, seats: int = 2) -> int:
    """Matches per deck pairing (or table) so that every one plays and the run holds at least
    ``total`` (a multiple of the seats: each seed is played from every seat)."""
    per = math.ceil(total / n_pairings)
    return max(seats, -(-per // seats) * seats)


def soak_game(game: str, total: int, workers: int, store_path: Path, check: str = "turn",
              seed: int = 1, mode: str = "duel", seats: int | None = None) -> SoakFigures:
    """Play about ``total`` random matches of ``game`` (every pairing of its starter decks, both
    seatings; a free-for-all: every table, every rotation) through the farm into ``store_path``,
    events off, invariants checked; count what was stored."""
    from workbench import games
    from workbench.commands.simulate import create, new_run
    from workbench.farm import run_chunks
    from workbench.store import Store

    if check not in CHECKS:
        raise ValueError(f"check must be one of {', '.join(CHECKS)}, not {check!r}")
    data, ruleset = games.load(game, "base")
    from workbench.runspec import tables

    n_decks = len(games.decks_for(data, ruleset, None))
    n_seats = games.check_mode(game, mode, seats, n_decks)
    n_bosses = len(games.check_bosses(ruleset, None)) if mode == "turf" else 1
    per_pairing = matches_per_pairing(total, len(tables(n_decks, n_seats)) * n_bosses, n_seats)
    store = Store(store_path)
    spec, payload = new_run(game, "base", None, [SOAK_PILOT], matches=per_pairing, seed=seed, swap=True, events=0.0,
                            chunk_size=None, workers=workers, mode=mode, seats=n_seats if mode != "duel" else None)
    run_id = create(store, spec, payload)
    payload = {**payload, "run_id": run_id, "events_dir": str(store.events_dir), "soak_check": check}
    sampler = RssSampler()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, cpu = time.perf_counter(), time.process_time()
    run_chunks(store, run_id, payload, list(range(spec.n_chunks)), workers, on_chunk=sampler.on_chunk,
               on_start=sampler.start, worker=WORKER)
    sampler.stop()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    store.set_status(run_id, "done")
    stored = stored_outcomes(store_path, run_id)
    return SoakFigures(game, stored.matches, stored.errors, stored.violations, memory(sampler.samples), wall, cpu,
                       (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime),
                       stored.first_problem, stored.reasons)


@dataclass(slots=True)
class StoredOutcomes:
    matches: int
    errors: int
    violations: int
    first_problem: str
    reasons: dict[str, int]


def stored_outcomes(store_path: Path, run_id: int) -> StoredOutcomes:
    """What the store holds for the run: its matches, their errors split into invariant
    violations and the rest, the first problem (seed and first line) and the end reasons."""
    from reports.db import query

    name = InvariantViolation.__name__
    counts = query(store_path, "SELECT count(*) AS matches, "
                   "count(error) FILTER (WHERE NOT starts_with(error, ?)) AS errors, "
                   "count(error) FILTER (WHERE starts_with(error, ?)) AS violations "
                   "FROM matches WHERE run_id = ?", [name, name, run_id]).row(0, named=True)
    first = query(store_path, "SELECT seed, error FROM matches WHERE run_id = ? AND error IS NOT NULL "
                  "ORDER BY match_no LIMIT 1", [run_id])
    problem = ""
    if first.height:
        problem = f"seed {first['seed'][0]}: {first['error'][0].splitlines()[0]}"
    reasons = query(store_path, "SELECT reason, count(*) AS n FROM matches WHERE run_id = ? GROUP BY reason "
                    "ORDER BY n DESC", [run_id])
    return StoredOutcomes(counts["matches"], counts["errors"], counts["violations"], problem,
                          dict(zip(reasons["reason"], reasons["n"])))
