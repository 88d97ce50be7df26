"""A pilot filter holds for every seat of a match, not only the row's seat: "greedy" is greedy
against greedy. Before, the Matchups page filtered to greedy showed goblin-gold-gang's greedy
seats pooled over their games against greedy and against random opponents, so a run of greedy
against random read as a gap between decks that was the pilots' (and the two directions of a
matchup could not both hold)."""
from __future__ import annotations

import pytest

from reports.cards import card_metrics
from reports.filters import Filters
from reports.matchups import matchups
from tests.conftest import run_cli

DECKS = "goblin-gold-gang,lawmen-posse"


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory):
    """Run 1: greedy against greedy; run 2: greedy (goblin-gold-gang) against random (lawmen-posse)."""
    db = tmp_path_factory.mktemp("mixed") / "m.duckdb"
    for pilots in ("greedy", "greedy,random"):
        res = run_cli("simulate", "frontier", "--decks", DECKS, "--pilots", pilots, "--matches", "16",
                      "--workers", "1", "--db", str(db), "--quiet", "--seed", "5")
        assert res.returncode == 0, res.stderr
    return db


def test_a_pilot_filter_keeps_matches_whose_every_seat_it_chose(mixed_store):
    greedy = Filters(pilots=["greedy"])
    assert matchups(mixed_store, greedy).to_dicts() == matchups(mixed_store, Filters(runs=[1])).to_dicts()
    both = matchups(mixed_store, Filters(pilots=["greedy", "random"]))
    assert both["games"].sum() == 2 * (16 + 16)  # every match, from each seat's side
    cards = card_metrics(mixed_store, greedy)
    alone = card_metrics(mixed_store, Filters(runs=[1]))
    assert cards.select("card", "games").sort("card").to_dicts() == alone.select("card", "games").sort("card").to_dicts()


def test_random_alone_chooses_no_match_of_these_runs(mixed_store):
    """No run here is random against random: the random seats of run 2 played against greedy."""
    assert matchups(mixed_store, Filters(pilots=["random"])).is_empty()


def test_an_export_split_by_pilot_keeps_a_mix_of_pilots_apart(mixed_store):
    """Split by pilot, the matches of greedy against random are their own group ("greedy+random"),
    neither greedy's play nor random's; greedy's rows are greedy against greedy alone."""
    import polars as pl

    from reports.exports import export_frame

    table = export_frame(mixed_store, "matchups", Filters())
    assert sorted(set(table["match_pilots"])) == ["greedy", "greedy+random"]
    block = ("match_pilots", "game", "card_set")  # what the export says of each block
    greedy = table.filter(pl.col("match_pilots") == "greedy").drop(block)
    assert greedy.to_dicts() == matchups(mixed_store, Filters(runs=[1])).to_dicts()
    mixed = table.filter(pl.col("match_pilots") == "greedy+random").drop(block)
    assert mixed.to_dicts() == matchups(mixed_store, Filters(runs=[2])).to_dicts()
    chosen = export_frame(mixed_store, "matchups", Filters(pilots=["greedy"]))
    assert set(chosen["match_pilots"]) == {"greedy"} and chosen.drop(block).to_dicts() == greedy.to_dicts()


def test_a_run_of_two_pilots_is_named_deck_by_deck_and_not_reported_as_a_deck_gap(mixed_store, tmp_path):
    """A diff's pilots line listed a mixed run's pilots in deck-slot order beside tables sorted
    by deck; ``workbench report`` ranked the greedy deck's cards over the random deck's."""
    from reports.diff import pilots_of_run

    assert pilots_of_run(mixed_store, 1) == "greedy,greedy"
    assert pilots_of_run(mixed_store, 2) == "greedy (goblin-gold-gang), random (lawmen-posse)"
    res = run_cli("report", "2", "--db", str(mixed_store), "--html", str(tmp_path / "r.html"))
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
    assert "run 2's decks were played by different pilots (goblin-gold-gang: greedy, lawmen-posse: random)" in res.stderr
    assert not (tmp_path / "r.html").exists()
    assert run_cli("report", "1", "--db", str(mixed_store), "--html", str(tmp_path / "r.html")).returncode == 0


def test_one_pilot_name_that_thought_with_two_weight_sets_is_said_and_not_reported(tmp_path):
    """"greedy" thought with the hand weights before 2026-12-03 and with the tuned ones since: runs
    of both, pooled, are two pilots under one name. The pages say so; ``workbench report`` refuses."""
    import json

    import duckdb

    from reports.pilot_weights import reweighted_pilots

    db = tmp_path / "w.duckdb"
    for seed in ("1", "2"):
        res = run_cli("simulate", "frontier", "--decks", DECKS, "--pilots", "greedy", "--matches", "4",
                      "--workers", "1", "--db", str(db), "--quiet", "--seed", seed)
        assert res.returncode == 0, res.stderr
    assert reweighted_pilots(db, [1, 2]) == []
    with duckdb.connect(str(db)) as con:  # run 1 as an older greedy stored it: other weights
        spec = json.loads(con.execute("SELECT spec FROM runs WHERE run_id = 1").fetchall()[0][0])
        spec["weights_hash"] = "older-weights"
        con.execute("UPDATE runs SET spec = ? WHERE run_id = 1", [json.dumps(spec, sort_keys=True)])
    assert reweighted_pilots(db, [1, 2]) == ["greedy"] and reweighted_pilots(db, [2]) == []
    res = run_cli("report", "1", "2", "--db", str(db), "--html", str(tmp_path / "r.html"))
    assert res.returncode != 0 and "greedy thought with other weight files" in res.stderr, res.stderr
    assert not (tmp_path / "r.html").exists()

    from reports.pages.common import reweighted_note
    assert "Careful: greedy thought with other weight files" in reweighted_note(db, Filters(runs=[1, 2]))
    assert reweighted_note(db, Filters(runs=[2])) == ""


def test_a_raw_seat_table_keeps_the_matches_a_pilot_filter_keeps(mixed_store):
    """``export match_seats --pilot greedy`` kept every greedy seat, the mixed run's too, where the
    computed tables keep greedy against greedy alone."""
    from reports.exports import export_frame

    seats = export_frame(mixed_store, "match_seats", Filters(pilots=["greedy"]))
    assert set(seats["run_id"]) == {1} and seats.height == 2 * 16


def test_a_campaign_run_exports_its_fights_split_by_its_pilots(campaign_store):
    """A campaign run's pilots ("policy/fight") name no seat's pilot: split by pilot, its group
    filtered its seats by that name and exported nothing."""
    import polars as pl

    from reports import db
    from reports.exports import export_frame

    run = db.query(campaign_store, "SELECT run_id, pilots FROM runs WHERE kind = 'campaign' ORDER BY run_id").row(0)
    table = export_frame(campaign_store, "matchups", Filters(runs=[run[0]]))
    assert table.height and set(table["match_pilots"]) == {run[1]}
    assert table.drop("match_pilots", "game", "card_set").to_dicts() == matchups(campaign_store, Filters(runs=[run[0]])).to_dicts()
    assert isinstance(table, pl.DataFrame)


def test_a_meta_is_not_solved_over_decks_of_two_pilots(mixed_store):
    """In a run of greedy's deck against random's, the 'meta' ranked the pilots (the greedy deck
    at share 1.0): a meta of a mix of pilots is left out of the export."""
    from reports.exports import export_frame

    table = export_frame(mixed_store, "meta_mix", Filters())
    assert set(table["pilot"]) == {"greedy"}, set(table["pilot"])
