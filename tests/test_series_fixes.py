"""The series audit's fixes (tests/test_series.py holds the rest of the series mode):

F1  the twin series of a seed (seats swapped) play other later games, not the same ones again,
    while game 1 stays the duel on the seed and two runs of one spec share their game seeds;
F3  the series figures never pool opponent pilots or best-of lengths;
F4  mirror series are left out of the series figures;
F5  a game that raised an error ends its series, and the series is left out of every figure;
F6  a series is won with more wins, a sweep is a win in which the loser won no game: the docs say so;
F7  RULES.md no longer says the series are not built.
"""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cardsdb.alleyway.schema import Constants
from reports import db
from sim.core.series import game_seed, rank_points, tally
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
DECKS = "cinder-wildfire,marlows-crew"
C = Constants()


def _series_run(db_path: Path, *args: str, env: dict | None = None) -> None:
    res = run_cli("simulate", "alleyway", "--mode", "series", "--workers", "1", "--db", str(db_path), "--quiet", *args,
                  env=env)
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Run 1: 16 best-of-3 series, random against random (8 twin pairs); run 2: a mirror (one deck
    against itself); run 3: random against greedy; runs 4 and 5: best-of-5 (a rules version of a
    workspace), run 5 of a single series."""
    from cardsdb.workspace import copy_game

    root = tmp_path_factory.mktemp("series-fixes")
    path = root / "s.duckdb"
    data = root / "data"
    copy_game("alleyway", data / "alleyway")
    (data / "alleyway" / "rules" / "bo5.yaml").write_text(
        "version: bo5\nextends: base\ndescription: best of 5\nconstants:\n  series_best_of: 5\n", encoding="utf-8")
    _series_run(path, "--decks", DECKS, "--matches", "16", "--pilots", "random")
    _series_run(path, "--decks", "cinder-wildfire", "--matches", "4", "--pilots", "random")
    _series_run(path, "--decks", DECKS, "--matches", "4", "--pilots", "random,greedy")
    for n in ("4", "1"):
        _series_run(path, "--decks", DECKS, "--matches", n, "--pilots", "random", "--rules", "bo5",
                    env={"WORKBENCH_DATA": str(data)})
    return path


# --- F1: twin series -------------------------------------------------------------------------------

def _played(spec, consts, series_no: int, winner_deck: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(game_no, seed, seating) of each game of a series in which deck ``winner_deck`` of the
    pairing wins every game."""
    from workbench.chunk import series_games

    games = []

    def play(game_no, seed, slots, _swapped):
        games.append((game_no, seed, tuple(slots)))
        return slots.index(spec.pairings[0][winner_deck])

    series_games(spec, consts, series_no, play)
    return games


def test_twin_series_play_other_later_games_and_a_rerun_the_same():
    from workbench.runspec import RunSpec

    spec = RunSpec(game="alleyway", rules="base", decks=DECKS.split(","), pilots=["random"], matches=4,
                   mode="series")
    for consts in (C, C.model_copy(update={"series_best_of": 5})):
        for twin in (0, 2):  # series 2i and 2i + 1: one seed, the seats swapped
            seed, _, rotation = spec.match(twin)
            assert (spec.match(twin + 1)[0], spec.match(twin + 1)[2]) == (seed, 1 - rotation)
            mine, other = _played(spec, consts, twin, 0), _played(spec, consts, twin + 1, 0)
            assert mine[0][1] == other[0][1] == seed and mine[0][2] != other[0][2]  # game 1: the duel's twins
            # deck A wins game 1 in both: the later games have the same seating, and no longer the same seed
            assert [g[2] for g in mine[1:]] == [g[2] for g in other[1:]]
            assert not {g[1] for g in mine[1:]} & {g[1] for g in other[1:]}, (mine, other)
            for series_no, games in ((twin, mine), (twin + 1, other)):
                rot = spec.match(series_no)[2]
                assert [s for _, s, _ in games] == [game_seed(seed, g, rot) for g, _, _ in games]
            # a run of another rules version on the same spec (a diff's candidate) plays the same seeds
            assert _played(dataclasses.replace(spec, rules="other"), consts, twin, 0) == mine


def test_no_later_game_is_played_twice_and_each_replays_in_its_seats(store):
    from workbench.replay import replay_match

    series = db.query(store, "SELECT series_no, seed, a_first FROM series WHERE run_id = 1")
    games = db.query(store, "SELECT series_no, game_no, match_no, seed FROM matches WHERE run_id = 1").join(
        series.rename({"seed": "series_seed"}), on="series_no")
    later = games.filter(pl.col("game_no") > 1)
    assert later.height and later["seed"].n_unique() == later.height  # no game replayed by the twin series
    for r in games.iter_rows(named=True):
        assert r["seed"] == game_seed(r["series_seed"], r["game_no"], 0 if r["a_first"] else 1)
    # a later game of a series of each rotation replays as stored (workbench/replay.py goes through series_games)
    for a_first in (True, False):
        match_no = later.filter(pl.col("a_first") == a_first).sort("game_no", descending=True)["match_no"][0]
        out = replay_match(store, 1, int(match_no))
        assert out["consistent"], (a_first, match_no, out["stored"])


# --- F5: an errored game ends its series -----------------------------------------------------------

def test_a_game_that_raises_ends_its_series_and_keeps_its_error():
    import workbench.chunk as chunk
    from sim.core.decks import compile_decks
    from sim.registry import engine as get_engine
    from workbench import games
    from workbench.runspec import RunSpec

    spec = RunSpec(game="alleyway", rules="base", decks=DECKS.split(","), pilots=["random"], matches=2, mode="series")
    data, ruleset = games.load(spec.game, spec.rules)
    engine = get_engine("alleyway")
    pool = engine.compile_pool(ruleset)
    decks = compile_decks(engine, pool, games.decks_for(data, ruleset, spec.decks), spec.substitute)

    class Crashes:  # the engine, except that the second game it starts (game 2) raises at its first action
        def __init__(self, e):
            self.e, self.started = e, 0

        def __getattr__(self, k):
            return getattr(self.e, k)

        def new_match(self, *a, **k):
            self.started += 1
            return self.e.new_match(*a, **k)

        def apply(self, state, action):
            if self.started == 2:
                raise RuntimeError("injected engine fault")
            return self.e.apply(state, action)

    cols = chunk._Columns(0)
    chunk.play_series(cols, spec, Crashes(engine), pool, decks, 1, 0, 0)
    t = cols.tables()
    matches = t["matches"].to_pylist()
    assert [m["game_no"] for m in matches] == [1, 2]  # no game 3: the series stopped at the crash
    assert matches[1]["error"] and "injected engine fault" in matches[1]["error"]
    row = t["series"].to_pylist()[0]
    assert "injected engine fault" in row["error"]
    assert (row["games"], row["draws"], row["a_wins"] + row["b_wins"]) == (1, 0, 1)  # the crash is no drawn game


@pytest.fixture(scope="module")
def errored(store, tmp_path_factory):
    """The store with series 0 of run 1 marked as having raised an error."""
    path = tmp_path_factory.mktemp("errored") / "e.duckdb"
    shutil.copy(store, path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE series SET error = 'RuntimeError: injected' WHERE run_id = 1 AND series_no = 0")
        con.execute("UPDATE matches SET error = 'RuntimeError: injected' WHERE run_id = 1 AND series_no = 0 "
                    "AND game_no = 1")
    return path


def test_a_series_with_an_error_is_left_out_of_every_figure(store, errored):
    from reports import series

    before, after = series.series_decks(store, [1]), series.series_decks(errored, [1])
    assert before["series"].sum() == 2 * 16 and after["series"].sum() == 2 * 15
    games0 = db.query(store, "SELECT count(*) AS n FROM matches WHERE run_id = 1 AND series_no = 0")["n"][0]
    assert after["games"].sum() == before["games"].sum() - 2 * games0
    assert after["first_games"].sum() == 2 * 15
    assert series.series_scores(errored, [1])["series"].sum() == 2 * 15
    assert series.left_out_text(series.series_left_out(errored, [1])) == "1 series left out: a game raised an error."
    assert series.left_out_text(series.series_left_out(store, [1])) == ""


# --- F4: mirrors -----------------------------------------------------------------------------------

def test_mirror_series_are_left_out(store):
    from reports import series

    assert series.series_decks(store, [2]).is_empty() and series.series_scores(store, [2]).is_empty()
    both = series.series_decks(store, [1, 2])
    assert both.drop(["rank_points_lo", "rank_points_hi"]).equals(
        series.series_decks(store, [1]).drop(["rank_points_lo", "rank_points_hi"]))
    assert series.left_out_text(series.series_left_out(store, [1, 2])) == (
        "4 series left out: a deck against itself (50% by definition).")


# --- F3: opponent pilots and best-of lengths are never pooled --------------------------------------

def test_opponent_pilots_and_best_of_lengths_are_rows_of_their_own(store):
    from reports import series

    assert dict(series.series_runs(store).select("run_id", "best_of").iter_rows()) == {1: 3, 2: 3, 3: 3, 4: 5, 5: 5}
    decks = series.series_decks(store, [1, 3, 4, 5])
    key = ["deck", "pilot", "opponent_pilot", "best_of"]
    assert decks.select(key).n_unique() == decks.height
    stored = db.query(store, "SELECT run_id, deck_a, deck_b, pilot_a, pilot_b FROM series WHERE run_id IN (1, 3, 4, 5)")
    best = {1: 3, 3: 3, 4: 5, 5: 5}
    expected: dict[tuple, int] = {}
    for r in stored.iter_rows(named=True):
        for deck, pilot, opponent in ((r["deck_a"], r["pilot_a"], r["pilot_b"]), (r["deck_b"], r["pilot_b"], r["pilot_a"])):
            k = (deck, pilot, opponent, best[r["run_id"]])
            expected[k] = expected.get(k, 0) + 1
    assert {tuple(r[:4]): r[4] for r in decks.select(*key, "series").iter_rows()} == expected
    assert ("cinder-wildfire", "random", "greedy", 3) in expected and ("cinder-wildfire", "random", "random", 5) in expected
    scores = series.series_scores(store, [1, 3, 4, 5])
    assert scores.group_by(key).agg(pl.col("share").sum())["share"].to_list() == pytest.approx([1.0] * decks.height)
    assert set(scores.filter(pl.col("best_of") == 5)["score"]) <= {"3-0", "3-1", "3-2", "0-3", "1-3", "2-3", "level"} | {
        f"{a}-{b}" for a in range(4) for b in range(4)}


def test_the_series_page_shows_the_rows_and_what_it_left_out(errored, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from reports.html import _series_section

    monkeypatch.setenv("WORKBENCH_DB", str(errored))
    at = AppTest.from_string("from reports.pages.series import render\nrender()", default_timeout=60)
    at.run()
    at.sidebar.multiselect[0].set_value([1, 2, 3]).run()
    assert not at.exception, at.exception
    caption = " ".join(c.value for c in at.caption)
    assert "1 series left out: a game raised an error." in caption
    assert "4 series left out: a deck against itself" in caption
    frame = next(d.value for d in at.dataframe if "series_win_rate" in d.value.columns)
    assert {"opponent_pilot", "best_of"} <= set(frame.columns)
    assert set(frame["opponent_pilot"]) == {"random", "greedy"}
    text = _series_section(errored, [1, 2, 3], None)
    assert "opponent pilot" in text and "1 series left out: a game raised an error." in text
    assert "4 series left out: a deck against itself" in text


# --- F6, F7: what wins a series, what a sweep is, in the code and in every doc ---------------------

def test_more_wins_win_the_series_and_a_sweep_is_a_win_the_loser_won_no_game_of():
    t = tally(C, [0, None, None])  # a 1-0 with two drawn games
    assert (t.score, t.winner, t.a_rank_points, t.b_rank_points) == (
        "1-0", 0, C.rank_points_win + C.rank_points_sweep, C.rank_points_loss - C.rank_points_sweep)
    t = tally(C, [None, 1, 0])  # a 1-1 with a drawn game: level
    assert (t.winner, t.a_rank_points, t.b_rank_points) == (None, 0, 0)
    assert rank_points(C, 2, 1) == C.rank_points_win and rank_points(C, 1, 2) == C.rank_points_loss


DOCS = ["sim/core/series.py", "reports/series.py", "reports/pages/series.py", "reports/METRICS.md", "reports/html.py",
        "sim/alleyway/RULES.md", "cardsdb/alleyway/schema.py"]


@pytest.mark.parametrize("doc", DOCS)
def test_every_doc_says_what_wins_a_series_and_what_a_sweep_is(doc):
    text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
    assert "1-0 with drawn games" in text, doc  # a win with more wins, and a sweep, need no 2-0
    for stale in ("a majority of the best-of;", "(a majority of the best-of)", "= a majority of its games",
                  "for a 2-0;", "for a 2-0 win", "A series won = a majority"):
        assert stale not in text, (doc, stale)


def test_rules_md_says_the_series_are_built():
    text = " ".join((ROOT / "sim/alleyway/RULES.md").read_text(encoding="utf-8").split())
    assert "not built yet" not in text
    scope = text[text.index("Scope:"):text.index("## Code map")]
    assert "--mode series" in scope
