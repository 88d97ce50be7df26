"""``workbench simulate-run``: a batch of campaign runs (Frontier Run) into the store."""
from __future__ import annotations

import json

from rich.console import Console

from workbench import locks
from workbench.campaign.chunk import init_worker, play_chunk
from workbench.campaign.spec import MAX_FIGHTS, CampaignSpec
from workbench.campaign.stage import load_stage
from workbench.commands.simulate import (
    RESUMABLE,
    check_counts,
    create,
    execute,
    existing_run,
    fresh_run,
    lost_workers,
    writer_lock,
)
from workbench.errors import UserError
from workbench.farm import FarmReport, default_workers
from workbench.limits import check_seed_span, check_total
from workbench.store import Store
from workbench.store_guard import check_store_path


def new_batch(game: str, rules: str, stage: str | None, crews: list[str] | None, runs: int, policy: str,
              fight_pilot: str, seed: int, events: float, chunk_size: int | None, workers: int,
              data_dir=None) -> tuple[CampaignSpec, dict]:
    from sim.core.pilots import check_pilot, weights_fingerprint
    from sim.registry import campaign, engine

    _data, ruleset, camp = load_stage(game, rules, stage, data_dir)
    known = sorted(camp.crews)
    if not crews or crews == ["all"]:
        crews = known
    unknown = [c for c in crews if c not in camp.crews]
    if unknown:
        raise UserError(f"unknown crew {unknown[0]!r} for {camp.stage.id} (known: {', '.join(known)}, or all)")
    twice = next((c for i, c in enumerate(crews) if c in crews[:i]), None)
    if twice is not None:  # its runs would be played twice and count twice in its clear rate
        raise UserError(f"--crew names {twice} twice: name each crew once")
    policies = campaign(game).policies
    if policy not in policies:
        raise UserError(f"unknown policy {policy!r} (known: {', '.join(policies)})")
    for option, pilot in (("--fight-pilot", fight_pilot), (f"{camp.stage.id}'s enemy_pilot", camp.stage.enemy_pilot)):
        try:
            check_pilot(pilot, engine(game))  # its weight set too: a missing one ended in a traceback
        except ValueError as exc:
            raise UserError(f"{option}: {exc}") from None
    check_counts(runs, seed, chunk_size, unit="--runs")
    check_seed_span(seed, runs)
    check_total(f"{runs:,} runs x {len(crews)} crews x {MAX_FIGHTS} fight numbers", runs * len(crews) * MAX_FIGHTS)
    if chunk_size is None:
        chunk_size = max(1, min(25, runs * len(crews) // (8 * max(1, workers))))
    spec = CampaignSpec(game=game, rules=rules, stage=camp.stage.id, crews=list(crews), runs=runs, policy=policy,
                        fight_pilot=fight_pilot, seed=seed, event_sample=events, chunk_size=chunk_size,
                        rules_hash=ruleset.hash, content_hash=camp.hash,
                        weights_hash=weights_fingerprint([fight_pilot, camp.stage.enemy_pilot], engine(game)))
    return spec, payload_for(spec, ruleset, camp)


def payload_for(spec: CampaignSpec, ruleset, camp) -> dict:
    return {"spec": spec.to_json(), "ruleset": ruleset.to_payload(), "campaign": camp.to_payload(), "run_id": None}


def resumed_batch(store: Store, run_id: int, data_dir=None) -> tuple[CampaignSpec, dict, dict]:
    from workbench.commands.simulate import check_resumable, resume_data

    row = check_resumable(store, run_id)
    if row.get("kind") != "campaign":  # before its spec is read as a campaign's (a duel run's is not one)
        raise UserError(f"run {run_id} is a batch of duels: resume it with workbench simulate --resume {run_id}")
    spec = CampaignSpec.from_json(json.loads(row["spec"]))
    _data, ruleset, camp = load_stage(spec.game, spec.rules, spec.stage, resume_data(row, data_dir))
    from sim.core.pilots import weights_fingerprint
    from sim.registry import engine

    weights = weights_fingerprint([spec.fight_pilot, camp.stage.enemy_pilot], engine(spec.game)) \
        if spec.weights_hash else ""
    now = CampaignSpec.from_json({**spec.to_json(), "rules_hash": ruleset.hash, "content_hash": camp.hash,
                                  "weights_hash": weights})
    if now.spec_hash() != row["spec_hash"]:
        changed = [f"rules version {spec.rules!r} changed (hash {spec.rules_hash} -> {now.rules_hash})"
                   if spec.rules_hash != now.rules_hash else "",
                   f"stage {spec.stage!r}, its crews or their decks were edited (hash {spec.content_hash} -> "
                   f"{now.content_hash})" if spec.content_hash != now.content_hash else "",
                   "the weights its pilots think with changed" if spec.weights_hash != now.weights_hash else ""]
        raise UserError(f"run {run_id}: {' and '.join(filter(None, changed)) or 'its spec changed'} since the "
                        "batch started; start a new batch instead")
    return spec, payload_for(spec, ruleset, camp), row


PLAY = (init_worker, play_chunk)  # the farm's worker for campaign chunks


def find_batch(store: Store, spec: CampaignSpec) -> tuple[int, CampaignSpec, str] | None:
    """(run id, its stored spec, its status) of the newest batch of these runs that this code
    played: finished (with at least this event log) first, else begun and not finished (stopped,
    left running, failed: ``RESUMABLE``, with the same event log, as ``workbench simulate`` finds
    a run to go on with). Found by what decides its runs (``result_hash``), not by how they were
    cut into chunks: the default chunk size follows --workers, and a rerun with another
    --workers played every run again."""
    wanted = spec.result_hash()
    for status in ("done", *RESUMABLE):
        for run_id, stored in store.runs_with(spec.game, spec.rules_hash, status):
            sample = stored.get("event_sample", 1.0)
            if (sample >= spec.event_sample if status == "done" else sample == spec.event_sample) \
                    and _holds_runs(stored, wanted):
                return run_id, CampaignSpec.from_json(stored), status
    return None


def _holds_runs(stored: dict, wanted: str) -> bool:
    """A stored batch's spec holds the runs of result hash ``wanted``."""
    if stored.get("kind") != "campaign":
        return False
    try:
        return CampaignSpec.from_json(stored).result_hash() == wanted
    except (TypeError, KeyError):  # a spec another code version wrote, with fields this one lacks
        return False


def reuse_or_play(store: Store, spec: CampaignSpec, payload: dict, workers: int, quiet: bool, console: Console,
                  cluster: str | None, parts: str | None) -> tuple[int, FarmReport | None]:
    """A finished batch of these runs that this code played (``find_batch``, as ``workbench
    simulate`` reuses a run): reused, so the same runs are never stored twice; one stopped, left
    running or failed: finished, with its own chunk size; else a new batch, played (one another
    code version played is named, ``fresh_run``). A lock on the batch's runs makes the same
    command started twice at once play them once: the second waits, then reuses."""
    held = locks.lock_file(store.path, f"campaign-{spec.result_hash()}")
    with locks.exclusive(held, waiting=lambda who: console.print(
            f"waiting for {who}, which is playing the same campaign runs into this store", markup=False,
            highlight=False)):
        found = find_batch(store, spec)
        if found is not None and found[2] == "done":
            console.print(f"reusing run {found[0]} ({spec.rules}, same stage, crews, seeds, policy and pilots)",
                          markup=False, highlight=False)
            return found[0], None
        if found is not None:  # a live writer of it is waited for (execute)
            run_id, spec, status = found
            payload = {**payload, "spec": spec.to_json()}  # its own chunk size: its stored chunks are numbered by it
            what = {"running": "batch left running"}.get(status, f"{status} batch")
            console.print(f"finishing {what} {run_id} ({spec.rules})", markup=False, highlight=False)
        else:
            run_id = fresh_run(store, spec, payload)
        return run_id, execute(store, run_id, spec, payload, workers, quiet, console, cluster, parts, worker=PLAY,
                               command="simulate-run", unit="runs", wait_for_writer=True)


def simulate_run(game, rules, stage, crews, runs, policy, fight_pilot, seed, events, chunk_size, workers, db,
                 resume, quiet, data_dir=None, console: Console | None = None, cluster: str | None = None,
                 parts: str | None = None) -> int:
    console = console or Console(stderr=True)
    store = Store(db)
    workers = workers or default_workers(cluster)
    if resume is not None:
        check_store_path(db, must_exist=True)
        with writer_lock(store, existing_run(store, resume, game)):  # a second resume of it refuses
            spec, payload, row = resumed_batch(store, resume, data_dir)
            if store.played_here(row):
                run_id, report = resume, execute(store, resume, spec, payload, workers, quiet, console, cluster,
                                                 parts, worker=PLAY, command="simulate-run", unit="runs")
        if not store.played_here(row):  # another code version played it: a new batch of the same runs
            run_id = create(store, spec, payload)
            store.say_not_reused(row, f"its campaign runs are played afresh as run {run_id}")
            report = execute(store, run_id, spec, payload, workers, quiet, console, cluster, parts,
                             worker=PLAY, command="simulate-run", unit="runs")
    else:
        if game is None:
            raise UserError("name a game (e.g. `workbench simulate-run frontier --crew all`) or --resume a batch")
        spec, payload = new_batch(game, rules, stage, crews, runs, policy, fight_pilot, seed, events,
                                  chunk_size, workers, data_dir)
        check_store_path(db)  # everything checked before the store is touched
        run_id, report = reuse_or_play(store, spec, payload, workers, quiet, console, cluster, parts)
    row = store.run(run_id)
    played = "" if report is None else f"; {report.matches_stored} now at {report.matches_per_second:,.1f} runs/s"
    console.print(f"run {run_id}: {row['matches_done']} {spec.stage} runs of {', '.join(spec.crews)} "
                  f"({spec.policy} choices, {spec.fight_pilot} fights) stored in {store.path}{played}"
                  + (f"; {row['errors']} runs raised errors (see campaign_runs.error)" if row["errors"] else "")
                  + lost_workers(report), markup=False, highlight=False)
    return run_id
