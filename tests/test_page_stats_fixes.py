"""The audit of the Cards, Keywords, Cost curves and Matchups pages' figures: the win rate by cost
counts each seat once; a rules version's name with two card sets (hashes) is two card sets
everywhere cards are grouped; the Cards page's turn table is its row's; pooled rules versions are
said; the keyword "causal" model reads the hand as dealt; keyword p-values get BH q-values; a
card never played has no shrunk rate."""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from reports.cards import card_metrics, win_rate_by_turn_played
from reports.costs import deck_curves, stat_budget, win_rate_by_cost
from reports.filters import Filters
from reports.keywords import keyword_impact, keyword_prices
from reports.stats import benjamini_hochberg

TIMEOUT = 90
EDITED = "edited0123456789"  # the hash of the edited card data
pytestmark = pytest.mark.usefixtures("fresh_cache")


def sql(path: Path, query: str, params: list | None = None) -> list[tuple]:
    with db.connect(path) as con:
        return con.execute(query, params or []).fetchall()


def run_ids(path: Path) -> list[int]:
    return [r for (r,) in sql(path, "SELECT run_id FROM runs ORDER BY run_id")]


def copied(store: Path, tmp_path: Path, name: str) -> Path:
    mine = tmp_path / f"{name}.duckdb"
    shutil.copy(store, mine)
    return mine


def page(name: str, path: Path, monkeypatch, runs: list[int]) -> AppTest:
    """A page alone over ``runs`` (the sidebar's kept choice)."""
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_string(f"from reports.pages.{name} import render\nrender()", default_timeout=TIMEOUT)
    at.session_state["keep:game"] = ["frontier"]
    at.session_state["keep:runs"] = runs
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def edited_store(small_store, tmp_path) -> Path:
    """small_store with its newest run's card data edited as a `workbench init` workspace would:
    the same rules version name (base), other cards (another hash; one card's attack raised)."""
    path = copied(small_store, tmp_path, "edited")
    con = duckdb.connect(str(path))
    newest = max(r for (r,) in con.execute("SELECT run_id FROM runs").fetchall())
    (shipped,) = con.execute("SELECT rules_hash FROM runs WHERE run_id = ?", [newest]).fetchone()
    con.execute("CREATE TEMP TABLE edited AS SELECT * FROM cards WHERE rules_hash = ?", [shipped])
    con.execute("UPDATE edited SET rules_hash = ?", [EDITED])
    con.execute("UPDATE edited SET attack = attack + 1 WHERE card = (SELECT min(card) FROM edited WHERE attack > 0)")
    con.execute("INSERT INTO cards SELECT * FROM edited")
    con.execute("UPDATE runs SET rules_hash = ? WHERE run_id = ?", [EDITED, newest])
    con.close()
    return path


# --- 1: the win rate by cost counts seats -------------------------------------------------------------

def test_win_rate_by_cost_counts_each_match_seat_once(small_store):
    newest = run_ids(small_store)[-1]
    seats = {cost: (n, won) for cost, n, won in sql(small_store, """
        SELECT c.budget_cost, count(DISTINCT (cg.match_no, cg.seat)), count(DISTINCT (cg.match_no, cg.seat)) FILTER (WHERE cg.won)
        FROM card_games cg JOIN runs r USING (run_id) JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
        WHERE cg.run_id = ? AND cg.played > 0 GROUP BY 1""", [newest])}
    got = win_rate_by_cost(small_store, Filters(runs=[newest]))
    assert {r["cost"]: (r["games"], r["won"]) for r in got.iter_rows(named=True)} == seats
    (matches,) = sql(small_store, "SELECT count(*) FROM matches WHERE run_id = ?", [newest])[0]
    assert got["games"].max() <= 2 * matches, "no cost counts more seats than the run has"
    assert (got["win_rate_lo"] <= got["win_rate"]).all() and (got["win_rate"] <= got["win_rate_hi"]).all()


# --- 2: one version name, two card sets -----------------------------------------------------------------

def test_a_version_name_with_two_card_sets_is_grouped_by_its_hash(edited_store):
    filters = Filters(runs=run_ids(edited_store))
    hashes = [h for (h,) in sql(edited_store, "SELECT DISTINCT rules_hash FROM runs ORDER BY 1")]
    assert len(hashes) == 2
    budgeted = dict(sql(edited_store, "SELECT rules_hash, count(*) FROM cards WHERE stat_points IS NOT NULL AND "
                                      "budget_cost IS NOT NULL GROUP BY 1"))
    cards, lines = stat_budget(edited_store, filters)
    assert not cards.select("rules_hash", "card").is_duplicated().any(), "each card once per card set"
    assert dict(cards.group_by("rules_hash").len().iter_rows()) == {h: budgeted[h] for h in hashes}
    labels = set(cards["card_set"])
    assert labels == {f"base@{h[:8]}" for h in hashes}, "the label carries the hash where two share the name"
    assert dict(lines.group_by("rules_hash").agg(pl.col("cards").sum()).iter_rows()) == {h: budgeted[h] for h in hashes}
    # the price list: one fit per card set and type, over that set's cards of the type
    prices = keyword_prices(edited_store, filters)
    assert not prices.select("rules_hash", "type", "term").is_duplicated().any()
    typed = dict(((h, t), n) for h, t, n in sql(edited_store, "SELECT rules_hash, type, count(*) FROM cards WHERE "
                                                              "attack IS NOT NULL AND defense IS NOT NULL GROUP BY 1, 2"))
    assert all(r["cards"] == typed[(r["rules_hash"], r["type"])] for r in prices.iter_rows(named=True))
    # a deck's curve adds up to its list under each card set, not twice it
    sizes = dict(sql(edited_store, "SELECT deck, sum(copies) FROM (SELECT DISTINCT deck, card, copies FROM card_games) "
                                   "GROUP BY deck"))
    curves = deck_curves(edited_store, filters)
    for (card_set, deck), part in curves.group_by("card_set", "deck"):
        assert part["cards"].sum() == sizes[deck], (card_set, deck)
    assert set(curves["card_set"]) == labels
    # the Cards page's rows: a card per card set, its games those of the runs of that set
    stats = card_metrics(edited_store, filters)
    assert not stats.select("rules_hash", "card").is_duplicated().any() and set(stats["card_set"]) == labels
    games = {(h, c): n for h, c, n in sql(edited_store, "SELECT r.rules_hash, cg.card, count(*) FROM card_games cg "
                                                        "JOIN runs r USING (run_id) WHERE cg.copies > 0 GROUP BY 1, 2")}
    assert {(r["rules_hash"], r["card"]): r["games"] for r in stats.iter_rows(named=True) if r["games"]} == games


def test_the_costs_page_and_the_run_picker_name_the_card_set(edited_store, monkeypatch):
    runs = run_ids(edited_store)
    at = page("costs", edited_store, monkeypatch, runs)
    labels = [w for w in at.sidebar.multiselect if w.label == "Runs"][0].options
    assert all("(base@" in label for label in labels) and len(set(labels)) == len(runs), labels
    [version] = [s for s in at.selectbox if s.label == "Rules version"]
    assert sorted(version.options) == sorted(f"base@{h[:8]}" for h in (EDITED, *shipped_hashes(edited_store)))
    (n,) = sql(edited_store, "SELECT count(*) FROM cards WHERE rules_hash = ? AND stat_points IS NOT NULL AND "
                             "budget_cost IS NOT NULL", [card_set_hash(edited_store, version.value)])[0]
    assert any(c.value.startswith(f"{n} cards of {version.value};") for c in at.caption), [c.value for c in at.caption]


def shipped_hashes(path: Path) -> list[str]:
    return [h for (h,) in sql(path, "SELECT DISTINCT rules_hash FROM runs WHERE rules_hash <> ?", [EDITED])]


def card_set_hash(path: Path, label: str) -> str:
    prefix = label.split("@")[1]
    return [h for (h,) in sql(path, "SELECT DISTINCT rules_hash FROM runs") if h.startswith(prefix)][0]


# --- 3: the turn table is the selected row's -----------------------------------------------------------

def test_the_turn_table_adds_up_to_its_rows_played_games(small_store):
    filters = Filters(runs=run_ids(small_store))
    for split in (("rules_version", "deck"), ("run_id",), ("pilots",)):
        stats = card_metrics(small_store, filters, split)
        turns = win_rate_by_turn_played(small_store, filters, split)
        keys = [k for k in stats.columns if k in ("rules_version", "rules_hash", "deck", "run_id", "pilots")] + ["card"]
        summed = turns.group_by(keys).agg(pl.col("games").sum())
        joined = stats.filter(pl.col("played_games") > 0).join(summed, on=keys, how="left")
        assert (joined["games_right"] == joined["played_games"]).all(), split


def test_the_cards_page_turn_table_follows_the_selected_rows_run(small_store, monkeypatch):
    runs = run_ids(small_store)
    at = page("cards", small_store, monkeypatch, runs)
    [split] = [w for w in at.sidebar.multiselect if w.label == "Split by"]
    split.set_value(["rules_version", "run_id"]).run()
    table = at.dataframe[0].value
    played = table[table["played_games"] > 0]
    both = played.groupby("card")["run_id"].transform("nunique") > 1  # played in both runs: pooled, it doubled
    row = int(np.flatnonzero(((table["played_games"] > 0) & table["card"].isin(played[both]["card"])).to_numpy())[0])
    at.session_state["cards_table"] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    turns = [d.value for d in at.dataframe if "turn" in d.value.columns][0]
    assert turns["games"].sum() == table.iloc[row]["played_games"]


# --- 4: pooled rules versions are said ------------------------------------------------------------------

def test_matchups_and_keywords_say_when_they_pool_rules_versions(diff_store, monkeypatch):
    runs = run_ids(diff_store)
    versions = [v for (v,) in sql(diff_store, "SELECT DISTINCT rules_version FROM runs ORDER BY 1")]
    for name in ("matchups", "keywords"):
        at = page(name, diff_store, monkeypatch, runs)
        pooled = [w.value for w in at.warning if "pool the matches of 2 rules versions" in w.value]
        assert pooled and all(v in pooled[0] for v in versions), [w.value for w in at.warning]
        assert "choose one rules version in the sidebar" in pooled[0]
        alone = page(name, diff_store, monkeypatch, runs[:1])
        assert not any("rules versions" in w.value for w in alone.warning)


def test_the_cards_page_says_so_when_not_split_by_rules_version(diff_store, monkeypatch):
    at = page("cards", diff_store, monkeypatch, run_ids(diff_store))
    assert not any("rules versions" in w.value for w in at.warning), "split by rules version: each has its rows"
    [split] = [w for w in at.sidebar.multiselect if w.label == "Split by"]
    split.set_value(["deck"]).run()
    assert any("pool the matches of 2 rules versions" in w.value for w in at.warning), [w.value for w in at.warning]


def test_two_card_sets_of_one_name_are_said_with_their_hashes(edited_store, monkeypatch):
    at = page("matchups", edited_store, monkeypatch, run_ids(edited_store))
    [pooled] = [w.value for w in at.warning if "rules versions" in w.value]
    assert f"base@{EDITED[:8]}" in pooled and pooled.count("base@") == 2
    assert "choose the runs of one card set" in pooled, "the Rules version filter cannot part one name"


def test_win_rate_by_cost_is_split_by_rules_version(diff_store):
    got = win_rate_by_cost(diff_store, Filters(runs=run_ids(diff_store)))
    assert set(got["card_set"]) == {v for (v,) in sql(diff_store, "SELECT rules_version FROM runs")}
    assert not got.select("card_set", "cost").is_duplicated().any()


# --- 5: the causal keyword model reads the hand as dealt ------------------------------------------------

def test_the_keyword_model_reads_the_hand_as_dealt_before_any_redraw(small_store, tmp_path):
    path = copied(small_store, tmp_path, "dealt")
    first, newest = run_ids(path)
    con = duckdb.connect(str(path))
    # the newest run as if every seat had redrawn: what it was dealt is not what it kept; the other
    # run stored before the dealt hand was recorded (NULL: its kept hand stands in)
    con.execute("UPDATE card_games SET in_dealt_hand = CASE WHEN in_opening_hand > 0 THEN 0 ELSE least(copies, 1) END "
                "WHERE run_id = ?", [newest])
    con.execute("UPDATE card_games SET in_dealt_hand = NULL WHERE run_id = ?", [first])
    con.close()
    seats = """SELECT k.keyword, count(DISTINCT (cg.run_id, cg.match_no, cg.seat)) FROM card_games cg JOIN runs r USING (run_id)
               JOIN (SELECT rules_hash, card, unnest(keywords) AS keyword FROM cards) k
                    ON k.rules_hash = r.rules_hash AND k.card = cg.card
               WHERE {hand} > 0 GROUP BY 1"""
    dealt = dict(sql(path, seats.format(hand="coalesce(cg.in_dealt_hand, cg.in_opening_hand)")))
    kept = dict(sql(path, seats.format(hand="cg.in_opening_hand")))
    assert dealt != kept
    impact = keyword_impact(path, Filters(runs=[first, newest]))
    assert {k: n for k, n in zip(impact["keyword"], impact["seats_dealt"]) if n} == dealt


def test_the_pages_say_the_kept_hand_carries_the_pilots_judgement(small_store):
    from reports.pages.cards import VIEW_HELP, WITHIN_DECK, caption
    from reports.pages.keywords import HELP

    stats = card_metrics(small_store, Filters(runs=run_ids(small_store)))
    assert "redraw" in caption(stats, WITHIN_DECK) and "pilot's judgement" in VIEW_HELP
    assert "before any redraw" in HELP["dealt odds ratio"]


# --- 6: keyword q-values --------------------------------------------------------------------------------

def test_keyword_p_values_get_benjamini_hochberg_q_values_within_each_model(small_store):
    impact = keyword_impact(small_store, Filters(runs=run_ids(small_store)))
    for prefix in ("", "oh_"):
        p = impact[f"{prefix}p_value"].fill_null(np.nan).to_numpy()
        expected, _ = benjamini_hochberg(p)
        got = impact[f"{prefix}q_value"].fill_null(np.nan).to_numpy()
        assert np.isfinite(p).any() and (np.isnan(got) == np.isnan(p)).all()
        np.testing.assert_allclose(got[np.isfinite(got)], expected[np.isfinite(expected)])
        assert (got[np.isfinite(got)] >= p[np.isfinite(p)] - 1e-12).all()


def test_the_keywords_page_shows_q_and_reads_significance_from_it(small_store, monkeypatch):
    at = page("keywords", small_store, monkeypatch, run_ids(small_store))
    order = list(at.dataframe[0].proto.column_order)
    assert order.index("oh_q_value") < order.index("oh_p_value") and "q_value" in order
    assert any("Significance is read from q, Benjamini-Hochberg" in c.value for c in at.caption)


# --- a card never played has no shrunk rate -------------------------------------------------------------

def test_a_card_never_played_has_no_shrunk_played_rate(small_store, tmp_path):
    path = copied(small_store, tmp_path, "unplayed")
    (card,) = sql(path, "SELECT card FROM card_games WHERE played > 0 GROUP BY 1 ORDER BY count(*), card LIMIT 1")[0]
    con = duckdb.connect(str(path))
    con.execute("UPDATE card_games SET played = 0, first_turn_played = NULL WHERE card = ?", [card])
    con.close()
    stats = card_metrics(path, Filters(runs=run_ids(path)))
    never = stats.filter(pl.col("card") == card).row(0, named=True)
    assert never["played_games"] == 0 and never["played_wr_shrunk"] is None and never["played_wr_z"] is None
    assert stats.filter(pl.col("played_games") > 0)["played_wr_shrunk"].is_not_null().all()
