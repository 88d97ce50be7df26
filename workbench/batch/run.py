"""Run a batch file: every suite into the store, compared with the previous successful batch
(same seeds, so paired) and with its pinned baseline version; a dated folder with each suite's
HTML report and CSV exports, ``alerts.csv`` and ``summary.md``.

Rerunning the same file on the same day continues the same batch: finished runs are reused,
stopped ones resumed (a killed batch loses at most the chunks in flight), and nothing is stored
twice. One batch at a time per store: a second one fails at once with a clear message."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from rich.console import Console

from cardsdb.errors import DataError, DataErrors
from reports.alerts import COLUMNS, alerts, mode_alerts
from reports.alerts import schema as alert_schema
from reports.db import reading
from reports.diff import pairing_effect, pilots_of_run
from reports.export import write_frame
from reports.exports import diff_frame, export_frame
from reports.filters import Filters
from reports.html import build
from workbench.batch.spec import Suite, load_batch
from workbench.commands.diff import ensure_run
from workbench.commands.simulate import new_run
from workbench.errors import Interrupted, UserError
from workbench.farm import default_workers
from workbench.locks import exclusive
from workbench.outputs import check_folder
from workbench.store import Store
from workbench.store_guard import check_store_path

EXPORTS = ("cards", "cards_by_deck", "keywords", "keyword_prices", "cost_curve", "matchups", "deck_field")
MODE_EXPORTS = {"ffa": ("ffa_decks", "ffa_cards", "ffa_eliminations", "ffa_targets"),  # a mode's own tables,
                "series": ("series_decks", "series_scores"),                          # beside the duel's
                "turf": ("turf_bosses", "turf_pairs", "turf_first_falls")}


def batch_lock(db: Path):
    """Hold ``<db>.batch.lock`` for the batch; fail at once if another batch holds it."""
    return exclusive(Path(str(Path(db).resolve()) + ".batch.lock"),
                     busy=lambda who: UserError(f"{db}: another batch is running on this store ({who}); "
                                                "run this one when it is done"))


@dataclass(frozen=True, slots=True)
class SuitePlan:
    """A suite's runs, checked before the batch starts: (spec, payload) of its rules version and
    of its baseline (None without one)."""
    run: tuple
    baseline: tuple | None


def suite_spec(suite: Suite, rules: str, day: dt.date, workers: int, max_matches) -> tuple:
    seed = int(day.strftime("%Y%m%d")) if suite.seed == "daily" else suite.seed
    decks = None if suite.decks == "starters" else list(suite.decks)
    matches = min(suite.matches, max_matches) if max_matches else suite.matches
    return new_run(suite.game, rules, decks, list(suite.pilots), matches, seed, True, 0.1, None, workers,
                   mode=suite.mode, seats=suite.seats, bosses=suite.bosses, boss_pilot=suite.boss_pilot)


def plan_suites(file: Path, suites: list[Suite], day: dt.date, workers: int, max_matches) -> dict[str, SuitePlan]:
    """Every suite's runs, each checked whole (game, rules and baseline versions, decks, pilots,
    numbers) before the first one plays: a mistake in the last suite fails the batch at once,
    naming the file and the suite, with nothing run or written."""
    plans: dict[str, SuitePlan] = {}
    problems: list[DataError] = []
    for suite in suites:
        try:
            run = suite_spec(suite, suite.rules, day, workers, max_matches)
            baseline = (suite_spec(suite, suite.baseline, day, workers, max_matches)
                        if suite.baseline and suite.baseline != suite.rules else None)
            plans[suite.name] = SuitePlan(run, baseline)
        except (UserError, DataError) as exc:
            problems.append(DataError(file, f"suite {suite.name!r}: {exc}"))
        except DataErrors as exc:
            problems.extend(DataError(file, f"suite {suite.name!r}: {e.line()}") for e in exc.errors)
    if problems:
        raise DataErrors(problems)
    return plans


def suite_run(store: Store, planned: tuple, workers: int, cluster, console: Console) -> int:
    spec, payload = planned
    return ensure_run(store, spec, payload, workers, True, console, cluster)


def run_batch(file: Path, db: Path, out: Path, day: dt.date | None, workers: int | None, cluster: str | None,
              max_matches: int | None, console: Console) -> int:
    """Returns the number of alerts."""
    batch, file_hash = load_batch(file)
    day = day or dt.date.today()
    workers = workers or default_workers(cluster)
    check_folder(out, "--out")
    plans = plan_suites(file, batch.suites, day, workers, max_matches)
    check_store_path(db)
    store = Store(db)
    store.init()
    folder = out / batch.name / day.isoformat()
    folder.mkdir(parents=True, exist_ok=True)
    with batch_lock(db):
        batch_id = store.open_batch(batch.name, day, file_hash)
        all_alerts, summaries = [], []
        status = "failed"
        try:
            for suite in batch.suites:
                try:
                    rows, text = _run_suite(store, batch, suite, plans[suite.name], day, workers, cluster, folder,
                                            batch_id, console)
                except Interrupted:  # its runs are kept; the same batch again resumes them (and reuses the rest)
                    status = "stopped"
                    raise Interrupted(f"batch {batch.name} stopped in suite {suite.name}; run the same batch "
                                      "command again to finish it (its runs resume)") from None
                all_alerts.append(rows)
                summaries.append(text)
            status = "done"
        finally:
            alerts_frame = pl.concat(all_alerts) if all_alerts else _empty_alerts()
            store.finish_batch(batch_id, status, alerts_frame.height)
        write_frame(alerts_frame, csv=folder / "alerts.csv")
        (folder / "summary.md").write_text(_summary(batch.name, day, alerts_frame, summaries), encoding="utf-8")
    console.print(f"batch {batch.name} {day}: {_alerts(alerts_frame.height)}; {folder}")
    return alerts_frame.height


def _run_suite(store, batch, suite, plan: SuitePlan, day, workers, cluster, folder, batch_id, console):
    console.print(f"suite {suite.name}: {suite.game} {suite.rules}")
    run = suite_run(store, plan.run, workers, cluster, console)
    previous = store.previous_suite_run(batch.name, suite.name, day) if suite.seed != "daily" else None
    baseline = None
    if plan.baseline is not None:
        baseline = suite_run(store, plan.baseline, workers, cluster, console)
    sfolder = folder / suite.name
    sfolder.mkdir(exist_ok=True)
    with reading(store.path):  # one connection for the dozens of reads below
        found_all, lines = _suite_reports(store, batch, suite, run, previous, baseline, sfolder)
    store.record_suite(batch_id, suite.name, suite.game, run, previous, baseline, "done", found_all.height)
    return found_all, "\n".join(lines)


def _suite_reports(store, batch, suite, run: int, previous, baseline, sfolder):
    """The suite's exports, its comparisons and its HTML report, written to ``sfolder``; its
    alerts and summary lines."""
    for name in EXPORTS + MODE_EXPORTS.get(suite.mode, ()):
        write_frame(export_frame(store.path, name, Filters(runs=[run])), csv=sfolder / f"{name}.csv")
    frames, lines = [], [f"## {suite.name} ({suite.game}, rules {suite.rules}, run {run}, "
                         f"pilots {pilots_of_run(store.path, run)})", ""]
    for label, other in (("previous", previous), ("baseline", baseline)):
        if other is None:
            lines.append(f"- no {label} run to compare with"
                         + (" (a daily seed cannot be paired with another day)" if label == "previous" and suite.seed == "daily" else ""))
            continue
        if suite.mode != "duel":  # a free-for-all or series suite: its decks' rates, unpaired
            found, decks = mode_alerts(store.path, other, run, batch.threshold_points, label, suite.mode)
            frames.append(found)
            write_frame(decks, csv=sfolder / f"vs_{label}_decks.csv")
            what = {"ffa": "decks' win share", "series": "decks' series win rate", "turf": "bosses' clear rate"}
            lines.append(f"- vs {label} (run {other}): {_alerts(found.height)} ({what[suite.mode]}, unpaired)")
            for a in found.iter_rows(named=True):
                lines.append(f"  - {a['kind']} **{a['name']}** moved {a['change_points']:+.1f} points "
                             f"(95% {a['low_points']:+.1f} to {a['high_points']:+.1f})")
            continue
        found, diff = alerts(store.path, other, run, batch.threshold_points, batch.fdr, label)
        frames.append(found)
        for name in ("decks", "cards"):  # as `workbench export diff_*` writes them (card names beside ids)
            if diff[name].height:
                write_frame(diff_frame(store.path, f"diff_{name}", diff), csv=sfolder / f"vs_{label}_{name}.csv")
        lines.append(f"- vs {label} (run {other}): {_alerts(found.height)}; "
                     f"{diff['twins'] // 2:,} twin matches, {pairing_effect(diff['variance_saved'])}")
        if diff.get("code_note"):  # the day before was played by other code: its change is in these figures
            lines.append(f"  - {diff['code_note']}")
        for a in found.iter_rows(named=True):
            lines.append(f"  - {a['kind']} **{a['name']}** moved {a['change_points']:+.1f} points "
                         f"(95% {a['low_points']:+.1f} to {a['high_points']:+.1f})")
    (sfolder / "report.html").write_text(build(store.path, [run], baseline if baseline is not None else previous),
                                         encoding="utf-8")
    found_all = pl.concat(frames) if frames else _empty_alerts()
    found_all = found_all.with_columns(pl.lit(suite.name).alias("suite")).select(["suite"] + COLUMNS)
    write_frame(found_all, csv=sfolder / "alerts.csv")
    return found_all, lines


def _empty_alerts() -> pl.DataFrame:
    return pl.DataFrame(schema={"suite": pl.Utf8, **alert_schema()})


def _summary(name: str, day: dt.date, found: pl.DataFrame, sections: list[str]) -> str:
    head = [f"# Batch {name}, {day.isoformat()}", "",
            f"**{_alerts(found.height)}**" if found.height else "**No alerts.**", ""]
    return "\n".join(head) + "\n" + "\n\n".join(sections) + "\n"


def check_day(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(f"--day takes a date like 2026-11-29, not {text!r}") from None


def _alerts(n: int) -> str:
    """"1 alert", "3 alerts"."""
    return f"{n} alert{'' if n == 1 else 's'}"
