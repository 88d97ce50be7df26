"""``workbench bench --against REV``: the same work played by REV's code (a temporary worktree)
and today's, block after block, each figure printed as today / REV with its spread.

Two measuring processes (driver.py) stay up for the whole measurement, one in each tree, and
take turns: block pair k plays the same matches (seeds, decks, pilots) on both sides, REV first
in even pairs and today first in odd ones, so a change in the machine's load mid-run falls on
both. Every block reports its process's CPU seconds and its wall seconds; a figure's ratio is
the median of the pairs' ratios, its spread their interquartile range.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from rich.console import Console
from rich.table import Table

from sim.core.compiled import PURE_ENV
from workbench.bench.ratios import Block, Ratio, compare, shown
from workbench.bench.side import Side
from workbench.bench.worktree import REPO, checked_out, git, resolve
from workbench.errors import Interrupted, UserError

# lookahead positions: every other decision with a choice, from POSITION_MATCHES matches of a
# pilot, other matches for every block pair (a pass over positions already valued once measures
# the engine's tables of known positions, not a candidate): greedy's (the positions a greedy
# pilot looks from; they differ where REV's greedy played otherwise) and random's (random play
# is the same on every revision: the very same positions)
POSITION_PILOTS, POSITION_MATCHES, POSITION_EVERY, POSITION_LIMIT = ("greedy", "random"), 4, 2, 200


@dataclass(frozen=True, slots=True)
class Workload:
    """How much each side plays. Match counts are totals per side, cut into ``pairs`` blocks."""
    pairs: int
    matches: int            # random pilots
    greedy_matches: int
    search_matches: int     # any other pilot
    farm_matches: int       # random, through the farm; 0: no farm
    farm_pairs: int
    seconds: float | None   # no new block pair once a measurement has run this long (after two)

    def matches_for(self, pilot: str) -> int:
        base = pilot.partition(":")[0]
        return self.matches if base == "random" else self.greedy_matches if base == "greedy" else self.search_matches


@dataclass(frozen=True, slots=True)
class Row:
    game: str
    what: str       # the pilots, or the lookahead or the farm
    figure: str
    ratio: Ratio
    same: str       # did both sides do the same work
    scale: float = 1.0  # the figures as shown: seconds in µs (1e6) or ms (1e3)


def interleave(sides: tuple[Side, Side], pairs: int, seconds: float | None,
               block: Callable[[Side, int], dict]) -> tuple[list[dict], list[dict]]:
    """``block(side, k)`` for k = 0 .. pairs-1 on both sides, the first side first in even pairs."""
    rev, today = [], []
    started = time.perf_counter()
    for k in range(pairs):
        if k >= 2 and seconds is not None and time.perf_counter() - started > seconds:
            break
        order = sides if k % 2 == 0 else sides[::-1]
        answers = {id(side): block(side, k) for side in order}
        rev.append(answers[id(sides[0])])
        today.append(answers[id(sides[1])])
    return rev, today


def blocks(answers: list[dict], unit: str) -> list[Block]:
    return [Block(a[unit], a["cpu"], a["wall"]) for a in answers]


def match_rows(sides, game: str, pilot: str, work: Workload) -> list[Row]:
    total = work.matches_for(pilot)
    pairs = min(work.pairs, total)
    size = max(1, total // pairs)
    for side in sides:  # first calls fill caches and import lazily: keep them out of the figures
        side.ask("matches", game=game, pilots=[pilot, pilot], start=0, count=1)
    rev, today = interleave(sides, pairs, work.seconds,
                            lambda side, k: side.ask("matches", game=game, pilots=[pilot, pilot],
                                                     start=k * size, count=size))
    same = "same matches" if [a["digest"] for a in rev] == [a["digest"] for a in today] else "matches differ"
    errors = sum(a["errors"] for a in rev + today)
    if errors:
        same += f", {errors} match errors"
    rows = []
    for unit in ("matches", "decisions"):
        for clock, label in (("cpu", "CPU-s"), ("wall", "s")):
            r = compare(blocks(rev, unit), blocks(today, unit), clock)
            rows.append(Row(game, f"{pilot},{pilot}", f"{unit} / {label}", r, same))
    return rows


def lookahead_rows(sides, game: str, pilot: str, work: Workload) -> list[Row]:
    """One lookahead candidate (clone + apply + evaluate) over positions of ``pilot``'s matches,
    each block pair over positions of its own matches, each position valued once per side."""
    kept: tuple[list[dict], list[dict]] = ([], [])

    def block(side: Side, k: int) -> dict:
        got = side.ask("positions", game=game, pilot=pilot, matches=POSITION_MATCHES, every=POSITION_EVERY,
                       limit=POSITION_LIMIT, start=k * POSITION_MATCHES)
        kept[sides.index(side)].append(got)
        return side.ask("lookahead", game=game)

    rev, today = interleave(sides, work.pairs, work.seconds, block)
    empty = [side.label for side, answers in zip(sides, (rev, today)) if not sum(a["candidates"] for a in answers)]
    if empty:  # a side whose matches failed kept no positions: no cost per candidate to compare
        nan = float("nan")
        return [Row(game, f"lookahead ({pilot} positions)", "µs / candidate (CPU)", Ratio(nan, nan, nan, nan, nan, 0),
                    f"not measured: {' and '.join(empty)} kept no positions (its {pilot} matches failed?)", 1e6)]
    if kept[0] == kept[1]:
        valued = [a["checksum"] for a in rev] == [a["checksum"] for a in today]
        n = sum(k["positions"] for k in kept[1])
        same = f"same {n} positions, {'same values' if valued else 'values differ'}"
    else:
        same = "other positions: " + " vs ".join(
            f"{sum(k['positions'] for k in ks):,}/{sum(k['candidates'] for k in ks):,}" for ks in kept) + " candidates"
    rows = []
    for clock, label in (("cpu", "CPU"), ("wall", "wall")):
        r = compare(blocks(rev, "candidates"), blocks(today, "candidates"), clock, as_cost=True)
        rows.append(Row(game, f"lookahead ({pilot} positions)", f"µs / candidate ({label})", r, same, 1e6))
    return rows


def farm_rows(sides, game: str, work: Workload) -> list[Row]:
    """The farm's own CPU per stored match, measured as this bench's parent CPU around
    ``run_chunks`` on both sides; the writer's CPU too where the farm reports it."""
    per_run = max(2, work.farm_matches // work.farm_pairs // 2 * 2)
    rev, today = interleave(sides, work.farm_pairs, None,
                            lambda side, k: side.ask("farm", game=game, matches=per_run, seed=1 + k))
    same = "same matches stored" if [a["matches"] for a in rev] == [a["matches"] for a in today] else "stored differ"
    what = "farm, random, 1 worker"
    r = compare(blocks(rev, "matches"), blocks(today, "matches"), "cpu", as_cost=True)
    rows = [Row(game, what, "parent CPU ms / stored match", r, same, 1e3)]
    ours, theirs = writer_blocks(today), writer_blocks(rev)
    if ours and theirs:
        rows.append(Row(game, what, "writer CPU ms / stored match", compare(theirs, ours, "cpu", as_cost=True),
                        same, 1e3))
    elif ours:
        mine = sum(b.cpu for b in ours) / max(1, sum(b.count for b in ours))
        nan = float("nan")
        rows.append(Row(game, what, "writer CPU ms / stored match", Ratio(nan, mine, nan, nan, nan, len(ours)),
                        "REV's farm does not report it", 1e3))
    return rows


def writer_blocks(answers: list[dict]) -> list[Block] | None:
    """The writer's CPU per farm run, when every run reported it."""
    if not answers or any(a.get("writer_cpu") is None for a in answers):
        return None
    return [Block(a["matches"], a["writer_cpu"], a["wall"]) for a in answers]


def describe(commit: str) -> str:
    subject = git("log", "-1", "--format=%s", commit).stdout.strip()
    return f"{commit[:12]} ({subject[:70]}{'...' if len(subject) > 70 else ''})"


def run_against(rev: str, game_list: list[str], pilots: list[str], work: Workload, out: Console) -> None:
    commit = resolve(rev)
    out.print(f"against {rev} = {describe(commit)}; today = the working tree at {REPO}")
    rows: list[Row] = []
    try:
        with checked_out(commit) as tree, Side(rev, tree) as theirs, Side("today", REPO) as ours:
            for side in (theirs, ours):
                compiled = compiled_modules(side)
                if compiled:  # a speed claim must say when one side ran a compiled build
                    out.print(f"{side.label} runs compiled: {', '.join(compiled)}")
            for game in game_list:
                rows += measure_game((theirs, ours), game, pilots, work, rev, out)
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted; the worktree of {rev} is removed") from None
    out.print(table(rows, rev))


def compiled_modules(side: Side) -> list[str]:
    """The modules the side's process loads as compiled builds (none before revisions had any)."""
    return sorted(name for name, how in (side.hello.get("compiled") or {}).items() if how == "compiled")


def run_compiled(game_list: list[str], pilots: list[str], work: Workload, out: Console) -> None:
    """``--compiled``: this tree's compiled build (today) against its own Python source (source),
    the same interleaving and figures as ``--against``."""
    label = "source"
    with Side(label, REPO, {PURE_ENV: "1"}) as source, Side("today", REPO) as built:
        loads = built.hello.get("compiled") or {}
        compiled = compiled_modules(built)
        if not compiled:
            why = "; ".join(f"{name}: {how}" for name, how in loads.items()) or "no module has a .pxd"
            raise UserError(f"--compiled: nothing in {REPO} loads compiled ({why}); "
                            "WORKBENCH_COMPILE=1 pip install -e . builds it (Cython and a C compiler)")
        out.print(f"today = {', '.join(compiled)} compiled; {label} = the same tree as Python ({PURE_ENV}=1)")
        rows: list[Row] = []
        try:
            for game in game_list:
                if not any(name.startswith((f"sim.{game}.", "sim.core.")) for name in compiled):
                    out.print(f"{game}: none of its modules is compiled (both sides would run the same Python); "
                              "skipped")
                    continue
                rows += measure_game((source, built), game, pilots, work, label, out)
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None
    out.print(table(rows, label))


def measure_game(sides, game: str, pilots: list[str], work: Workload, rev: str, out: Console) -> list[Row]:
    decks = [side.ask("decks", game=game)["decks"] for side in sides]
    if decks[0] != decks[1]:
        out.print(f"{game}: the starter decks differ ({rev}: {', '.join(decks[0])}; today: {', '.join(decks[1])}); "
                  "the ratios compare different matches")
    rows: list[Row] = []
    for pilot in pilots:
        if not sides[0].knows_pilot(pilot):
            out.print(f"{game} {pilot}: {rev} has no {pilot.partition(':')[0]!r} pilot (it has "
                      f"{', '.join(sides[0].hello['pilots'])}); skipped: name a revision that has it with --against")
            continue
        rows += match_rows(sides, game, pilot, work)
        out.print(f"measured {game} {pilot},{pilot} against {rev}")
    for pilot in POSITION_PILOTS:
        rows += lookahead_rows(sides, game, pilot, work)
    out.print(f"measured {game} lookahead against {rev}")
    if work.farm_matches:
        try:
            rows += farm_rows(sides, game, work)
            out.print(f"measured {game} farm against {rev}")
        except UserError as exc:  # the farm's API is no contract: an old revision may not run it
            out.print(f"{game} farm: not measured ({exc})")
    return rows


def table(rows: list[Row], rev: str) -> Table:
    t = Table("game", "measured", "figure", rev, "today", f"today / {rev}", "interquartile range", "pairs",
              "same work",
              title=f"workbench bench --against {rev}: the same work on both sides in interleaved block pairs, "
                    f"each side one process on one core, logging on; ratio = median over the pairs of today / {rev} "
                    f"(rates: above 1 is faster; µs and ms: below 1 is cheaper)")
    for row in rows:
        r = row.ratio
        known = r.median == r.median  # NaN: no REV figure
        t.add_row(row.game, row.what, row.figure, shown(r.rev * row.scale) if known else "-",
                  shown(r.today * row.scale) if r.today == r.today else "-",
                  f"{r.median:.2f}x" if known else "-", f"{r.low:.2f} - {r.high:.2f}" if known else "-",
                  str(r.pairs), row.same)
    return t
