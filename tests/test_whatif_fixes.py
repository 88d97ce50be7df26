"""The What-if page's audit fixes: its verdicts say what the sequential test decided (which of
+delta and +delta0 the evidence sits nearer, reports/sequential.decision_words), a finished job's
time stands still, the form asks no cap the diff refuses and a refused start keeps no rules file,
and a stop asked for says "stopping" until the job ends. Each test failed before the fix."""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from cardsdb.whatif import write_trial
from reports import jobs, whatif
from reports.pages import whatif as page
from tests.test_dashboard_edges import opened
from tests.test_whatif import CARD, card_app, rules_files, try_it, wait_for, workspace  # noqa: F401

pytestmark = pytest.mark.usefixtures("fresh_cache")

META = {"kind": "whatif", "game": "frontier", "base": "base", "candidate": "try-x", "card": CARD,
        "name": "Iron Horse Cavalry", "change": "atk 4 -> 3", "decks": ["goblin-gold-gang", "lawmen-posse"]}


@pytest.fixture
def store(small_store, tmp_path) -> Path:
    path = tmp_path / "store.duckdb"
    shutil.copy(small_store, path)
    return path


def finished_job(store: Path, status: dict, delta: float) -> jobs.Job:
    """A what-if whose status file holds ``status``, asked with this delta (points)."""
    code = f"import json, sys\njson.dump({status!r}, open(sys.argv[1], 'w'))"
    job = jobs.start(store, [sys.executable, "-c", code, "{status}"],
                     meta={**META, "options": {"pilots": "greedy", "max_matches": 1000, "delta": delta}})
    wait_for(lambda: jobs.job_state(job)["state"] == status["state"])
    return job


def header(at) -> str:
    [line] = [m.value for m in at.markdown if m.value.startswith("**What-if job")]
    return line


def kill_all(store: Path) -> None:
    for j in jobs.jobs(store):
        if jobs.alive(j):
            os.kill(j.pid, signal.SIGKILL)


# --- 1. the verdicts in the test's words ------------------------------------------------------------

def decided(deck_row: dict) -> dict:
    return {"state": "decided", "matches": 100, "max_matches": 1000, "diff_id": 7, "pilots": ["greedy"],
            "updated_at": "2026-01-01T00:00:00+0000", "decks": [{"deck": "lawmen-posse", "seeds": 50, **deck_row}]}


@pytest.mark.parametrize("row, delta, words, overall, note", [
    ({"change": 20.0, "lo": 15.0, "hi": 25.0, "decision": "stronger"}, 5.0,
     "stronger: nearer a gain of 5 points than of 0", "a change: a deck nearer a move of 5 points than of 0", None),
    # a real +8 under delta 16 is "no change of 16 points or more", and its interval leaves out 0
    ({"change": 8.0, "lo": 1.0, "hi": 15.0, "decision": "no change"}, 16.0,
     "no change of 16 points or more", "no change of 16 points or more in any deck tested",
     "its interval leaves out 0: a change smaller than 16 points is likely"),
])
def test_the_verdicts_say_which_hypothesis_the_evidence_sits_nearer(store, monkeypatch, row, delta, words, overall,
                                                                     note):
    finished_job(store, decided(row), delta)
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = opened("whatif")
    [verdict] = [s.value for s in at.success]
    assert verdict.startswith(f"Decided after 100 matches per version: {overall}."), verdict
    assert f"lawmen-posse {words} ({row['change']:+.1f} pts" in verdict, verdict
    assert f"lawmen-posse {row['decision']} (" not in verdict, "not the bare code"
    assert f"Tested: a change of {delta:g} pts against one of 0" in verdict, verdict
    if note:
        assert note in verdict, verdict
    table = next(f for f in at.dataframe if "decision" in f.value.columns)
    assert table.value["decision"].tolist() == [words]
    if note:
        assert table.value["note"].tolist() == [note]
    help_text = json.loads(table.proto.columns)["decision"]["help"]
    assert "a change of at least the delta" not in help_text and "none that large" not in help_text, help_text
    assert "nearer a gain / loss of delta than of delta0, not a change of at least delta" in help_text, help_text


def test_a_jobs_deltas_and_a_decks_words(store):
    job = jobs.Job(1, [], 0, None, str(store) + ".jobs/status-1.json", "", 0.0, {"options": {}})
    assert whatif.job_deltas(job) == (whatif.DELTA_POINTS, 0.0)
    asked = jobs.Job(1, [], 0, None, "", "", 0.0, {"options": {"delta": 12.0}})
    assert whatif.job_deltas(asked) == (12.0, 0.0)
    assert whatif.deck_words({"decision": "weaker"}, 12.0) == "weaker: nearer a loss of 12 points than of 0"
    assert whatif.deck_caveat({"decision": "stronger", "change": 3.0, "lo": 1.0, "hi": 5.0}, 12.0) == \
        "its estimate (+3.0) is short of 12 points"
    assert whatif.deck_caveat({"decision": "stronger", "change": None, "lo": None, "hi": None}, 12.0) == ""


# --- 2. a failed job's time stands still --------------------------------------------------------------

def test_a_failed_job_that_wrote_no_status_stops_its_clock(store, monkeypatch):
    job = jobs.start(store, [sys.executable, "-c", "raise SystemExit('bad version')", "{status}"],
                     meta={**META, "options": {"pilots": "greedy", "max_matches": 1000, "delta": 5.0}})
    state = wait_for(lambda: (s := jobs.job_state(job))["state"] == "failed" and s)
    assert "updated_at" not in state and not Path(job.status_path).exists()
    first = page.elapsed(job, state)
    time.sleep(2.2)
    assert page.elapsed(job, jobs.job_state(job)) == pytest.approx(first, abs=0.01), "its time stands still"
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = opened("whatif")
    seconds = int(re.search(r"· failed · (\d+) s$", header(at)).group(1))
    assert seconds <= 1, header(at)
    assert at.dataframe[-1].value["seconds"].tolist() == [seconds]


# --- 3. the form's cap, and a refused start ---------------------------------------------------------------

def test_the_form_asks_at_least_the_matches_of_the_tests_first_look(store, workspace, monkeypatch):  # noqa: F811
    at = card_app(store, monkeypatch, workspace)
    [cap] = [n for n in at.number_input if n.label == "At most, matches per pairing"]
    assert cap.proto.min == 100, "the diff looks first after 50 seeds (100 matches) and refuses fewer"
    assert whatif.MIN_MATCHES == 100


@pytest.mark.parametrize("written_before", [False, True])
def test_a_refused_start_keeps_no_rules_file(store, workspace, monkeypatch, written_before):  # noqa: F811
    """Another page's job started between the form's check and its start: the version this start
    wrote is removed again; one written before (which a job may play) stays."""
    if written_before:
        write_trial("frontier", "base", CARD, {"atk": 3}, ["goblin-gold-gang", "lawmen-posse"], workspace)
    before = rules_files(workspace)

    def refused(*args, **kwargs):
        raise jobs.JobRefused("another job is still running (job 9: X atk 4 -> 3, process 1); wait for it")

    monkeypatch.setattr(whatif, "start_diff", refused)
    at = card_app(store, monkeypatch, workspace)
    try_it(at, atk=3)
    assert not at.exception, [e.value for e in at.exception]
    assert any("another job is still running (job 9" in w.value for w in at.warning), [w.value for w in at.warning]
    assert rules_files(workspace) == before
    assert any(p.startswith(f"try-{CARD}-") for p in rules_files(workspace)) == written_before


# --- 4. a stop asked for -----------------------------------------------------------------------------------

# a diff that takes a few seconds to stop after Ctrl-C (its chunks in flight finish first)
SLOW_TO_STOP = ("import json, sys, time\n"
                "try:\n"
                "    json.dump({'state': 'running', 'matches': 50, 'max_matches': 1000, 'rounds': 1, 'pilots': ['greedy'],"
                " 'decks': [{'deck': 'lawmen-posse', 'seeds': 25, 'change': 20.0, 'lo': 10.0, 'hi': 30.0,"
                " 'decision': 'stronger'}], 'message': 'round 1: lawmen-posse stronger'}, open(sys.argv[1], 'w'))\n"
                "    time.sleep(60)\n"
                "except KeyboardInterrupt:\n"
                "    time.sleep(4)\n")


def test_a_stop_asked_for_says_stopping_until_the_job_ends(store, monkeypatch):
    job = jobs.start(store, [sys.executable, "-c", SLOW_TO_STOP, "{status}"],
                     meta={**META, "options": {"pilots": "greedy", "max_matches": 1000, "delta": 5.0}})
    try:
        wait_for(lambda: jobs.job_state(job).get("matches"))
        monkeypatch.setenv("WORKBENCH_DB", str(store))
        at = opened("whatif")
        assert "· running ·" in header(at)
        at.button(key=f"whatif-stop-{job.id}").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert "· stopping (asked at " in header(at), header(at)
        assert not [b for b in at.button if b.label == "Stop this diff"], "no Stop button while it stops"
        [record] = jobs.jobs(store)
        assert record.stop_asked and record.stop_asked_at is not None
        asked = time.strftime("%H:%M:%S", time.localtime(record.stop_asked_at))
        assert jobs.alive(record), "the chunks in flight are still finishing"
        assert f"· stopping (asked at {asked}) ·" in header(at), header(at)
        assert any(f"Stop asked at {asked}" in i.value for i in at.info), [i.value for i in at.info]
        assert jobs.running(store).id == job.id, "a stopping job still holds the store"
        assert at.dataframe[-1].value["state"].tolist() == ["stopping"]
        [bar] = at.get("progress")  # its progress goes on, a running verdict in the test's words too
        assert "lawmen-posse stronger: nearer a gain of 5 points than of 0 (+20.0 pts)" in bar.proto.text, \
            bar.proto.text
        wait_for(lambda: jobs.job_state(jobs.jobs(store)[0])["state"] == "stopped", seconds=30)
        at = opened("whatif")
        assert "· stopped ·" in header(at), header(at)
        assert any(i.value.startswith("Stopped from the dashboard") for i in at.info)
    finally:
        kill_all(store)
