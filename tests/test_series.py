"""Best-of-3 series (sim/core/series.py, ``--mode series``): the series rules, a run end to end
(the loser goes first, 2-0 and 2-1 series, Rank Points, game 1 = the duel on the same seeds),
replays of later games, the Series page, its exports and the HTML report."""
from __future__ import annotations

import csv

import polars as pl
import pytest

from cardsdb.alleyway.schema import Constants
from reports import db
from sim.core.series import game_seed, next_first, over, rank_points, tally
from tests.conftest import run_cli

DECKS = "cinder-wildfire,marlows-crew,graves-garrison"
C = Constants()


def test_the_loser_goes_first_and_a_draw_swaps_the_seats():
    assert next_first(0, 0) == 1 and next_first(0, 1) == 0  # A sat first: A won -> B first; B won -> A first
    assert next_first(1, None) == 0 and next_first(0, None) == 1


def test_a_best_of_three_ends_at_two_wins_or_three_games():
    assert over(3, 2, 0, 2) and over(3, 1, 2, 3) and not over(3, 1, 1, 2) and over(3, 1, 1, 3)
    assert not over(3, 1, 0, 2)  # a draw and a win: a third game


def test_rank_points_follow_the_series_score():
    assert [rank_points(C, 2, 0), rank_points(C, 2, 1), rank_points(C, 1, 2), rank_points(C, 0, 2)] == [
        C.rank_points_win + C.rank_points_sweep, C.rank_points_win, C.rank_points_loss,
        C.rank_points_loss - C.rank_points_sweep]
    assert rank_points(C, 1, 1) == 0
    t = tally(C, [1, 0, 0])
    assert (t.games, t.a_wins, t.b_wins, t.score, t.winner) == (3, 2, 1, "2-1", 0)
    assert (t.a_rank_points, t.b_rank_points) == (C.rank_points_win, C.rank_points_loss)
    assert game_seed(99, 1, 0) == game_seed(99, 1, 1) == 99 and game_seed(99, 2, 0) != game_seed(99, 3, 0)
    assert game_seed(99, 2, 0) != game_seed(99, 2, 1)  # the twin series play other later games


@pytest.fixture(scope="module")
def series_store(tmp_path_factory):
    """A store with a series run (3 pairings x 12 series, random pilots) and the duel run on the same seeds."""
    path = tmp_path_factory.mktemp("series") / "s.duckdb"
    for mode in ("series", "duel"):
        res = run_cli("simulate", "alleyway", "--mode", mode, "--decks", DECKS, "--matches", "12", "--pilots",
                      "random", "--workers", "1", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    return path


def test_a_series_run_stores_each_series_and_its_games(series_store):
    series = db.query(series_store, "SELECT * FROM series WHERE run_id = 1 ORDER BY series_no")
    assert db.query(series_store, "SELECT mode, kind, matches_done FROM runs WHERE run_id = 1").row(0) == ("series", "series", 36)
    assert series.height == 36 and set(series["games"]) <= {2, 3}
    assert {"2-0", "0-2"} & set(series["score"]) and {"2-1", "1-2"} & set(series["score"])  # both kinds happen
    games = db.query(series_store, """SELECT m.series_no, m.game_no, m.match_no, m.winner_deck, s.deck AS first_deck
                                  FROM matches m JOIN match_seats s USING (run_id, match_no)
                                  WHERE m.run_id = 1 AND s.seat = 0 ORDER BY m.match_no""")
    assert games.height == series["games"].sum()
    assert (games["match_no"] == games["series_no"] * 3 + games["game_no"] - 1).all()
    for r in series.iter_rows(named=True):
        mine = games.filter(pl.col("series_no") == r["series_no"]).sort("game_no")
        wins = mine["winner_deck"].to_list()
        assert (wins.count(r["deck_a"]), wins.count(r["deck_b"])) == (r["a_wins"], r["b_wins"])
        assert r["a_rank_points"] == rank_points(C, r["a_wins"], r["b_wins"])
        assert mine["first_deck"][0] == (r["deck_a"] if r["a_first"] else r["deck_b"])
        for before, after in zip(mine.iter_rows(named=True), mine[1:].iter_rows(named=True)):
            loser = r["deck_b"] if before["winner_deck"] == r["deck_a"] else r["deck_a"]
            if before["winner_deck"] is not None:
                assert after["first_deck"] == loser, (r["series_no"], before, after)


def test_game_one_of_each_series_is_the_duel_on_the_same_seed(series_store):
    first = db.query(series_store, """SELECT series_no AS n, seed, winner_deck, turns FROM matches
                                  WHERE run_id = 1 AND game_no = 1 ORDER BY n""")
    duel = db.query(series_store, "SELECT match_no AS n, seed, winner_deck, turns FROM matches WHERE run_id = 2 ORDER BY n")
    assert first.equals(duel)


def test_a_later_game_of_a_series_replays_as_stored(series_store):
    from workbench.replay import replay_match

    third = db.query(series_store, "SELECT match_no FROM matches WHERE run_id = 1 AND game_no = 3 LIMIT 1")["match_no"][0]
    for match_no in (1, int(third)):
        out = replay_match(series_store, 1, match_no)
        assert out["consistent"], out["stored"]


def test_series_figures_and_exports(series_store, tmp_path):
    from reports import series

    decks = series.series_decks(series_store, [1])
    assert decks["series"].sum() == 2 * 36 and set(decks["deck"]) == set(DECKS.split(","))
    stored = db.query(series_store, "SELECT * FROM series WHERE run_id = 1")
    for r in decks.iter_rows(named=True):
        as_a = stored.filter(pl.col("deck_a") == r["deck"])
        as_b = stored.filter(pl.col("deck_b") == r["deck"])
        won = (as_a["a_wins"] > as_a["b_wins"]).sum() + (as_b["b_wins"] > as_b["a_wins"]).sum()
        assert r["series_won"] == won
        rp = (as_a["a_rank_points"].sum() + as_b["b_rank_points"].sum()) / (as_a.height + as_b.height)
        assert r["rank_points"] == pytest.approx(rp)
        assert r["series_win_rate_lo"] <= r["series_win_rate"] <= r["series_win_rate_hi"]
    scores = series.series_scores(series_store, [1])
    assert scores["series"].sum() == 2 * 36
    for name in ("series_decks", "series_scores", "series"):
        out = tmp_path / f"{name}.csv"
        res = run_cli("export", name, "--db", str(series_store), "--csv", str(out))
        assert res.returncode == 0, res.stderr
        with open(out, newline="") as fh:
            assert list(csv.DictReader(fh)), name


def test_the_series_page_and_the_html_report(series_store, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("WORKBENCH_DB", str(series_store))
    at = AppTest.from_string("from reports.pages.series import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [h.value for h in at.subheader] == ["Decks: series against single games", "How each deck's series ended"]
    assert any("series_win_rate" in d.value.columns for d in at.dataframe)
    out = tmp_path / "r.html"
    res = run_cli("report", "1", "--db", str(series_store), "--html", str(out))
    assert res.returncode == 0, res.stderr
    assert "Series: best of" in out.read_text()


@pytest.mark.parametrize("args, words", [
    (["frontier", "--mode", "series"], "frontier has no series mode"),
    (["alleyway", "--mode", "series", "--seats", "3"], "a series of duels has two seats"),
])
def test_a_series_the_game_cannot_play_is_one_line(tmp_path, args, words):
    res = run_cli("simulate", *args, "--matches", "2", "--db", str(tmp_path / "s.duckdb"), "--quiet")
    assert res.returncode == 2 and words in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "s.duckdb").exists()


def test_the_series_pages_downloads_record_its_runs(series_store, monkeypatch, named_downloads):
    """Not the game and runs the duel pages kept: the series run the page counts."""
    from tests.conftest import opened_after_the_duel_pages, page_downloads

    monkeypatch.setenv("WORKBENCH_DB", str(series_store))
    saved = page_downloads(opened_after_the_duel_pages("series"), named_downloads)
    assert saved == {"series_decks__alleyway__runs-1.csv": {"game=alleyway; runs=1; pilots=random"},
                     "series_scores__alleyway__runs-1.csv": {"game=alleyway; runs=1; pilots=random"}}
