"""``workbench bench``: matches and decisions per second, per game and pilot pair.

Engine alone: matches played one after another in this process (one core), logging on; per
wall-clock second and per CPU-second of this process (on a shared machine the two differ: the
CPU figure is what the engine costs, the wall figure what the machine gave it).
End to end: the same matches through the farm into a scratch store, with 1 worker and with every
core, each the median of several runs; the speed-up is their ratio.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cardsdb.registry import GAMES
from sim.core.match import play_match
from sim.registry import engine as get_engine
from workbench import games
from workbench.farm import default_workers
from workbench.store import Store

PAIRS = (("random", "random"), ("greedy", "greedy"))


def engine_speed(game: str, pilots: tuple[str, str], n: int) -> dict:
    data, ruleset = games.load(game, "base")
    decks = games.decks_for(data, ruleset, None)
    eng = get_engine(game)
    pool = eng.compile_pool(ruleset)
    compiled = [eng.compile_deck(pool, d) for d in decks]
    a, b = compiled[0], compiled[1 % len(compiled)]
    decisions = errors = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for i in range(n):
        seats = [a, b] if i % 2 == 0 else [b, a]
        r = play_match(eng, pool, seats, 10_000 + i // 2, list(pilots), log=True)
        decisions += r.decisions
        errors += r.error is not None
    seconds = time.perf_counter() - started
    cpu = max(1e-9, time.process_time() - cpu_started)
    return {"matches_s": n / seconds, "decisions_s": decisions / seconds, "errors": errors,
            "matches_cpu_s": n / cpu}


def farm_speed(game: str, pilots: tuple[str, str], n: int, workers: int, repeats: int) -> dict:
    from workbench.commands.simulate import card_rows, new_run
    from cardsdb.loader import Ruleset
    from workbench.farm import run_chunks

    rates, decision_rates = [], []
    for rep in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "bench.duckdb")
            store.init()
            spec, payload = new_run(game, "base", None, list(pilots), n, 1 + rep, True, 1.0, None, workers)
            ruleset = Ruleset.from_payload(payload["ruleset"])
            run_id = store.create_run(spec.to_json(), spec.spec_hash(), card_rows(ruleset), spec.n_chunks, "bench")
            report = run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)},
                                list(range(spec.n_chunks)), workers)
            rates.append(report.matches_per_second)
            decision_rates.append(report.decisions_per_second)
    return {"matches_s": statistics.median(rates), "decisions_s": statistics.median(decision_rates), "runs": rates}


def run_bench(game_list, matches: int, greedy_matches: int, farm_matches: int, repeats: int,
              skip_farm: bool, out: Console) -> None:
    chosen = game_list or list(GAMES)
    cores = default_workers()
    table = Table("game", "pilots", "engine matches/s", "engine matches/CPU-s", "engine decisions/s",
                  "farm 1 worker matches/s", "farm 1 worker decisions/s",
                  f"farm {cores} workers matches/s", f"farm {cores} workers decisions/s", "speed-up",
                  title=f"workbench bench: engine alone on one core, logging on; farm into a scratch store, "
                        f"median of {repeats} runs ({cores} cores)")
    for game in chosen:
        games.known_game(game)
        for pilots in PAIRS:
            n = matches if pilots[0] == "random" else greedy_matches
            eng = engine_speed(game, pilots, n)
            row = [game, ",".join(pilots), f"{eng['matches_s']:,.0f}", f"{eng['matches_cpu_s']:,.0f}",
                   f"{eng['decisions_s']:,.0f}"]
            if skip_farm:
                row += ["-"] * 5
            else:
                fn = farm_matches if pilots[0] == "random" else max(40, farm_matches // 4)
                one = farm_speed(game, pilots, fn, 1, repeats)
                many = farm_speed(game, pilots, fn, cores, repeats)
                row += [f"{one['matches_s']:,.0f}", f"{one['decisions_s']:,.0f}", f"{many['matches_s']:,.0f}",
                        f"{many['decisions_s']:,.0f}", f"{many['matches_s'] / one['matches_s']:.2f}x"]
            table.add_row(*row)
            out.print(f"measured {game} {','.join(pilots)}" + (f" ({eng['errors']} match errors)" if eng["errors"] else ""))
    out.print(table)
