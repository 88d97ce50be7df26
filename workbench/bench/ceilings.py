"""``workbench bench --ceilings``: how much faster play could get from one part of it alone.

Random play spends its time building legal actions and applying them; greedy play cloning,
applying and evaluating. How much would the match rate gain if one part cost nothing? Each
measurement records every answer of that part (``legal_actions`` under random pilots,
``evaluate`` under greedy pilots) in a first pass over the same seeded matches, then plays them
again, alternating plain passes with passes in which the part only reads its recorded answers
back in order. A replay makes the same decisions, so it asks the same questions in the same
order: every replayed pass must end with the same match digests as the recorded one, or the
measurement stops with an error. The ratio plain / free (CPU seconds of this process, the median
of the pass pairs) is the part's ceiling: no cheaper version of that part alone can do better.

Why it matters: issue 13's bars (random play 2x, greedy 3x) can be met by work on one part only
if its ceiling is above the bar.
"""
from __future__ import annotations

import copy
import hashlib
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

from rich.console import Console
from rich.table import Table

from sim.core.pilots import thinking_engine
from workbench.bench.driver import Game, match_digest
from workbench.errors import UserError

# (the part made free, the pilot both seats play)
PARTS = (("legal_actions", "random"), ("evaluate", "greedy"))


class Recorded:
    """A stand-in for one engine method: in ``record`` mode it answers as the method and keeps
    each answer; in ``replay`` mode it gives the kept answers back in order; else it is the
    method."""
    __slots__ = ("real", "answers", "mode", "_next")

    def __init__(self, real: Callable):
        self.real = real
        self.answers: list = []
        self.mode = "plain"
        self._next: Callable = iter(()).__next__

    def start(self, mode: str) -> None:
        self.mode = mode
        if mode == "record":
            self.answers = []
        self._next = iter(self.answers).__next__

    def __call__(self, *args):
        if self.mode == "replay":
            return self._next()
        answer = self.real(*args)
        if self.mode == "record":
            self.answers.append(answer)
        return answer


@dataclass(frozen=True, slots=True)
class Ceiling:
    game: str
    part: str
    pilot: str
    matches: int
    calls: int            # answers recorded over the matches
    plain_cpu: float      # CPU seconds per pass, mean over the plain passes
    free_cpu: float       # the same with the part answering from the record
    ratios: list[float]   # plain / free per pass pair, sorted

    @property
    def median(self) -> float:
        return statistics.median(self.ratios)


def engines_for(g: Game, part: str, pilot: str) -> tuple[Any, list | None, Recorded]:
    """The match's engine and the engines the pilots think with, one method replaced by a
    ``Recorded``: legal actions on the match's engine (a random pilot asks no other), evaluate
    on the engine the pilot thinks with (its weight set's copy)."""
    if part == "legal_actions":
        engine = copy.copy(g.engine)
        stand_in = engine.legal_actions = Recorded(g.engine.legal_actions)
        return engine, None, stand_in
    view = copy.copy(thinking_engine(pilot, g.engine))
    stand_in = view.evaluate = Recorded(view.evaluate)
    view.weights_given = True  # the pilot thinks with this copy (sim.core.pilots.thinking_engine)
    return g.engine, [view, view], stand_in


def one_pass(g: Game, engine: Any, thinking: list | None, pilot: str, matches: int) -> tuple[float, str]:
    """CPU seconds and the digest of matches 0 .. matches-1 (events logged, as the bench plays)."""
    digest = hashlib.sha256()
    cpu = time.process_time()
    for i in range(matches):
        digest.update(match_digest(g.play(i, [pilot, pilot], engine=engine, thinking=thinking)).encode())
    return time.process_time() - cpu, digest.hexdigest()


def ceiling(game: str, part: str, pilot: str, matches: int, pairs: int) -> Ceiling:
    g = Game(game)
    engine, thinking, stand_in = engines_for(g, part, pilot)
    stand_in.start("record")
    _cpu, recorded = one_pass(g, engine, thinking, pilot, matches)
    plain, free = [], []
    for k in range(pairs):
        for mode in (("plain", "replay") if k % 2 == 0 else ("replay", "plain")):
            stand_in.start(mode)
            cpu, digest = one_pass(g, engine, thinking, pilot, matches)
            if digest != recorded:
                raise UserError(f"bench --ceilings: {game}'s {mode} pass of {part} played other matches than the "
                                "recorded one (is the engine deterministic?)")
            (plain if mode == "plain" else free).append(cpu)
    ratios = sorted(p / f for p, f in zip(plain, free))
    return Ceiling(game, part, pilot, matches, len(stand_in.answers), sum(plain) / pairs, sum(free) / pairs, ratios)


def ceilings_bench(game_list: list[str], random_matches: int, greedy_matches: int, pairs: int,
                   out: Console) -> list[Ceiling]:
    found = []
    for game in game_list:
        for part, pilot in PARTS:
            found.append(ceiling(game, part, pilot, random_matches if pilot == "random" else greedy_matches, pairs))
            out.print(f"measured {game}: {part} under {pilot} play")
    table = Table(title="workbench bench --ceilings: the match rate if one part cost nothing (its answers "
                        "recorded, then read back in the same matches); CPU seconds of one process, logging on",
                  title_justify="left")
    for name in ("game", "part made free", "pilots", "matches", "calls", "CPU s / match", "part free",
                 "ceiling", "range", "pairs"):
        table.add_column(name, justify="left" if name in ("game", "part made free", "pilots") else "right")
    for c in found:
        table.add_row(c.game, c.part, f"{c.pilot},{c.pilot}", str(c.matches), f"{c.calls:,}",
                      f"{c.plain_cpu / c.matches * 1e3:.2f} ms", f"{c.free_cpu / c.matches * 1e3:.2f} ms",
                      f"{c.median:.2f}x", f"{c.ratios[0]:.2f} - {c.ratios[-1]:.2f}", str(len(c.ratios)))
    out.print(table)
    return found
