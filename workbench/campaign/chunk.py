"""What a worker does for a campaign batch: play a chunk of runs and return Arrow tables: the
campaign rows (runs, nodes visited, rewards offered) and every fight as a normal match
(matches, match_seats, card_games, and an event-log part when the run is sampled)."""
from __future__ import annotations

import time

import pyarrow as pa

from sim.core.campaign import NODE_FIELDS, REWARD_FIELDS
from sim.registry import campaign as get_campaign
from sim.registry import engine as get_engine
from workbench.campaign.spec import MAX_FIGHTS, CampaignSpec
from workbench.chunk import ChunkResult, RunContext, _Columns, part_location, write_part

_RUN = RunContext()  # per worker thread, as workbench/chunk.py's


def init_worker(payload: dict) -> None:
    """Build the pool and the compiled stage of a batch in this process (once)."""
    from cardsdb.loader import Campaign, Ruleset

    spec = CampaignSpec.from_json(payload["spec"])
    key = (spec.spec_hash(), payload["run_id"], payload["events_dir"])
    if _RUN.ctx.get("key") == key:
        return
    engine = get_engine(spec.game)
    pool = engine.compile_pool(Ruleset.from_payload(payload["ruleset"]))
    runner = get_campaign(spec.game)
    content = runner.compile(engine, pool, Campaign.from_payload(payload["campaign"]))
    _RUN.ctx = dict(key=key, spec=spec, engine=engine, pool=pool, runner=runner, content=content,
                run_id=payload["run_id"], events_dir=payload["events_dir"])


def play_chunk(chunk: int) -> ChunkResult:
    started = time.perf_counter()
    spec, engine, pool, runner, content, run_id = (_RUN.ctx[k] for k in ("spec", "engine", "pool", "runner",
                                                                     "content", "run_id"))
    fights = _Columns(chunk)
    rows = {name: {f.name: [] for f in schema} for name, schema in SCHEMAS.items()}
    for run_no in spec.chunk_range(chunk):
        crew_index, crew, seed = spec.run(run_no)
        rec = runner.play_run(content, crew, seed, spec.policy, spec.fight_pilot, spec.logs_events(seed))
        won = 0
        for f in rec.fights:
            r = f.result
            won += r.winner == f.player_seat
            fights.add_match(run_id, chunk, run_no * MAX_FIGHTS + f.fight, r.seed, crew_index, f.player_seat == 1,
                             f.decks, f.pilots, engine, pool, r, r.events is not None)
        _add(rows["campaign_runs"], run_id=run_id, run_no=run_no, chunk=chunk, game=rec.game, stage=rec.stage,
             crew=crew, seed=seed, policy=spec.policy, fight_pilot=spec.fight_pilot, result=rec.result,
             cleared=rec.cleared, hp_left=rec.hp_left, hp_max=rec.hp_max, floor_reached=rec.floor_reached,
             gold_left=rec.gold_left, deck_size=rec.deck_size, fights=len(rec.fights), fights_won=won,
             wall_ms=rec.wall_ms, error=rec.error)
        for node in rec.nodes:
            fight = node["fight"]
            _add(rows["campaign_nodes"], run_id=run_id, run_no=run_no,
                 match_no=None if fight is None else run_no * MAX_FIGHTS + fight,
                 **{k: node[k] for k in NODE_FIELDS if k != "fight"})
        for reward in rec.rewards:
            _add(rows["campaign_rewards"], run_id=run_id, run_no=run_no, **{k: reward[k] for k in REWARD_FIELDS})
    tables = fights.tables()
    events = tables.pop("events")
    if events.num_rows:
        write_part(events, part_location(_RUN.ctx["events_dir"], run_id, chunk))
    for name, schema in SCHEMAS.items():
        tables[name] = pa.table(rows[name], schema=schema)
    return ChunkResult(chunk=chunk, tables=tables, worker_seconds=time.perf_counter() - started,
                       events_rows=events.num_rows)


def _add(columns: dict[str, list], **row) -> None:
    for key, value in row.items():
        columns[key].append(value)


_I32, _STR, _BOOL = pa.int32(), pa.string(), pa.bool_()
SCHEMAS = {
    "campaign_runs": pa.schema([
        ("run_id", _I32), ("run_no", _I32), ("chunk", _I32), ("game", _STR), ("stage", _STR), ("crew", _STR),
        ("seed", pa.int64()), ("policy", _STR), ("fight_pilot", _STR), ("result", _STR), ("cleared", _BOOL),
        ("hp_left", _I32), ("hp_max", _I32), ("floor_reached", _I32), ("gold_left", _I32), ("deck_size", _I32),
        ("fights", _I32), ("fights_won", _I32), ("wall_ms", pa.float64()), ("error", _STR)]),
    "campaign_nodes": pa.schema([
        ("run_id", _I32), ("run_no", _I32), ("step", _I32), ("floor", _I32), ("node", _STR), ("kind", _STR),
        ("options", _STR), ("choice", _STR), ("hp_before", _I32), ("hp_after", _I32), ("gold_before", _I32),
        ("gold_after", _I32), ("match_no", _I32), ("result", _STR), ("detail", _STR)]),
    "campaign_rewards": pa.schema([
        ("run_id", _I32), ("run_no", _I32), ("step", _I32), ("source", _STR), ("card", _STR), ("price", _I32),
        ("taken", _BOOL)]),
}
