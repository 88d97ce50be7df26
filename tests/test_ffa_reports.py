"""The free-for-all figures (reports/ffa.py) against the store's own rows, recomputed here by
hand; their exports, the Free-for-all page, the HTML report, and the duel pages leaving
free-for-all runs out."""
from __future__ import annotations

import csv

import duckdb
import polars as pl
import pytest

from reports import db, ffa
from tests.conftest import run_cli

DECKS = "archon-star-fleet,cinder-wildfire,graves-garrison,marlows-crew,veyr-bone-court"


@pytest.fixture(scope="module")
def ffa_store(tmp_path_factory):
    """A store with one 4-seat free-for-all run (5 tables x 8 matches, random pilots) and one duel run."""
    path = tmp_path_factory.mktemp("ffa") / "f.duckdb"
    for args in (["--mode", "ffa", "--decks", DECKS, "--matches", "8"], ["--decks", "cinder-wildfire,marlows-crew",
                                                                          "--matches", "4"]):
        res = run_cli("simulate", "alleyway", *args, "--pilots", "random", "--workers", "1", "--db", str(path),
                      "--quiet")
        assert res.returncode == 0, res.stderr
    return path


def seats(path) -> pl.DataFrame:
    return db.query(path, "SELECT * FROM match_seats WHERE run_id = 1")


def test_ffa_runs_lists_only_the_free_for_all_run(ffa_store):
    runs = ffa.ffa_runs(ffa_store)
    assert runs["run_id"].to_list() == [1] and runs["seats"].to_list() == [4]


def test_deck_placement_figures_match_the_stored_seats(ffa_store):
    rows = seats(ffa_store)
    decks = ffa.ffa_decks(ffa_store, [1])
    assert decks["seats"].sum() == rows.height == 4 * 40
    for r in decks.iter_rows(named=True):
        mine = rows.filter(pl.col("deck") == r["deck"])["placement"]
        assert r["seats"] == mine.len() == 32  # each deck sits at 4 of the 5 tables, 8 matches each
        assert r["mean_placement"] == pytest.approx(mine.mean())
        assert r["win_share"] == pytest.approx((mine == 1).mean())
        assert r["top2"] == pytest.approx((mine <= 2).mean())
        assert r["mean_placement_lo"] < r["mean_placement"] < r["mean_placement_hi"]
        assert r["win_share_lo"] <= r["win_share"] <= r["win_share_hi"]
    # every seat-game is placed once: over the field the win shares add up to one winner per match
    # (a draw would give several), and with no draws the places average (4 + 1) / 2
    if rows["result"].eq("draw").sum() == 0:
        assert (decks["win_share"] * decks["seats"]).sum() == pytest.approx(40)
        assert rows["placement"].mean() == pytest.approx(2.5)


def test_card_placement_gain_is_not_played_minus_played(ffa_store):
    cards = ffa.ffa_cards(ffa_store, [1])
    con = duckdb.connect(str(ffa_store), read_only=True)
    try:
        games = con.sql("""SELECT c.deck, c.card, c.played > 0 AS played, s.placement FROM card_games c
                           JOIN match_seats s USING (run_id, match_no, seat) WHERE c.run_id = 1""").pl()
    finally:
        con.close()
    row = cards.filter((pl.col("played") >= 5) & (pl.col("not_played") >= 5)).row(0, named=True)
    mine = games.filter((pl.col("deck") == row["deck"]) & (pl.col("card") == row["card"]))
    played = mine.filter(pl.col("played"))["placement"]
    never = mine.filter(~pl.col("played"))["placement"]
    assert (row["played"], row["not_played"]) == (played.len(), never.len())
    assert row["placement_gain"] == pytest.approx(never.mean() - played.mean())
    assert row["placement_gain_lo"] < row["placement_gain"] < row["placement_gain_hi"]


def test_who_put_whom_out_counts_every_seat_that_went_out(ffa_store):
    rows = seats(ffa_store)
    outs = ffa.ffa_eliminations(ffa_store, [1])
    assert outs["outs"].sum() == rows["out_turn"].is_not_null().sum() > 0
    nobody = outs.filter(pl.col("eliminator_deck") == "(nobody)")["outs"].sum()
    assert nobody == (rows["out_turn"].is_not_null() & rows["out_by"].is_null()).sum()
    assert outs.group_by("out_deck").agg(pl.col("share").sum())["share"].to_list() == pytest.approx([1.0] * 5)


def test_targets_come_from_the_attacks_and_opponent_choices_of_the_event_log(ffa_store):
    targets = ffa.ffa_targets(ffa_store, [1])
    attacks = db.query(ffa_store, """SELECT count(*) AS n FROM events WHERE run_id = 1 AND kind = 'attack'
                                     AND regexp_extract(detail, '^p(\\d+)', 1) <> CAST(seat AS VARCHAR)""")["n"][0]
    assert targets["attacks"].sum() == attacks > 0
    # effects: every answered "an opponent" choice (the game's own word, checked here only)
    chosen = db.query(ffa_store, """SELECT count(*) AS n FROM events WHERE run_id = 1 AND kind = 'choose'
                                    AND detail = 'opponent' AND amount <> seat""")["n"][0]
    assert targets["effect_choices"].sum() == chosen
    assert set(targets["target_sits"]) <= {"next", "previous", "across"}
    assert targets.group_by("deck").agg(pl.col("share").sum())["share"].to_list() == pytest.approx([1.0] * 5)


def test_the_four_tables_export_to_csv(ffa_store, tmp_path):
    for name in ("ffa_decks", "ffa_cards", "ffa_eliminations", "ffa_targets"):
        out = tmp_path / f"{name}.csv"
        res = run_cli("export", name, "--db", str(ffa_store), "--csv", str(out))
        assert res.returncode == 0, res.stderr
        with open(out, newline="") as fh:
            rows = list(csv.DictReader(fh))
        assert rows, name
    with open(tmp_path / "ffa_decks.csv", newline="") as fh:
        assert list(next(csv.DictReader(fh)))[:5] == ["deck", "pilot", "table_pilots", "table_seats", "seats"]


def test_targets_of_a_run_without_event_log_say_so(tmp_path):
    """The second walk-through: ``export ffa_targets`` of a run played with ``--events none`` wrote
    an empty file, "wrote 0 rows", exit 0, and nothing said why. It now names the run that kept
    no event log; a run that kept one gets no such note."""
    path = tmp_path / "n.duckdb"
    for events in ("none", "all"):
        res = run_cli("simulate", "alleyway", "--mode", "ffa", "--decks", DECKS, "--matches", "4", "--pilots", "random",
                      "--workers", "1", "--db", str(path), "--quiet", "--events", events, "--seed", "2")
        assert res.returncode == 0, res.stderr
    res = run_cli("export", "ffa_targets", "--run", "1", "--db", str(path), "--csv", str(tmp_path / "t.csv"))
    assert res.returncode == 0 and "wrote 0 rows of ffa_targets" in res.stderr, res.stderr
    assert ("note: ffa_targets reads the event log, and run 1 kept none (played with --events none)"
            in " ".join(res.stderr.split())), res.stderr
    res = run_cli("export", "ffa_targets", "--run", "2", "--db", str(path), "--csv", str(tmp_path / "t2.csv"))
    assert res.returncode == 0 and "reads the event log" not in res.stderr, res.stderr


def test_the_free_for_all_page_shows_placement_outs_and_targets(ffa_store, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("WORKBENCH_DB", str(ffa_store))
    at = AppTest.from_string("from reports.pages.ffa import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    headers = [h.value for h in at.subheader]
    assert headers == ["Decks: placement", "Cards: placement when played", "Who put whom out",
                       "Which opponent each deck chose to hit"]
    shown = [df.value for df in at.dataframe]
    assert any("mean_placement" in d.columns for d in shown) and any("eliminator_deck" in d.columns for d in shown)
    assert any("Pilots: random" in c.value for c in at.caption)


def test_the_duel_pages_leave_free_for_all_runs_out(ffa_store, monkeypatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("WORKBENCH_DB", str(ffa_store))
    at = AppTest.from_string("from reports.pages.overview import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    runs = [m for m in at.sidebar.multiselect if m.label == "Runs"][0]
    assert runs.options == ["run 2: cinder-wildfire,marlows-crew (base, random,random, 4 matches, done)"]


def test_the_html_report_of_a_free_for_all_run(ffa_store, tmp_path):
    out = tmp_path / "r.html"
    res = run_cli("report", "1", "--db", str(ffa_store), "--html", str(out))
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    assert "Free-for-all: placement (4 seats)" in text and "Who put whom out" in text
    assert "First seat wins" not in text  # a duel's figure, not read off a table of four


def test_a_free_for_all_diff_compares_the_decks_win_share_on_the_same_seeds(tmp_path):
    db, out = tmp_path / "d.duckdb", tmp_path / "csv"
    res = run_cli("diff", "alleyway", "--base", "base", "--candidate", "switch-before-attacking", "--mode", "ffa",
                  "--decks", DECKS, "--matches", "4", "--pilots", "random", "--workers", "1", "--db", str(db),
                  "--quiet", "--csv", str(out))
    assert res.returncode == 0, res.stderr
    assert "win share (placed first)" in res.stdout
    with open(out / "diff_decks.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["deck"] for r in rows} == set(DECKS.split(","))
    assert all(int(r["n"]) == int(r["n_new"]) == 16 for r in rows)  # each deck at 4 of 5 tables, 4 matches each
    runs = duckdb.connect(str(db), read_only=True).sql("SELECT rules_version, mode FROM runs ORDER BY run_id").fetchall()
    assert runs == [("base", "ffa"), ("switch-before-attacking", "ffa")]


def test_the_free_for_all_pages_downloads_record_its_runs_and_deck(ffa_store, monkeypatch, named_downloads):
    """Not the game and runs the duel pages kept: the free-for-all run the page counts, and the
    deck its cards table shows."""
    from tests.conftest import opened_after_the_duel_pages, page_downloads

    monkeypatch.setenv("WORKBENCH_DB", str(ffa_store))
    at = opened_after_the_duel_pages("ffa")
    assert not at.exception, at.exception
    deck = [s for s in at.selectbox if s.label == "Deck"][0].value
    saved = page_downloads(at, named_downloads)
    assert len(saved) == len(at.get("download_button")) == 4, saved
    for name, filters in saved.items():
        if name.startswith("ffa_cards"):
            assert name == f"ffa_cards__alleyway__runs-1__deck-{deck}.csv"
            assert filters == {f"game=alleyway; runs=1; deck={deck}; pilots=random"}
        else:
            assert name.endswith("__alleyway__runs-1.csv") and filters == {"game=alleyway; runs=1; pilots=random"}, name


def test_the_free_for_all_cards_deck_follows_the_user_and_lives_in_the_url(ffa_store, monkeypatch):
    from tests.test_dashboard_state import after, page

    monkeypatch.setenv("WORKBENCH_DB", str(ffa_store))
    at = page("ffa").run()
    [box] = [s for s in at.selectbox if s.label == "Deck"]
    last = box.options[-1]
    box.set_value(last).run()
    assert at.query_params["ffa_deck"] in (last, [last])
    back = after(after(at, "overview", ("ffa_deck",)), "ffa", ("ffa_deck",))
    assert [s for s in back.selectbox if s.label == "Deck"][0].value == last
    linked = page("ffa")
    linked.query_params["ffa_deck"] = last
    linked.run()
    assert [s for s in linked.selectbox if s.label == "Deck"][0].value == last
    assert set(linked.dataframe[1].value["deck"]) == {last}


def test_the_reports_read_the_aimed_events_under_the_words_the_engines_log():
    """reports/ffa.py keeps its own copy of the words (reports never import sim)."""
    from reports import ffa
    from sim.core import events

    assert (ffa.AIMED, ffa.AIMED_ATTACK, ffa.AIMED_EFFECT) == (events.AIMED, events.AIMED_ATTACK, events.AIMED_EFFECT)


def test_tables_of_three_and_of_four_seats_are_rows_of_their_own(ffa_store, tmp_path):
    """Places at a 3-seat table (1..3) and a 4-seat one (1..4) are on other scales: pooled, a
    deck's mean place, its fair win share and its interval's N were a mix of both."""
    import shutil

    path = tmp_path / "f.duckdb"
    shutil.copy2(ffa_store, path)
    shutil.copytree(f"{ffa_store}.events", f"{path}.events")
    res = run_cli("simulate", "alleyway", "--mode", "ffa", "--seats", "3", "--decks",
                  "archon-star-fleet,cinder-wildfire,graves-garrison", "--matches", "2", "--pilots", "random",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    three = max(db.query(path, "SELECT run_id FROM runs")["run_id"].to_list())
    decks = ffa.ffa_decks(path, [1, three]).filter(pl.col("deck") == "cinder-wildfire")
    assert sorted(decks["table_seats"].to_list()) == [3, 4]
    for r in decks.iter_rows(named=True):
        mine = db.query(path, "SELECT s.placement FROM match_seats s WHERE s.deck = 'cinder-wildfire' AND "
                              "(SELECT count(*) FROM match_seats t WHERE t.run_id = s.run_id AND t.match_no = s.match_no) = ?",
                        [r["table_seats"]])["placement"]
        assert r["seats"] == mine.len() and r["mean_placement"] == pytest.approx(mine.mean())
        assert r["fair_win_share"] == pytest.approx(1 / r["table_seats"]) and r["mean_placement_hi"] <= r["table_seats"]
    cards = ffa.ffa_cards(path, [1, three]).filter(pl.col("deck") == "cinder-wildfire")
    assert set(cards["table_seats"].to_list()) == {3, 4}
