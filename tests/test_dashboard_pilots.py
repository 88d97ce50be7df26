"""Every balance figure says which pilot produced it: each page that shows a win rate, an impact or
another balance figure names the pilots whose play it counts (its text, and its charts under their
titles), every CSV download's ``filters`` column names them whether or not a pilot filter was
chosen (the file name leaves them out), and the What-if's status file and verdicts name the pilots
of the diff. Each test failed before the fix."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from reports import jobs
from tests.conftest import page_downloads, run_cli
from tests.test_dashboard_edges import opened, page_app
from tests.test_whatif import wait_for

pytestmark = pytest.mark.usefixtures("fresh_cache")  # page queries are cached in-process

# tests/conftest.py's small store: run 1 is 60 random matches, run 2 (the newest, the pages'
# default) 20 greedy ones, both of goblin-gold-gang against lawmen-posse


def texts(at: AppTest) -> list[str]:
    """The page's words: captions, markdown, alerts."""
    return [e.value for kind in ("caption", "markdown", "info", "success", "warning") for e in getattr(at, kind)]


def subtitles(at: AppTest) -> dict[str, str | None]:
    """Each chart's title -> the subtitle under it."""
    out = {}
    for el in at.get("plotly_chart"):
        title = json.loads(el.proto.spec)["layout"].get("title", {})
        out[title.get("text")] = (title.get("subtitle") or {}).get("text")
    return out


# --- the pages name the pilots --------------------------------------------------------------------------

# the charts of each page whose figures are the pilots' play (title's start)
PLAY_CHARTS = {"cards": ("Played win rate by card",), "keywords": ("Keyword impact on winning",),
               "costs": ("Win rate of games where a card of each cost was played",),
               "overview": ("Win reasons", "Game length")}


@pytest.mark.parametrize("page", list(PLAY_CHARTS))
def test_each_page_of_balance_figures_names_the_pilots_who_played_them(small_store, monkeypatch, page):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app(page)
    if page == "cards":  # the pooled view charts every card played
        from reports.pages.cards import POOLED
        at.session_state["cards_view"] = POOLED.label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    lines = [t for t in texts(at) if t.startswith("Pilots: ")]
    assert lines and lines[0].startswith("Pilots: greedy. ") and "these pilots' play" in lines[0], texts(at)
    charts = subtitles(at)
    for start in PLAY_CHARTS[page]:
        found = [title for title in charts if title and title.startswith(start)]
        assert found, (start, list(charts))
        assert all(charts[title] == "Pilots: greedy" for title in found), charts

    pooled = opened(page, runs="1,2")  # both runs: two pilots pooled, and said to be
    lines = [t for t in texts(pooled) if t.startswith("Pilots: ")]
    assert lines and lines[0].startswith("Pilots: greedy, random. ") and "pooled" in lines[0], lines
    assert "Pilots: greedy, random" in subtitles(pooled).values()


def test_the_matchups_page_says_when_it_pools_pilots(small_store, monkeypatch):
    """Its matrix and its meta pool two pilots' matches when both runs are chosen: said, as the
    other pages say it (it named the pilots but not that they were pooled)."""
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    pooled = opened("matchups", runs="1,2")
    lines = [t for t in texts(pooled) if t.startswith("Pilots: ")]
    assert lines and lines[0].startswith("Pilots: greedy, random. ") and "pooled" in lines[0], lines
    alone = opened("matchups", runs="1,2", pilots="random")
    lines = [t for t in texts(alone) if t.startswith("Pilots: ")]
    assert lines and lines[0].startswith("Pilots: random. ") and "pooled" not in lines[0], lines


def test_the_overview_first_seat_win_rate_names_its_pilots(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = opened("overview", runs="1")
    assert any("95% CI" in c.value and "pilots random" in c.value for c in at.caption), texts(at)


def test_a_pilot_filter_narrows_the_pilots_line(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = opened("keywords", runs="1,2", pilots="random")
    lines = [t for t in texts(at) if t.startswith("Pilots: ")]
    assert lines and lines[0].startswith("Pilots: random. ") and "pooled" not in lines[0], lines


def test_the_campaign_page_names_its_fight_pilots(campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = opened("campaign")
    [line] = [t for t in texts(at) if t.startswith("Pilots: ")]
    assert "played the fights" in line and "random policy" in line, line


# --- every download names the pilots its rows count -------------------------------------------------

DEFINITIONS = ("off_budget_cards", "card_budget", "budget_lines", "deck_curves", "keyword_prices", "budget_")


def test_a_download_names_the_pilots_with_no_pilot_filter_chosen(small_store, monkeypatch, named_downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    saved = page_downloads(opened("cards"), named_downloads)
    assert saved["card_stats__frontier__runs-2.csv"] == {"game=frontier; runs=2; pilots=greedy"}, saved
    named_downloads.clear()
    saved = page_downloads(opened("costs", runs="1,2"), named_downloads)
    assert len(saved) >= 4, saved
    for name, filters in saved.items():
        # a stat budget and a deck list are no pilot's play: their files name no pilots
        played = "" if name.startswith(DEFINITIONS) else "; pilots=greedy,random"
        assert filters == {f"game=frontier; runs=1,2{played}"}, name
        assert "pilot" not in name and name.endswith("__frontier__runs-1-2.csv"), name  # COLUMN_ONLY
    named_downloads.clear()
    chosen = page_downloads(opened("matchups", runs="1,2", pilots="random"), named_downloads)
    assert chosen and all(f == {"game=frontier; runs=1,2; pilots=random"} for f in chosen.values()), chosen


def test_the_deck_pages_downloads_name_every_pilot_of_its_runs(small_store, monkeypatch, named_downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    saved = page_downloads(opened("deck", deck="lawmen-posse"), named_downloads)
    assert len(saved) >= 5, saved
    for name, filters in saved.items():
        played = "" if name.startswith(DEFINITIONS) else "; pilots=greedy,random"
        assert filters == {f"game=frontier; runs=1,2; decks=lawmen-posse{played}"}, name
        assert "pilot" not in name, name


def test_the_diff_pages_downloads_name_the_diffs_runs_and_pilots(diff_store, monkeypatch, named_downloads):
    """Not the runs (and their pilots) the duel pages kept: the two runs of the diff."""
    from tests.conftest import opened_after_the_duel_pages

    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = opened_after_the_duel_pages("diff")
    assert not at.exception, [e.value for e in at.exception]
    saved = page_downloads(at, named_downloads)
    assert {"diff_decks__frontier__runs-1-2.csv", "diff_power__frontier__runs-1-2.csv"} <= set(saved), saved
    assert set().union(*saved.values()) == {"game=frontier; runs=1,2; pilots=greedy"}


def test_the_pilots_and_rebalancing_downloads_name_their_pilots(small_store, tmp_path, monkeypatch, named_downloads):
    from tests.conftest import opened_after_the_duel_pages
    from tests.test_ladder import ladder_store
    from tests.test_tune import hand_made_proposals

    path = tmp_path / "s.duckdb"
    shutil.copy(small_store, path)
    ladder_store(path)
    hand_made_proposals(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    ladder = opened_after_the_duel_pages("pilots", ladder=[1])
    assert any(t.startswith("Pilots: ") and "mcts:3" in t for t in texts(ladder)), texts(ladder)
    saved = page_downloads(ladder, named_downloads)
    assert set(saved) == {"ladder__frontier__ladder-1.csv", "ladder_pairs__frontier__ladder-1.csv"}, saved
    [filters] = set().union(*saved.values())
    assert filters.startswith("game=frontier; ladder=1; pilots=") and {"random", "greedy", "mcts:3"} == set(
        filters.split("pilots=")[1].split(",")), filters
    named_downloads.clear()
    tune = page_downloads(opened_after_the_duel_pages("tune", proposal=[1]), named_downloads)
    assert tune and set().union(*tune.values()) == {"game=frontier; proposal=1; pilots=greedy"}, tune


# --- the What-if: its status and its verdicts name the pilots -----------------------------------------------

def test_the_sequential_diffs_status_names_its_pilots(tmp_path):
    status = tmp_path / "status.json"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--decks",
                  "goblin-gold-gang,lawmen-posse", "--pilots", "random", "--until-decided", "--delta", "10",
                  "--max-matches", "100", "--db", str(tmp_path / "s.duckdb"), "--status", str(status), "--workers", "2",
                  "--quiet")
    assert res.returncode == 0, res.stderr
    doc = json.loads(status.read_text())
    assert doc["state"] in ("decided", "undecided") and doc["pilots"] == ["random"], doc


def test_a_status_names_each_pilot_once_in_seat_order(tmp_path):
    from workbench.commands.sequential_diff import Status

    status = Status(tmp_path / "status.json", "frontier", "base", "try", 100, pilots=["greedy", "random", "greedy"])
    status.write(message="playing")
    assert json.loads((tmp_path / "status.json").read_text())["pilots"] == ["greedy", "random"]
    # a diff that failed before its runs were planned knows no pilots (the page falls back on the form's)
    Status(tmp_path / "failed.json", "frontier", "base", "try", 0).write(state="failed", message="bad version")
    assert json.loads((tmp_path / "failed.json").read_text())["pilots"] == []


def decided_job(store: Path, status: dict, pilots: str = "greedy") -> jobs.Job:
    """A finished what-if of ``store``: its status file holds ``status``; the form asked ``pilots``."""
    code = f"import json, sys\njson.dump({status!r}, open(sys.argv[1], 'w'))"
    job = jobs.start(store, [sys.executable, "-c", code, "{status}"], meta={
        "kind": "whatif", "game": "frontier", "base": "base", "candidate": "try-x", "card": "iron-horse-cavalry",
        "name": "Iron Horse Cavalry", "change": "atk 4 -> 3", "decks": ["goblin-gold-gang", "lawmen-posse"],
        "options": {"pilots": pilots, "max_matches": 1000, "delta": 5.0}})
    wait_for(lambda: jobs.job_state(job)["state"] == status["state"])
    return job


DECIDED = {"state": "decided", "matches": 200, "max_matches": 1000, "diff_id": 7, "updated_at": "2026-01-01T00:00:00+0000",
           "decks": [{"deck": "lawmen-posse", "seeds": 100, "change": -3.5, "lo": -6.0, "hi": -1.0, "decision": "weaker"}]}


@pytest.mark.parametrize("status, pilots", [({**DECIDED, "pilots": ["random"]}, "random"),  # the status's own
                                            (DECIDED, "greedy")])  # a status without them: the form's
def test_the_what_ifs_verdict_names_the_pilots(small_store, tmp_path, monkeypatch, named_downloads, status, pilots):
    store = tmp_path / "store.duckdb"
    shutil.copy(small_store, store)
    decided_job(store, status, pilots="greedy")
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = opened("whatif")
    [verdict] = [s.value for s in at.success]
    assert verdict.startswith("Decided after 200 matches per version: a change: a deck nearer a move of 5 points than of 0. lawmen-posse weaker: nearer a loss of 5 points than of 0 (-3.5 pts"), verdict
    assert f"Pilots: {pilots};" in verdict, verdict
    assert any(f"pilots {pilots})" in m.value for m in at.markdown if m.value.startswith("**What-if job")), texts(at)
    saved = page_downloads(at, named_downloads)
    assert saved == {"whatif_jobs__frontier.csv": {f"game=frontier; pilots={pilots}"}}, saved
    assert at.dataframe[-1].value["pilots"].tolist() == [pilots]


def test_a_running_what_if_names_its_pilots_beside_its_progress(small_store, tmp_path, monkeypatch):
    store = tmp_path / "store.duckdb"
    shutil.copy(small_store, store)
    code = ("import json, sys, time\njson.dump({'state': 'running', 'matches': 50, 'max_matches': 1000, 'rounds': 1, "
            "'pilots': ['greedy', 'random'], 'message': 'round 1: lawmen-posse undecided'}, open(sys.argv[1], 'w'))\n"
            "time.sleep(60)")
    job = jobs.start(store, [sys.executable, "-c", code, "{status}"], meta={"kind": "whatif", "name": "X",
                                                                           "change": "atk 4 -> 3"})
    try:
        wait_for(lambda: jobs.job_state(job).get("matches"))
        monkeypatch.setenv("WORKBENCH_DB", str(store))
        at = opened("whatif")
        [bar] = at.get("progress")
        assert "pilots greedy, random" in bar.proto.text, bar.proto.text
    finally:
        jobs.stop(job)
