"""``workbench bench --against REV``: a revision's engines measured against today's in
interleaved block pairs (workbench/bench/). The figures are timings, so these tests check the
table's structure, that both sides played the same work, and ratios only loosely."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, run_cli
from workbench.bench.ratios import Block, compare

OLD = "f982be4"  # the baseline: before the planner and mcts pilots existed


def worktrees() -> set[str]:
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=ROOT, capture_output=True, text=True)
    return {line.split(" ", 1)[1] for line in listed.stdout.splitlines() if line.startswith("worktree ")}


def has_commit(rev: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], cwd=ROOT,
                          capture_output=True).returncode == 0


def rows(stdout: str) -> list[list[str]]:
    """The table's body rows, cells stripped."""
    return [[c.strip() for c in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]


def test_ratios_are_taken_pair_by_pair_and_pooled_per_side():
    rev = [Block(10, 1.0, 2.0), Block(10, 2.0, 2.0), Block(10, 1.0, 4.0)]
    today = [Block(10, 0.5, 1.0), Block(10, 0.5, 2.0), Block(10, 1.0, 1.0)]
    per_cpu = compare(rev, today, "cpu")
    assert per_cpu.median == 2.0 and (per_cpu.low, per_cpu.high) == (1.5, 3.0) and per_cpu.pairs == 3
    assert per_cpu.rev == pytest.approx(30 / 4.0) and per_cpu.today == pytest.approx(30 / 2.0)
    cost = compare(rev, today, "wall", as_cost=True)  # seconds per unit: today / REV below 1 is cheaper
    assert cost.median == pytest.approx(0.5) and cost.today == pytest.approx(4.0 / 30)


@pytest.mark.slow
def test_against_head_prints_every_figure_as_a_ratio_near_one():
    before = worktrees()
    res = run_cli("bench", "--against", "HEAD", "--games", "frontier", "--pilots", "random", "--matches", "6",
                  "--blocks", "3", "--farm-matches", "8", "--repeats", "2")
    assert res.returncode == 0, res.stderr
    assert worktrees() == before, "the temporary worktree must be removed"
    table = rows(res.stdout)
    figures = {(r[1], r[2]): r for r in table}
    for unit in ("matches", "decisions"):
        for clock in ("CPU-s", "s"):
            assert ("random,random", f"{unit} / {clock}") in figures, res.stdout
    for clock in ("CPU", "wall"):
        for pilot in ("greedy", "random"):
            assert (f"lookahead ({pilot} positions)", f"µs / candidate ({clock})") in figures, res.stdout
    farm = [r for r in table if r[1].startswith("farm")]
    assert farm and farm[0][2] in ("parent CPU ms / stored match", "writer CPU ms / stored match"), res.stdout
    for r in table:
        if r[5] == "-":
            continue
        ratio = float(r[5].rstrip("x"))
        low, high = (float(x) for x in r[6].split(" - "))
        # HEAD against the tree it was checked out from: the same code, so near 1 (loosely: a busy machine)
        assert 0.2 < ratio < 5 and low <= ratio <= high, r
        assert float(r[3].replace(",", "")) > 0 and float(r[4].replace(",", "")) > 0, r
    assert figures[("random,random", "matches / CPU-s")][8] == "same matches"
    assert figures[("random,random", "matches / CPU-s")][7] == "3"
    for pilot in ("greedy", "random"):
        assert re.fullmatch(r"same \d+ positions, same values",
                            figures[(f"lookahead ({pilot} positions)", "µs / candidate (CPU)")][8])


def test_an_unknown_revision_is_one_line_and_a_non_zero_exit():
    before = worktrees()
    res = run_cli("bench", "--against", "no-such-revision-42", "--games", "frontier")
    assert res.returncode == 2
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unknown revision 'no-such-revision-42'" in lines[0], res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    assert worktrees() == before


@pytest.mark.skipif(not has_commit(OLD), reason=f"{OLD} is not in this clone's history")
def test_a_pilot_the_revision_lacks_is_skipped_in_one_line():
    res = run_cli("bench", "--against", OLD, "--games", "frontier", "--pilots", "planner", "--skip-farm",
                  "--blocks", "2")
    assert res.returncode == 0, res.stderr
    skipped = [line for line in res.stdout.splitlines() if "planner" in line]
    assert len(skipped) == 1 and f"{OLD} has no 'planner' pilot" in skipped[0], res.stdout
    assert not any(r[1].startswith("planner") for r in rows(res.stdout))
    assert any(r[1] == "lookahead (greedy positions)" for r in rows(res.stdout)), res.stdout


def test_ctrl_c_removes_the_worktree():
    before = worktrees()
    proc = subprocess.Popen([sys.executable, "-m", "workbench.cli", "bench", "--against", "HEAD", "--games", "frontier",
                             "--pilots", "greedy", "--greedy-matches", "400", "--skip-farm"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,  # its own group: Ctrl-C reaches it and its measuring processes
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while worktrees() == before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert worktrees() != before, "the worktree never appeared"
        time.sleep(3)  # into the measurement
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err
    assert worktrees() == before


@pytest.mark.slow
def test_plain_bench_prints_the_writer_cpu_per_stored_match():
    res = run_cli("bench", "--games", "frontier", "--pilots", "random", "--matches", "2", "--farm-matches", "20",
                  "--repeats", "1")
    assert res.returncode == 0, res.stderr
    header = " ".join(line for line in res.stdout.splitlines() if line.startswith("┃"))
    assert "writer" in header and "stored" in header, res.stdout
    cell = rows(res.stdout)[0][-1]  # the farm's writer_cpu_s per match, or this process's CPU, named so
    assert re.fullmatch(r"\d[\d.]*( \(parent CPU\))?", cell) and float(cell.split()[0]) > 0, cell


def test_every_block_pair_values_positions_of_its_own_matches():
    """A second pass over positions already valued measures an engine's table of known positions
    (Allegiance's made it 2.5x cheaper), not a candidate: each block pair's lookahead must be
    taken from other matches than the last."""
    from workbench.bench.against import POSITION_EVERY, POSITION_LIMIT, POSITION_MATCHES
    from workbench.bench.driver import Driver

    driver = Driver()
    taken = [driver.positions("allegiance", "random", POSITION_MATCHES, POSITION_EVERY, POSITION_LIMIT,
                              start=k * POSITION_MATCHES) for k in range(2)]
    assert taken[0]["digest"] != taken[1]["digest"] and all(t["positions"] > 0 for t in taken)
    again = driver.positions("allegiance", "random", POSITION_MATCHES, POSITION_EVERY, POSITION_LIMIT, start=0)
    assert again == taken[0]  # the same block pair, the same positions: as on the other revision


class _Side:
    """A measuring process that kept no positions on one side (its matches failed)."""

    def __init__(self, label: str, candidates: int):
        self.label, self.candidates = label, candidates

    def ask(self, op: str, **_request) -> dict:
        if op == "positions":
            return {"positions": self.candidates // 5, "candidates": self.candidates, "digest": self.label}
        return {"cpu": 0.01, "wall": 0.01, "candidates": self.candidates, "checksum": 0.0}


def test_a_side_without_positions_gets_no_ratio():
    """A side whose pilot's matches failed keeps no positions: its cost per candidate is not a
    figure to compare (it once printed 0.13x for a side that valued nothing)."""
    from workbench.bench.against import Workload, lookahead_rows, table

    work = Workload(pairs=2, matches=2, greedy_matches=2, search_matches=1, farm_matches=0, farm_pairs=1, seconds=None)
    rows = lookahead_rows((_Side("REV", 100), _Side("today", 0)), "frontier", "greedy", work)
    assert len(rows) == 1 and "today kept no positions" in rows[0].same
    assert rows[0].ratio.median != rows[0].ratio.median  # NaN: no ratio
    shown = [r for r in rows_of(table(rows, "REV"))]
    assert shown[0][5] == "-" and shown[0][4] == "-"


def rows_of(t) -> list[list[str]]:
    """A rich Table's cells, row by row."""
    columns = [list(c.cells) for c in t.columns]
    return [list(cells) for cells in zip(*columns)]
