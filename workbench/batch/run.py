"""Run a batch file: every suite into the store, compared with the previous successful batch
(same seeds, so paired) and with its pinned baseline version; a dated folder with each suite's
HTML report and CSV exports, ``alerts.csv`` and ``summary.md``. Two runs played by different
pilots (or by pilots thinking with other weights) are never compared: a change of pilots is not a
rules change, so the summary says the comparison was skipped and why, and it raises no alert.

Rerunning the same file on the same day continues the same batch: finished runs are reused,
stopped ones resumed (a killed batch loses at most the chunks in flight), and nothing is stored
twice. One batch at a time per store: a second one fails at once with a clear message."""
from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

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
from workbench.run_pilots import boss_words, unlike_pilots
from workbench.store import Store, interrupts_deferred, is_interrupt, stop_runs_left_running, stops_said
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
    return new_run(suite.game, rules, decks, list(suite.pilots), matches=matches, seed=seed, swap=True, events=0.1,
                   chunk_size=None, workers=workers, mode=suite.mode, seats=suite.seats, bosses=suite.bosses,
                   boss_pilot=suite.boss_pilot)


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


class BatchOutcome(NamedTuple):
    alerts: int      # every alert, standing ones included
    news: int        # alerts that are not standing against the baseline
    skipped: int     # comparisons not made (other pilots or weights)

    @property
    def exit_code(self) -> int:
        """3 news, 4 no news but a comparison could not be made (a quiet night that compared
        nothing is not "nothing moved"), 0 nothing moved."""
        return 3 if self.news else 4 if self.skipped else 0


def run_batch(file: Path, db: Path, out: Path, day: dt.date | None, workers: int | None, cluster: str | None,
              max_matches: int | None, console: Console) -> BatchOutcome:
    """The batch's alerts, the news among them and the comparisons not made. A stop (Ctrl-C,
    SIGTERM) anywhere is one line saying to run the same command again, which continues the
    batch (``stopped``): finished runs are reused, stopped ones resumed."""
    # (a run stopped while it was being made is marked stopped; the batch's rerun resumes it)
    with stops_said(lambda _left: f"batch {file} stopped; run the same batch command again to finish it"):
        return _run_batch(file, db, out, day, workers, cluster, max_matches, console)


def _run_batch(file: Path, db: Path, out: Path, day: dt.date | None, workers: int | None, cluster: str | None,
               max_matches: int | None, console: Console) -> BatchOutcome:
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
        all_alerts, summaries, skipped = [], [], 0
        batch_id, status, suite = None, "failed", None
        _say_unfinished(folder, batch.name, day, file)
        try:
            with interrupts_deferred():  # a stop while it is opened lands once its id is known
                batch_id = store.open_batch(batch.name, day, file_hash)
            for suite in batch.suites:
                rows, text, unlike = _run_suite(store, batch, suite, plans[suite.name], day, workers, cluster,
                                                folder, batch_id, console)
                all_alerts.append(rows)
                summaries.append(text)
                skipped += unlike
            suite, status = None, "done"
        except (KeyboardInterrupt, RuntimeError, Interrupted) as exc:
            if not is_interrupt(exc) and not isinstance(exc, Interrupted):
                raise
            # its runs are kept; the same batch again resumes them (and reuses the rest)
            status = "stopped"
            stop_runs_left_running()
            _say_unfinished(folder, batch.name, day, file, stopped_in=suite.name if suite else None,
                            done=summaries, left=[s.name for s in batch.suites[len(summaries):]])
            raise Interrupted(f"batch {batch.name} stopped" + (f" in suite {suite.name}" if suite else "")
                              + "; run the same batch command again to finish it (its runs resume)") from None
        finally:
            alerts_frame = pl.concat(all_alerts) if all_alerts else _empty_alerts()
            if batch_id is not None:
                store.finish_batch(batch_id, status, alerts_frame.height)
        write_frame(alerts_frame, csv=folder / "alerts.csv")
        (folder / "summary.md").write_text(_summary(batch.name, day, alerts_frame, summaries, skipped),
                                           encoding="utf-8")
    standing = int(alerts_frame["standing"].sum()) if alerts_frame.height else 0
    console.print(f"batch {batch.name} {day}: {_alerts(alerts_frame.height)}"
                  + (f" ({standing} standing)" if standing else "")
                  + (f", {_not_compared(skipped)}" if skipped else "") + f"; {folder}", markup=False, highlight=False)
    return BatchOutcome(alerts_frame.height, alerts_frame.height - standing, skipped)


def _run_suite(store, batch, suite, plan: SuitePlan, day, workers, cluster, folder, batch_id, console):
    console.print(f"suite {suite.name}: {suite.game} {suite.rules}")
    run = suite_run(store, plan.run, workers, cluster, console)
    nights = store.previous_suite_runs(batch.name, suite.name, day) if suite.seed != "daily" else []
    previous, passed_over, night_before = comparable_night(store, nights, run)
    baseline = None
    if plan.baseline is not None:
        baseline = suite_run(store, plan.baseline, workers, cluster, console)
    # runs played by other pilots are not twins: say so instead of comparing them
    unlike = {}
    for label, other in (("previous", previous), ("baseline", baseline)):
        if other is not None and (why := unlike_pilots(store, other, run)):
            unlike[label] = why
            console.print(f"suite {suite.name}: {skipped_line(label, other, why)}", markup=False, highlight=False)
    if passed_over:
        console.print(f"suite {suite.name}: {passed_over}", markup=False, highlight=False)
    sfolder = folder / suite.name
    sfolder.mkdir(exist_ok=True)
    no_report = report_refused(store.path, suite, run)
    if no_report:
        console.print(f"suite {suite.name}: {no_report_line(no_report)}", markup=False, highlight=False)
    with reading(store.path):  # one connection for the dozens of reads below
        found_all, lines = _suite_reports(store, batch, suite, run, previous, baseline, sfolder, unlike,
                                          night_before if "baseline" not in unlike else None, no_report)
    if passed_over:
        lines.insert(2, f"- {passed_over}")
    store.record_suite(batch_id, suite.name, suite.game, run, previous, baseline, "done", found_all.height)
    return found_all, "\n".join(lines), len(unlike)


def comparable_night(store: Store, nights: list[tuple], run: int) -> tuple[int | None, str, tuple | None]:
    """(the run to compare with as "previous", a line when later nights were passed over, the
    (run, baseline run) of that night): the latest earlier night played by the same pilots
    thinking with the same weights. It used to be the latest night whatever played it: after one
    night of other pilots, every later night was compared with that one, skipped, and a card
    change on those nights went unreported. With no such night, the latest (whose comparison is
    then skipped, saying why)."""
    if not nights:
        return None, "", None
    for i, (other, when, baseline) in enumerate(nights):
        if unlike_pilots(store, other, run) is None:
            if i == 0:
                return other, "", (other, baseline)
            skipped = ", ".join(f"run {r} ({d})" for r, d, _b in nights[:i])
            return other, (f"vs previous: passed over {skipped}, played by other pilots or weights; "
                           f"compared with run {other} ({when}), the last night played by the same pilots"), \
                (other, baseline)
    return nights[0][0], "", None


def report_refused(path: Path, suite: Suite, run: int) -> str | None:
    """Why `workbench report` would refuse the suite's run (its checks, ``check_one_kind`` and
    ``check_one_pilot_a_run``), or None: a duel suite whose decks different pilots played gets no
    HTML report, whose card and deck rankings would read the pilots' gap as the decks'. A
    free-for-all, series or Turf suite's report holds its mode's tables alone, each row a deck and
    its pilots, so `workbench report` makes it, and so does the batch: one rule for both."""
    from workbench.commands.report import check_one_kind, check_one_pilot_a_run

    try:
        check_one_kind(path, [run])
        check_one_pilot_a_run(path, [run])
    except UserError as exc:
        return str(exc)
    return None


def no_report_line(why: str) -> str:
    """The summary's line for a suite's HTML report not made."""
    return f"no report.html (as `workbench report` would refuse it): {why}"


def skipped_line(label: str, other: int, why: str) -> str:
    """The summary's line for a comparison not made."""
    return f"vs {label} (run {other}): not compared: {why}"


def _suite_reports(store, batch, suite, run: int, previous, baseline, sfolder, unlike: dict | None = None,
                   night_before: tuple | None = None, no_report: str | None = None):
    """The suite's exports, its comparisons and its HTML report, written to ``sfolder``; its
    alerts and summary lines. ``unlike``: per comparison ("previous", "baseline"), why its runs
    are not twins (``unlike_pilots``), or None; a comparison with a reason is skipped, with a
    line saying so, and gives no alerts. ``night_before``: (run, baseline run) of the night
    compared with; an alert against the baseline that night's baseline comparison raised too,
    the same way, is *standing* (listed, but no news: it fired every night a designer had not yet
    acted on it). ``no_report``: why the suite's run gets no HTML report (``report_refused``), or
    None."""
    unlike = unlike or {}
    compared = []  # the runs compared with, in order: the last (the baseline's, if made) leads the report
    # a free-for-all, series or Turf suite writes its mode's tables alone: the duel tables would read a
    # Turf match's partners as opponents and a series' later games as duels (the pages leave them out too)
    for name in (EXPORTS if suite.mode == "duel" else MODE_EXPORTS[suite.mode]):
        write_frame(export_frame(store.path, name, Filters(runs=[run])), csv=sfolder / f"{name}.csv")
    if suite.mode != "duel":  # an earlier try of the day (before mode suites left them out) wrote them
        for name in EXPORTS:
            (sfolder / f"{name}.csv").unlink(missing_ok=True)
    for stale in sfolder.glob("vs_*.csv"):  # an earlier try of the day's comparisons: only this one's stay
        stale.unlink()
    frames, lines = [], [f"## {suite.name} ({suite.game}, rules {suite.rules}, run {run}, "
                         f"pilots {pilots_of_run(store.path, run)}{boss_words(store, run)})", ""]
    for label, other in (("previous", previous), ("baseline", baseline)):
        if other is None:
            lines.append(f"- no {label} run to compare with"
                         + (" (a daily seed cannot be paired with another day)" if label == "previous" and suite.seed == "daily" else ""))
            continue
        if unlike.get(label):  # other pilots played it: no comparison, no alerts
            lines.append(f"- {skipped_line(label, other, unlike[label])}")
            continue
        compared.append(other)
        if suite.mode != "duel":  # a free-for-all or series suite: its decks' rates, unpaired
            found, decks = mode_alerts(store.path, other, run, batch.threshold_points, label, suite.mode)
            frames.append(found)
            write_frame(decks, csv=sfolder / f"vs_{label}_decks.csv")
            what = {"ffa": "decks' win share", "series": "decks' series win rate", "turf": "bosses' clear rate"}
            lines.append(f"- vs {label} (run {other}): {_alerts(found.height)} ({what[suite.mode]}, unpaired)")
            for a in found.iter_rows(named=True):  # a row is a deck and its pilots: say which
                lines.append(f"  - {a['kind']} **{a['name']}** ({a['pilots']}) moved {a['change_points']:+.1f} points "
                             f"(95% {a['low_points']:+.1f} to {a['high_points']:+.1f})")
            continue
        found, diff = alerts(store.path, other, run, batch.threshold_points, batch.fdr, label)
        if label == "baseline":
            found = _mark_standing(store, batch, found, night_before, baseline)
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
                         f"(95% {a['low_points']:+.1f} to {a['high_points']:+.1f})"
                         + (" (standing: it fired the night before too)" if a.get("standing") else ""))
    if no_report:  # `workbench report` would refuse this run: no report, and a line saying why
        (sfolder / "report.html").unlink(missing_ok=True)
        lines.append(f"- {no_report_line(no_report)}")
    else:
        (sfolder / "report.html").write_text(build(store.path, [run], compared[-1] if compared else None),
                                             encoding="utf-8")
    frames = [f if "standing" in f.columns else f.with_columns(pl.lit(False).alias("standing")) for f in frames]
    found_all = pl.concat(frames) if frames else _empty_alerts()
    found_all = found_all.with_columns(pl.lit(suite.name).alias("suite")).select(["suite"] + COLUMNS + ["standing"])
    write_frame(found_all, csv=sfolder / "alerts.csv")
    return found_all, lines


def _mark_standing(store, batch, found: pl.DataFrame, night_before: tuple | None, baseline: int) -> pl.DataFrame:
    """``found`` (alerts against the baseline) with ``standing``: the night compared with raised
    the same alert (kind, name, direction) against its own baseline run."""
    if night_before is None or night_before[1] is None or not found.height:
        return found.with_columns(pl.lit(False).alias("standing"))
    then_run, then_base = night_before
    if (then_run, then_base) == (found["candidate_run"][0], baseline):  # the same two runs: the same alerts
        return found.with_columns(pl.lit(True).alias("standing"))
    if unlike_pilots(store, then_base, then_run):
        return found.with_columns(pl.lit(False).alias("standing"))
    then, _diff = alerts(store.path, then_base, then_run, batch.threshold_points, batch.fdr, "baseline")
    fired = {(a["kind"], a["name"], a["change_points"] > 0) for a in then.iter_rows(named=True)}
    return found.with_columns(pl.Series("standing", [(a["kind"], a["name"], a["change_points"] > 0) in fired
                                                     for a in found.iter_rows(named=True)], dtype=pl.Boolean))


def _empty_alerts() -> pl.DataFrame:
    return pl.DataFrame(schema={"suite": pl.Utf8, **alert_schema(), "standing": pl.Boolean})


def _say_unfinished(folder: Path, name: str, day: dt.date, file: Path, stopped_in: str | None = None,
                    done: Sequence[str] = (), left: Sequence[str] = ()) -> None:
    """Until the batch ends, its day's ``summary.md`` says the folder is not finished, and its
    ``alerts.csv`` (written whole at the end) is gone: a batch stopped or killed half way left
    the reports of some suites and no summary, or the summary of an earlier try beside newer
    reports, which read as a finished night. Stopped, it names the suites done and left."""
    (folder / "alerts.csv").unlink(missing_ok=True)
    again = f"Run the same batch command again to finish it (`workbench batch {file}`): its runs resume."
    if stopped_in is None and not left:
        text = (f"# Batch {name}, {day.isoformat()}: not finished\n\n**Not finished.** This batch is running, or "
                f"it was killed before it ended. This file is replaced by the night's summary when it ends. {again}\n")
    else:
        text = (f"# Batch {name}, {day.isoformat()}: stopped\n\n**Not finished: stopped"
                + (f" in suite {stopped_in}" if stopped_in else "") + f".** Suites not reported: {', '.join(left)}. "
                "The files of this folder may be from this try and from an earlier one, and there is no "
                f"`alerts.csv`. {again}\n"
                + ("".join(f"\n{section}\n" for section in done) if done else ""))
    (folder / "summary.md").write_text(text, encoding="utf-8")


def _summary(name: str, day: dt.date, found: pl.DataFrame, sections: list[str], skipped: int = 0) -> str:
    standing = int(found["standing"].sum()) if found.height else 0
    head = [f"# Batch {name}, {day.isoformat()}", "",
            f"**{_alerts(found.height)}**" if found.height else "**No alerts.**", ""]
    if standing:
        head += [f"{standing} of them standing against the baseline: they fired the night before too, and are "
                 "not news (the exit code counts the others).", ""]
    if skipped:  # no alert is not "nothing moved" when a comparison was not made
        head += [f"{_not_compared(skipped)}: its runs were played by other pilots (see below); a change on "
                 "this night would not show. Exit code 4 when nothing else is news.", ""]
    return "\n".join(head) + "\n" + "\n\n".join(sections) + "\n"


def check_day(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UserError(f"--day takes a date like 2026-11-29, not {text!r}") from None


def _not_compared(n: int) -> str:
    """"1 comparison not made", "2 comparisons not made"."""
    return f"{n} comparison{'' if n == 1 else 's'} not made"


def _alerts(n: int) -> str:
    """"1 alert", "3 alerts"."""
    return f"{n} alert{'' if n == 1 else 's'}"
