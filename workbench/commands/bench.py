"""``workbench bench``: matches and decisions per second, per game and pilot.

Every pilot named (default: every pilot in ``PILOTS``, at its default budget) plays itself.
Engine alone: matches played one after another in this process (one core), logging on, rotating
through every pairing of the game's starter decks; per wall-clock second and per CPU-second of this
process (on a shared machine the two differ: the CPU figure is what the engine and pilots cost, the
wall figure what the machine gave them). The cheap pilots (random: ``--matches``; greedy:
``--greedy-matches``) play many matches; a searching pilot (any other) plays ``--search-matches``,
and any measurement stops early once it has run ``--seconds`` (after its first match).
End to end: the same matches through the farm into a scratch store, with 1 worker and with every
core, each the median of several runs; the speed-up is their ratio. The farm is measured for the
cheap pilots only: a searching pilot's matches are CPU-bound, so its farm speed is its engine
speed times the workers the machine gives it. The writer's CPU per stored match (1 worker) is the
farm's own ``writer_cpu_s`` figure, or this process's CPU around ``run_chunks`` where the farm
reports none (labelled "parent CPU").
With ``--against REV`` every figure is instead a ratio, today / REV, from interleaved blocks
(workbench/bench/). ``--soak N`` plays N random matches of each game through the farm with
event logs off and reports engine errors, invariant violations and the writer's memory
(workbench/bench/soak.py).
"""
from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from rich.console import Console
from rich.table import Table

from cardsdb.registry import GAMES
from sim.core.match import play_match
from sim.registry import engine as get_engine
from workbench import games
from workbench.bench.driver import (
    match_seating,
    pairings,  # noqa: F401  (also imported from here by tools)
    table_seating,
)
from workbench.bench.ratios import shown as rate
from workbench.errors import UserError
from workbench.farm import default_workers
from workbench.store import Store

FFA_SEATS = 4  # the free-for-all the bench measures: the guide's four players


def engine_speed(game: str, pilots: tuple[str, ...], n: int, seconds: float | None = None,
                 mode: str = "duel") -> dict:
    """Matches rotate through every pairing of the starter decks, each seed from both seats (a
    free-for-all: every table of four, each seed in every rotation; Turf Defense: every pairing as
    partners, against each boss in turn; a series: its games are duels, so the duel's figures);
    at most ``n``, and none started after ``seconds`` of wall time (the first always is)."""
    from sim.core.seating import Seating

    data, ruleset = games.load(game, "base")
    decks = games.decks_for(data, ruleset, None)
    eng = get_engine(game)
    pool = eng.compile_pool(ruleset)
    compiled = [eng.compile_deck(pool, d) for d in decks]
    bosses = sorted(getattr(ruleset, "bosses", None) or {}) if mode == "turf" else []
    decisions = errors = played = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for i in range(n):
        if i and seconds is not None and time.perf_counter() - started > seconds:
            break
        seating = None
        if mode == "ffa":
            seats, seed = table_seating(i, len(compiled), FFA_SEATS)
        else:
            seats, seed = match_seating(i, len(compiled))
        if mode == "turf":
            seating = Seating("turf", teams=(0, 0, 1), boss=bosses[(i // 2) % len(bosses)])
        n_pilots = len(seats) + (seating is not None)  # the boss's seat has a pilot, not a deck
        r = play_match(eng, pool, [compiled[s] for s in seats], seed, [pilots[0]] * n_pilots, log=True,
                       seating=seating)
        decisions += r.decisions
        errors += r.error is not None
        played += 1
    wall = max(1e-9, time.perf_counter() - started)
    cpu = max(1e-9, time.process_time() - cpu_started)
    return {"matches_s": played / wall, "decisions_s": decisions / wall, "errors": errors,
            "matches_cpu_s": played / cpu, "decisions_cpu_s": decisions / cpu, "matches": played}


def farm_speed(game: str, pilots: tuple[str, str], n: int, workers: int, repeats: int,
               cluster: str | None = None, mode: str = "duel") -> dict:
    """Matches per second through the farm into a scratch store (median of ``repeats`` runs), and
    the writer's CPU per stored match: what the farm reports as ``writer_cpu_s``, or else this
    process's CPU around ``run_chunks`` (the writer and the farm's own work: "parent CPU")."""
    from workbench.commands.simulate import create, new_run
    from workbench.farm import run_chunks
    from workbench.runspec import tables

    data, ruleset = games.load(game, "base")
    seats = FFA_SEATS if mode == "ffa" else 2
    bosses = len(getattr(ruleset, "bosses", None) or {}) if mode == "turf" else 1
    n_pairs = len(tables(len(games.decks_for(data, ruleset, None)), seats)) * bosses
    per_pairing = max(seats, n // n_pairs // seats * seats)  # about n matches in all, spread over the tables
    rates, decision_rates, writer_ms, labels = [], [], [], set()
    for rep in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            store = Store(Path(tmp) / "bench.duckdb")
            spec, payload = new_run(game, "base", None, [pilots[0]], matches=per_pairing, seed=1 + rep, swap=True,
                                    events=1.0, chunk_size=None, workers=workers, mode=mode,
                                    seats=seats if mode == "ffa" else None)
            run_id = create(store, spec, payload)
            wall, cpu = time.perf_counter(), time.process_time()
            report = run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)},
                                list(range(spec.n_chunks)), workers, cluster=cluster)
            cpu, wall = time.process_time() - cpu, max(1e-9, time.perf_counter() - wall)
            stored = farm_figure(report, "matches_stored") or 0
            writer = farm_figure(report, "writer_cpu_s")
            labels.add("writer CPU" if writer is not None else "parent CPU")
            writer_ms.append((cpu if writer is None else writer) / max(1, stored) * 1e3)
            rates.append(farm_figure(report, "matches_per_second") or stored / wall)
            decision_rates.append(farm_figure(report, "decisions_per_second")
                                  or (farm_figure(report, "decisions") or 0) / wall)
    return {"matches_s": statistics.median(rates), "decisions_s": statistics.median(decision_rates), "runs": rates,
            "writer_ms": statistics.median(writer_ms), "writer_label": " / ".join(sorted(labels))}


def writer_cell(farm: dict) -> str:
    """The writer's CPU per stored match, named as measured (the farm's own figure, or this
    process's CPU when the farm reports none)."""
    shown = f"{farm['writer_ms']:.3g}"
    return shown if farm["writer_label"] == "writer CPU" else f"{shown} ({farm['writer_label']})"


def farm_figure(report, name: str):
    """A figure of the farm's report, a mapping or an object (None when it has no such figure)."""
    return report.get(name) if isinstance(report, Mapping) else getattr(report, name, None)


CHEAP = ("random", "greedy")  # pilots measured over many matches, and through the farm


def bench_pilots(names: list[str] | None) -> list[str]:
    """The pilots to measure: those named (checked), else every registered pilot at its default budget."""
    from sim.core.pilots import PILOTS, check_pilot

    chosen = names or list(PILOTS)
    for name in chosen:
        try:
            check_pilot(name)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    return chosen


def bench_games(game_list: list[str] | None) -> list[str]:
    """The games to measure: those named (checked), else every game."""
    chosen = game_list or list(GAMES)
    for game in chosen:
        games.known_game(game)
    return chosen


def bench_modes(chosen: list[str], mode_list: list[str] | None) -> dict[str, list[str]]:
    """Each chosen game's modes to measure: those of ``mode_list`` the game has (every mode named
    must belong to one of the chosen games), else all of them."""
    every = {game: list(get_engine(game).modes) for game in chosen}
    if not mode_list:
        return every
    for mode in mode_list:
        if not any(mode in modes for modes in every.values()):
            known = sorted({m for modes in every.values() for m in modes})
            raise UserError(f"--modes: no chosen game has a mode {mode!r} (they have {', '.join(known)})")
    return {game: [m for m in modes if m in mode_list] for game, modes in every.items()}


def check_counts(matches: int, greedy_matches: int, search_matches: int) -> None:
    if min(matches, greedy_matches, search_matches) < 1:
        raise UserError("--matches, --greedy-matches and --search-matches must be at least 1")


def run_bench(game_list, matches: int, greedy_matches: int, farm_matches: int, repeats: int,
              skip_farm: bool, out: Console, pilots: list[str] | None = None, search_matches: int = 2,
              seconds: float | None = 20.0, mode_list: list[str] | None = None) -> None:
    chosen = bench_games(game_list)
    modes = bench_modes(chosen, mode_list)
    names = bench_pilots(pilots)
    check_counts(matches, greedy_matches, search_matches)
    cores = default_workers()
    table = Table("game", "mode", "pilots", "engine matches", "engine matches/s", "engine matches/CPU-s", "engine decisions/s",
                  "engine decisions/CPU-s", "farm 1 worker matches/s", "farm 1 worker decisions/s",
                  f"farm {cores} workers matches/s", f"farm {cores} workers decisions/s", "speed-up",
                  "farm writer CPU ms/stored match (1 worker)",
                  title=f"workbench bench: engine alone on one core, logging on, every starter-deck pairing, each pilot "
                        f"against itself at its default budget; farm into a scratch store for {', '.join(CHEAP)}, "
                        f"median of {repeats} runs ({cores} cores)")
    for game in chosen:
        for mode in modes[game]:
            for pilot in names:
                table.add_row(*bench_row(game, mode, pilot, matches, greedy_matches, search_matches, farm_matches,
                                         repeats, skip_farm, cores, seconds, out))
    out.print(table)


def bench_row(game: str, mode: str, pilot: str, matches: int, greedy_matches: int, search_matches: int,
              farm_matches: int, repeats: int, skip_farm: bool, cores: int, seconds: float | None,
              out: Console) -> list[str]:
    """One row of the table: a pilot against itself in one mode of a game (a free-for-all: four
    of it round the table), the engine alone and, for a cheap pilot, through the farm."""
    seats = FFA_SEATS if mode == "ffa" else 2
    pair = (pilot,) * seats
    base = pilot.partition(":")[0]
    n = matches if base == "random" else greedy_matches if base == "greedy" else search_matches
    if mode == "ffa":
        n = max(1, n // 2)  # a table of four plays about twice a duel's decisions
    eng = engine_speed(game, pair, n, seconds, mode)
    label = {"duel": "duel", "series": "series (farm: series/s)", "turf": "turf (2 + boss)"}.get(mode, f"{mode} ({seats} seats)")
    row = [game, label, pilot, f"{eng['matches']:,}"] + [
        rate(eng[k]) for k in ("matches_s", "matches_cpu_s", "decisions_s", "decisions_cpu_s")]
    if skip_farm or pilot not in CHEAP:
        row += ["-"] * 6
    else:
        fn = farm_matches if pilot == "random" else max(40, farm_matches // 4)
        one = farm_speed(game, pair, fn, 1, repeats, mode=mode)
        many = farm_speed(game, pair, fn, cores, repeats, mode=mode)
        row += [f"{one['matches_s']:,.0f}", f"{one['decisions_s']:,.0f}", f"{many['matches_s']:,.0f}",
                f"{many['decisions_s']:,.0f}", f"{many['matches_s'] / one['matches_s']:.2f}x",
                writer_cell(one)]
    out.print(f"measured {game} {label} {pilot}" + (f" ({eng['errors']} match errors)" if eng["errors"] else ""))
    return row


def against_bench(rev: str | None, game_list, matches: int, greedy_matches: int, search_matches: int, farm_matches: int,
                  repeats: int, pairs: int, skip_farm: bool, out: Console, pilots: list[str] | None = None,
                  seconds: float | None = None) -> None:
    """``--against REV``: every figure as today / REV over interleaved block pairs
    (workbench/bench/against.py). Match counts are per side, cut into ``pairs`` blocks; the farm
    plays ``farm_matches`` random matches per side in ``repeats`` runs. ``rev`` None: ``--compiled``,
    this tree's compiled build against its Python source."""
    from workbench.bench.against import Workload, run_against, run_compiled

    chosen = bench_games(game_list)
    names = bench_pilots(pilots)
    check_counts(matches, greedy_matches, search_matches)
    if pairs < 1 or repeats < 1:
        raise UserError("--blocks and --repeats must be at least 1")
    if not skip_farm and farm_matches < 2 * repeats:
        raise UserError(f"--farm-matches must be at least 2 per run with --against ({2 * repeats} for {repeats} runs)")
    work = Workload(pairs, matches, greedy_matches, search_matches, 0 if skip_farm else farm_matches, repeats, seconds)
    if rev is None:
        run_compiled(chosen, names, work, out)
    else:
        run_against(rev, chosen, names, work, out)


# --- reports ---------------------------------------------------------------------------------------

PAGE_BAR_SECONDS = 3.0  # issue 13: the Cards page split by run, 80 runs, 10M card_games rows, two cores


def reports_speed(rows_wanted: int, runs: int, repeats: int, out: Console, game: str = "frontier") -> None:
    """Issue 13's bar for the Cards page: a scratch store of ``runs`` runs and at least
    ``rows_wanted`` card_games rows (workbench/bench/split_store.py), then, ``repeats`` times in
    turn, ``card_metrics`` split by rules version and run over every run and the Cards page so
    split rendered afresh (workbench/bench/cards_page.py); medians in wall and CPU seconds."""
    import os

    from workbench.bench.cards_page import CardsPage, time_query
    from workbench.bench.split_store import FLIPPED_SHARE, build_split_store

    if min(rows_wanted, runs, repeats) < 1:
        raise UserError("--rows, --runs and --repeats must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        built = build_split_store(Path(tmp) / "split.duckdb", game, runs, rows_wanted, default_workers())
        out.print(f"store: {len(built.run_ids)} runs of {built.matches_per_run:,} random-pilot {game} matches (one run "
                  f"played through the farm in {built.play_seconds:.0f} s, copied in SQL in {built.copy_seconds:.0f} s "
                  f"with 1 in {FLIPPED_SHARE} decided results flipped per copy), {built.card_rows:,} card_games rows")
        page = CardsPage(built.path, built.run_ids)
        query_times, page_times = [], []
        for _ in range(repeats):  # query and page alternate: both see the same load
            query_times.append(time_query(built.path, game, built.run_ids))
            page_times.append(page.render())
    split = "split by rules version + run"
    table = Table("measurement", "wall s (median)", "CPU s (median)", "wall s each", "CPU s each",
                  f"under {PAGE_BAR_SECONDS:g} s wall",
                  title=f"workbench bench --reports: {len(built.run_ids)} runs, {built.card_rows:,} card_games rows, "
                        f"{repeats} repeats, CPU = this process (DuckDB's threads included)")
    for name, times in ((f"card_metrics {split}", query_times),
                        (f"Cards page {split} (AppTest, cache cleared)", page_times)):
        wall, cpu = (statistics.median(getattr(t, k) for t in times) for k in ("wall", "cpu"))
        table.add_row(name, f"{wall:.2f}", f"{cpu:.2f}", " ".join(f"{t.wall:.2f}" for t in times),
                      " ".join(f"{t.cpu:.2f}" for t in times), "yes" if wall < PAGE_BAR_SECONDS else "no")
    out.print(table)
    wall, cpu = (statistics.median(getattr(t, k) for t in page_times) for k in ("wall", "cpu"))
    # on a shared machine the wall figure carries the other processes' load; the CPU figure does not
    out.print(f"bar (issue 13): the Cards page {split} over {len(built.run_ids)} runs and {built.card_rows:,} "
              f"card_games rows under {PAGE_BAR_SECONDS:g} s wall: {'yes' if wall < PAGE_BAR_SECONDS else 'no'} "
              f"(median {wall:.2f} s wall; {cpu:.2f} CPU-s, under {PAGE_BAR_SECONDS:g}: "
              f"{'yes' if cpu < PAGE_BAR_SECONDS else 'no'}; {os.cpu_count()} cores, load average "
              f"{os.getloadavg()[0]:.1f})")


def pages_speed(rows_wanted: int, runs: int, repeats: int, out: Console, game: str = "frontier") -> bool:
    """Issue 18's bar: every dashboard page rendered server side (AppTest) cold and warm on a
    scratch store of ``runs`` runs and at least ``rows_wanted`` card_games rows, with a diff of
    its first two runs recorded so the Version diff page has one to show. True when every page
    met both bars (wall)."""
    import os

    from workbench.bench.pages import COLD_BAR, WARM_BAR, time_pages
    from workbench.bench.split_store import build_split_store
    from workbench.store import Store

    if min(rows_wanted, runs, repeats) < 1 or runs < 2:
        raise UserError("--rows and --repeats must be at least 1 and --runs at least 2")
    with tempfile.TemporaryDirectory() as tmp:
        built = build_split_store(Path(tmp) / "pages.duckdb", game, runs, rows_wanted, default_workers())
        Store(built.path).record_diff(game, built.run_ids[0], built.run_ids[1], "base", "base")
        timings = time_pages(built.path, repeats)
    table = Table("page", "cold wall s", "cold CPU s", "warm wall s", "warm CPU s", f"cold < {COLD_BAR:g} s",
                  f"warm < {WARM_BAR:g} s",
                  title=f"workbench bench --reports --pages: {len(built.run_ids)} runs, {built.card_rows:,} card_games "
                        f"rows, medians of {repeats}, server side (AppTest), default views; {os.cpu_count()} cores, "
                        f"load average {os.getloadavg()[0]:.1f}")
    met = True
    for t in timings:
        if t.error:
            table.add_row(t.page, "failed: " + t.error, "", "", "", "no", "no")
            met = False
            continue
        cold, warm = t.median("cold", "wall"), t.median("warm", "wall")
        met &= cold < COLD_BAR and warm < WARM_BAR
        table.add_row(t.page, f"{cold:.2f}", f"{t.median('cold', 'cpu'):.2f}", f"{warm:.2f}",
                      f"{t.median('warm', 'cpu'):.2f}", "yes" if cold < COLD_BAR else "no",
                      "yes" if warm < WARM_BAR else "no")
    out.print(table)
    return met


def stats_calibration(game_list: list[str] | None, blocks: int, sizes: list[int], pilots: list[str],
                      db: Path | None, out: Console, with_value: bool = True) -> None:
    """Planted-truth calibration per game (workbench/calibration.py): how often ``diff`` flags a
    moderately buffed card at each size, how often it flags an unchanged card, the deck-level A/A
    false-positive rate, the variance pairing saves on the real change, and the planted card's
    value change. ``db`` keeps the runs (resumable, extendable); default a scratch store."""
    from workbench.calibration import calibrate

    chosen = game_list or list(GAMES)
    with tempfile.TemporaryDirectory() as tmp:
        store_path = db or Path(tmp) / "stats.duckdb"
        for game in chosen:
            games.known_game(game)
            results, value = calibrate(game, store_path, Path(tmp) / "data", blocks, sizes, pilots,
                                       default_workers(), out, with_value)
            show_calibration(game, results, value, pilots, out)
            show_sequential(game, results, store_path, max(sizes), pilots, out)


def show_calibration(game: str, results, value, pilots: list[str], out: Console) -> None:
    from cardsdb.calibration import planted
    from workbench.calibration import summary_rows

    plant = planted(game)
    table = Table("seeds", "planted card flagged", "planted diffs flagging an unchanged card",
                  "A/A diffs flagging any card", "A/A deck tests p < 0.05", "median effect (pts at full dose)",
                  "variance saved (touched decks)",
                  title=f"workbench bench --stats: {game}, {plant.card} {plant.why} ({' vs '.join(plant.decks)}), "
                        f"pilots {','.join(pilots)}, {len(results)} blocks")
    for r in summary_rows(results):
        b = r["blocks"]
        table.add_row(f"{r['seeds']:,}", f"{r['found']}/{b} ({r['found'] / b:.0%})",
                      f"{r['planted_diffs_with_false_flag']}/{b}", f"{r['aa_diffs_with_flag']}/{b}",
                      f"{r['aa_deck_rejections']}/{r['aa_deck_tests']} ({r['aa_deck_rejections'] / max(1, r['aa_deck_tests']):.1%})",
                      f"{r['median_effect_points']:+.1f}", f"{r['variance_saved']:.0%}")
    out.print(table)
    if value is not None:
        c = value.change
        out.print(f"value of {value.card} (replaced by {value.reference}, {value.seeds:,} seeds, pilots "
                  f"{','.join(pilots)}): base {value.base['value_points']:+.1f} pts "
                  f"[{value.base['value_lo']:+.1f}, {value.base['value_hi']:+.1f}], planted "
                  f"{value.planted['value_points']:+.1f} [{value.planted['value_lo']:+.1f}, {value.planted['value_hi']:+.1f}]; "
                  f"change {c['change_points']:+.1f} pts [{c['change_lo']:+.1f}, {c['change_hi']:+.1f}], p {c['p_value']:.2g}")


def show_sequential(game: str, results, store_path: Path, max_seeds: int, pilots: list[str], out: Console) -> None:
    """``diff --until-decided`` on the calibration's seeds at several deltas (calibration.py)."""
    from workbench.calibration import BOOTSTRAP_TRIALS, sequential_calibration

    rows = sequential_calibration(store_path, game, [r.runs for r in results], max_seeds)
    table = Table("delta (pts)", "A/A false 'change': blocks", f"A/A false: {BOOTSTRAP_TRIALS:,} resampled",
                  "A/A false: resampled around 0",
                  "A/A seeds (median)", "planted found: blocks", "planted found: resampled",
                  "planted seeds: median / mean", "fixed diff, 80% power at delta", "fixed, 80% at the planted change",
                  "seeds saved vs fixed at delta",
                  title=f"workbench bench --stats: sequential diffs (--until-decided, alpha = beta = 5%), {game}, "
                        f"pilots {','.join(pilots)}, at most {max_seeds:,} seeds; planted change "
                        f"{rows[0].effect_points:+.1f} pts on its deck, per-seed variance {rows[0].var:.3f}; "
                        f"the A/A pool's own change {rows[0].aa_points:+.1f} pts (95% +-{rows[0].aa_half:.1f})")
    for r in rows:
        b = r.blocks
        table.add_row(f"{r.delta:g}", f"{r.real_aa_false}/{b}", f"{r.boot_aa_false:.1%}", f"{r.boot_aa_false_centered:.1%}",
                      f"{r.boot_aa_seeds_median:,.0f}",
                      f"{r.real_planted_found}/{b} (seeds {', '.join(str(s) for s in r.real_planted_seeds)})",
                      f"{r.boot_planted_found:.0%}", f"{r.boot_planted_seeds_median:,.0f} / {r.boot_planted_seeds_mean:,.0f}",
                      f"{r.fixed_seeds_delta:,.0f}", f"{r.fixed_seeds_effect:,.0f}",
                      f"{1 - r.boot_planted_seeds_mean / r.fixed_seeds_delta:.0%}")
    out.print(table)
    out.print("seeds are per pairing, two matches each (both seats), per version; 'resampled' trials draw seeds with "
              "replacement from every block's, so the A/A pool's own mean (in the title) is their truth ('around 0': "
              "shifted to mean 0 first, the exact null); a trial "
              f"undecided at {max_seeds:,} seeds counts as not found (planted) and not false (A/A)")


# --- soak ------------------------------------------------------------------------------------------

def soak_bench(game_list: list[str] | None, matches: int, workers: int | None, check: str, out: Console) -> bool:
    """``--soak N``: about N random matches of each game through the farm into a scratch store,
    events off, invariants checked (workbench/bench/soak.py). True when every game stored no
    engine error and no invariant violation and the writer's memory stayed flat."""
    from workbench.bench.soak import CHECKS, FLAT_MARGIN, soak_game

    chosen = bench_games(game_list)
    if matches < 2:
        raise UserError("--soak takes the matches per game, at least 2")
    if check not in CHECKS:
        raise UserError(f"--soak-check takes {' or '.join(CHECKS)}, not {check!r}")
    workers = workers or default_workers()
    mb = 2 ** 20
    table = Table("game", "matches", "engine errors", "invariant violations", "writer RSS MB start / peak / end",
                  "2nd-half peak vs 1st", "memory flat", "wall s", "writer CPU s", "worker CPU s",
                  "matches/worker CPU-s", "end reasons",
                  title=f"workbench bench --soak {matches:,}: random matches per game through the farm ({workers} "
                        f"workers), events none, invariants checked at every {check}; flat = the writer's peak in "
                        f"the run's second half at most {FLAT_MARGIN:.0%} above the first half's")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for game, mode in [(g, m) for g in chosen for m in get_engine(g).modes]:
            f = soak_game(game, matches, workers, Path(tmp) / "soak.duckdb", check, mode=mode,
                          seats=FFA_SEATS if mode == "ffa" else None)
            m = f.memory
            ok = ok and f.ok
            table.add_row(game if mode == "duel" else f"{game} {mode}" + (f" ({FFA_SEATS} seats)" if mode == "ffa" else ""),
                          f"{f.matches:,}", str(f.errors), str(f.violations),
                          f"{m.start / mb:.1f} / {m.peak / mb:.1f} / {m.end / mb:.1f}", f"{m.growth:+.1%}",
                          "yes" if m.flat else "no", f"{f.seconds:.0f}", f"{f.writer_cpu_s:.1f}",
                          f"{f.worker_cpu_s:.0f}", f"{f.matches / max(1e-9, f.worker_cpu_s):.1f}",
                          ", ".join(f"{k} {v:,}" for k, v in f.reasons.items()))
            out.print(f"soaked {game} {mode}: {f.matches:,} matches in {f.seconds:.0f} s"
                      + (f"; first problem: {f.first_problem}" if f.first_problem else ""))
    out.print(table)
    out.print(f"soak: {'passed' if ok else 'FAILED'} (0 engine errors, 0 invariant violations, flat memory)")
    return ok


# --- Dask --------------------------------------------------------------------------------------------

def dask_speed(matches: int, repeats: int, out: Console) -> None:
    """A LocalCluster of 1 worker against one of every core, on the same runs; clusters are
    started before the clock runs (a real cluster is up before a batch comes)."""
    from distributed import LocalCluster

    from workbench.executors import QUIET_SCHEDULER

    cores = default_workers()
    rates = {}
    for n in (1, cores):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                          scheduler_kwargs=QUIET_SCHEDULER) as cluster:
            rates[n] = farm_speed("frontier", ("random", "random"), matches, n, repeats, cluster.scheduler_address)
    table = Table("workers", "matches/s (median)", "runs", title=f"workbench bench --dask: LocalCluster, "
                  f"{matches} random matches per run, median of {repeats}")
    for n, r in rates.items():
        table.add_row(str(n), f"{r['matches_s']:,.0f}", ", ".join(f"{x:,.0f}" for x in r["runs"]))
    out.print(table)
    out.print(f"speed-up: {rates[cores]['matches_s'] / rates[1]['matches_s']:.2f}x")
