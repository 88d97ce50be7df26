"""Turf Defense through the workbench: the run spec (every partner pair against each boss, the
boss's seat added), what the store holds (teams, the boss's deck, the outcome with phase, Morale
and prize), the boss report against the stored rows, its page, exports, the HTML report, the
CLI's checks, and a replay."""
from __future__ import annotations

import csv
import json

import polars as pl
import pytest

from reports import db, turf
from tests.conftest import run_cli
from workbench.runspec import RunSpec

DECKS = "cinder-wildfire,marlows-crew,graves-garrison"


def test_turf_pairings_put_every_partner_pair_against_each_boss():
    spec = RunSpec(game="alleyway", rules="base", decks=list("abc"), pilots=["random"], matches=4, mode="turf",
                   bosses=["x", "y"], boss_pilot="greedy")
    assert spec.matches_total == 3 * 2 * 4
    assert [spec.boss_of(p) for p in range(len(spec.pairings))] == ["x"] * 3 + ["y"] * 3
    assert spec.seat_slots(0, 1) == [1, 0]  # the partners swap seats from seed to seed
    assert RunSpec.from_json(spec.to_json()) == spec
    assert "bosses" not in RunSpec(game="alleyway", rules="base", decks=list("ab"), pilots=["g"], matches=2).to_json()


@pytest.fixture(scope="module")
def turf_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("turf") / "t.duckdb"
    res = run_cli("simulate", "alleyway", "--mode", "turf", "--decks", DECKS, "--matches", "4", "--pilots", "random",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    assert "Turf Defense against" in res.stderr
    return path


def test_a_turf_run_stores_teams_the_boss_seat_and_the_outcome(turf_store):
    from cardsdb.loader import load_ruleset

    bosses = load_ruleset("alleyway", "base")[1].bosses
    runs = db.query(turf_store, "SELECT mode, kind, matches_done FROM runs")
    assert runs.row(0) == ("turf", "turf", 3 * len(bosses) * 4)
    seats = db.query(turf_store, "SELECT * FROM match_seats ORDER BY match_no, seat")
    assert seats.group_by("match_no").agg(pl.col("team"))["team"].to_list() == [[0, 0, 1]] * runs["matches_done"][0]
    assert set(seats.filter(pl.col("team") == 1)["deck"]) == {f"boss:{b}" for b in bosses}
    matches = db.query(turf_store, "SELECT m.outcome, b.result FROM matches m JOIN match_seats b "
                               "USING (run_id, match_no) WHERE b.team = 1")
    for outcome, boss_result in matches.iter_rows():
        o = json.loads(outcome)
        assert o["boss"] in bosses and o["phase"] >= 1 and 0 <= o["boss_life"] <= o["boss_life_max"]
        assert (o["prize"] is not None) == (boss_result == "loss")  # the prize is paid by a win only
        if o["prize"] is not None:
            assert o["prize"] == bosses[o["boss"]].prize
    # the partners share the result: both win when the boss is beaten, the one who fell too
    shared = db.query(turf_store, "SELECT match_no, list(DISTINCT result) AS r FROM match_seats WHERE team = 0 GROUP BY 1")
    assert all(len(r) == 1 for r in shared["r"])


def test_matchups_never_put_a_partner_against_its_teammate(turf_store):
    """A Turf partner's opponent is the boss: the matchup table pairs each partner deck with the
    boss decks only, and each boss with the partners (each match counted once per partner)."""
    from reports.matchups import matchups

    m = matchups(turf_store)
    partners = set(DECKS.split(","))
    for deck, opponent in m.select("deck", "opponent").iter_rows():
        assert (deck in partners) != (opponent in partners), (deck, opponent)
    played = db.query(turf_store, "SELECT count(*) FROM match_seats WHERE team = 0")[0, 0]
    assert m.filter(pl.col("deck").is_in(list(partners)))["games"].sum() == played


def test_the_boss_report_matches_the_stored_matches(turf_store):
    bosses = turf.turf_bosses(turf_store, [1])
    stored = db.query(turf_store, """SELECT json_extract_string(m.outcome, '$.boss') AS boss, b.result = 'loss' AS cleared
                                 FROM matches m JOIN match_seats b USING (run_id, match_no) WHERE b.team = 1""")
    for r in bosses.iter_rows(named=True):
        mine = stored.filter(pl.col("boss") == r["boss"])
        assert (r["matches"], r["clears"]) == (mine.height, mine["cleared"].sum()) == (r["matches"], r["clears"])
        assert r["matches"] == 12 and r["clear_rate_lo"] <= r["clear_rate"] <= r["clear_rate_hi"]
    pairs = turf.turf_pairs(turf_store, [1])
    assert pairs["matches"].sum() == bosses["matches"].sum() and set(pairs["matches"]) == {4}
    falls = turf.turf_first_falls(turf_store, [1])
    assert set(falls["deck"]) == set(DECKS.split(","))
    assert (falls["falls_first"] <= falls["partner_outs"]).all()


def test_turf_exports_page_and_html(turf_store, monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    for name in ("turf_bosses", "turf_pairs", "turf_first_falls"):
        out = tmp_path / f"{name}.csv"
        res = run_cli("export", name, "--db", str(turf_store), "--csv", str(out))
        assert res.returncode == 0, res.stderr
        with open(out, newline="") as fh:
            assert list(csv.DictReader(fh)), name
    monkeypatch.setenv("WORKBENCH_DB", str(turf_store))
    at = AppTest.from_string("from reports.pages.turf import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [h.value for h in at.subheader] == ["Bosses: clear rate", "Clear rate by partner pair",
                                               "Which partner falls first"]
    html = tmp_path / "r.html"
    res = run_cli("report", "1", "--db", str(turf_store), "--html", str(html))
    assert res.returncode == 0, res.stderr
    assert "Turf Defense: bosses" in html.read_text()


def test_bosses_read_by_name_with_their_ids_beside(turf_store, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from cardsdb.loader import load_ruleset

    names = {b: boss.name for b, boss in load_ruleset("alleyway", "base")[1].bosses.items()}
    assert json.loads(db.query(turf_store, "SELECT boss_names FROM runs WHERE run_id = 1").item()) == names
    for table in (turf.turf_bosses, turf.turf_pairs, turf.turf_first_falls):
        frame = table(turf_store, [1])
        assert frame.columns[:2] == ["boss", "boss_name"] and all(names[b] == n for b, n in frame.select("boss", "boss_name").iter_rows())
    monkeypatch.setenv("WORKBENCH_DB", str(turf_store))
    at = AppTest.from_string("from reports.pages.turf import render\nrender()", default_timeout=60).run()
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert {y.split(" (")[0] for y in chart["y"]} == set(names.values()) and set(chart["customdata"]) == set(names)
    for frame in at.dataframe:  # every table: the name first, the id last, labelled so
        order = list(frame.proto.column_order)
        assert order[0] == "boss_name" and order[-1] == "boss", order
        labels = json.loads(frame.proto.columns)
        assert (labels["boss_name"]["label"], labels["boss"]["label"]) == ("boss", "boss id")


def test_a_store_from_before_the_boss_names_shows_the_ids(turf_store, tmp_path):
    import shutil

    old = tmp_path / "old.duckdb"
    shutil.copy(turf_store, old)
    bosses = turf.turf_bosses(old, [1])["boss"]
    with db.connect(old, read_only=False) as con:
        con.execute("UPDATE runs SET boss_names = NULL")  # a turf run stored before the names were
    assert turf.turf_bosses(old, [1])["boss_name"].equals(bosses, check_names=False)
    with db.connect(old, read_only=False) as con:
        con.execute("ALTER TABLE runs DROP COLUMN boss_names")  # a store not migrated since
    assert turf.turf_first_falls(old, [1])["boss_name"].to_list() == turf.turf_first_falls(old, [1])["boss"].to_list()


def test_a_turf_match_replays_as_stored(turf_store):
    from workbench.replay import replay_match

    for match_no in (0, 5):
        out = replay_match(turf_store, 1, match_no)
        assert out["consistent"], out["stored"]


@pytest.mark.parametrize("args, words", [
    (["--boss", "nobody"], "unknown boss 'nobody'"),
    (["--boss-pilot", "wizard"], "--boss-pilot"),
    (["--boss-pilot", "greedy@nope"], "--boss-pilot: no weight set 'nope'"),  # was a traceback
    (["--seats", "3"], "Turf Defense has two partners"),
])
def test_bad_turf_input_is_one_line(tmp_path, args, words):
    res = run_cli("simulate", "alleyway", "--mode", "turf", *args, "--matches", "2", "--db",
                  str(tmp_path / "t.duckdb"), "--quiet")
    assert res.returncode == 2 and words in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "t.duckdb").exists()


def test_boss_options_outside_turf_are_refused(tmp_path):
    res = run_cli("simulate", "alleyway", "--boss", "the-house", "--matches", "2", "--db", str(tmp_path / "t.duckdb"))
    assert res.returncode == 2 and "for --mode turf" in res.stderr


def test_the_turf_pages_downloads_record_its_runs(turf_store, monkeypatch, named_downloads):
    """Not the game and runs the duel pages kept: the Turf Defense run the page counts."""
    from tests.conftest import opened_after_the_duel_pages, page_downloads

    monkeypatch.setenv("WORKBENCH_DB", str(turf_store))
    saved = page_downloads(opened_after_the_duel_pages("turf"), named_downloads)
    assert saved == {f"{name}__alleyway__runs-1.csv": {"game=alleyway; runs=1; pilots=random"}
                     for name in ("turf_bosses", "turf_pairs", "turf_first_falls")}


# --- every table splits by pilot ---------------------------------------------------------------------
PAIR = "cinder-wildfire,marlows-crew"
PARTNERS = {1: "random", 2: "greedy", 3: "random,greedy"}  # run 3: cinder-wildfire random, marlows-crew greedy


@pytest.fixture(scope="module")
def pilots_store(tmp_path_factory):
    """Runs of one pair against one boss (a greedy boss), 2 matches each: random partners, greedy
    partners, and one of each."""
    path = tmp_path_factory.mktemp("turf_pilots") / "p.duckdb"
    for pilots in PARTNERS.values():
        res = run_cli("simulate", "alleyway", "--mode", "turf", "--decks", PAIR, "--boss", "iron-curtain",
                      "--boss-pilot", "greedy", "--pilots", pilots, "--matches", "2", "--workers", "1", "--db", str(path),
                      "--quiet")
        assert res.returncode == 0, res.stderr
    assert db.query(path, "SELECT run_id FROM runs ORDER BY 1")["run_id"].to_list() == list(PARTNERS)
    return path


def test_which_partner_falls_first_is_split_by_pilot(pilots_store):
    """Before, random's partner seats and greedy's were one row per boss and deck, no pilot named."""
    from polars.testing import assert_frame_equal

    falls = turf.turf_first_falls(pilots_store, list(PARTNERS))
    key = ["boss", "deck", "pilot", "partner_pilots", "boss_pilot"]
    assert [c for c in falls.columns if c != "boss_name"][:5] == key
    assert falls.select(key).is_duplicated().sum() == 0
    seats = db.query(pilots_store, """
        SELECT s.deck, s.pilot, p.partner_pilots, b.pilot AS boss_pilot, s.out_turn,
               min(s.out_turn) OVER (PARTITION BY s.run_id, s.match_no) AS first_out
        FROM match_seats s
        JOIN match_seats b ON b.run_id = s.run_id AND b.match_no = s.match_no AND b.team = 1
        JOIN (SELECT run_id, match_no, string_agg(DISTINCT pilot, ',' ORDER BY pilot) AS partner_pilots
              FROM match_seats WHERE team = 0 GROUP BY ALL) p ON p.run_id = s.run_id AND p.match_no = s.match_no
        WHERE s.team = 0""")
    mine = seats.group_by(key[1:]).agg(pl.col("first_out").is_not_null().sum().alias("outs"),
                                       (pl.col("out_turn") == pl.col("first_out")).sum().alias("first"))
    joined = falls.join(mine, on=key[1:], how="full", coalesce=True)
    assert joined.height == falls.height == mine.height == 2 * 3  # two decks, three sets of pilots
    assert (joined["partner_outs"] == joined["outs"]).all() and (joined["falls_first"] == joined["first"]).all()
    mixed = turf.turf_first_falls(pilots_store, [3])
    assert mixed.select("deck", "pilot", "partner_pilots").rows() == [
        ("cinder-wildfire", "random", "greedy,random"), ("marlows-crew", "greedy", "greedy,random")]
    both = turf.turf_first_falls(pilots_store, [1, 2])  # random's rows are run 1's table, greedy's run 2's
    for run, pilot in ((1, "random"), (2, "greedy")):
        alone = turf.turf_first_falls(pilots_store, [run])
        assert set(alone["pilot"]) == set(alone["partner_pilots"]) == {pilot}
        assert_frame_equal(both.filter(pl.col("pilot") == pilot), alone)


def test_the_first_falls_export_and_page_name_the_pilots(pilots_store, monkeypatch, tmp_path, named_downloads):
    import io
    from pathlib import Path

    from tests.test_dashboard_edges import opened

    out = tmp_path / "falls.csv"
    res = run_cli("export", "turf_first_falls", "--db", str(pilots_store), "--run", "1", "--run", "2", "--csv", str(out))
    assert res.returncode == 0, res.stderr
    exported = pl.read_csv(out, infer_schema=False)
    assert {"pilot", "partner_pilots", "boss_pilot"} <= set(exported.columns) and set(exported["pilot"]) == {
        "random", "greedy"} and exported.height == 4
    monkeypatch.setenv("WORKBENCH_DB", str(pilots_store))
    at = opened("turf", timeout=120, turf_runs="1,2")
    assert any("partners greedy, random" in c.value and "splits by them" in c.value for c in at.caption)
    falls = next(f for f in at.dataframe if "falls_first" in f.value.columns)
    order = list(falls.proto.column_order)
    assert order[:3] == ["boss_name", "deck", "pilot"] and set(falls.value["pilot"]) == {"random", "greedy"}
    saved = {name: data for name, data in (named_downloads[Path(b.proto.url).stem] for b in at.get("download_button"))}
    download = pl.read_csv(io.BytesIO(next(d for n, d in saved.items() if n.startswith("turf_first_falls__"))),
                           infer_schema=False)
    assert download.select("deck", "pilot").sort("deck", "pilot").rows() == exported.select(
        "deck", "pilot").sort("deck", "pilot").rows()
