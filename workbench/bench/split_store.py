"""A scratch store for ``workbench bench --reports``: many runs that differ, built in minutes.

One real random-pilot run is played through the farm; it is then copied in SQL under new run
ids, each copy with a fifth of its decided matches' results flipped (chosen by a hash of run and
match), so every run's per-card figures differ as real runs' do and a split by run cannot be
answered from one run's numbers. A flipped match swaps its winner and loser everywhere the store
records them (``matches``, ``match_seats``, ``card_games``), so its two seats stay consistent;
draws are left alone. The copies are two-seat duels, as the played run is.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

BASE_RUN_SEED = 1
FLIPPED_SHARE = 5  # one match in this many (by hash) has its result flipped in a copy

# a copy's match `m.match_no` of run `t.run_id` is flipped when decided and picked by the hash
_PICKED = f"hash(t.run_id, {{alias}}.match_no) % {FLIPPED_SHARE} = 0"
_COPIES = "(SELECT range::INTEGER AS run_id FROM range(2, ? + 1)) t"

_COPY_RUNS = f"INSERT INTO runs SELECT b.* REPLACE (t.run_id AS run_id) FROM runs b, {_COPIES} WHERE b.run_id = ?"

# the loser's seat and deck become the winner's (a draw has no winner_seat and stays)
_COPY_MATCHES = f"""
INSERT INTO matches
SELECT m.* REPLACE (t.run_id AS run_id,
    CASE WHEN m.winner_seat IS NOT NULL AND {_PICKED.format(alias='m')} THEN l.seat ELSE m.winner_seat END
        AS winner_seat,
    CASE WHEN m.winner_seat IS NOT NULL AND {_PICKED.format(alias='m')} THEN l.deck ELSE m.winner_deck END
        AS winner_deck)
FROM matches m
LEFT JOIN match_seats l ON l.run_id = m.run_id AND l.match_no = m.match_no AND l.seat <> m.winner_seat,
     {_COPIES}
WHERE m.run_id = ?"""

# a decided seat holds 'win' or 'loss'; both seats of a picked match swap, so they stay opposite
_FLIP_SEAT = (f"{_PICKED} AND {{alias}}.result IN ('win', 'loss')")
_SWAPPED_RESULT = "CASE {alias}.result WHEN 'win' THEN 'loss' ELSE 'win' END"

_COPY_SEATS = f"""
INSERT INTO match_seats
SELECT s.* REPLACE (t.run_id AS run_id,
    CASE WHEN {_FLIP_SEAT.format(alias='s')} THEN 3 - s.placement ELSE s.placement END AS placement,
    CASE WHEN {_FLIP_SEAT.format(alias='s')} THEN {_SWAPPED_RESULT.format(alias='s')} ELSE s.result END AS result)
FROM match_seats s, {_COPIES}
WHERE s.run_id = ?"""

_COPY_CARD_GAMES = f"""
INSERT INTO card_games
SELECT c.* REPLACE (t.run_id AS run_id,
    CASE WHEN {_FLIP_SEAT.format(alias='c')} THEN NOT c.won ELSE c.won END AS won,
    CASE WHEN {_FLIP_SEAT.format(alias='c')} THEN {_SWAPPED_RESULT.format(alias='c')} ELSE c.result END AS result)
FROM card_games c, {_COPIES}
WHERE c.run_id = ?"""


@dataclass(frozen=True, slots=True)
class SplitStore:
    """What was built: the store, its run ids, the played run's size and the build's timings."""
    path: Path
    game: str
    run_ids: list[int]
    matches_per_run: int
    card_rows: int
    play_seconds: float
    copy_seconds: float


def matches_per_pairing(game: str, rows_per_run: int) -> int:
    """Matches per deck pairing (even: each seed from both seats) for at least ``rows_per_run``
    card_games rows: every card of a seat's deck has a row in each match (cards made in play
    add more), so the decks' card counts give a lower bound on a match's rows."""
    from workbench import games
    from workbench.bench.driver import pairings

    data, ruleset = games.load(game, "base")
    decks = games.decks_for(data, ruleset, None)
    rows_per_round = sum(len(decks[a].cards) + len(decks[b].cards) for a, b in pairings(len(decks)))
    n = max(2, math.ceil(rows_per_run / rows_per_round))
    return n + n % 2


def play_base_run(path: Path, game: str, per_pairing: int, workers: int) -> int:
    """One real random-pilot run through the farm (no event log: the Cards page reads none)."""
    from rich.console import Console

    from workbench.commands.simulate import create, execute, new_run
    from workbench.store import Store

    store = Store(path)
    spec, payload = new_run(game, "base", None, ["random"], matches=per_pairing, seed=BASE_RUN_SEED, swap=True,
                            events=0.0, chunk_size=None, workers=workers)
    run_id = create(store, spec, payload)
    execute(store, run_id, spec, payload, workers, True, Console(quiet=True))
    return run_id


def copy_runs(path: Path, base: int, runs: int) -> list[int]:
    """Copy run ``base`` into runs 2..``runs`` (one statement per table, every copy at once),
    a fifth of each copy's decided matches flipped; the run ids, the base first."""
    con = duckdb.connect(str(path))
    try:
        seats = con.execute("SELECT max(seat) + 1 FROM match_seats WHERE run_id = ?", [base]).fetchone()[0]
        if seats != 2:
            raise ValueError(f"run {base} has {seats} seats a match; flipped copies need two-seat duels")
        con.execute("BEGIN")
        for sql in (_COPY_RUNS, _COPY_MATCHES, _COPY_SEATS, _COPY_CARD_GAMES):
            con.execute(sql, [runs, base])
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        return [base] + [r for (r,) in con.execute("SELECT run_id FROM runs WHERE run_id <> ? ORDER BY run_id",
                                                    [base]).fetchall()]
    finally:
        con.close()


def scalar(path: Path, sql: str, params: list) -> int:
    """One number read from the store."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params).fetchone()[0]
    finally:
        con.close()


def build_split_store(path: Path, game: str, runs: int, rows: int, workers: int) -> SplitStore:
    """``runs`` runs of at least ``rows`` card_games rows in all, in a new store at ``path``."""
    if runs < 1 or rows < 1:
        raise ValueError("a split store needs at least one run and one row")
    per_pairing = matches_per_pairing(game, math.ceil(rows / runs))
    started = time.perf_counter()
    base = play_base_run(path, game, per_pairing, workers)
    played = time.perf_counter()
    if base != 1:
        raise ValueError(f"{path} is not a new store (its first run is {base})")
    run_ids = copy_runs(path, base, runs)
    copied = time.perf_counter()
    matches = scalar(path, "SELECT count(*) FROM matches WHERE run_id = ?", [base])
    rows_stored = scalar(path, "SELECT count(*) FROM card_games", [])
    return SplitStore(path, game, run_ids, matches, rows_stored, played - started, copied - played)
