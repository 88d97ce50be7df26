"""AlleyWay through the generic application, unchanged: `simulate alleyway` with no --decks plays
the six starter decks, the store holds its matches and card rows, `export` writes them, and the
Cards page shows AlleyWay cards by clan."""
import csv

import streamlit as st
from streamlit.testing.v1 import AppTest

from reports import db
from tests.conftest import cli_here, run_cli


def test_simulate_export_and_the_cards_page(tmp_path, monkeypatch):
    store = tmp_path / "aw.duckdb"
    res = run_cli("simulate", "alleyway", "--matches", "4", "--pilots", "random", "--db", str(store),
                  "--workers", "2", "--quiet")
    assert res.returncode == 0, res.stderr
    (decks, matches, errors), = db.query(store, "SELECT decks, matches_done, errors FROM runs").rows()
    assert decks.split(",") == ["archon-star-fleet", "cinder-wildfire", "graves-garrison", "marlows-crew",
                                "vales-high-rollers", "veyr-bone-court"]
    assert matches == 4 * 15 and errors == 0
    (seats,), = db.query(store, "SELECT count(*) FROM match_seats").rows()
    assert seats == 2 * matches
    # card rows: the deck's 40 cards per seat, plus promoted Strivers and Awakened leaders played
    (copies,), = db.query(store, "SELECT sum(copies) FROM card_games").rows()
    assert copies == 40 * 2 * matches
    (promoted,), = db.query(store, "SELECT count(*) FROM card_games WHERE copies = 0 AND played > 0").rows()
    assert promoted > 0
    out = tmp_path / "cards.csv"
    res = cli_here("export", "cards", "--run", "1", "--csv", str(out), "--db", str(store))
    assert res.returncode == 0, res.stderr
    rows = {r["card"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert rows["dirty-cop"]["faction"] == "neutral" and rows["sarge"]["type"] == "character/heavy"

    st.cache_data.clear()
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    app = AppTest.from_string("from reports.pages.cards import render\nrender()", default_timeout=60).run()
    assert not app.exception
    shown = app.dataframe[0].value
    assert "dirty-cop" in set(shown["card"]) and {"arsonists", "neutral"} <= set(shown["faction"])
    st.cache_data.clear()


def test_bench_measures_alleyway_over_its_starter_decks():
    # the farm for the duel and random pilots only (every mode's farm row costs minutes: the soak covers them)
    res = run_cli("bench", "--games", "alleyway", "--matches", "6", "--greedy-matches", "2", "--farm-matches", "30",
                  "--repeats", "1", "--pilots", "random")
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("│ alleyway │") == 4  # duel, ffa, series, turf
    res = run_cli("bench", "--games", "alleyway", "--matches", "6", "--greedy-matches", "2", "--skip-farm",
                  "--pilots", "random,greedy")
    assert res.returncode == 0, res.stderr
    assert "measured alleyway duel random" in res.stdout and "match errors" not in res.stdout
    assert "measured alleyway ffa (4 seats) greedy" in res.stdout  # every mode the game has
    assert "measured alleyway turf (2 + boss) random" in res.stdout
    assert res.stdout.count("│ alleyway │") == 8  # duel, ffa, series, turf x random, greedy


def test_bench_measures_only_the_modes_named():
    res = run_cli("bench", "--games", "alleyway,frontier", "--modes", "duel,turf", "--matches", "4", "--skip-farm",
                  "--pilots", "random")
    assert res.returncode == 0, res.stderr
    assert "measured alleyway duel random" in res.stdout and "measured alleyway turf (2 + boss) random" in res.stdout
    assert "ffa" not in res.stdout and "series" not in res.stdout
    assert "measured frontier duel random" in res.stdout  # a game measures the named modes it has
    res = run_cli("bench", "--games", "frontier", "--modes", "ffa", "--skip-farm", "--pilots", "random")
    assert res.returncode == 2 and "--modes" in res.stderr and "'ffa'" in res.stderr and "duel" in res.stderr
    assert "Traceback" not in res.stderr
