"""``workbench ladder``: a round robin of pilots over a field of decks, rated (Bradley-Terry), with
pairwise win rates and what each pilot costs to play.

The schedule. For every pair of pilots (A, B), in the order ``--pilots`` names them, the pair's
matches are cut into *blocks*. Block i plays deck pairing i mod P of the field (P = every pair of
distinct decks; one deck plays its mirror) on seed ``match_seed(base, i)``, in four seatings:

    A on X in seat 0, B on Y in seat 1      B on Y in seat 0, A on X in seat 1
    B on X in seat 0, A on Y in seat 1      A on Y in seat 0, B on X in seat 1

so deck luck and seat luck cancel within the block (a mirror pairing needs only the first two).
``--matches N`` is the pair's first N matches of that sequence, the same blocks (seeds and
deck pairings) for every pair of pilots. N a multiple of 4 x P covers the field evenly.

Matches are cut into chunks played on worker processes (the farm's ``LocalExecutor``, with this
module's pair of worker functions); results are keyed by match number, so the ladder is the
same whatever the worker count. Only CPU times differ from one run to the next. Nothing is stored
until every match is played: then the ladder goes into the store in one transaction
(``ladder``, ``ladder_pairs``, ``ladder_matches``), and ``--csv`` writes ladder.csv and
ladder_pairs.csv. Until then each finished chunk waits in a file beside the store
(``.ladder-partial/``, workbench/partial_chunks.py), so a stopped ladder run again with the same
request and code goes on where it stopped; the results are the same as one uninterrupted run's. The statistics are in reports/ladder.py.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import polars as pl
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from workbench import games
from workbench.errors import Interrupted, UserError
from workbench.limits import check_total
from workbench.partial_chunks import PartialChunks

MAX_LADDER_MATCHES = 10_000_000  # the whole schedule is held in memory, a row per match

_CTX: dict[str, Any] = {}

LADDER_CSV_FIRST = ["pilot", "rating", "rating_lo", "rating_hi", "matches"]
PAIRS_CSV_FIRST = ["pilot_a", "pilot_b", "matches", "a_win_rate", "lo", "hi"]


# --- the schedule ------------------------------------------------------------------------------------

def seatings(x: int, y: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(which pilot of the pair sits in seats 0, 1; which deck slot sits in seats 0, 1), pilot 0
    being A: A on X and B on Y from both seats, then the mirror. A mirror pairing has two."""
    first = [((0, 1), (x, y)), ((1, 0), (y, x))]
    if x == y:
        return first
    return first + [((1, 0), (x, y)), ((0, 1), (y, x))]


def schedule(pilots: list[str], n_decks: int, matches: int, seed: int) -> list[dict]:
    """Every match of the ladder, numbered pair by pair: pair_no, pilot_a, pilot_b, block, seed,
    the pilot and deck slot in each seat."""
    from workbench.runspec import match_seed

    pairings = games.deck_pairings(n_decks)
    per_pair: list[tuple[int, int, tuple[int, int], tuple[int, int]]] = []
    block = 0
    while len(per_pair) < matches:
        x, y = pairings[block % len(pairings)]
        for who, slots in seatings(x, y):
            per_pair.append((block, match_seed(seed, block), who, slots))
        block += 1
    per_pair = per_pair[:matches]
    jobs = []
    pairs = [(a, b) for i, a in enumerate(pilots) for b in pilots[i + 1:]]
    for pair_no, (a, b) in enumerate(pairs):
        for block, s, who, slots in per_pair:
            names = (a, b)
            jobs.append({"match_no": len(jobs), "pair_no": pair_no, "pilot_a": a, "pilot_b": b, "block": block,
                         "seed": s, "pilot_0": names[who[0]], "pilot_1": names[who[1]],
                         "slot_0": slots[0], "slot_1": slots[1]})
    return jobs


# --- the workers ------------------------------------------------------------------------------------

def init_worker(payload: dict) -> None:
    """Compile the rules version and the field once per process."""
    if _CTX.get("key") == payload["key"]:
        return
    engine, pool, decks = games.compiled_field(payload)
    _CTX.update(key=payload["key"], engine=engine, pool=pool, decks=decks, deck_ids=payload["deck_ids"],
                jobs=payload["jobs"], chunk_size=payload["chunk_size"])


def play_one(engine, pool, decks, deck_ids, job: dict) -> dict:
    """Play one match, timing it in CPU seconds: whole, and per seat (the CPU from one decision to
    the next is charged to the seat that made the later one)."""
    from sim.core.match import play_match

    cpu = [0.0, 0.0]
    decided = [0, 0]
    last = [0.0]

    def on_decision(state, _action) -> None:
        t = time.process_time()
        seat = state.to_act
        cpu[seat] += t - last[0]
        decided[seat] += 1
        last[0] = t

    seats = [job["slot_0"], job["slot_1"]]
    started = last[0] = time.process_time()
    result = play_match(engine, pool, [decks[s] for s in seats], job["seed"], [job["pilot_0"], job["pilot_1"]],
                        log=False, on_decision=on_decision)
    cpu_s = time.process_time() - started
    winner = result.winner
    return {**{k: job[k] for k in ("match_no", "pair_no", "pilot_a", "pilot_b", "block", "seed",
                                   "pilot_0", "pilot_1")},
            "deck_0": deck_ids[seats[0]], "deck_1": deck_ids[seats[1]], "winner_seat": winner,
            "winner_pilot": None if winner is None else job[f"pilot_{winner}"], "reason": result.reason,
            "turns": result.turns, "decisions": result.decisions, "decisions_0": decided[0],
            "decisions_1": decided[1], "cpu_s": cpu_s, "cpu_0": cpu[0], "cpu_1": cpu[1],
            "wall_ms": result.wall_ms, "error": result.error}


def play_chunk(chunk: int) -> tuple[int, list[dict]]:
    size = _CTX["chunk_size"]
    jobs = _CTX["jobs"][chunk * size:(chunk + 1) * size]
    args = (_CTX["engine"], _CTX["pool"], _CTX["decks"], _CTX["deck_ids"])
    return chunk, [play_one(*args, job) for job in jobs]


# --- checking the request ------------------------------------------------------------------------------

def check_pilots(pilots: list[str], game: str) -> list[str]:
    from sim.core.pilots import check_pilot
    from sim.registry import engine

    if len(pilots) < 2:
        raise UserError(f"--pilots needs at least two pilots, comma separated (got {','.join(pilots) or 'none'})")
    for name in pilots:
        try:
            check_pilot(name, engine(game))
        except ValueError as exc:
            raise UserError(str(exc)) from None
    seen: dict[tuple, str] = {}
    for name in pilots:
        if name in seen.values():
            raise UserError(f"--pilots names {name!r} twice")
        same = _identity(name, engine(game))
        if same in seen:  # `greedy` and `greedy@tuned` when greedy thinks with tuned: one pilot twice
            why = (f"{same[0]} reads no weights" if same[2] is None
                   else f"both think with the weight set {same[2]!r}")
            raise UserError(f"--pilots: {seen[same]!r} and {name!r} are one pilot ({why}); a ladder of it against "
                            "itself measures nothing")
        seen[same] = name
    return pilots


def _identity(name: str, engine) -> tuple:
    """(kind, budget, weight set) a pilot name plays as: its set named, else its kind's."""
    from sim.core.pilots import PILOTS, RandomPilot, split_pilot, weight_set
    from sim.core.weights import pilot_set

    kind, budget = split_pilot(name)
    if PILOTS[kind] is RandomPilot:  # reads no weights: random@x is random
        return kind, budget, None
    return kind, budget, weight_set(name) or pilot_set(engine, kind)


def plan(game: str, rules: str, deck_ids: list[str] | None, pilots: list[str], matches: int, seed: int,
         workers: int, data_dir=None) -> dict:
    """Check everything and build the workers' payload; raises UserError/DataError(s) before any
    match is played."""
    games.known_game(game)
    check_pilots(pilots, game)
    if matches < 1:
        raise UserError("--matches must be at least 1")
    if workers < 1:
        raise UserError("--workers must be at least 1")
    data, ruleset = games.load(game, rules, data_dir)
    decks = games.decks_for(data, ruleset, deck_ids)
    n_pairs = len(pilots) * (len(pilots) - 1) // 2
    check_total(f"{matches:,} matches x {n_pairs} pairs of pilots", matches * n_pairs, MAX_LADDER_MATCHES)
    jobs = schedule(pilots, len(decks), matches, seed)
    chunk_size = max(1, min(50, len(jobs) // (8 * workers)))
    from workbench.runspec import deck_hash

    key = f"{game}:{ruleset.hash}:{deck_hash(decks)}:{','.join(pilots)}:{matches}:{seed}"
    return {"key": key, "game": game, "rules": rules, "rules_hash": ruleset.hash, "ruleset": ruleset.to_payload(),
            "decks": [d.model_dump(by_alias=True) for d in decks], "deck_ids": [d.id for d in decks],
            "jobs": jobs, "chunk_size": chunk_size, "pilots": list(pilots), "matches": matches, "seed": seed}


# --- playing -----------------------------------------------------------------------------------------

def play(payload: dict, workers: int, quiet: bool = True, console: Console | None = None,
         partial: "PartialChunks | None" = None) -> pl.DataFrame:
    """Play every match of the ladder (in this process with one worker, else on a pool of
    worker processes) and return the ``ladder_matches`` rows in match order. With ``partial``,
    the chunks an earlier try finished are taken from it and each newly finished chunk is added."""
    jobs = payload["jobs"]
    n_chunks = -(-len(jobs) // payload["chunk_size"])
    size = payload["chunk_size"]
    earlier = partial.load() if partial is not None else {}
    done: dict[int, list[dict]] = {}
    for c in range(n_chunks):  # a chunk every match of which an earlier try played
        numbers = [job["match_no"] for job in jobs[c * size:(c + 1) * size]]
        if all(n in earlier for n in numbers):
            done[c] = [earlier[n] for n in numbers]
    todo = [c for c in range(n_chunks) if c not in done]
    workers = max(1, min(workers, len(todo) or 1))
    progress = Progress(TextColumn("ladder"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TimeRemainingColumn(), console=console or Console(stderr=True), disable=quiet,
                        transient=False)
    task = progress.add_task("ladder", total=len(jobs), completed=sum(len(r) for r in done.values()))

    def finished(chunk: int, rows: list[dict]) -> None:
        done[chunk] = rows
        if partial is not None:
            partial.add(rows)
        progress.update(task, advance=len(rows))

    try:
        if workers == 1 or not todo:
            init_worker(payload)
            progress.start()
            try:
                for chunk in todo:
                    finished(*play_chunk(chunk))
            finally:
                progress.stop()
        else:
            from workbench.executors import LocalExecutor

            executor = LocalExecutor(workers, payload, (init_worker, play_chunk))
            aborted = True
            try:
                progress.start()
                for chunk in todo:
                    executor.submit(chunk)
                while len(done) < n_chunks:
                    finished(*executor.next_done())
                aborted = False
            finally:
                progress.stop()
                executor.close(abort=aborted)
    finally:
        if partial is not None:
            partial.close()
    rows = [row for chunk in sorted(done) for row in done[chunk]]
    return pl.DataFrame(rows, schema=MATCH_SCHEMA)


MATCH_SCHEMA = {
    "match_no": pl.Int64, "pair_no": pl.Int64, "pilot_a": pl.Utf8, "pilot_b": pl.Utf8, "block": pl.Int64,
    "seed": pl.Int64, "pilot_0": pl.Utf8, "pilot_1": pl.Utf8, "deck_0": pl.Utf8, "deck_1": pl.Utf8,
    "winner_seat": pl.Int64, "winner_pilot": pl.Utf8, "reason": pl.Utf8, "turns": pl.Int64,
    "decisions": pl.Int64, "decisions_0": pl.Int64, "decisions_1": pl.Int64, "cpu_s": pl.Float64,
    "cpu_0": pl.Float64, "cpu_1": pl.Float64, "wall_ms": pl.Float64, "error": pl.Utf8,
}


# --- the command -------------------------------------------------------------------------------------

def partial_folder(db: Path) -> Path:
    """Where a ladder's finished chunks wait for the rest (beside the store it will go into)."""
    return Path(db).resolve().parent / ".ladder-partial"


def _check_outputs(db: Path, csv_dir: Path | None) -> None:
    from workbench.outputs import check_folder
    from workbench.store_guard import check_store_path

    check_store_path(db)
    check_folder(csv_dir, "--csv")


def csv_frames(ladder: pl.DataFrame, pairs: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The two CSVs' frames: the documented leading columns first, the rest after."""
    lf = ladder.select(LADDER_CSV_FIRST + [c for c in ladder.columns if c not in LADDER_CSV_FIRST])
    pf = pairs.select(PAIRS_CSV_FIRST + [c for c in pairs.columns if c not in PAIRS_CSV_FIRST])
    return lf, pf


def run_ladder(game: str, pilots: list[str], matches: int, deck_ids: list[str] | None, seed: int, rules: str,
               workers: int | None, db: Path, csv_dir: Path | None, quiet: bool, out: Console, err: Console,
               data_dir=None) -> int:
    from reports.export import write_frame
    from reports.ladder import ladder_tables
    from workbench.farm import default_workers
    from workbench.local_pool import ChunkKillsWorkers
    from workbench.store import Store, interrupts_deferred
    from workbench.version import code_version

    workers = workers if workers is not None else default_workers()
    _check_outputs(db, csv_dir)
    payload = plan(game, rules, deck_ids, pilots, matches, seed, workers, data_dir)
    n_pairings = len(games.deck_pairings(len(payload["deck_ids"])))
    block = 2 if n_pairings == 1 and len(payload["deck_ids"]) == 1 else 4
    if matches % (block * n_pairings) and not quiet:
        err.print(f"note: {matches} matches per pair do not cover the field's {n_pairings} deck pairing(s) evenly "
                  f"(a multiple of {block * n_pairings} would)", soft_wrap=True)
    partial = PartialChunks(partial_folder(db), f"{payload['key']}:{code_version()}")
    resumed = len(partial.load())
    if resumed and not quiet:
        err.print(f"resuming: {resumed:,} of {len(payload['jobs']):,} matches were played by an earlier try "
                  f"({partial.path})", soft_wrap=True)
    started = time.perf_counter()
    try:
        frame = play(payload, workers, quiet, err, partial)
        seconds = time.perf_counter() - started
        ladder, pairs = ladder_tables(frame, pilots)
        meta = {"game": game, "rules_version": rules, "rules_hash": payload["rules_hash"],
                "decks": ",".join(payload["deck_ids"]), "matches_per_pair": matches, "base_seed": seed,
                "code_version": code_version()}
        with interrupts_deferred():  # stored and its partial file gone, or neither: never stored twice
            ladder_id = Store(db).record_ladder([{**meta, **r} for r in ladder.to_dicts()],
                                                [{"pair_no": i, **r} for i, r in enumerate(pairs.to_dicts())],
                                                frame.to_dicts())
            partial.discard()
    except KeyboardInterrupt:
        raise Interrupted(f"ladder stopped; nothing was stored, but the matches played so far are kept in "
                          f"{partial.path}: run the same command again to go on from there") from None
    except ChunkKillsWorkers as exc:  # a chunk that kills its worker every time it is played
        raise UserError(f"ladder stopped: {exc}; nothing was stored") from None
    try:  # the ladder is stored: a stop now loses only what is left to show or write
        show(ladder, pairs, out, f"ladder {ladder_id}: {game} ({rules}), {len(payload['deck_ids'])} decks, "
             f"{matches} matches per pair")
        errors = int(frame["error"].is_not_null().sum())
        err.print(f"ladder {ladder_id}: {frame.height} matches in {seconds:,.1f} s stored in {db}"
                  + (f"; {errors} matches raised errors (counted as draws; see ladder_matches.error)" if errors else ""),
                  soft_wrap=True)
        if csv_dir is not None:
            csv_dir.mkdir(parents=True, exist_ok=True)
            lf, pf = csv_frames(ladder, pairs)
            for path in write_frame(lf, csv=csv_dir / "ladder.csv") + write_frame(pf, csv=csv_dir / "ladder_pairs.csv"):
                err.print(f"wrote {path}")
    except KeyboardInterrupt:
        raise Interrupted(f"ladder {ladder_id} is stored in {db}; stopped before its tables were shown"
                          + (" and its CSVs written" if csv_dir is not None else "")) from None
    return ladder_id


def _num(x, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def show(ladder: pl.DataFrame, pairs: pl.DataFrame, out: Console, title: str) -> None:
    t = Table("pilot", "rating [95%]", "matches", "score", "decisions/CPU-s", "matches/CPU-s", title=title,
              caption="Bradley-Terry on the Elo scale, anchor = 1500 (intervals relative to it); a draw counts half")
    for r in ladder.iter_rows(named=True):
        rating = f"{r['rating']:,.0f}" + (" (anchor)" if r["anchor"] else f" [{r['rating_lo']:,.0f}, {r['rating_hi']:,.0f}]")
        t.add_row(r["pilot"], rating, f"{r['matches']:,}", _num(r["score"], ".1%"),
                  _num(r["decisions_per_s"], ",.0f"), _num(r["matches_per_s"], ",.1f"))
    out.print(t)
    p = Table("pilot A", "pilot B", "matches", "A's win rate [95% Wilson]", "A wins", "B wins", "draws",
              title="pairs (a draw counts half)")
    for r in pairs.iter_rows(named=True):
        p.add_row(r["pilot_a"], r["pilot_b"], f"{r['matches']:,}",
                  f"{_num(r['a_win_rate'], '.1%')} [{_num(r['lo'], '.1%')}, {_num(r['hi'], '.1%')}]",
                  str(r["a_wins"]), str(r["b_wins"]), str(r["draws"]))
    out.print(p)
