"""``workbench diff --until-decided``: a paired diff played in rounds that stops as soon as the
sequential test of reports/sequential.py decides, for every deck the change touches, between "no
change of delta or more" and "a change of at least delta".

Both versions' runs are ordinary runs of ``--max-matches`` per pairing, cut into small chunks so
that a round is the same few chunks of every pairing: round r plays seeds r x R to (r + 1) x R - 1
of each pairing, first under the base version, then under the candidate. After each round the
test looks at the twins stored so far. When it decides, the runs stop there (status ``stopped``,
with a note: ``workbench simulate --resume`` plays the rest) and the diff is recorded with its
decision and the matches it used. The same command again reuses the stored rounds and reaches
the same answer without playing them again.
"""
from __future__ import annotations

import json
import os
import time
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console

from reports.diff import changed_cards, touched_decks, twins
from reports.sequential import Plan, Verdict, decided, overall, seed_differences, verdicts
from workbench import locks
from workbench.chunk import remove_unfinished_parts
from workbench.commands.diff import pct_points
from workbench.commands.simulate import find_done, fresh_run, writer_lock
from workbench.errors import UserError
from workbench.executors import make_executor
from workbench.farm import run_chunks
from workbench.runspec import RunSpec
from workbench.store import Store, is_interrupt

CHUNK = 10  # matches per chunk: a round of 25 seeds is 5 chunks of each pairing (both workers busy)


def round_matches(plan: Plan) -> int:
    return 2 * plan.round_seeds  # each seed from both seats


def max_matches_for(requested: int, plan: Plan) -> int:
    """--max-matches rounded up to whole rounds."""
    per = round_matches(plan)
    return max(per, -(-requested // per) * per)


def round_chunks(spec: RunSpec, plan: Plan, r: int) -> list[int]:
    """The chunks of round ``r``: the same seed range of every pairing."""
    per_pairing = spec.matches // spec.chunk_size
    k = round_matches(plan) // spec.chunk_size
    return [p * per_pairing + c for p in range(len(spec.pairings)) for c in range(r * k, (r + 1) * k)]


class Status:
    """The JSON status file a dashboard reads while the diff runs (written whole, atomically).
    ``pilots``: the pilots that play both versions' matches (each named once, in seat order), so
    every verdict read from it can say which pilots produced it; empty when a diff failed before
    its runs were planned."""

    def __init__(self, path: Path | None, game: str, base: str, candidate: str, max_matches: int,
                 pilots: list[str] | None = None):
        self.path = path
        self.doc = {"state": "running", "game": game, "base": base, "candidate": candidate,
                    "pilots": list(dict.fromkeys(pilots or [])), "matches": 0,
                    "max_matches": max_matches, "rounds": 0, "base_run": None, "candidate_run": None,
                    "diff_id": None, "decks": [], "message": "starting", "updated_at": None}

    def write(self, **changes) -> None:
        self.doc.update(changes, updated_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.doc, indent=1), encoding="utf-8")
        os.replace(tmp, self.path)


def deck_rows(found: list[Verdict]) -> list[dict]:
    """Verdicts as the status file and the store show them (changes in points)."""
    return [{"deck": v.deck, "seeds": v.seeds, "change": _pts(v.change), "lo": _pts(v.lo), "hi": _pts(v.hi),
             "llr_up": round(v.llr_up, 3), "llr_down": round(v.llr_down, 3), "decision": v.decision} for v in found]


def _pts(x: float) -> float | None:
    return None if x != x else round(100 * x, 2)


# a sequential diff goes on with this spec's run whatever its status (rounds already stored are kept)
ON_WITH = ("stopped", "running", "failed")


def open_run(store: Store, spec: RunSpec, payload: dict) -> int:
    """The run of these matches: a finished one however it was cut into chunks (a fixed diff of
    the same seeds and size), else this spec's run whatever its status (rounds already stored
    are kept), else a new one; only a run this code played (Store.find_run): a new one is said
    to replace one another code version played (``fresh_run``)."""
    done = find_done(store, spec)
    if done is not None:
        return done
    for status in ON_WITH:
        run_id = store.find_run(spec.spec_hash(), status=status, events=("=", spec.event_sample))
        if run_id is not None:
            return run_id
    return fresh_run(store, spec, payload, ON_WITH)


class Player:
    """One run's workers, started at its first round that has chunks to play and kept for the
    next rounds (closed by ``close``)."""

    def __init__(self, store: Store, run_id: int, payload: dict, workers: int, cluster, parts):
        self.store, self.run_id, self.workers, self.cluster, self.parts = store, run_id, workers, cluster, parts
        self.payload = {**payload, "run_id": run_id, "events_dir": str(store.events_dir)}
        if parts:
            self.payload["events_dir"] = parts
        self.executor = None
        # a finished run holds every match, however its chunks were cut: nothing to play (its
        # chunk numbers need not be this spec's)
        self.finished = store.run(run_id)["status"] == "done"

    def play(self, chunks: list[int]) -> int:
        if self.finished:
            return 0
        done = self.store.done_chunks(self.run_id)
        todo = [c for c in chunks if c not in done]
        if not todo:
            return 0
        if self.executor is None:
            self.store.set_status(self.run_id, "running", pid=os.getpid())
            self.executor = make_executor(self.workers, self.payload, self.cluster)
        return run_chunks(self.store, self.run_id, self.payload, todo, self.workers, cluster=self.cluster,
                          parts=self.parts, executor=self.executor).matches_stored

    def close(self, abort: bool = False) -> None:
        """End the run's workers; then a ``.part`` a worker left mid-write belongs to nobody and is
        removed (the farm does the same for the workers it starts itself)."""
        if self.executor is not None:
            self.executor.close(abort=abort)
            self.executor = None
            remove_unfinished_parts(self.payload["events_dir"], self.run_id)


def sequential_diff(store: Store, planned: list[tuple[RunSpec, dict]], plan: Plan, workers: int, quiet: bool,
                    err: Console, status_path: Path | None, cluster=None, parts=None) -> dict:
    """Play rounds until decided or ``--max-matches``; returns the runs, verdicts and decision."""
    (spec_b, pay_b), (spec_c, pay_c) = planned
    status = Status(status_path, spec_b.game, spec_b.rules, spec_c.rules, spec_b.matches_total,
                    pilots=spec_b.pilots)
    store.init()
    with ExitStack() as held:
        runs = []
        for spec, payload in planned:  # one process plays a given set of matches at a time
            held.enter_context(locks.exclusive(locks.lock_file(store.path, f"matches-{spec.result_hash()}"),
                                               waiting=lambda who: err.print(f"waiting for {who}", markup=False)))
            run_id = open_run(store, spec, payload)
            held.enter_context(writer_lock(store, run_id, err))
            runs.append(run_id)
        status.write(base_run=runs[0], candidate_run=runs[1], message="playing")
        players = [Player(store, run_id, payload, workers, cluster, parts) for run_id, (_s, payload) in zip(runs, planned)]
        try:
            result = _rounds(store, runs, planned, players, plan, quiet, err, status)
            for p in players:
                p.close()
        except BaseException as exc:
            for p in players:
                p.close(abort=True)
            for run_id in runs:
                if store.run(run_id)["status"] == "running":
                    store.set_status(run_id, "stopped", note="sequential diff interrupted", pid=None)
            if is_interrupt(exc):  # a stop, not a failure: the same command goes on from the stored rounds
                status.write(state="stopped", message="stopped (Ctrl-C or SIGTERM); run the same command again to go on")
            else:
                status.write(state="failed", message=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            raise
    return result


def _rounds(store, runs, planned, players, plan, quiet, err, status) -> dict:
    (spec_b, _), _ = planned
    n_rounds = spec_b.matches // round_matches(plan)
    found: list[Verdict] = []
    touched: list[str] = []
    for r in range(n_rounds):
        for player, (spec, _payload) in zip(players, planned):
            player.play(round_chunks(spec, plan, r))
        t = twins(store.path, runs[0], runs[1])
        if not touched:
            changed = changed_cards(store.path, runs[0], runs[1])
            ids = changed["card"].to_list() if not changed.is_empty() else []
            touched = tested_decks(touched_decks(store.path, runs[0], runs[1], ids, sorted(t["deck"].unique().to_list())),
                                   spec_b)
        seeds = (r + 1) * plan.round_seeds  # this round's look: a rerun finds later rounds stored already
        found = verdicts({d: x[:seeds] for d, x in seed_differences(t, touched).items()}, plan)
        played = (r + 1) * round_matches(plan) * len(spec_b.pairings)
        status.write(matches=played, rounds=r + 1, decks=deck_rows(found),
                     message=f"round {r + 1}: " + ", ".join(f"{v.deck} {v.decision}" for v in found))
        if not quiet:
            err.print(f"round {r + 1}: {played:,} matches per version; " + "; ".join(
                f"{v.deck} {pct_points(v.change)} pts [{pct_points(v.lo)}, {pct_points(v.hi)}] {v.decision}" for v in found),
                markup=False, highlight=False)
        if decided(found):
            break
    played = status.doc["matches"]
    complete = played >= spec_b.matches_total
    for run_id, player in zip(runs, players):
        if player.finished:
            continue
        store.set_status(run_id, "done" if complete else "stopped", pid=None,
                         note=None if complete else f"sequential diff stopped after {played:,} of "
                         f"{spec_b.matches_total:,} matches: {overall(found)}")
    return {"runs": runs, "verdicts": found, "decision": overall(found), "matches": played, "touched": touched,
            "rounds": status.doc["rounds"], "status": status}


def tested_decks(touched: list[str], spec: RunSpec) -> list[str]:
    """The decks the test decides for: those the change touches, except that with two decks and
    both touched only the first is tested: the other's change is its mirror image (one seat's
    win is the other's loss), and testing it too would only spend error rate twice on one
    comparison."""
    if len(spec.decks) == 2 and len(touched) == 2 and spec.decks[0] != spec.decks[1]:
        return touched[:1]
    return touched


def plan_from_options(delta: float, delta0: float, alpha: float, beta: float) -> Plan:
    plan = Plan(delta1=delta / 100, delta0=delta0 / 100, alpha=alpha, beta=beta)
    problem = plan.check()
    if problem:
        raise UserError(problem)
    return plan
