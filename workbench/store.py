"""The DuckDB store: schema, and the writer's short pieces of work on it.

Every method opens the file, does one short piece of work in one transaction and closes it,
waiting while another process holds the lock (reports/db.py explains why, and why a writer waits
as long as it takes). The farm's chunks go through workbench/writer.py, which attaches the file
per batch of chunks instead. The dashboard opens per query on its side, so a run and a reader
interleave, never starve.

A store is marked as the workbench's (table ``workbench_store``), so a command never writes into
another application's DuckDB file (workbench/store_guard.py); and a command that created a store
and stored nothing in it takes it back (``unused_stores_removed``).
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import duckdb

from reports.db import LOCK_WAIT_SECONDS, StoreError
from reports.db import connect as _connect
from reports.event_parts import parts_absent
from reports.events_view import MACRO_SQL, events_dir
from workbench import version
from workbench.errors import Interrupted
from workbench.locks import remove_unheld
from workbench.stops import STOPS

FORMAT_VERSION = 1  # of the tables below; workbench_store records it
STOP_WAIT_SECONDS = 10.0  # Store.set_status

SCHEMA = """
CREATE TABLE IF NOT EXISTS workbench_store (   -- the marker: this file is a workbench store
    format_version INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL      -- when the store was made (or, made before the marker, marked)
);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    game VARCHAR NOT NULL,
    rules_version VARCHAR NOT NULL,
    rules_hash VARCHAR NOT NULL,
    decks VARCHAR NOT NULL,            -- the deck ids of the run, comma separated
    pilots VARCHAR NOT NULL,           -- one pilot per deck slot, comma separated
    matches_target INTEGER NOT NULL,
    chunks_target INTEGER NOT NULL,
    matches_done INTEGER NOT NULL DEFAULT 0,
    errors INTEGER NOT NULL DEFAULT 0,
    base_seed BIGINT NOT NULL,
    swap BOOLEAN NOT NULL,
    event_sample DOUBLE NOT NULL,
    spec VARCHAR NOT NULL,             -- the whole run spec as JSON
    spec_hash VARCHAR NOT NULL,        -- rules hash + deck contents + pilots: resume refuses a change
    code_version VARCHAR,
    status VARCHAR NOT NULL,           -- running, done, stopped, failed
    pid INTEGER,
    note VARCHAR,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    wall_seconds DOUBLE NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks (
    run_id INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    matches INTEGER NOT NULL,
    stored_at TIMESTAMP NOT NULL,
    worker_seconds DOUBLE NOT NULL,
    events_rows INTEGER NOT NULL DEFAULT 0,  -- rows in the chunk's event-log part (Parquet)
    PRIMARY KEY (run_id, chunk)
);
CREATE TABLE IF NOT EXISTS cards (
    game VARCHAR NOT NULL,
    rules_version VARCHAR NOT NULL,
    rules_hash VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    type VARCHAR,
    faction VARCHAR,
    cost_text VARCHAR,
    budget_cost DOUBLE,
    attack INTEGER,
    defense INTEGER,
    stat_points DOUBLE,
    budget_points DOUBLE,
    keywords VARCHAR[],
    extra VARCHAR,                     -- the game's own fields, as JSON (Frontier's online_legal...)
    faction_name VARCHAR,              -- the faction's (or clan's) display name (factions.yaml); NULL:
                                       -- stored before the names were (the pages show the id)
    PRIMARY KEY (rules_hash, card)
);
CREATE TABLE IF NOT EXISTS matches (
    run_id INTEGER NOT NULL,
    match_no INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    seed BIGINT NOT NULL,
    pairing INTEGER NOT NULL,
    swapped BOOLEAN NOT NULL,          -- the pairing's second deck sat in seat 0 (a free-for-all: the
                                       -- table was turned from its order)
    winner_seat INTEGER,               -- NULL for a draw
    winner_deck VARCHAR,
    reason VARCHAR NOT NULL,
    turns INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    wall_ms DOUBLE NOT NULL,
    events_logged BOOLEAN NOT NULL,
    error VARCHAR,
    PRIMARY KEY (run_id, match_no)
);
CREATE TABLE IF NOT EXISTS series (   -- a best-of-N series of duels (runs.mode = 'series'; sim/core/series.py)
    run_id INTEGER NOT NULL,
    series_no INTEGER NOT NULL,        -- the run's unit: its games are matches series_no * best_of + game_no - 1
    chunk INTEGER NOT NULL,
    seed BIGINT NOT NULL,              -- the series seed (its first game's)
    pairing INTEGER NOT NULL,
    deck_a VARCHAR NOT NULL,           -- the pairing's first deck
    deck_b VARCHAR NOT NULL,
    pilot_a VARCHAR NOT NULL,
    pilot_b VARCHAR NOT NULL,
    a_first BOOLEAN NOT NULL,          -- deck A sat in seat 0 in game 1 (after that the loser goes first)
    games INTEGER NOT NULL,
    a_wins INTEGER NOT NULL,
    b_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    score VARCHAR NOT NULL,            -- A's wins - B's wins, e.g. 2-1
    winner_deck VARCHAR,               -- NULL: the series ended level
    a_rank_points INTEGER NOT NULL,    -- Rank Points each deck's side gained (negative: lost)
    b_rank_points INTEGER NOT NULL,
    error VARCHAR,                     -- the first error of its games, if any
    PRIMARY KEY (run_id, series_no)
);
CREATE TABLE IF NOT EXISTS match_seats (
    run_id INTEGER NOT NULL,
    match_no INTEGER NOT NULL,
    seat INTEGER NOT NULL,             -- seat 0 acts first
    team INTEGER NOT NULL,
    deck VARCHAR NOT NULL,
    pilot VARCHAR NOT NULL,
    placement INTEGER,                 -- 1 for the winner; NULL in a duel's draw; in a free-for-all
                                       -- 1..seats by the order seats went out (a draw's survivors share 1)
    result VARCHAR NOT NULL,           -- win, loss, draw
    out_turn INTEGER,                  -- the player-turn the seat went out on; NULL: still playing at the end
    out_by INTEGER,                    -- the seat that put it out; NULL: nobody did (an empty deck) or not out
    redrew BOOLEAN                     -- it redrew its opening hand; NULL: never offered a redraw
);
CREATE TABLE IF NOT EXISTS diffs (
    diff_id INTEGER PRIMARY KEY,
    game VARCHAR NOT NULL,
    base_run INTEGER NOT NULL,         -- the same seeds, seats, decks and pilots ...
    candidate_run INTEGER NOT NULL,    -- ... under the candidate rules version
    base_version VARCHAR NOT NULL,
    candidate_version VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS card_value (
    value_id INTEGER NOT NULL,         -- one `workbench value` measurement (all its cards share it)
    game VARCHAR NOT NULL,
    rules_version VARCHAR NOT NULL,
    rules_hash VARCHAR NOT NULL,
    deck VARCHAR NOT NULL,             -- the deck whose card was measured
    card VARCHAR NOT NULL,             -- card id
    name VARCHAR NOT NULL,
    reference VARCHAR NOT NULL,        -- the card id that replaced it, at the same deck positions
    against VARCHAR NOT NULL,          -- 'field' or an opponent deck id
    pilots VARCHAR NOT NULL,           -- comma separated pilot names, e.g. 'greedy'
    base_run INTEGER NOT NULL,         -- the deck as written
    variant_run INTEGER NOT NULL,      -- the same seeds/seats with the card replaced
    copies INTEGER NOT NULL,
    twins INTEGER NOT NULL,            -- paired (match, seat) rows of the deck
    wr_with DOUBLE,                    -- win rates 0..1
    wr_without DOUBLE,
    value_points DOUBLE,               -- percentage points (e.g. 4.2), paired 95% interval
    value_lo DOUBLE,
    value_hi DOUBLE,
    p_value DOUBLE,                    -- McNemar p
    q_value DOUBLE,                    -- Benjamini-Hochberg q over the cards of the measurement
    significant BOOLEAN,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (value_id, card)
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    day DATE NOT NULL,                 -- one batch per name and day: a rerun continues it
    file_hash VARCHAR NOT NULL,
    status VARCHAR NOT NULL,           -- running, done, failed
    alerts INTEGER NOT NULL DEFAULT 0,
    started_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS batch_suites (
    batch_id INTEGER NOT NULL,
    suite VARCHAR NOT NULL,
    game VARCHAR NOT NULL,
    run_id INTEGER,
    previous_run INTEGER,              -- the same suite in the last successful batch before today
    baseline_run INTEGER,              -- the suite's seeds under its pinned baseline version
    status VARCHAR NOT NULL,
    alerts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (batch_id, suite)
);
CREATE TABLE IF NOT EXISTS campaign_runs (
    run_id INTEGER NOT NULL,
    run_no INTEGER NOT NULL,           -- the campaign run's number within the batch
    chunk INTEGER NOT NULL,
    game VARCHAR NOT NULL,
    stage VARCHAR NOT NULL,
    crew VARCHAR NOT NULL,
    seed BIGINT NOT NULL,
    policy VARCHAR NOT NULL,           -- who chose routes, rewards and purchases
    fight_pilot VARCHAR NOT NULL,
    result VARCHAR NOT NULL,           -- cleared, defeated, error
    cleared BOOLEAN NOT NULL,
    hp_left INTEGER NOT NULL,
    hp_max INTEGER NOT NULL,
    floor_reached INTEGER NOT NULL,
    gold_left INTEGER NOT NULL,
    deck_size INTEGER NOT NULL,
    fights INTEGER NOT NULL,
    fights_won INTEGER NOT NULL,
    wall_ms DOUBLE NOT NULL,
    error VARCHAR,
    PRIMARY KEY (run_id, run_no)
);
CREATE TABLE IF NOT EXISTS campaign_nodes (
    run_id INTEGER NOT NULL,
    run_no INTEGER NOT NULL,
    step INTEGER NOT NULL,             -- 1, 2, ... in the order visited
    floor INTEGER NOT NULL,
    node VARCHAR NOT NULL,             -- floor.index on the route map
    kind VARCHAR NOT NULL,             -- battle, elite, outpost, shop, boss
    options VARCHAR,                   -- the nodes that could be chosen, as node:kind
    choice VARCHAR,
    hp_before INTEGER NOT NULL,
    hp_after INTEGER NOT NULL,
    gold_before INTEGER NOT NULL,
    gold_after INTEGER NOT NULL,
    match_no INTEGER,                  -- the fight in matches (NULL: no fight here)
    result VARCHAR,                    -- the fight: win, loss, draw
    detail VARCHAR
);
CREATE TABLE IF NOT EXISTS campaign_rewards (
    run_id INTEGER NOT NULL,
    run_no INTEGER NOT NULL,
    step INTEGER NOT NULL,             -- the node step it was offered at (0: the crew's lore cards)
    source VARCHAR NOT NULL,           -- lore, battle, elite, shop
    card VARCHAR NOT NULL,
    price INTEGER NOT NULL,
    taken BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder (
    ladder_id INTEGER NOT NULL,        -- one `workbench ladder` (all its pilots share it)
    game VARCHAR NOT NULL,
    rules_version VARCHAR NOT NULL,
    rules_hash VARCHAR NOT NULL,
    pilot VARCHAR NOT NULL,            -- a pilot name as runs store it (greedy, mcts:100, ...)
    rating DOUBLE,                     -- Bradley-Terry on the Elo scale, the anchor pilot = 1500
    rating_lo DOUBLE,                  -- 95% interval from the Fisher information, relative to the anchor
    rating_hi DOUBLE,
    anchor BOOLEAN NOT NULL,
    matches INTEGER NOT NULL,          -- matches the pilot played (no self-play)
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    score DOUBLE,                      -- (wins + draws / 2) / matches
    decisions INTEGER NOT NULL,        -- the pilot's own decisions
    seat_cpu_seconds DOUBLE NOT NULL,  -- CPU charged to the pilot's seats (its thinking + engine work before it)
    cpu_seconds DOUBLE NOT NULL,       -- whole CPU of the matches it played, both seats
    decisions_per_s DOUBLE,            -- decisions / seat_cpu_seconds
    matches_per_s DOUBLE,              -- matches / cpu_seconds
    errors INTEGER NOT NULL,
    decks VARCHAR NOT NULL,            -- the field, comma separated
    matches_per_pair INTEGER NOT NULL,
    base_seed BIGINT NOT NULL,
    code_version VARCHAR,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (ladder_id, pilot)
);
CREATE TABLE IF NOT EXISTS ladder_pairs (
    ladder_id INTEGER NOT NULL,
    pair_no INTEGER NOT NULL,          -- the pair's order in the ladder
    pilot_a VARCHAR NOT NULL,          -- named first in --pilots
    pilot_b VARCHAR NOT NULL,
    matches INTEGER NOT NULL,
    a_win_rate DOUBLE,                 -- A's score: (A's wins + draws / 2) / matches
    lo DOUBLE,                         -- 95% Wilson interval of that score
    hi DOUBLE,
    a_wins INTEGER NOT NULL,
    b_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,            -- errors included (an errored match is a draw)
    errors INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, pair_no)
);
CREATE TABLE IF NOT EXISTS ladder_matches (
    ladder_id INTEGER NOT NULL,
    match_no INTEGER NOT NULL,         -- numbered pair by pair
    pair_no INTEGER NOT NULL,
    pilot_a VARCHAR NOT NULL,
    pilot_b VARCHAR NOT NULL,
    block INTEGER NOT NULL,            -- the pair's seed block: the same seed and deck pairing for every pair
    seed BIGINT NOT NULL,
    pilot_0 VARCHAR NOT NULL,          -- seat 0 acts first
    pilot_1 VARCHAR NOT NULL,
    deck_0 VARCHAR NOT NULL,
    deck_1 VARCHAR NOT NULL,
    winner_seat INTEGER,               -- NULL for a draw
    winner_pilot VARCHAR,
    reason VARCHAR NOT NULL,
    turns INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    decisions_0 INTEGER NOT NULL,
    decisions_1 INTEGER NOT NULL,
    cpu_s DOUBLE NOT NULL,             -- time.process_time of the whole match, in the worker
    cpu_0 DOUBLE NOT NULL,             -- of which charged to each seat's decisions
    cpu_1 DOUBLE NOT NULL,
    wall_ms DOUBLE NOT NULL,
    error VARCHAR,
    PRIMARY KEY (ladder_id, match_no)
);
CREATE TABLE IF NOT EXISTS card_games (
    run_id INTEGER NOT NULL,
    match_no INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    deck VARCHAR NOT NULL,
    pilot VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    copies INTEGER NOT NULL,
    in_opening_hand INTEGER NOT NULL,
    drawn INTEGER NOT NULL,            -- drawn after the opening hand
    first_turn_drawn INTEGER,          -- the seat's own turn number
    played INTEGER NOT NULL,
    first_turn_played INTEGER,
    on_play BOOLEAN NOT NULL,          -- this seat acted first
    won BOOLEAN NOT NULL,
    result VARCHAR NOT NULL,
    deck_position INTEGER,             -- where the first copy lay in the shuffled deck (0: top card)
    in_dealt_hand INTEGER,             -- copies in the hand as first dealt, before any redraw
    redrew BOOLEAN                     -- the seat redrew its opening hand; NULL: never offered a redraw
);
"""

TABLES = ("runs", "chunks", "cards", "series", "matches", "match_seats", "events", "card_games", "diffs", "card_value",
          "batches", "batch_suites", "campaign_runs", "campaign_nodes", "campaign_rewards", "ladder", "ladder_pairs",
          "ladder_matches")
# tables a chunk brings, in the order they are inserted; the first present counts the units done
# (workbench/writer.py)
CHUNK_TABLES = ("campaign_runs", "series", "matches", "match_seats", "card_games", "campaign_nodes", "campaign_rewards")
MIGRATIONS = """ALTER TABLE runs ADD COLUMN IF NOT EXISTS kind VARCHAR DEFAULT 'duel';
ALTER TABLE card_games ADD COLUMN IF NOT EXISTS deck_position INTEGER;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS mode VARCHAR DEFAULT 'duel';
ALTER TABLE match_seats ADD COLUMN IF NOT EXISTS out_turn INTEGER;
ALTER TABLE match_seats ADD COLUMN IF NOT EXISTS out_by INTEGER;
ALTER TABLE matches ADD COLUMN IF NOT EXISTS series_no INTEGER;
ALTER TABLE matches ADD COLUMN IF NOT EXISTS game_no INTEGER;
ALTER TABLE matches ADD COLUMN IF NOT EXISTS outcome VARCHAR;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS data_dir VARCHAR;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS decision VARCHAR;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS matches_used INTEGER;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS delta_points DOUBLE;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS delta0_points DOUBLE;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS alpha DOUBLE;
ALTER TABLE diffs ADD COLUMN IF NOT EXISTS beta DOUBLE;
ALTER TABLE match_seats ADD COLUMN IF NOT EXISTS redrew BOOLEAN;
ALTER TABLE card_games ADD COLUMN IF NOT EXISTS in_dealt_hand INTEGER;
ALTER TABLE card_games ADD COLUMN IF NOT EXISTS redrew BOOLEAN;
ALTER TABLE cards ADD COLUMN IF NOT EXISTS faction_name VARCHAR;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS boss_names VARCHAR;  -- Turf Defense: {boss id: name}, JSON
ALTER TABLE runs ADD COLUMN IF NOT EXISTS code_commit VARCHAR;  -- git commit that played it, for reading
CREATE TABLE IF NOT EXISTS diff_verdicts (  -- a sequential diff's answer per deck it tested
    diff_id INTEGER NOT NULL,
    deck VARCHAR NOT NULL,
    seeds INTEGER NOT NULL,
    change_points DOUBLE,
    change_lo DOUBLE,
    change_hi DOUBLE,
    llr_up DOUBLE,
    llr_down DOUBLE,
    decision VARCHAR NOT NULL
);"""

# Event logs are the bulk of the data. Workers write each chunk's log as an immutable Parquet
# part (temporary name, then rename) into a folder beside the database; ``events`` is a view over
# the parts of stored chunks only, made on every reading connection from where the file is
# (reports/events_view.py), so a part left by a killed run is invisible until its chunk is stored
# (and then it is rewritten identically: matches are deterministic). Keeping them out of the
# database file makes the writer's transaction per chunk short, which is what lets the farm scale
# and readers get in between chunks.
#
# What Store.init does besides the tables: the marker's row, the CLI's ``events_in(folder)``
# macro, and dropping the stored ``events`` view of older stores (it named the folder by its
# absolute path, so a copy read the original's parts).
INIT_SQL = f"""DROP VIEW IF EXISTS events;
{MACRO_SQL};"""
MARK_SQL = "INSERT INTO workbench_store SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM workbench_store)"


def write_empty_part(db_path: str | Path) -> None:
    """An empty part carrying the schema, so the view reads even before the first chunk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = events_dir(db_path)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "_schema.parquet"
    if not target.exists():
        from workbench.chunk import EVENT_SCHEMA
        pq.write_table(pa.table({f.name: pa.array([], f.type) for f in EVENT_SCHEMA}, schema=EVENT_SCHEMA), target)


def now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)


def insert_rows(con, tables: dict[str, list[dict]], **key) -> None:
    """Insert each table's rows (dicts, by column name), every row given the ``key`` columns too
    (one record's id), inside the caller's transaction; a table without rows is left alone."""
    import pyarrow as pa

    for name, rows in tables.items():
        if not rows:
            continue
        con.register("new_rows", pa.Table.from_pylist([{**r, **key} for r in rows]))
        con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM new_rows")
        con.unregister("new_rows")


@contextmanager
def connect(path: str | Path, read_only: bool = False, wait: float | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """The shared brief-open helper (reports/db.py), for writing by default: a writer waits for
    the file as long as it takes (``wait``: that long at most), and needs no ``events`` view.
    Ctrl-C and SIGTERM wait for the work done on the connection (``interrupts_deferred``), not
    for the file: a stop lands between transactions, never inside one."""
    wait = LOCK_WAIT_SECONDS if read_only else wait
    with _connect(path, read_only=read_only, wait=wait, events=False) as con, interrupts_deferred():
        yield con


# --- stops (Ctrl-C, SIGTERM) around the store's transactions ----------------------------------



@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM received meanwhile are held and delivered when the block ends. DuckDB
    turns a signal that lands during a query into ``RuntimeError: Query interrupted``, which
    failed a run whose commit it hit (and could leave a checkpoint half done); held, the
    transaction ends first and the stop then takes its usual way (KeyboardInterrupt). Only the
    main thread receives signals; elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {}
    for sig in STOPS:
        if signal.getsignal(sig) is not None:  # None: a handler set outside Python, left alone
            previous[sig] = signal.signal(sig, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):  # the handlers put back receive it now, as if it came now
            signal.raise_signal(sig)


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C or SIGTERM, however it surfaced: KeyboardInterrupt, or DuckDB's ``Query
    interrupted`` (a RuntimeError, or its InterruptException) when it landed during a query."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    return isinstance(exc, (RuntimeError, duckdb.InterruptException)) and "interrupted" in str(exc).lower()


@contextmanager
def stops_said(line: Callable[[list[tuple[Path, int, str]]], str]) -> Iterator[None]:
    """A stop (Ctrl-C, SIGTERM, or DuckDB's ``Query interrupted`` for them) inside the block
    becomes one ``Interrupted`` line: the runs this process left running are marked stopped
    (``stop_runs_left_running``) and ``line`` is given them, (store, run id, kind) each, to say
    how to go on. Any other error passes as it is."""
    try:
        yield
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not is_interrupt(exc):
            raise
        raise Interrupted(line(stop_runs_left_running())) from None


# runs this process marked running and has not ended yet: store path -> {run id: kind}; a stop
# that came outside a run's play loop marks them stopped (``stop_runs_left_running``)
_LEFT_RUNNING: dict[Path, dict[int, str]] = {}


def _left_running(path: Path, run_id: int, kind: str | None) -> None:
    """Note (``kind`` given) or forget (None) a run this process marked running."""
    runs = _LEFT_RUNNING.setdefault(path.resolve(), {})
    if kind is None:
        runs.pop(run_id, None)
    else:
        runs[run_id] = kind


@contextmanager
def runs_of_one_command() -> Iterator[None]:
    """Around a command (workbench/cli.py): the runs ``stop_runs_left_running`` marks are the ones
    it marked running, not those of an earlier command in the same process (a test's)."""
    before = {path: dict(runs) for path, runs in _LEFT_RUNNING.items()}
    _LEFT_RUNNING.clear()
    try:
        yield
    finally:
        _LEFT_RUNNING.clear()
        _LEFT_RUNNING.update(before)


def left_running(path: str | Path, run_id: int) -> bool:
    """Whether this process marked the run running and has not ended it."""
    return run_id in _LEFT_RUNNING.get(Path(path).resolve(), {})


def stop_runs_left_running(note: str = "interrupted") -> list[tuple[Path, int, str]]:
    """Mark ``stopped`` every run this process marked running and did not end (a stop that came
    before its play loop caught it, or while it was being made), if it still reads ``running``
    under this process's pid: (store, run id, kind) of each, to name in the user's line. A store
    that cannot be written within ``STOP_WAIT_SECONDS`` leaves its run ``running``, which
    resumes all the same."""
    left = [(path, run_id, kind) for path, runs in _LEFT_RUNNING.items() for run_id, kind in sorted(runs.items())
            if path.exists()]  # (a store removed since: nothing to mark, and none to make)
    _LEFT_RUNNING.clear()
    for path, run_id, _kind in left:
        with suppress(StoreError, duckdb.Error, OSError):
            with connect(path, wait=STOP_WAIT_SECONDS) as con:
                con.execute("UPDATE runs SET status = 'stopped', note = ?, pid = NULL, updated_at = ? "
                            "WHERE run_id = ? AND status = 'running' AND pid = ?", [note, now(), run_id, os.getpid()])
    return left


def this_code() -> str:
    """The code version of this process (workbench/version.py). A stored run is reused (finished)
    or resumed (stopped, failed, left running) only when this code played it: after an upgrade of
    the engine or the pilots, a diff that reused the base run the old code played would credit the
    upgrade to the rules change, and a resumed run would hold matches of two codes. Looked up
    through the module, so a test can give a process another version."""
    return version.code_version()


_TOLD: set[tuple[Path, int]] = set()  # (store, run) already said not to be reused, in this process


class Store:
    """The writer's side of the store. Every method opens, works and closes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    @property
    def events_dir(self) -> Path:
        return events_dir(self.path)

    def init(self) -> None:
        """Create the tables, the marker and the event-log folder; bring a store made by an
        older version up to date (idempotent). A store this creates is noted, so that
        ``unused_stores_removed`` can take it back if nothing is stored in it."""
        created = not self.path.exists()
        folder_created = not self.events_dir.exists()
        if created and not folder_created and any(self.events_dir.glob("run-*")):
            # the event logs of a store that was deleted: a new store's runs would read them as theirs
            raise StoreError(f"{self.events_dir} holds the event logs of a store that is no longer there: move or "
                             f"delete that folder, or choose another --db")
        try:
            with connect(self.path) as con:
                con.execute(SCHEMA)
                con.execute(MIGRATIONS)
                con.execute(INIT_SQL)
                con.execute(MARK_SQL, [FORMAT_VERSION, now()])
        finally:  # noted even when making it failed halfway
            if created and self.path.exists():
                _CREATED.setdefault(self.path.resolve(), _Created(folder_created))
        write_empty_part(self.path)

    # --- runs -------------------------------------------------------------------------------
    def create_run(self, spec: dict, spec_hash: str, card_rows: list[dict], chunks_target: int,
                   code_version: str, data_dir: str | None = None, boss_names: dict[str, str] | None = None) -> int:
        """A new run: a batch of duels, or of campaign runs (``spec["kind"] == "campaign"``,
        whose ``matches_target`` counts campaign runs). ``data_dir``: the card data folder it
        was read from (its content is in the spec's rules and deck hashes). ``boss_names``: a
        Turf Defense run's bosses by id, for reading (kept out of the spec and its hash, as
        faction names are)."""
        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute(MIGRATIONS)
            con.execute("BEGIN")
            run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM runs").fetchall()[0][0]
            t = now()
            con.execute(
                """INSERT INTO runs (run_id, game, rules_version, rules_hash, decks, pilots,
                   matches_target, chunks_target, base_seed, swap, event_sample, spec, spec_hash,
                   code_version, status, pid, created_at, updated_at, kind, mode, data_dir, boss_names, code_commit)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)""",
                [run_id, spec["game"], spec["rules"], spec["rules_hash"], ",".join(spec["decks"]),
                 ",".join(spec["pilots"]), spec["matches_total"], chunks_target, spec["seed"],
                 spec.get("swap", False), spec["event_sample"], json.dumps(spec, sort_keys=True), spec_hash,
                 code_version, os.getpid(), t, t, spec.get("kind", "duel"), spec.get("mode", "duel"), data_dir,
                 json.dumps(boss_names, sort_keys=True) if boss_names else None, version.code_commit()])
            self._insert_cards(con, card_rows)
            con.execute("COMMIT")
            _left_running(self.path, run_id, spec.get("kind", "duel"))  # before a stop held meanwhile lands
        return run_id

    def _insert_cards(self, con, rows: list[dict]) -> None:
        if not rows:
            return
        import pyarrow as pa
        table = pa.Table.from_pylist(rows)
        con.register("new_cards", table)
        # by name: a store migrated from before a column has it last, wherever a new store has it
        con.execute("""INSERT INTO cards BY NAME SELECT * FROM new_cards n
                       WHERE NOT EXISTS (SELECT 1 FROM cards c WHERE c.rules_hash = n.rules_hash
                                         AND c.card = n.card)""")
        con.unregister("new_cards")

    def run(self, run_id: int) -> dict | None:
        with connect(self.path) as con:
            con.execute(SCHEMA)
            rows = con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id]).fetchall()
            if not rows:
                return None
            cols = [d[0] for d in con.description]
        return dict(zip(cols, rows[0]))

    def find_run(self, spec_hash: str, status: str = "done", events: tuple[str, float] | None = None) -> int | None:
        """The newest run with this spec hash and status played by this process's code
        (``this_code``); ``events``: and an event sample that is (``">="`` or ``"="``) the one
        given. A run another code version played is never found here (``other_code_runs``)."""
        if not self.path.exists():
            return None
        sample = f" AND event_sample {events[0]} ?" if events else ""
        with connect(self.path) as con:
            con.execute(SCHEMA)
            rows = con.execute(f"SELECT max(run_id) FROM runs WHERE spec_hash = ? AND status = ? AND code_version = ?"
                               f"{sample}", [spec_hash, status, this_code(), *([events[1]] if events else [])]).fetchall()
        return rows[0][0]

    def done_runs(self, game: str, rules_hash: str) -> list[tuple[int, dict]]:
        """(run id, spec) of every finished run of this game and rules hash played by this
        process's code (``this_code``), newest first."""
        return self.runs_with(game, rules_hash, "done")

    def runs_with(self, game: str, rules_hash: str, status: str) -> list[tuple[int, dict]]:
        """(run id, spec) of every run of this game, rules hash and status played by this
        process's code (``this_code``), newest first."""
        if not self.path.exists():
            return []
        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute(MIGRATIONS)
            rows = con.execute("SELECT run_id, spec FROM runs WHERE game = ? AND rules_hash = ? AND status = ? "
                               "AND code_version = ? ORDER BY run_id DESC",
                               [game, rules_hash, status, this_code()]).fetchall()
        return [(run_id, json.loads(spec)) for run_id, spec in rows]

    def other_code_runs(self, game: str, rules_hash: str) -> list[dict]:
        """Every run of this game and rules hash that another code version played (or one not
        recorded), newest first: what ``find_run`` and ``done_runs`` pass over. Its rows hold
        ``run_id``, ``status``, ``spec`` (JSON), ``spec_hash``, ``event_sample``, ``code_version``."""
        if not self.path.exists():
            return []
        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute(MIGRATIONS)
            cur = con.execute("SELECT run_id, status, spec, spec_hash, event_sample, code_version FROM runs "
                              "WHERE game = ? AND rules_hash = ? AND code_version IS DISTINCT FROM ? "
                              "ORDER BY run_id DESC", [game, rules_hash, this_code()])
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]

    def played_here(self, row: dict) -> bool:
        """Whether a run (its ``runs`` row) was played by this process's code, so may be reused
        (finished) or resumed (otherwise)."""
        return row.get("code_version") == this_code()

    def say_not_reused(self, row: dict, then: str) -> None:
        """The one line (on stderr, once per run and process) saying that run ``row`` is not
        reused (finished) or resumed (otherwise) because another code version played it, and
        ``then``, what is done instead."""
        key = (self.path.resolve(), row["run_id"])
        if key in _TOLD:
            return
        _TOLD.add(key)
        verb = "reused" if row["status"] == "done" else "resumed"
        print(f"run {row['run_id']} ({row['status']}) is not {verb}: it was played by code "
              f"{row.get('code_version') or '(not recorded)'} and this is code {this_code()}, which may play other "
              f"matches; {then}", file=sys.stderr, flush=True)

    def done_chunks(self, run_id: int) -> set[int]:
        with connect(self.path) as con:
            return {r[0] for r in con.execute("SELECT chunk FROM chunks WHERE run_id = ?", [run_id]).fetchall()}

    def parts_missing(self, run_id: int) -> list[int]:
        """The stored chunks of the run that logged events (``events_rows`` > 0) whose event-log
        part is gone from its folder (deleted, a copy without it). Playing such a chunk again
        writes its part back as it was (matches are deterministic); its rows are stored already."""
        with connect(self.path) as con:
            logged = [r[0] for r in con.execute("SELECT chunk FROM chunks WHERE run_id = ? AND events_rows > 0 "
                                                "ORDER BY chunk", [run_id]).fetchall()]
        return parts_absent(self.events_dir, run_id, logged)[0]

    def set_status(self, run_id: int, status: str, note: str | None = None, pid: int | None = None) -> None:
        """A run's status. Marking it stopped or failed waits for the file only ``STOP_WAIT_SECONDS``:
        that write follows the user's stop (or a failure), and must not make them stop twice; a
        run left ``running`` by a process that is gone is resumable all the same. A run marked
        done loses its note (why it stopped once is no longer so)."""
        wait = STOP_WAIT_SECONDS if status in ("stopped", "failed") else None
        with connect(self.path, wait=wait) as con:
            kind = con.execute("UPDATE runs SET status = ?, note = CASE WHEN ? = 'done' THEN NULL "
                               "ELSE coalesce(?, note) END, pid = ?, updated_at = ? WHERE run_id = ? RETURNING kind",
                               [status, status, note, pid, now(), run_id]).fetchall()
            _left_running(self.path, run_id, (kind[0][0] or "duel") if kind and status == "running" else None)

    def record_card_values(self, rows: list[dict]) -> int:
        """One ``workbench value`` measurement: its cards' rows under a new value_id, in one
        transaction (a measurement is stored whole or not at all)."""
        import pyarrow as pa

        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute("BEGIN")
            value_id = con.execute("SELECT coalesce(max(value_id), 0) + 1 FROM card_value").fetchall()[0][0]
            t = now()
            con.register("new_values", pa.Table.from_pylist([{**r, "value_id": value_id, "created_at": t} for r in rows]))
            con.execute("INSERT INTO card_value BY NAME SELECT * FROM new_values")
            con.unregister("new_values")
            con.execute("COMMIT")
        return value_id

    def record_ladder(self, ladder_rows: list[dict], pair_rows: list[dict], match_rows: list[dict]) -> int:
        """One ``workbench ladder``: its pilots, pairs and matches under a new ladder_id, in one
        transaction (a ladder is stored whole or not at all)."""
        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute(MIGRATIONS)
            con.execute("BEGIN")
            ladder_id = con.execute("SELECT coalesce(max(ladder_id), 0) + 1 FROM ladder").fetchall()[0][0]
            t = now()
            insert_rows(con, {"ladder": [{**r, "created_at": t} for r in ladder_rows], "ladder_pairs": pair_rows,
                              "ladder_matches": match_rows}, ladder_id=ladder_id)
            con.execute("COMMIT")
        return ladder_id

    def record_diff(self, game: str, base_run: int, candidate_run: int, base_version: str,
                    candidate_version: str, sequential: dict | None = None) -> int:
        """A diff of two runs. ``sequential``: a sequential diff's ``decision``, ``matches_used``
        (per version), ``delta_points``, ``delta0_points``, ``alpha``, ``beta`` and its per-deck
        ``verdicts`` (rows of diff_verdicts without the id)."""
        seq = dict(sequential or {})
        rows = seq.pop("verdicts", [])
        with connect(self.path) as con:
            con.execute(MIGRATIONS)
            con.execute("BEGIN")
            diff_id = con.execute("SELECT coalesce(max(diff_id), 0) + 1 FROM diffs").fetchall()[0][0]
            con.execute("""INSERT INTO diffs (diff_id, game, base_run, candidate_run, base_version, candidate_version,
                           created_at, decision, matches_used, delta_points, delta0_points, alpha, beta)
                           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                        [diff_id, game, base_run, candidate_run, base_version, candidate_version, now(),
                         *(seq.get(k) for k in ("decision", "matches_used", "delta_points", "delta0_points",
                                                "alpha", "beta"))])
            for r in rows:
                con.execute("INSERT INTO diff_verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [diff_id, r["deck"], r["seeds"], r["change"], r["lo"], r["hi"], r["llr_up"],
                             r["llr_down"], r["decision"]])
            con.execute("COMMIT")
        return diff_id

    # --- batches ----------------------------------------------------------------------------
    def open_batch(self, name: str, day, file_hash: str) -> int:
        """The batch of this name and day: continued if it exists, else started."""
        with connect(self.path) as con:
            con.execute(SCHEMA)
            con.execute("BEGIN")
            found = con.execute("SELECT batch_id FROM batches WHERE name = ? AND day = ?", [name, day]).fetchall()
            if found:
                batch_id = found[0][0]
                con.execute("UPDATE batches SET status = 'running', file_hash = ?, finished_at = NULL "
                            "WHERE batch_id = ?", [file_hash, batch_id])
            else:
                batch_id = con.execute("SELECT coalesce(max(batch_id), 0) + 1 FROM batches").fetchall()[0][0]
                con.execute("INSERT INTO batches VALUES (?, ?, ?, ?, 'running', 0, ?, NULL)",
                            [batch_id, name, day, file_hash, now()])
            con.execute("COMMIT")
        return batch_id

    def record_suite(self, batch_id: int, suite: str, game: str, run_id, previous_run, baseline_run,
                     status: str, alerts: int) -> None:
        with connect(self.path) as con:
            con.execute("INSERT OR REPLACE INTO batch_suites VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [batch_id, suite, game, run_id, previous_run, baseline_run, status, alerts])

    def finish_batch(self, batch_id: int, status: str, alerts: int) -> None:
        with connect(self.path) as con:
            con.execute("UPDATE batches SET status = ?, alerts = ?, finished_at = ? WHERE batch_id = ?",
                        [status, alerts, now(), batch_id])

    def previous_suite_runs(self, name: str, suite: str, before_day) -> list[tuple[int, Any, int | None]]:
        """The suite's (run, day, baseline run) in each successful batch of this name before
        ``before_day``, the latest first."""
        with connect(self.path) as con:
            return con.execute("""SELECT s.run_id, b.day, s.baseline_run FROM batch_suites s JOIN batches b USING (batch_id)
                                  WHERE b.name = ? AND s.suite = ? AND b.day < ? AND b.status = 'done'
                                        AND s.status = 'done'
                                  ORDER BY b.day DESC""", [name, suite, before_day]).fetchall()


# --- stores a command created and left empty -----------------------------------------------

@dataclass(slots=True)
class _Created:
    """A store file Store.init created in this process (its folder too, if ``folder``)."""
    folder: bool


_CREATED: dict[Path, _Created] = {}
# the marker and what init writes do not count as something stored
_NOT_CONTENT = ("workbench_store",)


@contextmanager
def unused_stores_removed() -> Iterator[None]:
    """Around a command: every store it created (Store.init) and left without a single row, by
    failing before anything was stored, is removed again, file and (if it made it) event-log
    folder, so a failed command leaves no empty store behind. A store another process holds, or
    one that holds anything, is left alone; a store that existed before is never removed."""
    before = set(_CREATED)
    try:
        yield
    finally:
        for path in [p for p in _CREATED if p not in before]:
            created = _CREATED.pop(path)
            with suppress(StoreError, OSError, duckdb.Error):
                _remove_if_unused(path, created)


def _remove_if_unused(path: Path, created: _Created) -> None:
    if path.exists():
        # a short wait: another process holding it is using it, so it is not ours to remove
        with _connect(path, read_only=False, wait=2.0, events=False) as con:
            if _holds_rows(con):
                return
        for leftover in (path, path.with_name(path.name + ".wal")):
            leftover.unlink(missing_ok=True)
        remove_unheld(path)  # its lock files (workbench/locks.py), unless a process holds one
    if created.folder:
        _remove_empty_folder(events_dir(path))


def _holds_rows(con: duckdb.DuckDBPyConnection) -> bool:
    tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = "
                                        "current_database() AND schema_name = 'main'").fetchall()
              if t not in _NOT_CONTENT]
    return any(con.execute(f'SELECT EXISTS (SELECT 1 FROM "{t}")').fetchone()[0] for t in tables)


def _remove_empty_folder(folder: Path) -> None:
    """The event-log folder with only the schema part init wrote (and empty run folders): gone.
    Anything else in it stays, and so does the folder."""
    (folder / "_schema.parquet").unlink(missing_ok=True)
    if not folder.is_dir():
        return
    for sub in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if sub.is_dir():
            with suppress(OSError):
                sub.rmdir()
    with suppress(OSError):
        folder.rmdir()
