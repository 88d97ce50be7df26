"""``workbench simulate``: a run spec into the farm and the store, with a progress bar."""
from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Callable, NamedTuple

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from cardsdb.workspace import data_root
from reports.db import StoreError
from workbench import games, locks
from workbench.errors import Interrupted, UserError
from workbench.farm import FarmReport, default_workers, run_chunks
from workbench.limits import MAX_CHUNK, SEED_MAX, SEED_MIN, check_total
from workbench.local_pool import ChunkKillsWorkers
from workbench.runspec import RunSpec, deck_hash, tables
from workbench.store import Store, is_interrupt, left_running, stop_runs_left_running, stops_said, this_code
from workbench.store_guard import check_store_path


def card_rows(ruleset) -> list[dict]:
    """The store's ``cards`` rows of a rules version: shared columns plus the game's own as JSON,
    and the faction's (or clan's) display name."""
    sch = ruleset.schema
    rows = []
    for card in ruleset.cards.values():
        summary = sch.card_summary(card, ruleset.constants)
        extra = card.model_dump(by_alias=True, mode="json", exclude={"id", "name", "type"})
        rows.append({"game": ruleset.game, "rules_version": ruleset.version, "rules_hash": ruleset.hash,
                     "card": card.id, **summary, "extra": json.dumps(extra, sort_keys=True),
                     "faction_name": ruleset.factions.get(summary["faction"])})
    return rows


def parse_events(value: str) -> float:
    if value == "all":
        return 1.0
    if value == "none":
        return 0.0
    try:
        rate = float(value)
    except ValueError:
        raise UserError(f"--events takes all, none or a share between 0 and 1, not {value!r}") from None
    if not 0.0 <= rate <= 1.0:
        raise UserError(f"--events share must be between 0 and 1, not {rate}")
    return rate


def new_run(game: str, rules: str, deck_ids: list[str] | None, pilots: list[str], *, matches: int, seed: int,
            swap: bool, events: float, chunk_size: int | None, workers: int, data_dir=None,
            pilot_salt: int = 0, pairings: list[tuple[int, int]] | None = None,
            substitute: dict[str, dict[str, str]] | None = None, mode: str = "duel",
            seats: int | None = None, bosses: list[str] | None = None,
            boss_pilot: str | None = None, loaded: tuple | None = None) -> tuple[RunSpec, dict]:
    """The spec of a new run and what its workers need, checked (one-line errors). ``pairings``
    (default: every pairing of the decks) and ``substitute`` (an intervention) are for
    ``workbench value``; ``mode`` and ``seats`` seat a free-for-all (runspec.py). ``loaded``: the
    (game data, resolved version) to play instead of loading ``rules`` from the files (a version
    ``workbench tune`` tries before it writes one)."""
    from sim.core.pilots import check_pilot, weights_fingerprint
    from sim.registry import engine

    data, ruleset = loaded or games.load(game, rules, data_dir)
    decks = games.decks_for(data, ruleset, deck_ids)
    for pilot in pilots:
        try:
            check_pilot(pilot, engine(game))
        except ValueError as exc:
            raise UserError(str(exc)) from None
    if len(pilots) not in (1, len(decks)):
        raise UserError(f"--pilots names {len(pilots)} pilots for {len(decks)} decks: give one, or one per deck")
    n_seats = games.check_mode(game, mode, seats, len(decks))
    if mode == "turf":
        bosses = games.check_bosses(ruleset, bosses)
        boss_pilot = boss_pilot or pilots[0]
        try:
            check_pilot(boss_pilot, engine(game))  # its weight set too, as --pilots
        except ValueError as exc:
            raise UserError(f"--boss-pilot: {exc}") from None
    elif bosses or boss_pilot:
        raise UserError("--boss and --boss-pilot are for --mode turf")
    check_counts(matches, seed, chunk_size)
    if chunk_size is None:
        n_pairings = len(pairings) if pairings else len(tables(len(decks), n_seats)) * len(bosses or [1])
        chunk_size = max(n_seats, min(200, (matches * n_pairings) // (8 * max(1, workers))))
        chunk_size -= chunk_size % n_seats  # keep the seatings of a seed together
    spec = RunSpec(game=game, rules=rules, decks=[d.id for d in decks], pilots=list(pilots), matches=matches,
                   seed=seed, swap=swap, event_sample=events, chunk_size=chunk_size,
                   rules_hash=ruleset.hash, deck_hash=deck_hash(decks), deck_hashes=[deck_hash([d]) for d in decks],
                   pilot_salt=pilot_salt,
                   weights_hash=weights_fingerprint([*pilots, *([boss_pilot] if boss_pilot else [])], engine(game)),
                   pairings=list(pairings or []), substitute=dict(substitute or {}), mode=mode, seats=n_seats,
                   bosses=list(bosses or []) if mode == "turf" else [], boss_pilot=boss_pilot if mode == "turf" else "")
    check_total(f"{matches:,} {'series' if mode == 'series' else 'matches'} x {len(spec.pairings)} "
                f"{'tables' if mode == 'ffa' else 'pairings'}",
                spec.matches_total)
    return spec, {**payload_for(spec, ruleset, decks), "data_dir": str(data_root(data_dir).resolve())}


def check_counts(units: int, seed: int, chunk_size: int | None, unit: str = "--matches") -> None:
    """The numbers of a run spec that did not come through the CLI's own checks (a batch file,
    a caller in Python) within what the store keeps."""
    if units < 1:
        raise UserError(f"{unit} must be at least 1")
    if not SEED_MIN <= seed <= SEED_MAX:
        raise UserError(f"seed {seed} does not fit the store's 64-bit seeds ({SEED_MIN} to {SEED_MAX})")
    if chunk_size is not None and not 1 <= chunk_size <= MAX_CHUNK:
        raise UserError(f"--chunk-size must be from 1 to {MAX_CHUNK:,}, not {chunk_size}")


def create(store: Store, spec, payload: dict) -> int:
    """Record a new run (its spec, and its rules version's cards) in the store: a RunSpec, or a
    CampaignSpec for a campaign batch."""
    from cardsdb.loader import Ruleset

    store.init()
    ruleset = Ruleset.from_payload(payload["ruleset"])
    bosses = {boss: ruleset.bosses[boss].name for boss in getattr(spec, "bosses", None) or ()}
    return store.create_run(spec.to_json(), spec.spec_hash(), card_rows(ruleset), spec.n_chunks, this_code(),
                            payload.get("data_dir"), boss_names=bosses)


def find_done(store: Store, spec: RunSpec) -> int | None:
    """A finished run with exactly this spec (same rules hash, decks, pilots, seeds), if any; else
    one that holds the same matches cut into other chunks (another worker count chose another
    chunk size), the newest first. Either with at least the event log asked for: a run stored
    with ``--events none`` does not answer a command that asks for the events. Either played by
    this code (Store.find_run, Store.done_runs): ``passed_over`` names one another code played."""
    exact = store.find_run(spec.spec_hash(), status="done", events=(">=", spec.event_sample))
    if exact is not None:
        return exact
    wanted = spec.result_hash()
    for run_id, stored in store.done_runs(spec.game, spec.rules_hash):
        if _same_matches(stored, spec, wanted):
            return run_id
    return None


def _same_matches(stored: dict, spec: RunSpec, wanted: str) -> bool:
    """A finished run's spec holds the matches of ``spec`` (result hash ``wanted``), with at least
    its event log."""
    return (stored.get("kind", "duel") != "campaign" and RunSpec.from_json(stored).result_hash() == wanted
            and stored.get("event_sample", 1.0) >= spec.event_sample)


# what a stored run of a spec's matches may be, besides finished, to be played on (``find_resumable``,
# ``fresh_run``). A failed run too: what it stored is what this code plays on these seeds, so
# finishing it gives the matches a new run would (a failure that comes from a chunk itself comes
# back, as it would in a new run), where a new run played everything again
RESUMABLE = ("stopped", "running", "failed")


def passed_over(store: Store, spec: RunSpec, resumable: tuple[str, ...] = RESUMABLE) -> dict | None:
    """The newest stored run that ``find_done``, or a look for a run of these matches with one of
    the ``resumable`` statuses (``find_resumable``), would have taken but for its code version:
    another code played it (Store.other_code_runs)."""
    spec_hash, wanted = spec.spec_hash(), spec.result_hash()
    for row in store.other_code_runs(spec.game, spec.rules_hash):
        if row["status"] == "done":
            if row["spec_hash"] == spec_hash and row["event_sample"] >= spec.event_sample:
                return row
            if _same_matches(json.loads(row["spec"]), spec, wanted):
                return row
        elif row["status"] in resumable and row["event_sample"] == spec.event_sample and (
                row["spec_hash"] == spec_hash or _goes_on_with(json.loads(row["spec"]), spec, wanted)):
            return row
    return None


def find_resumable(store: Store, spec: RunSpec) -> tuple[int, RunSpec, str] | None:
    """(run id, its stored spec, its status) of the newest run of these matches that this code
    began and did not finish: stopped, left running, or failed, in that order. Found by what
    decides its matches (``result_hash``), not by how it was cut into chunks: the default chunk
    size follows --workers, and a stopped run rerun with another --workers was played afresh.
    It goes on with its stored spec (its chunk size: its stored chunks are numbered by it), and
    the same event log (its stored half must not keep another sample than the rest)."""
    wanted = spec.result_hash()
    for status in RESUMABLE:
        for run_id, stored in store.runs_with(spec.game, spec.rules_hash, status):
            if _goes_on_with(stored, spec, wanted):
                return run_id, RunSpec.from_json(stored), status
    return None


def _goes_on_with(stored: dict, spec: RunSpec, wanted: str) -> bool:
    """An unfinished run's spec holds the matches of ``spec`` (result hash ``wanted``) with the
    same event log."""
    if stored.get("kind", "duel") == "campaign" or stored.get("event_sample", 1.0) != spec.event_sample:
        return False
    try:
        return RunSpec.from_json(stored).result_hash() == wanted
    except (TypeError, KeyError):  # a spec another code version wrote, with fields this one lacks
        return False


def fresh_run(store: Store, spec: RunSpec, payload: dict, resumable: tuple[str, ...] = RESUMABLE,
              instead: dict | None = None) -> int:
    """A new run of ``spec``, where no run this code played holds its matches (``create``). A run
    of them another code version played (``instead``, the one a resume named; else the newest
    ``passed_over``) is named in one line on stderr, with why it was not reused."""
    passed = instead or passed_over(store, spec, resumable)
    run_id = create(store, spec, payload)
    if passed is not None:
        store.say_not_reused(passed, f"its matches are played afresh as run {run_id}")
    return run_id


def payload_for(spec: RunSpec, ruleset, decks) -> dict:
    return {"spec": spec.to_json(), "ruleset": ruleset.to_payload(),
            "decks": [d.model_dump(by_alias=True) for d in decks], "run_id": None}


def check_resumable(store: Store, run_id: int) -> dict:
    """The run's row, if it exists and is not done. Call it holding the run's ``writer_lock``:
    then no other process is writing the run, nor can start to."""
    row = store.run(run_id)
    if row is None:
        raise UserError(f"{store.path}: no run {run_id}")
    if row["status"] == "done":
        raise UserError(f"run {run_id} is already done ({row['matches_done']} {_words(row).unit})")
    return row


class _Words(NamedTuple):
    what: str  # what a stored run is called
    unit: str  # what it counts


def _words(row: dict) -> _Words:
    """How messages name a stored run: a campaign batch counts campaign runs, a run matches."""
    return _Words("campaign batch", "campaign runs") if row.get("kind") == "campaign" else _Words("run", "matches")


def writer_lock(store: Store, run_id: int, console: Console | None = None):
    """Hold run ``run_id``'s writer lock (``<db>.locks/run-N.lock``), which the process playing
    the run holds until it ends, however it ends. Another process holding it: refuse at once in
    one line, or with a ``console``, say so there and wait for it."""
    path = locks.lock_file(store.path, f"run-{run_id}")
    if console is None:
        return locks.exclusive(path, busy=lambda who: UserError(f"run {run_id} is still being written by {who}"))
    return locks.exclusive(path, waiting=lambda who: console.print(f"waiting for {who}, which is writing run {run_id}",
                                                                   markup=False, highlight=False))


def existing_run(store: Store, run_id: int, game: str | None = None) -> int:
    """``run_id`` if the store holds it (checked before any lock file is made for it) and, when
    the command line names a ``game`` beside ``--resume``, it is a run of that game."""
    row = store.run(run_id)
    if row is None:
        raise UserError(f"{store.path}: no run {run_id}")
    if game is not None and game != row["game"]:
        raise UserError(f"run {run_id} is a {row['game']} {_words(row).what}, not {game}: leave the game out to resume it")
    return run_id


def resume_data(row: dict, data_dir=None):
    """The card data folder a resume reads: the one named (``--data``, or WORKBENCH_DATA), else the
    one the run recorded when it started (a run begun with ``--data my-cards`` is resumed from
    my-cards, not from the shipped data, which lacks its rules version). A recorded folder that is
    gone is one line: its cards cannot be read again."""
    from cardsdb.workspace import is_shipped, named_data

    recorded = row.get("data_dir")
    if named_data(data_dir) or not recorded or is_shipped(recorded):
        return data_dir
    if not os.path.isdir(recorded):
        raise UserError(f"run {row['run_id']} read its cards from {recorded}, which is gone: pass --data with the "
                        "folder it was started from")
    return recorded


def resumed_run(store: Store, run_id: int, data_dir=None) -> tuple[RunSpec, dict, dict]:
    row = check_resumable(store, run_id)
    if row.get("kind") == "campaign":
        raise UserError(f"run {run_id} is a campaign batch: resume it with workbench simulate-run --resume {run_id}")
    spec = RunSpec.from_json(json.loads(row["spec"]))
    folder = resume_data(row, data_dir)
    data, ruleset = games.load(spec.game, spec.rules, folder)
    decks = games.decks_for(data, ruleset, spec.decks)
    from sim.core.pilots import weights_fingerprint
    from sim.registry import engine

    # the pilots' weights as they are now (a run from before the spec held them is not asked)
    weights = weights_fingerprint([*spec.pilots, *([spec.boss_pilot] if spec.boss_pilot else [])],
                                  engine(spec.game)) if spec.weights_hash else ""
    now_spec = RunSpec.from_json({**spec.to_json(), "rules_hash": ruleset.hash, "deck_hash": deck_hash(decks),
                                  "weights_hash": weights,
                                  **({"deck_hashes": [deck_hash([d]) for d in decks]} if spec.deck_hashes else {})})
    if now_spec.spec_hash() != row["spec_hash"]:
        raise UserError(f"run {run_id}: {what_changed(spec, now_spec)} since the run started; start a new run instead")
    # (the folder is recorded if its matches are played afresh as a new run: another code played it)
    return spec, {**payload_for(spec, ruleset, decks), "data_dir": str(data_root(folder).resolve())}, row


def what_changed(then: RunSpec, now: RunSpec) -> str:
    """Which of a stopped run's inputs differ now, in words: its rules version's cards and
    constants, or the contents of its decks (a deck edit is not a rules change)."""
    changed = []
    if then.rules_hash != now.rules_hash:
        changed.append(f"rules version {then.rules!r} changed (hash {then.rules_hash} -> {now.rules_hash})")
    if then.deck_hash != now.deck_hash:
        changed.append(f"its decks ({', '.join(then.decks)}) were edited (deck hash {then.deck_hash} -> {now.deck_hash})")
    if then.weights_hash != now.weights_hash:
        changed.append(f"the weights its pilots ({', '.join(dict.fromkeys(then.pilots))}) think with changed")
    return " and ".join(changed) or "its spec changed"


def execute(store: Store, run_id: int, spec, payload: dict, workers: int, quiet: bool,
            console: Console, cluster: str | None = None, parts: str | None = None, worker=None,
            command: str = "simulate", unit: str = "matches", wait_for_writer: bool = False) -> FarmReport:
    """Play the chunks of the run not stored yet; mark the run done, stopped or failed.
    ``spec`` is a RunSpec (duels) or a CampaignSpec (``worker`` then plays campaign chunks;
    ``command`` names the command that resumes it). The run's writer lock is held throughout:
    another process writing the run makes this refuse, or with ``wait_for_writer`` wait for it
    (and find the run done, or finish it). A stop (Ctrl-C, SIGTERM) at any point is one line
    with the command that finishes the run, and leaves it ``stopped``."""
    resume = resume_command(command, run_id, store)
    # a stop before this process held the run (or after, a second Ctrl-C while it was being marked)
    with stops_said(lambda _left: f"run {run_id} stopped; finish it with: {resume}"):
        store.init()
        with writer_lock(store, run_id, console if wait_for_writer else None):
            return _play(store, run_id, spec, payload, workers, quiet, console, cluster, parts, worker, unit,
                         resume)


def resume_command(command: str, run_id: int, store: Store) -> str:
    return f"workbench {command} --resume {run_id} --db {store.path}"


def _play(store: Store, run_id: int, spec, payload: dict, workers: int, quiet: bool, console: Console,
          cluster, parts, worker, unit: str, resume: str) -> FarmReport:
    payload = {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}
    progress = Progress(TextColumn(f"run {run_id}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[rate]} " + unit + "/s"), TimeElapsedColumn(), TimeRemainingColumn(),
                        console=console, disable=quiet, transient=False)
    try:
        if store.run(run_id)["status"] == "done":  # the writer waited for finished it
            return FarmReport(0, 0, 0.0)
        stored = store.done_chunks(run_id)
        # a stored chunk whose event-log part is gone is played again: its part comes back as it
        # was (the writer does not store its rows twice)
        todo = sorted(set(range(spec.n_chunks)) - stored | set(store.parts_missing(run_id)))
        task = progress.add_task("run", total=spec.matches_total, rate="-",
                                 completed=sum(len(spec.chunk_range(c)) for c in stored))
        store.set_status(run_id, "running", pid=os.getpid())
        report = run_chunks(store, run_id, payload, todo, workers, _advance(progress, task),
                            on_start=progress.start, cluster=cluster, parts=parts,
                            **({"worker": worker} if worker is not None else {}))
    except (KeyboardInterrupt, Exception) as exc:
        progress.stop()
        raise _ended(store, run_id, exc, resume) from None
    progress.stop()
    _mark_done(store, run_id)
    return report


def _advance(progress: Progress, task) -> Callable[[int, int], None]:
    """The farm's ``on_chunk``: the bar moves by each stored chunk, with the rate of this play."""
    started, fresh = time.perf_counter(), [0]

    def on_chunk(chunk: int, n: int) -> None:
        fresh[0] += n
        rate = fresh[0] / max(1e-9, time.perf_counter() - started)
        progress.update(task, advance=n, rate=f"{rate:,.0f}")
    return on_chunk


def _ended(store: Store, run_id: int, exc: BaseException, resume: str) -> Exception:
    """The one line for a run that ended before it was done, with the run marked: a stop
    (Ctrl-C, SIGTERM, or DuckDB's ``Query interrupted`` for them) or a chunk that kills its
    workers leave it ``stopped``; any other error ``failed``. Either is finished by ``resume``,
    or by the same command again (``find_resumable``)."""
    if is_interrupt(exc):
        held = _mark_ended(store, run_id, "stopped", "interrupted")
        return Interrupted(f"run {run_id} stopped{held}; finish it with: {resume}")
    if isinstance(exc, ChunkKillsWorkers):
        held = _mark_ended(store, run_id, "stopped", str(exc))
        return UserError(f"run {run_id} stopped{held}: {exc}; every other chunk finished is stored; "
                         f"finish it with: {resume}")
    if isinstance(exc, UserError):  # said in its own line (a cluster that dropped a chunk again and again)
        _mark_ended(store, run_id, "stopped", str(exc))
        return exc
    what = _failure(exc)
    held = _mark_ended(store, run_id, "failed", what)
    return UserError(f"run {run_id} failed{held}: {what}; once that is fixed, finish it with: {resume}")


# what the operating system says when a disk takes no more writes (the store's or the event logs')
_NO_ROOM = {errno.ENOSPC: "no space left on the disk", errno.EDQUOT: "the disk quota is used up",
            errno.EROFS: "the disk is read-only"}


def _failure(exc: BaseException) -> str:
    """An error that failed a run, in one line: a store's line as it is (reports/db.py), a full
    or read-only disk said so, anything else with its type."""
    text = " ".join(str(exc).split())
    if isinstance(exc, StoreError):
        return text
    code = getattr(exc, "errno", None)
    if code not in _NO_ROOM and "No space left on device" in text:  # Arrow's errors carry no errno
        code = errno.ENOSPC
    if code in _NO_ROOM:
        return f"{_NO_ROOM[code]} ({type(exc).__name__}: {text})"
    return f"{type(exc).__name__}: {text}"


def _mark_done(store: Store, run_id: int) -> None:
    """Mark the run done. A stop that lands meanwhile is held until the status is written
    (Store.set_status): then the run is done, and the stop is said as such; one that lands
    while the write waits for the file leaves it to the run's stop."""
    try:
        store.set_status(run_id, "done", pid=None)
    except KeyboardInterrupt:
        if left_running(store.path, run_id):
            raise
        raise Interrupted(f"run {run_id} is done; stopped after it") from None


def _mark_ended(store: Store, run_id: int, status: str, note: str) -> str:
    """Mark a stopped or failed run; when the store cannot be written within the short wait
    (Store.set_status: another process holds it, or its disk is full), the run keeps reading
    ``running`` and is resumed all the same (its writer lock dies with this process): say so in
    the user's one line rather than replace it."""
    try:
        store.set_status(run_id, status, note=note, pid=None)
    except StoreError as exc:
        why = "was held by another process" if "has held the database" in str(exc) else "could not be written"
        return f" (the store {why}, so it still reads 'running')"
    return ""


class Played(NamedTuple):
    """What ``play_or_reuse`` did: the run holding the matches, and the farm's report (None when
    a finished run was reused)."""
    run_id: int
    report: FarmReport | None


def play_or_reuse(store: Store, spec: RunSpec, payload: dict, workers: int, quiet: bool, console: Console,
                  cluster: str | None = None, parts: str | None = None, instead: dict | None = None) -> Played:
    """A finished run of exactly these matches: reused if stored (event-log parts gone from it
    written back, ``mend_parts``), finished if stopped, left running or failed
    (``find_resumable``), else played; only a run this code played (workbench/store.py
    ``this_code``): one another code version played is named in one line and its matches played
    afresh as a new run (``instead``: the run a ``--resume`` named, which is such a run). One
    process at a time finds or plays a given set of matches (a lock on its result hash), so the
    same command started twice at once plays them once: the second says whom it waits for, then
    reuses the run."""
    matches = locks.lock_file(store.path, f"matches-{spec.result_hash()}")
    with locks.exclusive(matches, waiting=lambda who: console.print(
            f"waiting for {who}, which is playing the same matches ({spec.game} {spec.rules}) into this store",
            markup=False, highlight=False)):
        run_id = find_done(store, spec)
        if run_id is not None:
            if instead is not None:
                store.say_not_reused(instead, f"run {run_id}, which this code played, holds its matches")
            console.print(f"reusing run {run_id} ({spec.rules}, same seeds, decks and pilots)", markup=False)
            mend_parts(store, run_id, payload, workers, console, cluster, parts)
            return Played(run_id, None)
        found = find_resumable(store, spec)
        if found is not None:  # a live writer of it is waited for (execute)
            run_id, spec, status = found
            payload = {**payload, "spec": spec.to_json()}  # its own chunk size
            if instead is not None:
                store.say_not_reused(instead, f"run {run_id}, which this code began, is finished instead")
            what = {"running": "run left running"}.get(status, f"{status} run")
            console.print(f"finishing {what} {run_id} ({spec.rules})", markup=False)
        else:
            run_id = fresh_run(store, spec, payload, instead=instead)
        return Played(run_id, execute(store, run_id, spec, payload, workers, quiet, console, cluster, parts,
                                      wait_for_writer=True))


def mend_parts(store: Store, run_id: int, payload: dict, workers: int, console: Console,
               cluster: str | None = None, parts: str | None = None) -> None:
    """A finished run some of whose event-log parts are gone (deleted, a copy without them): the
    chunks that logged them are played again, with the run's stored spec, which writes each part
    back as it was (matches are deterministic); their rows are stored already and stay."""
    missing = store.parts_missing(run_id)
    if not missing:
        return
    stored = json.loads(store.run(run_id)["spec"])
    console.print(f"run {run_id}: {len(missing)} of its event-log parts are missing; playing their chunks again "
                  "to write them back", markup=False, highlight=False)
    payload = {**payload, "spec": stored, "run_id": run_id, "events_dir": str(store.events_dir)}
    try:
        with writer_lock(store, run_id, console):
            run_chunks(store, run_id, payload, missing, workers, cluster=cluster, parts=parts)
    except Exception as exc:
        if is_interrupt(exc):
            raise KeyboardInterrupt from None
        raise UserError(f"run {run_id}: its missing event-log parts could not be written again: "
                        f"{_failure(exc)}") from None
    if store.parts_missing(run_id):  # a chunk that logged events before logs none now: not this code's
        raise UserError(f"run {run_id}: its missing event-log parts could not be written again")


def ensure_run(store: Store, spec: RunSpec, payload: dict, workers: int, quiet: bool, console: Console,
               cluster: str | None = None, parts: str | None = None) -> int:
    """The id of a finished run of these matches (``play_or_reuse``)."""
    return play_or_reuse(store, spec, payload, workers, quiet, console, cluster, parts).run_id


def interrupted(otherwise: str = "interrupted") -> Interrupted:
    """The one line for a stop (Ctrl-C, SIGTERM) that came outside a run's play loop, which says
    its own (every command's stop ends here: workbench/cli.py): each run this process marked
    running and did not end is marked stopped (a stop while it was being made) and named with
    the command that finishes it; else ``otherwise``."""
    return Interrupted(runs_named(stop_runs_left_running()) or otherwise)


@contextmanager
def again_to_finish(command: str) -> Iterator[None]:
    """Around a command that plays runs on its way to its own result (``diff``, ``value``,
    ``tune``): a stop's line says to run that command again, which finishes a stopped run, reuses
    the finished ones and then makes the result. The run's own line (``simulate --resume``)
    finishes the run but not the command: a diff resumed that way had no diff and no CSV."""
    try:
        with stops_said(stop_line):
            yield
    except Interrupted as exc:
        said = str(exc)
        raise Interrupted(f"{command} stopped; run the same command again to finish it: it reuses the runs that "
                          "finished and finishes a stopped one" + ("" if said == "interrupted" else f" ({said})")) from None


def stop_line(left: list[tuple]) -> str:
    """A command's line for a stop: the runs it left stopped, each with the command that finishes
    it (``runs_named``), else "interrupted"."""
    return runs_named(left) or "interrupted"


def runs_named(left: list[tuple]) -> str:
    """Each run a stop left stopped (store, run id, kind) with the command that finishes it."""
    return "; ".join(f"run {run_id} stopped; finish it with: "
                     + resume_command("simulate-run" if kind == "campaign" else "simulate", run_id, Store(path))
                     for path, run_id, kind in left)


def simulate(game, rules, decks, pilots, matches, seed, swap, events, chunk_size, workers, db,
             resume, quiet, data_dir=None, console: Console | None = None, cluster: str | None = None,
             parts: str | None = None, mode: str = "duel", seats: int | None = None,
             bosses: list[str] | None = None, boss_pilot: str | None = None) -> int:
    """``workbench simulate``; a stop before or after the run's play loop is one line too, with
    the command that goes on (``interrupted``)."""
    again = (f"run {resume} stopped; finish it with: {resume_command('simulate', resume, Store(db))}"
             if resume is not None else "interrupted; run the same command again to go on")
    with stops_said(lambda left: runs_named(left) or again):
        return _simulate(game, rules, decks, pilots, matches, seed, swap, events, chunk_size, workers, db, resume,
                         quiet, data_dir, console, cluster, parts, mode, seats, bosses, boss_pilot)


def _simulate(game, rules, decks, pilots, matches, seed, swap, events, chunk_size, workers, db, resume, quiet,
              data_dir, console, cluster, parts, mode, seats, bosses, boss_pilot) -> int:
    console = console or Console(stderr=True)
    store = Store(db)
    workers = workers or default_workers(cluster)
    if resume is not None:
        check_store_path(db, must_exist=True)
        with writer_lock(store, existing_run(store, resume, game)):  # a second resume of it refuses
            spec, payload, row = resumed_run(store, resume, data_dir)
            if store.played_here(row):
                run_id, report = resume, execute(store, resume, spec, payload, workers, quiet, console, cluster,
                                                 parts)
        if not store.played_here(row):  # another code version played it: its matches are played afresh
            run_id, report = play_or_reuse(store, spec, payload, workers, quiet, console, cluster, parts,
                                           instead=row)
    else:
        if game is None:
            raise UserError("name a game (e.g. `workbench simulate frontier`) or --resume a run")
        games.known_game(game)
        spec, payload = new_run(game, rules, decks, pilots, matches=matches, seed=seed, swap=swap, events=events,
                                chunk_size=chunk_size, workers=workers, data_dir=data_dir, mode=mode, seats=seats,
                                bosses=bosses, boss_pilot=boss_pilot)
        check_store_path(db)  # everything checked before the store is touched
        run_id, report = play_or_reuse(store, spec, payload, workers, quiet, console, cluster, parts)
    row = store.run(run_id)
    mode = {"duel": "", "series": ", best-of series",
            "turf": f", Turf Defense against {len(spec.bosses)} boss{'es' if len(spec.bosses) > 1 else ''}"
            }.get(spec.mode, f", {spec.seats}-seat {spec.mode}")
    unit = "series" if spec.mode == "series" else "matches"
    console.print(f"run {run_id}: {row['matches_done']} {unit} of {spec.game} ({spec.rules}{mode}) stored in "
                  f"{store.path}" + (f"; {report.matches_stored} now at {report.matches_per_second:,.0f} {unit}/s"
                                     if report is not None else "")
                  + (f"; {row['errors']} matches raised errors (see matches.error)" if row["errors"] else "")
                  + lost_workers(report), markup=False, highlight=False)
    return run_id


def lost_workers(report: FarmReport | None) -> str:
    """A note when worker processes died during the run (their chunks were played again)."""
    if report is None or not report.pool_breaks:
        return ""
    return (f"; a worker process died {report.pool_breaks} time{'s' if report.pool_breaks > 1 else ''} "
            "and its chunks were played again")
