"""What-if from the dashboard: a card's fields, the rules version a change writes, the job runner
that plays its diff in the background, the Cards page's card detail and "Try a change" form, and
the Version diff focused on a change (on a small real diff store)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import load_ruleset
from cardsdb.whatif import problem_line, write_trial
from cardsdb.workspace import init_workspace
from reports import jobs, whatif
from reports.card_fields import change_text, editable, edits_of, field_changes
from tests.conftest import run_cli

TIMEOUT = 60
CARD = "iron-horse-cavalry"
pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture
def workspace(tmp_path) -> Path:
    init_workspace(tmp_path / "ws", ["frontier"])
    return tmp_path / "ws"


def rules_files(ws: Path) -> list[str]:
    return sorted(p.name for p in (ws / "frontier" / "rules").iterdir())


# --- a card's fields ------------------------------------------------------------------------------

FIELDS = {"abilities": [], "atk": 4, "cost": {"gold": 0, "mana": 5}, "def": 4, "faction": "humans",
          "keywords": {"ambush": True, "fortify": 1, "overdrive": None, "venom": False}, "text": "Ambush."}


def test_editable_fields_are_cost_stats_keyword_numbers_and_toggles():
    found = {(e.path, e.kind) for e in editable(FIELDS)}
    assert found == {("cost.gold", "number"), ("cost.mana", "number"), ("atk", "number"), ("def", "number"),
                     ("keywords.fortify", "number"), ("keywords.ambush", "toggle"), ("keywords.venom", "toggle")}
    assert [e.path for e in editable(FIELDS)][:2] == ["cost.gold", "cost.mana"], "the cost comes first"


def test_edits_and_field_changes_name_only_what_moved():
    values = {e.path: e.value for e in editable(FIELDS)} | {"atk": 3.0, "keywords.ambush": False}
    edits = edits_of(FIELDS, values)
    assert edits == {"atk": 3, "keywords.ambush": False} and isinstance(edits["atk"], int)
    after = json.loads(json.dumps(FIELDS))
    after["atk"], after["keywords"]["ambush"] = 3, False
    changes = field_changes(json.dumps(FIELDS), json.dumps(after))
    assert changes == [{"field": "atk", "base": 4, "candidate": 3}, {"field": "ambush", "base": True, "candidate": False}]
    assert change_text(changes) == "atk 4 -> 3, ambush yes -> no"
    job = jobs.Job(1, [], 0, None, "s", "l", 0.0, meta={"changes": changes, "change": change_text(changes)})
    assert whatif.job_change(job) == "atk 4 → 3, ambush yes → no"  # as the dashboard writes a change
    job.meta = {"change": "atk 4 -> 3"}  # a job that kept only the text
    assert whatif.job_change(job) == "atk 4 -> 3"


# --- the rules version a change writes -------------------------------------------------------------

def test_a_good_change_writes_a_valid_rules_version_patching_that_card_only(workspace):
    trial = write_trial("frontier", "base", CARD, {"atk": 3, "keywords.fortify": 2}, ["lawmen-posse"], workspace)
    assert trial.path.parent == workspace / "frontier" / "rules" and trial.version.startswith(f"try-{CARD}-")
    assert trial.changes == [{"field": "atk", "base": 4, "candidate": 3}, {"field": "fortify", "base": 1, "candidate": 2}]
    _data, base = load_ruleset("frontier", "base", workspace)
    _data, tried = load_ruleset("frontier", trial.version, workspace)
    assert tried.chain == ["base", trial.version]
    assert (tried.cards[CARD].atk, tried.cards[CARD].keywords.fortify) == (3, 2)
    assert tried.cards[CARD].keywords.ambush and tried.cards[CARD].keywords.quickdraw, "the other keywords stay"
    assert [c for c in base.cards if base.cards[c] != tried.cards[c]] == [CARD]
    again = write_trial("frontier", "base", CARD, {"atk": 3, "keywords.fortify": 2}, (), workspace)
    assert (again.version, again.created) == (trial.version, False), "the same change is the same file"


@pytest.mark.parametrize("edits, field", [({"def": 0}, "def"), ({"atk": -1}, "atk"), ({"atk": 10 ** 9}, "atk")])
def test_a_bad_number_is_one_line_and_nothing_is_kept(workspace, edits, field):
    before = rules_files(workspace)
    with pytest.raises((DataError, DataErrors)) as caught:
        write_trial("frontier", "base", CARD, edits, ["lawmen-posse"], workspace)
    line = problem_line(caught.value)
    assert "\n" not in line and CARD in line and field in line and "try-" in line, line
    assert rules_files(workspace) == before


def test_the_shipped_data_is_never_written(monkeypatch):
    monkeypatch.delenv("WORKBENCH_DATA", raising=False)
    monkeypatch.delenv("WORKBENCH_DATA_DIR", raising=False)
    with pytest.raises(DataError, match="workbench init DIR.*workbench dashboard --data DIR"):
        write_trial("frontier", "base", CARD, {"atk": 3})


# --- the job runner ---------------------------------------------------------------------------------

def python(code: str) -> list[str]:
    return [sys.executable, "-c", code, "{status}"]


def wait_for(predicate, seconds: float = 20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if (value := predicate()):
            return value
        time.sleep(0.05)
    raise AssertionError("timed out")


SLEEPER = python("import json, sys, time\n"
                 "json.dump({'state': 'running', 'matches': 50, 'max_matches': 100}, open(sys.argv[1], 'w'))\n"
                 "time.sleep(60)")


def test_a_job_runs_in_its_own_session_and_a_second_is_refused(tmp_path):
    db = tmp_path / "s.duckdb"
    job = jobs.start(db, SLEEPER, meta={"title": f"{CARD} atk 4 -> 3"})
    try:
        assert os.getsid(job.pid) == job.pid, "its own session: closing the page does not end it"
        assert Path(job.status_path).parent == tmp_path / "s.duckdb.jobs" and Path(job.record).exists()
        state = wait_for(lambda: (s := jobs.job_state(job)).get("matches") and s)
        assert state["state"] == "running" and jobs.running(db).id == job.id
        with pytest.raises(jobs.JobRefused, match=f"job {job.id}: {CARD} atk 4 -> 3"):
            jobs.start(db, SLEEPER)
        jobs.stop(job)
        assert wait_for(lambda: jobs.job_state(jobs.jobs(db)[0])["state"] == "stopped")
        second = jobs.start(db, python("import json, sys\njson.dump({'state': 'decided', 'diff_id': 4}, "
                                       "open(sys.argv[1], 'w'))"))
        assert second.id == job.id + 1
        assert wait_for(lambda: jobs.job_state(second)["state"] == "decided")
    finally:
        if jobs.alive(job):
            os.kill(job.pid, signal.SIGKILL)


def test_a_job_started_by_a_process_that_ignores_ctrl_c_still_stops(tmp_path):
    """An ignored SIGINT is inherited (a dashboard under `nohup ... &`): the job must not inherit
    it, or the page's Stop could not stop it."""
    db = tmp_path / "s.duckdb"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        job = jobs.start(db, SLEEPER)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        assert wait_for(lambda: jobs.job_state(job).get("matches"))
        jobs.stop(job)
        assert wait_for(lambda: jobs.job_state(jobs.jobs(db)[0])["state"] == "stopped")
        assert jobs.jobs(db)[0].command == SLEEPER[:-1] + [job.status_path]  # the record keeps the command
    finally:
        if jobs.alive(job):
            os.kill(job.pid, signal.SIGKILL)


def test_a_job_whose_process_died_is_failed_with_its_logs_last_line(tmp_path):
    db = tmp_path / "s.duckdb"
    job = jobs.start(db, python("import json, os, signal, sys\n"
                                "json.dump({'state': 'running', 'matches': 50}, open(sys.argv[1], 'w'))\n"
                                "print('round 1 played', flush=True)\n"
                                "print('MemoryError: out of memory in a worker', flush=True)\n"
                                "os.kill(os.getpid(), signal.SIGKILL)"))
    state = wait_for(lambda: (s := jobs.job_state(job))["state"] != "running" and s)
    assert state["state"] == "failed"
    assert state["message"].endswith("MemoryError: out of memory in a worker"), state
    assert jobs.running(db) is None, "a dead job does not block the next one"


def test_default_decks_are_the_holders_and_their_opponents():
    run = whatif.RunInfo(1, "frontier", "base", "h", ["a", "b", "c"], ["greedy"] * 3, [(0, 1), (1, 2)], None)
    assert whatif.default_decks(run, ["a"]) == ["a", "b"]
    assert whatif.default_decks(run, ["b"]) == ["a", "b", "c"]
    two = whatif.RunInfo(1, "frontier", "base", "h", ["a", "b"], ["greedy"] * 2, [(0, 1)], None)
    assert whatif.default_decks(two, ["b"]) == ["a", "b"]


def test_the_diff_command_is_the_sequential_diff(tmp_path):
    cmd = whatif.diff_command("frontier", "base", "try-x", ["a", "b"], tmp_path / "s.duckdb", tmp_path / "ws")
    assert cmd[:4] == [sys.executable, "-m", "workbench.cli", "diff"]
    text = " ".join(cmd)
    for part in ("--base base", "--candidate try-x", "--decks a,b", "--pilots greedy", "--seed 1", "--quiet",
                 "--until-decided", "--delta 5", "--status {status}", f"--data {tmp_path / 'ws'}"):
        assert part in text, part


# --- the Cards page: the card detail and the form ----------------------------------------------------

@pytest.fixture
def store_copy(small_store, tmp_path) -> Path:
    """The small store, copied: jobs and files of one test stay out of the others' way."""
    path = tmp_path / "store.duckdb"
    shutil.copy(small_store, path)
    return path


def card_app(store: Path, monkeypatch, data: Path | None) -> AppTest:
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    for name in ("WORKBENCH_DATA", "WORKBENCH_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    if data is not None:
        monkeypatch.setenv("WORKBENCH_DATA", str(data))
    at = AppTest.from_string("from reports.pages.cards import render\nrender()", default_timeout=TIMEOUT)
    at.query_params["card"] = CARD
    return at.run()


def try_it(at: AppTest, **values) -> AppTest:
    for path, value in values.items():
        at.number_input(key=f"whatif-{CARD}-{path}").set_value(value)
    [b for b in at.button if b.label.startswith("Try it")][0].click()
    return at.run()


def test_the_card_detail_shows_cost_stats_keywords_text_and_decks(store_copy, monkeypatch):
    at = card_app(store_copy, monkeypatch, None)
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader] == ["Iron Horse Cavalry"]
    facts = " ".join(m.value for m in at.markdown)
    for text in ("Cost: cost.gold 0, cost.mana 5", "budget cost 5", "Stats: atk 4, def 4",
                 "Keywords: ambush, fortify 1, quickdraw", "> Ambush. Quickdraw. Fortify 1."):
        assert text in facts, text
    assert any(c.value == "In decks: lawmen-posse (2×)" for c in at.caption)
    # on the shipped data the form is one line saying how to start on a workspace
    assert any("`workbench init DIR`" in i.value and "`workbench dashboard --data DIR`" in i.value for i in at.info)
    assert not [b for b in at.button if b.label.startswith("Try it")]


def test_the_form_refuses_a_bad_number_in_one_line_and_writes_nothing(store_copy, workspace, monkeypatch):
    at = card_app(store_copy, monkeypatch, workspace)
    labels = [n.label for n in at.number_input]
    assert {"cost.mana", "atk", "def", "fortify"} <= set(labels)
    assert {"ambush", "quickdraw", "venom"} <= {c.label for c in at.checkbox}
    before = rules_files(workspace)
    try_it(at, **{"def": 0})
    assert not at.exception, [e.value for e in at.exception]
    [error] = [e.value for e in at.error]
    assert "\n" not in error and f"card '{CARD}'" in error and "field 'def'" in error, error
    assert rules_files(workspace) == before
    assert not jobs.jobs(store_copy), "no job starts"


def test_the_form_writes_a_valid_version_and_follows_its_diff(store_copy, workspace, monkeypatch):
    started = []

    def fake_command(game, base, candidate, decks, db_path, data_dir, **options):
        started.append((game, base, candidate, decks, options))
        return python("import json, sys\njson.dump({'state': 'decided', 'matches': 200, 'max_matches': 1000, "
                      "'diff_id': 7, 'decks': [{'deck': 'lawmen-posse', 'seeds': 100, 'change': -3.5, 'lo': -6.0, "
                      "'hi': -1.0, 'decision': 'weaker'}], 'updated_at': '2026-01-01T00:00:00+0000'}, "
                      "open(sys.argv[1], 'w'))")

    monkeypatch.setattr(whatif, "diff_command", fake_command)
    at = card_app(store_copy, monkeypatch, workspace)
    try_it(at, atk=3)
    assert not at.exception and not at.error, [e.value for e in list(at.exception) + list(at.error)]
    [written] = [p for p in rules_files(workspace) if p.startswith(f"try-{CARD}-")]
    version = written.removesuffix(".yaml")
    _data, tried = load_ruleset("frontier", version, workspace)
    assert tried.cards[CARD].atk == 3
    assert started == [("frontier", "base", version, ["goblin-gold-gang", "lawmen-posse"],
                        {"pilots": "greedy", "max_matches": 1000, "delta": 5.0})]
    assert any(f"Wrote `{written}`" in s.value and "atk 4 → 3" in s.value for s in at.success)
    [job] = jobs.jobs(store_copy)
    assert job.meta["change"] == "atk 4 -> 3"
    wait_for(lambda: jobs.job_state(job)["state"] == "decided")
    at.run()
    assert any("Decided after 200 matches per version: a change: a deck nearer a move of 5 points than of 0. lawmen-posse weaker: nearer a loss of 5 points than of 0 (-3.5 pts" in s.value for s in at.success)
    assert at.query_params["diff"] == "7", "it opens the Version diff on its diff"
    # while that job runs, a second start is refused in one line
    monkeypatch.setattr(whatif, "diff_command", lambda *a, **k: SLEEPER)
    at.number_input(key=f"whatif-{CARD}-atk").set_value(2)
    try_it(at)
    try:
        at.number_input(key=f"whatif-{CARD}-atk").set_value(1)
        try_it(at)
        assert any("still running (job 2" in w.value for w in at.warning), [w.value for w in at.warning]
        assert len(jobs.jobs(store_copy)) == 2
    finally:
        for j in jobs.jobs(store_copy):
            if jobs.alive(j):
                os.kill(j.pid, signal.SIGKILL)


# --- the Version diff, focused on a change -----------------------------------------------------------

@pytest.fixture(scope="module")
def change_store(tmp_path_factory) -> tuple[Path, int]:
    """A real diff of one card change: iron-horse-cavalry atk 4 -> 3 in a workspace, played by
    the sequential diff with random pilots (bounded)."""
    folder = tmp_path_factory.mktemp("whatif")
    ws, store = folder / "ws", folder / "store.duckdb"
    init_workspace(ws, ["frontier"])
    trial = write_trial("frontier", "base", CARD, {"atk": 3}, ["lawmen-posse"], ws)
    status = folder / "status.json"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", trial.version, "--decks",
                  "goblin-gold-gang,lawmen-posse", "--pilots", "random", "--db", str(store), "--data", str(ws),
                  "--quiet", "--until-decided", "--delta", "10", "--max-matches", "200", "--status", str(status),
                  "--workers", "2")
    assert res.returncode == 0, res.stderr
    return store, json.loads(status.read_text())["diff_id"]


def texts_in_order(node) -> list[str]:
    """Every text of the page in the order it shows (markdown, alerts, captions)."""
    out = []
    for child in getattr(node, "children", {}).values():
        value = getattr(child, "value", None)
        if isinstance(value, str) and child.type in ("markdown", "info", "error", "warning", "success", "caption", "subheader"):
            out.append(value)
        out += texts_in_order(child)
    return out


def test_the_diff_page_opens_on_the_diff_the_url_names_and_leads_with_the_change(change_store, monkeypatch):
    store, diff_id = change_store
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = AppTest.from_string("from reports.pages.diff import render\nrender()", default_timeout=TIMEOUT)
    at.query_params["diff"] = str(diff_id)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith("base → try-iron-horse-cavalry-")
    texts = texts_in_order(at.main)
    order = [next(i for i, t in enumerate(texts) if key in t) for key in
             ("You changed **Iron Horse Cavalry**: atk 4 → 3. Its own effect within its deck:",
              "**Sequential diff:", "The decks it is in:\n- **lawmen-posse**", "**The first seat**",
              "**Other cards that moved beyond their deck**")]
    assert order == sorted(order), texts[:12]
    # the field-level table: only the changed card, only its changed field (not 31 cards' JSON)
    changed = [d.value for d in at.dataframe if "field" in d.value.columns][0]
    assert changed[["card", "field", "base", "candidate"]].values.tolist() == [[CARD, "atk", "4", "3"]]
    assert at.query_params["diff"] == str(diff_id)


def test_the_diff_page_names_a_diff_that_is_not_there(diff_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = AppTest.from_string("from reports.pages.diff import render\nrender()", default_timeout=TIMEOUT)
    at.query_params["diff"] = "99"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [w.value for w in at.warning] == ["There is no diff 99 in this store; showing the newest."]
    assert any("changes no card (a rules change)" in i.value for i in at.info)
    assert "Every deck (a rules change):" in " ".join(m.value for m in at.markdown)
