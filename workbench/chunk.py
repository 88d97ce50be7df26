"""What a worker process does: play one chunk of a run and return it as Arrow tables.

The worker is set up once per process (``init_worker``) with the resolved rules version and
decks; a chunk is then only a range of match numbers. Rows are built as plain column lists and
turned into Arrow in one step per table, never an object per event.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq

from reports.event_parts import part_name, run_folder
from sim.core.decks import compile_decks
from sim.core.match import play_match
from sim.registry import engine as get_engine


class ChunkResult(NamedTuple):
    """What a worker hands back for one chunk (``play_chunk``, and the campaign's in
    workbench/campaign/chunk.py), pickled to the farm from a local worker or a Dask task. A
    NamedTuple pickles as this class and its four values, and still unpacks as the 4-tuple."""
    chunk: int
    tables: dict[str, pa.Table]       # its rows by table name; the events went to its part
    worker_seconds: float             # the worker's time on it
    events_rows: int                  # rows of its event-log part (0: no part written)


class RunContext(threading.local):
    """The run a worker thread is set up for (``init_worker``): one per thread, since a Dask
    worker runs tasks of several runs at once on its threads (a module-wide dict let one run's
    chunk play with another's pool, decks and events folder)."""

    def __init__(self):
        self.ctx: dict[str, Any] = {}


_RUN = RunContext()


def init_worker(payload: dict) -> None:
    """Build the pool and decks of a run in this process (once)."""
    from cardsdb.loader import Ruleset
    from cardsdb.registry import schema
    from workbench.runspec import RunSpec

    spec = RunSpec.from_json(payload["spec"])
    # the events folder too: the same spec into another store is another run to set up
    key = (spec.spec_hash(), payload["run_id"], payload["events_dir"])
    if _RUN.ctx.get("key") == key:
        return
    engine = get_engine(spec.game)
    ruleset = Ruleset.from_payload(payload["ruleset"])
    pool = engine.compile_pool(ruleset)
    deck_model = schema(spec.game).Deck
    decks = compile_decks(engine, pool, [deck_model.model_validate(d) for d in payload["decks"]], spec.substitute)
    _RUN.ctx = dict(key=key, spec=spec, engine=engine, pool=pool,
                    decks=decks, run_id=payload["run_id"], events_dir=payload["events_dir"])


def worker_engine() -> Any:
    """The engine this worker's run plays with (after ``init_worker``)."""
    return _RUN.ctx["engine"]


def use_engine(engine: Any) -> None:
    """Play this worker's run with ``engine`` instead, e.g. one that wraps it to check every
    position (the soak, workbench/bench/soak.py); the rest of the run's setup stays."""
    _RUN.ctx["engine"] = engine


def play_chunk(chunk: int) -> ChunkResult:
    """Play every match of a chunk; write its event-log part; return its ``ChunkResult``. The
    part is written under a temporary name and renamed, so it is never seen half-written;
    replaying a chunk rewrites it identically."""
    started = time.perf_counter()
    spec, engine, pool, decks, run_id = (_RUN.ctx[k] for k in ("spec", "engine", "pool", "decks", "run_id"))
    cols = _Columns(chunk)
    if spec.mode == "series":
        for series_no in spec.chunk_range(chunk):
            play_series(cols, spec, engine, pool, decks, run_id, chunk, series_no)
    for match_no in spec.chunk_range(chunk) if spec.mode != "series" else ():
        seed, pairing, rotation = spec.match(match_no)
        slots = spec.seat_slots(pairing, rotation)
        log = spec.logs_events(seed)
        if spec.mode == "turf":
            play_turf(cols, spec, engine, pool, decks, run_id, chunk, match_no, seed, pairing, rotation, slots, log)
            continue
        result = play_match(engine, pool, [decks[s] for s in slots], seed,
                            [spec.pilots[s] for s in slots], log=log, pilot_salt=spec.pilot_salt)
        cols.add(run_id, chunk, match_no, seed, pairing, rotation != 0, slots, spec, engine, pool, result, log)
    tables = cols.tables()
    events = tables.pop("events")
    if events.num_rows:
        write_part(events, part_location(_RUN.ctx["events_dir"], run_id, chunk))
    return ChunkResult(chunk=chunk, tables=tables, worker_seconds=time.perf_counter() - started,
                       events_rows=events.num_rows)


TURF_TEAMS = (0, 0, 1)  # Turf Defense: the two partners, then the boss (runspec.MODES)


def play_turf(cols: "_Columns", spec, engine, pool, decks, run_id: int, chunk: int, match_no: int, seed: int,
              pairing: int, rotation: int, slots: list[int], log: bool) -> None:
    """One Turf Defense match: the pairing's two decks as partners, the engine adding the boss's
    seat (deck ``boss:ID``, played by ``spec.boss_pilot``)."""
    from sim.core.seating import Seating

    boss = spec.boss_of(pairing)
    pilots = [spec.pilots[s] for s in slots] + [spec.boss_pilot]
    result = play_match(engine, pool, [decks[s] for s in slots], seed, pilots, log=log, pilot_salt=spec.pilot_salt,
                        seating=Seating("turf", teams=TURF_TEAMS, boss=boss))
    cols.add_match(run_id, chunk, match_no, seed, pairing, rotation != 0, [spec.decks[s] for s in slots] +
                   [f"boss:{boss}"], pilots, engine, pool, result, log, teams=TURF_TEAMS)


def series_games(spec, consts, series_no: int, play) -> list[int | None]:
    """Play one best-of-N series (sim/core/series.py) through ``play(game_no, seed, slots, swapped)``,
    which plays one game with the deck slots ``slots`` in seat order and returns its winning
    seat (None: a draw, or stop the series by returning ``STOP``). Returns the winning deck of
    each game played (0 = the pairing's first deck, 1 = its second, None = a draw). The farm
    and the replay both go through here, so a game is replayed in the seats, and on the seed, it
    was played with. A later game's seed depends on the series' rotation (``game_seed``): the
    twin series of a seed play other later games, while a run of another rules version on the
    same spec plays the same seeds (a diff pairs them game by game)."""
    from sim.core import series as ser

    seed, pairing, rotation = spec.match(series_no)  # rotation: which deck of the pairing sits in seat 0 in game 1
    first = rotation
    ab = spec.pairings[pairing]
    winners: list[int | None] = []
    while not ser.over(consts.series_best_of, winners.count(0), winners.count(1), len(winners)):
        game_no = len(winners) + 1
        seat = play(game_no, ser.game_seed(seed, game_no, rotation), [ab[first], ab[1 - first]], first != 0)
        if seat is STOP:
            break
        won = None if seat is None else seat ^ first  # the deck (0 = A) in the winning seat
        winners.append(won)
        first = ser.next_first(first, won)
    return winners


STOP = object()  # what a ``series_games`` player returns to end the series there


def play_series(cols: "_Columns", spec, engine, pool, decks, run_id: int, chunk: int, series_no: int) -> None:
    """One series: its games as matches (numbered ``series_no * best_of + game_no - 1``) and
    its row in ``series``. A game that raised an error (``result.error``; no winner) is not a
    drawn game: it ends the series there, stored as a match with its error, and the series row
    keeps the error and the score of the games before it (the reports leave such a series out)."""
    from sim.core.series import tally

    best_of = pool.consts.series_best_of
    errors: list[str] = []

    def play(game_no: int, seed: int, slots: list[int], swapped: bool):
        log = spec.logs_events(seed)
        result = play_match(engine, pool, [decks[s] for s in slots], seed, [spec.pilots[s] for s in slots],
                            log=log, pilot_salt=spec.pilot_salt)
        cols.add(run_id, chunk, series_no * best_of + game_no - 1, seed, pairing, swapped, slots, spec, engine,
                 pool, result, log, series=(series_no, game_no))
        if result.error:
            errors.append(result.error)
            return STOP
        return result.winner

    seed, pairing, first = spec.match(series_no)
    ab = spec.pairings[pairing]
    t = tally(pool.consts, series_games(spec, pool.consts, series_no, play))
    _append(cols.series, run_id=run_id, series_no=series_no, chunk=chunk, seed=seed, pairing=pairing,
            deck_a=spec.decks[ab[0]], deck_b=spec.decks[ab[1]], pilot_a=spec.pilots[ab[0]], pilot_b=spec.pilots[ab[1]],
            a_first=first == 0, games=t.games, a_wins=t.a_wins, b_wins=t.b_wins, draws=t.draws,
            score=t.score, winner_deck=None if t.winner is None else spec.decks[ab[t.winner]],
            a_rank_points=t.a_rank_points, b_rank_points=t.b_rank_points, error=errors[0] if errors else None)


def part_location(parts: str, run_id: int, chunk: int) -> str:
    """Where a chunk's event-log part goes: a folder path or any fsspec URL (s3://..., ...)."""
    return f"{str(parts).rstrip('/')}/{run_folder(run_id)}/{part_name(chunk)}"


def is_url(location: str) -> bool:
    return "://" in str(location)


def write_part(table: pa.Table, target: str) -> None:
    """Write under a temporary name, then rename: nobody ever reads half a part."""
    if is_url(target):
        import fsspec

        fs, path = fsspec.core.url_to_fs(target)
        tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.part"
        fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        with fs.open(tmp, "wb") as fh:
            pq.write_table(table, fh, compression="zstd")
        fs.mv(tmp, path)
        return
    target_path = Path(target)
    target_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = target_path.with_name(f".{target_path.name}.{os.getpid()}.{threading.get_ident()}.part")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, target_path)


def remove_unfinished_parts(events_dir: str | Path, run_id: int) -> None:
    """Remove the temporary files ``write_part`` leaves when its worker is ended half way (a stop
    ends workers with SIGTERM; a crash or the OOM killer with less warning) from the run's folder
    of a local event log. Called once the run's workers are gone: a ``.part`` there then belongs
    to nobody, and is never renamed into a part."""
    if is_url(str(events_dir)):
        return
    for tmp in (Path(events_dir) / run_folder(run_id)).glob(".chunk-*.part"):
        tmp.unlink(missing_ok=True)


def ingest_part(source: str, target: Path) -> None:
    """Copy a part a remote worker wrote (shared folder or fsspec URL) beside the database."""
    import fsspec

    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.ingest")
    with fsspec.open(source, "rb") as src, open(tmp, "wb") as dst:
        while block := src.read(1 << 20):
            dst.write(block)
    os.replace(tmp, target)


def _append(columns: dict[str, list], **row) -> None:
    for key, value in row.items():
        columns[key].append(value)


class _Columns:
    """Column lists for the four per-match tables of one chunk (named as the schemas below)."""

    def __init__(self, chunk: int):
        self.chunk = chunk
        self.matches = {f.name: [] for f in _MATCH_SCHEMA}
        self.seats = {f.name: [] for f in _SEAT_SCHEMA}
        self.events = {f.name: [] for f in EVENT_SCHEMA}
        self.cards = {f.name: [] for f in _CARD_GAME_SCHEMA}
        self.series = {f.name: [] for f in _SERIES_SCHEMA}

    def add(self, run_id, chunk, match_no, seed, pairing, swapped, slots, spec, engine, pool, r, log, series=None):
        self.add_match(run_id, chunk, match_no, seed, pairing, swapped, [spec.decks[s] for s in slots],
                       [spec.pilots[s] for s in slots], engine, pool, r, log, series)

    def add_match(self, run_id, chunk, match_no, seed, pairing, swapped, decks, pilots, engine, pool, r, log,
                  series=None, teams=None):
        """The rows of one played match: its decks and pilots per seat; ``series`` = (series_no,
        game_no) for a game of a series; ``teams``, a team per seat (default: each its own)."""
        series_no, game_no = series or (None, None)
        outcome = engine.outcome(r.state) if r.state is not None and r.state.over else None
        _append(self.matches, run_id=run_id, match_no=match_no, chunk=chunk, seed=seed, pairing=pairing,
                swapped=swapped, winner_seat=r.winner, winner_deck=None if r.winner is None else decks[r.winner],
                reason=r.reason, turns=r.turns, decisions=r.decisions, wall_ms=r.wall_ms,
                events_logged=log and r.events is not None, error=r.error, series_no=series_no, game_no=game_no,
                outcome=None if not outcome else json.dumps(outcome, sort_keys=True))
        # whether each seat redrew its opening hand (None: never offered one, or no ledger)
        redrew = r.ledger.redrew if r.ledger is not None else [None] * len(r.standings)
        for seat, st in enumerate(r.standings):
            _append(self.seats, run_id=run_id, match_no=match_no, seat=seat, team=seat if teams is None else teams[seat],
                    deck=decks[seat],
                    pilot=pilots[seat], placement=st.placement, result=st.result, out_turn=st.out_turn,
                    out_by=st.out_by, redrew=redrew[seat])
        if log and r.events is not None:
            self._add_events(run_id, match_no, r.events, engine, pool)
        if r.ledger is not None:
            for seat, result in enumerate(r.results):
                for row in r.ledger.rows(seat):
                    _append(self.cards, run_id=run_id, match_no=match_no, seat=seat, deck=decks[seat],
                            pilot=pilots[seat], card=engine.card_name(pool, row.card), copies=row.copies,
                            in_opening_hand=row.opening, drawn=row.drawn, first_turn_drawn=row.first_drawn,
                            played=row.played, first_turn_played=row.first_played, on_play=seat == 0,
                            won=result == "win", result=result, deck_position=row.deck_position,
                            in_dealt_hand=row.dealt, redrew=redrew[seat])

    def _add_events(self, run_id, match_no, buf, engine, pool):
        n = len(buf)
        e = self.events
        names = engine.kinds.names
        e["run_id"].extend([run_id] * n)
        e["match_no"].extend([match_no] * n)
        e["chunk"].extend([self.chunk] * n)
        e["seq"].extend(range(n))
        e["turn"].extend(buf.turn)
        e["seat"].extend(buf.seat)
        e["kind"].extend([names[k] for k in buf.kind])
        label = {}
        for col, src in (("card", buf.card), ("target", buf.target)):
            out = []
            for cid in src:
                if cid not in label:
                    label[cid] = engine.card_name(pool, cid)
                out.append(label[cid])
            e[col].extend(out)
        e["amount"].extend(buf.amount)
        e["lane"].extend([None if lane < 0 else lane for lane in buf.lane])
        e["detail"].extend(buf.detail)

    def tables(self) -> dict[str, pa.Table]:
        series = {"series": pa.table(self.series, schema=_SERIES_SCHEMA)} if self.series["run_id"] else {}
        return {**series, "matches": pa.table(self.matches, schema=_MATCH_SCHEMA),
                "match_seats": pa.table(self.seats, schema=_SEAT_SCHEMA),
                "events": pa.table(self.events, schema=EVENT_SCHEMA),
                "card_games": pa.table(self.cards, schema=_CARD_GAME_SCHEMA)}


_I32, _STR, _BOOL = pa.int32(), pa.string(), pa.bool_()
_MATCH_SCHEMA = pa.schema([
    ("run_id", _I32), ("match_no", _I32), ("chunk", _I32), ("seed", pa.int64()), ("pairing", _I32),
    ("swapped", _BOOL), ("winner_seat", _I32), ("winner_deck", _STR), ("reason", _STR), ("turns", _I32),
    ("decisions", _I32), ("wall_ms", pa.float64()), ("events_logged", _BOOL), ("error", _STR),
    ("series_no", _I32), ("game_no", _I32), ("outcome", _STR),
])
_SERIES_SCHEMA = pa.schema([
    ("run_id", _I32), ("series_no", _I32), ("chunk", _I32), ("seed", pa.int64()), ("pairing", _I32),
    ("deck_a", _STR), ("deck_b", _STR), ("pilot_a", _STR), ("pilot_b", _STR), ("a_first", _BOOL), ("games", _I32),
    ("a_wins", _I32), ("b_wins", _I32), ("draws", _I32), ("score", _STR), ("winner_deck", _STR),
    ("a_rank_points", _I32), ("b_rank_points", _I32), ("error", _STR),
])
_SEAT_SCHEMA = pa.schema([
    ("run_id", _I32), ("match_no", _I32), ("seat", _I32), ("team", _I32), ("deck", _STR),
    ("pilot", _STR), ("placement", _I32), ("result", _STR), ("out_turn", _I32), ("out_by", _I32),
    ("redrew", _BOOL),
])
_CARD_GAME_SCHEMA = pa.schema([
    ("run_id", _I32), ("match_no", _I32), ("seat", _I32), ("deck", _STR), ("pilot", _STR),
    ("card", _STR), ("copies", _I32), ("in_opening_hand", _I32), ("drawn", _I32),
    ("first_turn_drawn", _I32), ("played", _I32), ("first_turn_played", _I32), ("on_play", _BOOL),
    ("won", _BOOL), ("result", _STR), ("deck_position", _I32), ("in_dealt_hand", _I32), ("redrew", _BOOL),
])
EVENT_SCHEMA = pa.schema([
    ("run_id", pa.int32()), ("match_no", pa.int32()), ("chunk", pa.int32()), ("seq", pa.int32()), ("turn", pa.int32()),
    ("seat", pa.int32()), ("kind", pa.string()), ("card", pa.string()), ("target", pa.string()),
    ("amount", pa.int32()), ("lane", pa.int16()), ("detail", pa.string()),
])
