"""The farm, the store, the exports, the dashboard and the benchmark work for Allegiance as they
are: nothing in them names a game."""
import csv

import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from tests.conftest import cli_here, run_cli


def sql(path, query, params=None):
    with db.connect(path) as con:  # a reading connection: it has the events view
        return con.execute(query, params or []).fetchall()


@pytest.fixture(scope="module")
def two_games(tmp_path_factory):
    """A store with a Wild Frontier run (1) and an Allegiance run of its starter decks (2)."""
    path = tmp_path_factory.mktemp("store") / "two.duckdb"
    for args in (("frontier", "--matches", "10", "--pilots", "random"),
                 ("allegiance", "--matches", "12", "--pilots", "greedy,random")):
        res = run_cli("simulate", *args, "--workers", "2", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    return path


def test_simulate_uses_the_starter_decks_and_fills_every_table(two_games):
    (decks, pilots, done, errors), = sql(two_games, "SELECT decks, pilots, matches_done, errors FROM runs WHERE run_id = 2")
    assert (decks, pilots, done, errors) == ("citadel-wardens,forge-reapers", "greedy,random", 12, 0)
    reasons = dict(sql(two_games, "SELECT reason, count(*) FROM matches WHERE run_id = 2 GROUP BY reason"))
    assert set(reasons) <= {"siege", "rout", "overrun", "turn_limit"} and sum(reasons.values()) == 12
    # the greedy deck slot (citadel-wardens, either seat) wins nearly every match against random
    wins = dict(sql(two_games, "SELECT deck, count(*) FROM match_seats WHERE run_id = 2 AND result = 'win' GROUP BY deck"))
    assert wins.get("citadel-wardens", 0) >= 10, wins
    # 40 main-deck cards per seat in card_games; events name cells in the lane column
    assert sql(two_games, "SELECT sum(copies) FROM card_games WHERE run_id = 2") == [(12 * 2 * 40,)]
    (low, high), = sql(two_games, "SELECT min(lane), max(lane) FROM events WHERE run_id = 2")
    assert 0 <= low and high < 48
    kinds = {k for (k,) in sql(two_games, "SELECT DISTINCT kind FROM events WHERE run_id = 2")}
    assert {"stronghold", "deploy", "move", "attack", "damage", "game_over"} <= kinds
    assert sql(two_games, "SELECT count(*) FROM cards WHERE game = 'allegiance'")[0][0] >= 99


def test_exports_for_a_spreadsheet(two_games, tmp_path):
    for table in ("matches", "events", "card_games", "cards", "card_defs"):
        out = tmp_path / f"{table}.csv"
        res = cli_here("export", table, "--run", "2", "--csv", str(out), "--db", str(two_games))
        assert res.returncode == 0, res.stderr
        rows = list(csv.DictReader(out.open(encoding="utf-8")))
        assert rows, table
    stats = list(csv.DictReader((tmp_path / "cards.csv").open(encoding="utf-8")))  # card metrics
    assert {r["game"] for r in stats} == {"allegiance"}
    assert {r["faction"] for r in stats} <= {"black_forge", "descendants", "neutral"}


@pytest.mark.parametrize("page", ["overview", "cards", "keywords", "costs", "matchups", "replay"])
def test_dashboard_pages_show_allegiance(page, two_games, monkeypatch):
    import streamlit as st

    st.cache_data.clear()
    monkeypatch.setenv("WORKBENCH_DB", str(two_games))
    script = (f"from reports.pages.{page} import render\nrender()" if page != "replay" else
              "from reports.pages.replay import render\nfrom workbench.replay import replay_match\nrender(replay_match)")
    at = AppTest.from_string(script, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    games = [w for w in at.sidebar.selectbox if w.label == "Game"]
    if games:
        assert set(games[0].options) == {"allegiance", "frontier"}
        games[0].set_value("allegiance").run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    if page == "cards":
        table = at.dataframe[0].value
        cards = {c for (c,) in sql(two_games, "SELECT DISTINCT card FROM card_games WHERE run_id = 2")}
        assert set(table["card"]) == cards and table["name"].notna().all()
        assert set(table["faction"]) <= {"black_forge", "descendants", "neutral"}
    st.cache_data.clear()


def test_a_stored_match_replays_with_cells_and_a_board(two_games):
    from workbench.replay import replay_match

    replay = replay_match(two_games, 2, 3)
    assert replay["game"] == "allegiance" and replay["consistent"], replay["stored"]
    events = [e for turn in replay["timeline"] for e in turn["events"]]
    assert any(" deploy " in e and "@ p0." in e for e in events) and any("stronghold" in e for e in events)
    board = replay["timeline"][-1]["board"]
    assert [row["seat"] for row in board["seats"]] == ["p0", "p1"]
    assert board["field"] and all(row["cell"].startswith(("p0.", "p1.")) for row in board["field"])


def test_bench_measures_every_registered_game():
    # every game with the cheap pilots; the search pilots (generic code in sim/core/pilots, tested
    # per game in test_search_pilots) in the game whose match costs least, so the test stays short
    res = run_cli("bench", "--skip-farm", "--matches", "4", "--greedy-matches", "2", "--search-matches", "1",
                  "--seconds", "1", "--pilots", "random,greedy")
    assert res.returncode == 0, res.stderr
    for game in ("frontier", "alleyway", "allegiance"):
        for pilot in ("random", "greedy"):
            assert f"measured {game} duel {pilot}" in res.stdout, (game, pilot, res.stdout[-3000:])
    res = run_cli("bench", "--skip-farm", "--games", "frontier", "--matches", "2", "--greedy-matches", "1",
                  "--search-matches", "1", "--seconds", "1", "--pilots", "planner,mcts:2")
    assert res.returncode == 0, res.stderr
    for pilot in ("planner", "mcts:2"):
        assert f"measured frontier duel {pilot}" in res.stdout, (pilot, res.stdout[-3000:])
