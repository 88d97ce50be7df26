"""What-if: a card's definition, the "Try a change" form and the progress of the diff it starts.

The Cards page shows a selected card's cost, stats, keywords, text and decks (``card_facts``) and
under them the form (``try_a_change``): every number of the card and its keywords' toggles. A
change is written as a new rules version into the designer's workspace (cardsdb/whatif.py: it
extends the run's version, patches that card only, and is checked by the loader before it is
kept), then ``workbench diff --until-decided`` plays it against the run's version in the
background (reports/whatif.py, reports/jobs.py). ``follow`` shows the job's progress, refreshing
itself, and once the diff is decided opens the Version diff on it. This page lists the store's
what-if jobs, so one started from a page since closed can be followed again."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from datetime import datetime

import polars as pl
import streamlit as st

from cardsdb.errors import DataError, DataErrors
from cardsdb.whatif import SHIPPED, problem_line, write_trial
from cardsdb.workspace import data_root, is_shipped
from reports import jobs, whatif
from reports.card_fields import ARROW, change_text, editable, edits_of, shown
from reports.pages.common import (
    PAGES_KEY,
    POINTS,
    count,
    distinct,
    one_connection_per_render,
    page_header,
    pts,
    readable_table,
    store_state,
    table_with_download,
)

POLL_SECONDS = 2.0
STARTED = "whatif_started"   # session key: the job this session started
OPENED = "whatif_opened"     # session key: the jobs whose diff this session has opened
STATE_LINES = {"running": "running", "decided": "decided", "undecided": "undecided at its cap",
               "failed": "failed", "stopped": "stopped"}


# the store's answers, cached per store state (as every page's queries are: reports/pages/common.py)
@st.cache_data(max_entries=256, show_spinner=False)
def _definition(path: str, state: tuple, run_id: int, card: str) -> dict | None:
    return whatif.card_definition(path, run_id, card)


@st.cache_data(max_entries=256, show_spinner=False)
def _decks(path: str, state: tuple, run_id: int, card: str) -> pl.DataFrame:
    return whatif.card_decks(path, [run_id], card)


@st.cache_data(max_entries=256, show_spinner=False)
def _run(path: str, state: tuple, run_ids: tuple[int, ...], version: str | None) -> whatif.RunInfo | None:
    return whatif.pick_run(path, list(run_ids), version)


# --- the card --------------------------------------------------------------------------------------

def card_facts(definition: dict, decks: pl.DataFrame) -> None:
    """Cost, stats, keywords, text and the decks that hold the card."""
    fields = definition["fields"]
    numbers = [e for e in editable(fields) if e.kind == "number" and not e.keyword]
    cost = [e for e in numbers if e.path.split(".")[0] == "cost"]
    stats = [e for e in numbers if e not in cost]
    keywords = {k: v for k, v in (fields.get("keywords") or {}).items() if v not in (False, None, 0, [], {})}
    budget = definition.get("budget_cost")
    lines = [" · ".join(str(x) for x in (f"**{definition['name']}** (`{definition['card']}`)", definition.get("type"),
                                          faction_text(definition), f"rules version {definition['rules_version']}")
                        if x),
             "Cost: " + (", ".join(f"{e.label} {shown(e.value)}" for e in cost) or "none")
             + (f" ({definition.get('cost_text')}; budget cost {budget:g})" if budget is not None else ""),
             "Stats: " + (", ".join(f"{e.label} {shown(e.value)}" for e in stats) or "none"),
             "Keywords: " + (", ".join(k if v is True else f"{k} {shown(v)}" for k, v in keywords.items()) or "none")]
    st.markdown("  \n".join(lines))
    if fields.get("text"):
        st.markdown(f"> {fields['text']}")
    if decks.is_empty():
        st.caption("No deck of this run holds it.")
    else:
        st.caption("In decks: " + ", ".join(f"{d['deck']} ({d['copies']}×)" for d in decks.iter_rows(named=True)))


def faction_text(definition: dict) -> str | None:
    """The card's faction (or clan) by name, its id beside it as the card's is."""
    faction, name = definition.get("faction"), definition.get("faction_name")
    return f"{name} (`{faction}`)" if name and name != faction else faction


@dataclass(frozen=True)
class CardContext:
    """A card picked on the Cards page, in the run a what-if starts from."""
    run: whatif.RunInfo
    definition: dict
    holding: list[str]


def card_about(path, run_ids: list[int], card: str, version: str | None) -> CardContext | None:
    """The card's facts (the Cards page's detail), from the newest chosen run of its version."""
    state = store_state(path)
    run = _run(str(path), state, tuple(run_ids), version)
    definition = _definition(str(path), state, run.run_id, card) if run else None
    if definition is None:
        st.caption("This card's definition is not in the store (a store from before the cards table?).")
        return None
    decks = _decks(str(path), state, run.run_id, card)
    card_facts(definition, decks)
    return CardContext(run, definition, decks["deck"].to_list() if decks.height else [])


def change_section(path, context: CardContext) -> None:
    """The "Try a change" form, and the card's newest what-if."""
    try_a_change(path, context.run, context.definition, context.holding)
    job = latest_job(path, context.definition["card"])
    if job is not None:
        follow(path, job.id)


# --- the form --------------------------------------------------------------------------------------

def try_a_change(path, run: whatif.RunInfo, definition: dict, holding: list[str]) -> None:
    card, name = definition["card"], definition["name"]
    root = data_root()
    st.markdown("##### Try a change")
    if is_shipped(root):
        st.info(f"To try a change here, {SHIPPED.split(': ', 1)[1]}.")
        return
    fields = definition["fields"]
    items = editable(fields)
    values = {}
    with st.form(f"whatif-{card}"):
        st.caption(f"Writes a rules version extending **{run.rules_version}** that changes {name} only into "
                   f"`{root / run.game / 'rules'}`, checks it, then plays it against {run.rules_version} on the same "
                   "seeds until a sequential test decides whether each deck holding the card moved.")
        groups = (("Cost and stats", [e for e in items if e.kind == "number" and not e.keyword]),
                  ("Keyword numbers", [e for e in items if e.kind == "number" and e.keyword]),
                  ("Keywords", [e for e in items if e.kind == "toggle"]))
        for title, group in groups:
            if group:
                values.update(field_inputs(title, group, card))
        with st.expander("How it is measured"):
            c1, c2, c3, c4 = st.columns(4)
            decks = c1.multiselect("Decks", run.decks, default=whatif.default_decks(run, holding),
                                   help="the decks that play (every pair of them): by default the decks of the run "
                                        "that hold the card, and the decks they meet")
            pilots = c2.text_input("Pilots", whatif.PILOTS, help="one pilot for every seat, or one per deck")
            cap = c3.number_input("At most, matches per pairing", value=whatif.MAX_MATCHES,
                                  min_value=whatif.MIN_MATCHES, step=50,
                                  help=f"per version; the test usually stops long before, but looks first after "
                                       f"{whatif.MIN_MATCHES} (so it asks at least that many)")
            delta = c4.number_input("Smallest change worth finding (pts)", value=whatif.DELTA_POINTS, min_value=0.5,
                                    max_value=50.0, step=0.5)
        submitted = st.form_submit_button("Try it: write the version and start the diff", type="primary")
    if submitted:
        submit(path, run, definition, edits_of(fields, values), decks,
               {"pilots": pilots.strip() or whatif.PILOTS, "max_matches": int(cap), "delta": float(delta)})


def field_inputs(title: str, group: list, card: str, per_row: int = 6) -> dict:
    """A row of number boxes or toggles, one per field; the values as the designer left them."""
    st.caption(title)
    cols = st.columns(per_row)
    out = {}
    for i, e in enumerate(group):
        where, key = cols[i % per_row], f"whatif-{card}-{e.path}"
        if e.kind == "toggle":
            out[e.path] = where.checkbox(e.label, value=e.value, key=key)
        else:
            out[e.path] = where.number_input(e.label, value=e.value, step=1 if isinstance(e.value, int) else 0.5,
                                             key=key)
    return out


def submit(path, run: whatif.RunInfo, definition: dict, edits: dict, decks: list[str], options: dict) -> None:
    """Write the version (one line and nothing kept on a mistake), then start its diff."""
    if not edits:
        st.warning("Nothing to try yet: change a number or a keyword first.")
        return
    if not decks:
        st.warning("Pick at least one deck to play.")
        return
    busy = jobs.running(path)
    if busy is not None:
        st.warning(f"A what-if is still running (job {busy.id}: {jobs.title(busy)}); wait for its answer "
                   "or stop it, then try again.")
        return
    root = data_root()
    try:
        trial = write_trial(run.game, run.rules_version, definition["card"], edits, decks, root)
    except (DataError, DataErrors) as exc:
        st.error(problem_line(exc))
        return
    try:
        job = whatif.start_diff(path, run.game, run.rules_version, trial.version, trial.card, trial.changes, decks,
                                root, name=definition["name"], **options)
    except jobs.JobRefused as exc:  # another job started since the check above: keep nothing of this one
        forget_trial(trial)
        st.warning(str(exc))
        return
    except Exception:
        forget_trial(trial)
        raise
    st.session_state[STARTED] = job.id
    note = "" if trial.base_hash == run.rules_hash else (
        f" Note: {run.rules_version} in the workspace is not the version run {run.run_id} played (hash "
        f"{trial.base_hash}, not {run.rules_hash}); the diff plays the workspace's.")
    st.success(f"Wrote `{trial.path.name}` ({definition['name']}: {change_text(trial.changes, ARROW)}); its diff runs "
               f"in the background as job {job.id}, and goes on if this page is closed.{note}")


def forget_trial(trial) -> None:
    """Remove the version a refused start wrote (one written before, which a job may use, stays)."""
    if getattr(trial, "created", True):
        trial.path.unlink(missing_ok=True)


# --- following a job --------------------------------------------------------------------------------

def latest_job(path, card: str | None = None) -> jobs.Job | None:
    """This session's job, else the newest what-if of the card (or of any card)."""
    found = jobs.jobs(path)
    mine = [j for j in found if j.id == st.session_state.get(STARTED)]
    if card is not None and mine and mine[0].meta.get("card") != card:
        mine = []
    theirs = [j for j in found if card is None or j.meta.get("card") == card]
    return (mine or theirs or [None])[0]


def follow(path, job_id: int) -> None:
    """The job's progress; while it runs it refreshes itself every POLL_SECONDS."""
    job = next((j for j in jobs.jobs(path) if j.id == job_id), None)
    if job is None:
        return
    if jobs.job_state(job).get("state") == "running":
        st.fragment(run_every=POLL_SECONDS)(_panel)(path, job_id, True)
    else:
        _panel(path, job_id, False)


def elapsed(job: jobs.Job, status: dict) -> float:
    """Seconds from the start to the job's last word (now, while it runs): a finished, failed or
    stopped job's time stands still (``ended_at``)."""
    if status.get("state", "running") == "running":
        return time.time() - job.created_at
    return max(0.0, ended_at(job, status) - job.created_at)


def ended_at(job: jobs.Job, status: dict) -> float:
    """When a job that is no longer running said its last word: the latest of its status's
    ``updated_at`` and the times its status file and its log were last written (a job that failed
    before writing any status has only its log), else its record's."""
    times = []
    if status.get("updated_at"):
        try:
            times.append(datetime.strptime(status["updated_at"], "%Y-%m-%dT%H:%M:%S%z").timestamp())
        except ValueError:
            pass
    for written in (job.status_path, job.log_path):
        try:
            times.append(os.stat(written).st_mtime)
        except OSError:
            pass
    if not times:
        try:
            times.append(os.stat(job.record).st_mtime)
        except OSError:
            times.append(job.created_at)
    return max(times)


def state_line(job: jobs.Job, status: dict) -> str:
    """The job's state in words; a running job asked to stop is "stopping (asked at 14:02:07)"."""
    if jobs.stopping(job, status):
        return f"stopping ({asked_at(job)})"
    state = status.get("state", "running")
    return STATE_LINES.get(state, state)


def asked_at(job: jobs.Job) -> str:
    when = getattr(job, "stop_asked_at", None)
    return f"asked at {datetime.fromtimestamp(when).strftime('%H:%M:%S')}" if when else "asked from the dashboard"


def verdict_rows(decks: list[dict], delta: float, delta0: float) -> pl.DataFrame:
    """The status's deck rows as the table shows them: the decision in the test's words and,
    where the plain interval adds something (``sequential.caveat``), a note."""
    frame = pl.DataFrame(decks).select("deck", "seeds", "change", "lo", "hi")
    notes = [whatif.deck_caveat(d, delta) for d in decks]
    frame = frame.with_columns(pl.Series("decision", [whatif.deck_words(d, delta, delta0) for d in decks],
                                         dtype=pl.String))
    if any(notes):
        frame = frame.with_columns(pl.Series("note", notes, dtype=pl.String))
    return frame


def deck_answer(d: dict, delta: float, delta0: float) -> str:
    """One deck's verdict in a sentence: "lawmen-posse stronger: nearer a gain of 5 points than of
    0 (+20.0 pts)", with the interval's caveat when it has one."""
    note = whatif.deck_caveat(d, delta)
    return f"{d['deck']} {whatif.deck_words(d, delta, delta0)} ({_pts(d.get('change'))}{'; ' + note if note else ''})"


def _panel(path, job_id: int, polling: bool) -> None:
    job = next(j for j in jobs.jobs(path) if j.id == job_id)
    status = jobs.job_state(job)
    state = status.get("state", "running")
    if polling and state != "running":
        st.rerun()  # the whole page, once: the answer replaces the progress and the timer stops
    meta = job.meta
    pilots = job_pilots(job, status)
    decks = status.get("decks") or []
    delta, delta0 = whatif.job_deltas(job, path, status.get("diff_id"))
    stopping = jobs.stopping(job, status)
    with st.container(border=True):
        st.markdown(f"**What-if job {job.id}**: {whatif.card_name(job)} {whatif.job_change(job)} "
                    f"(`{meta.get('candidate')}` against `{meta.get('base')}`, {', '.join(meta.get('decks', []))}, "
                    f"pilots {pilots}) · {state_line(job, status)} · {elapsed(job, status):.0f} s")
        played, cap = status.get("matches") or 0, status.get("max_matches") or 0
        if state == "running":
            progress = (f"round {status.get('rounds') or 0}: " + "; ".join(deck_answer(d, delta, delta0) for d in decks)
                        if decks else status.get("message", ""))
            st.progress(min(1.0, played / cap) if cap else 0.0,
                        text=f"{played:,} of at most {cap:,} matches per version played "
                             f"({status.get('rounds') or 0} rounds, pilots {pilots}): {progress}")
            if stopping:
                st.info(f"Stop {asked_at(job)}: the chunks already being played finish first (up to a minute or "
                        "so), then the job ends; the rounds played are kept.")
            elif st.button("Stop this diff", key=f"whatif-stop-{job.id}"):
                jobs.stop(job)
                st.rerun()
        if decks:
            readable_table(verdict_rows(decks, delta, delta0), VERDICT_CONFIG)
        if state in ("decided", "undecided"):
            answer = "; ".join(deck_answer(d, delta, delta0) for d in decks)
            head = (f"Decided after {played:,} matches per version: {whatif.answer_words(state, decks, delta, delta0)}."
                    if state == "decided" else f"Undecided at the cap after {played:,} matches per version.")
            (st.success if state == "decided" else st.warning)(
                head + (f" {answer}." if answer else "") + f" Tested: a change of {delta:g} pts against one of "
                f"{delta0:g}. Pilots: {pilots}; the verdict is a fact about their play.")
            if status.get("diff_id") is not None:
                open_diff(int(status["diff_id"]), job.id)
        elif state == "failed":
            st.error(f"The diff failed: {status.get('message')} (log: `{job.log_path}`)")
        elif state == "stopped":
            st.info("Stopped from the dashboard; the rounds played are kept and the same change tried again "
                    "picks up where it stopped.")


def job_pilots(job: jobs.Job, status: dict) -> str:
    """The pilots that play a what-if's matches, as its status names them (``greedy``; ``greedy,
    random`` for one per deck), else as the form asked them (a diff that failed before writing
    them, or a status from before they were written)."""
    named = status.get("pilots") or (job.meta.get("options") or {}).get("pilots")
    return ", ".join(distinct(named or [])) or "not recorded"


def _pts(x) -> str:
    """A change in points as the tables write it (POINTS): "+2.4 pts"."""
    return "no estimate yet" if x is None else POINTS % x


VERDICT_CONFIG = {
    "seeds": count("seeds", "seeds played (each from both seats)"),
    "change": pts("change", "the deck's running paired win-rate change, in points"),
    "lo": pts("95% lo", "plain paired interval, for orientation: the verdict is the test's"),
    "hi": pts("95% hi", "plain paired interval, for orientation: the verdict is the test's"),
    "decision": st.column_config.TextColumn(
        "decision", help="what the sequential test decided, weighing a change of delta (the form's smallest change "
                         "worth finding) against one of delta0 (0): stronger / weaker means the evidence sits nearer "
                         "a gain / loss of delta than of delta0, not a change of at least delta; no change of delta "
                         "or more means it sits nearer delta0, and a smaller change may still be there; undecided: "
                         "not yet told apart"),
    "note": st.column_config.TextColumn("note", help="what the plain interval adds to the verdict: an estimate short "
                                                     "of delta, or an interval that leaves out 0")}


JOBS_CONFIG = {
    "job": st.column_config.NumberColumn("job", help="the what-if's number in this store", format="%d"),
    "name": st.column_config.TextColumn("card", help="the card changed"),
    "change": st.column_config.TextColumn("change", help="what was changed, field by field"),
    "pilots": st.column_config.TextColumn("pilots", help="the AI pilots that play the diff's matches"),
    "state": st.column_config.TextColumn("state", help="running, stopping (a stop was asked; the chunks in flight "
                                                       "finish first), decided, undecided at its cap, failed or "
                                                       "stopped"),
    "matches": count("matches / version", "matches played per rules version so far"),
    "seconds": count("seconds", "from its start to its last word (to now, while it runs)"),
    "diff": st.column_config.NumberColumn("diff", help="the Version diff it stored (open it on that page)",
                                          format="%d"),
    "version": st.column_config.TextColumn("rules version tried", help="the version written into the workspace"),
    "log": st.column_config.TextColumn("log file", help="the diff's output, for a failure")}


def open_diff(diff_id: int, job_id: int) -> None:
    """A button to the Version diff on this diff; opened at once the first time this session sees
    the answer to a job it started."""
    opened = st.session_state.setdefault(OPENED, set())
    page = st.session_state.get(PAGES_KEY, {}).get("diff")
    auto = st.session_state.get(STARTED) == job_id and job_id not in opened
    if st.button("Open the Version diff of this change", key=f"whatif-open-{job_id}", type="primary") or auto:
        opened.add(job_id)
        if page is not None:
            st.switch_page(page, query_params={"diff": str(diff_id)})
        st.query_params["diff"] = str(diff_id)
        st.info(f"Diff {diff_id} is ready on the Version diff page.")


# --- the page ---------------------------------------------------------------------------------------

@one_connection_per_render
def render() -> None:
    path = page_header("What-if")
    if path is None:
        return
    root = data_root()
    st.caption("Open a card on the Cards page (select its row) and use **Try a change**: the change becomes a rules "
               "version of your workspace and a sequential diff measures it in the background.")
    if is_shipped(root):
        st.info(f"This dashboard reads the shipped card data: {SHIPPED.split(': ', 1)[1]}.")
    else:
        st.caption(f"Workspace: `{root}`")
    found = jobs.jobs(path)
    if not found:
        st.info("No what-if has been started on this store yet.")
        return
    follow(path, latest_job(path).id)
    rows = []
    for job in found:
        status = jobs.job_state(job)
        rows.append({"job": job.id, "name": whatif.card_name(job), "change": whatif.job_change(job),
                     "pilots": job_pilots(job, status),
                     "state": "stopping" if jobs.stopping(job, status) else status.get("state"),
                     "matches": status.get("matches"),
                     "seconds": round(elapsed(job, status)), "diff": status.get("diff_id"),
                     "version": job.meta.get("candidate"), "card": job.meta.get("card"), "log": job.log_path,
                     "game": job.meta.get("game")})
    st.subheader("Every what-if of this store")
    # the download records the jobs' games and pilots, not the runs the duel pages keep
    scope = {"game": ",".join(sorted({r["game"] for r in rows if r["game"]})),
             "pilots": ",".join(dict.fromkeys(p for r in rows for p in r["pilots"].split(", ") if p != "not recorded"))}
    table_with_download(pl.DataFrame(rows).drop("game"), "whatif_jobs", JOBS_CONFIG,
                        scope={k: v for k, v in scope.items() if v})
