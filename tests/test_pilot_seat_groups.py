"""Every exported figure says which pilot produced it, per seat: a deck greedy played and the same
deck random played are two figures, never one "greedy+random" figure (finding 1); a Turf Defense
boss's pilot is the boss seat's label and counts for a pilot filter and the runs listing
(finding 2); a pilot name that thought with two weight files is refused, as ``workbench report``
refuses it (finding 5)."""
from __future__ import annotations

import json

import polars as pl
import pytest

from reports import db
from reports.cards import card_metrics
from reports.filters import Filters
from tests.conftest import cli_here, run_cli

DECKS = "lawmen-posse,goblin-gold-gang"


def simulate(db_path, *args: str) -> None:
    res = run_cli("simulate", *args, "--workers", "1", "--db", str(db_path), "--quiet")
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="module")
def duel_store(tmp_path_factory):
    """Run 1: lawmen-posse greedy against goblin-gold-gang random; run 2: the other way round;
    runs 3 and 4: greedy against greedy, run 4's greedy with another weight file (its spec's
    fingerprint changed as a new weights file would change it)."""
    path = tmp_path_factory.mktemp("seat_groups") / "s.duckdb"
    for pilots, seed in (("greedy,random", "1"), ("random,greedy", "1"), ("greedy", "2"), ("greedy", "3")):
        simulate(path, "frontier", "--decks", DECKS, "--pilots", pilots, "--matches", "12", "--seed", seed)
    with db.connect(path, read_only=False) as con:
        spec = json.loads(con.execute("SELECT spec FROM runs WHERE run_id = 4").fetchone()[0])
        spec["weights_hash"] = "0123456789abcdef"
        con.execute("UPDATE runs SET spec = ? WHERE run_id = 4", [json.dumps(spec)])
    return path


def exported(path, tmp_path, table: str, *args: str) -> tuple[pl.DataFrame, str]:
    out = tmp_path / f"{table}.csv"
    res = cli_here("export", table, *args, "--db", str(path), "--csv", str(out))
    assert res.returncode == 0, res.stderr
    return pl.read_csv(out), res.stdout + res.stderr


def test_a_deck_two_pilots_played_is_two_figures(duel_store, tmp_path):
    """lawmen-posse under greedy (run 1) and under random (run 2): its cards' rows are one per
    seat label, each exactly its own run's, not one "greedy+random" row pooling both."""
    both, _ = exported(duel_store, tmp_path, "cards_by_deck", "--run", "1", "--run", "2")
    lawmen = both.filter(pl.col("deck") == "lawmen-posse")
    assert set(lawmen["pilot"]) == {"greedy vs random", "random vs greedy"}
    assert not any("+" in p for p in both["pilot"])
    for run, label in ((1, "greedy vs random"), (2, "random vs greedy")):
        alone = card_metrics(duel_store, Filters(runs=[run], decks=["lawmen-posse"]), ("rules_version", "deck"))
        mine = lawmen.filter(pl.col("pilot") == label).sort("card")
        assert mine.select("card", "games", "games_won").to_dicts() \
            == alone.sort("card").select("card", "games", "games_won").to_dicts()
    # the pages' split (card_metrics by pilots) and every seat table's block read the same label
    split = card_metrics(duel_store, Filters(runs=[1, 2]), ("rules_version", "pilots"))
    assert set(split["pilots"]) == {"greedy vs random", "random vs greedy"}
    for table in ("cards", "keywords", "win_rate_by_turn", "win_rate_by_cost", "deck_mulligan"):
        frame, _ = exported(duel_store, tmp_path, table, "--run", "1", "--run", "2")
        assert set(frame["pilot"]) <= {"greedy vs random", "random vs greedy"}, table
    # a run of one pilot keeps its plain label
    alone, _ = exported(duel_store, tmp_path, "cards", "--run", "3")
    assert set(alone["pilot"]) == {"greedy"}


def test_one_pilot_name_of_two_weight_files_is_refused(duel_store, tmp_path):
    """Runs 3 and 4: greedy thought with two weight files; pooled, its figures are neither's."""
    for table, args in (("matchups", ("--run", "3", "--run", "4")), ("deck_field", ("--pilot", "greedy")),
                        ("cards", ("--run", "3", "--run", "4"))):
        res = cli_here("export", table, *args, "--db", str(duel_store), "--csv", str(tmp_path / "x.csv"))
        assert res.returncode != 0, table
        assert "greedy thought with other weight files" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    # the runs of one weight set export, and runs 1 and 4 pool no pilot's two weight sets apart
    exported(duel_store, tmp_path, "matchups", "--run", "3")
    exported(duel_store, tmp_path, "cards", "--run", "1", "--run", "4")


@pytest.fixture(scope="module")
def turf_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("turf_seat_groups") / "t.duckdb"
    simulate(path, "alleyway", "--mode", "turf", "--decks", "archon-star-fleet,cinder-wildfire", "--pilots", "random",
             "--boss-pilot", "greedy", "--boss", "the-house", "--matches", "4", "--seed", "1")
    return path


def test_a_turf_boss_carries_its_own_pilot(turf_store, tmp_path):
    seats = db.query(turf_store, "SELECT s.team, cg.pilot, count(*) AS n FROM card_games cg JOIN match_seats s "
                                 "USING (run_id, match_no, seat) GROUP BY ALL ORDER BY ALL")
    assert seats.filter(pl.col("team") == 1)["pilot"].to_list() == ["greedy"]  # what the farm wrote
    cards, _ = exported(turf_store, tmp_path, "cards_by_deck", "--run", "1")
    boss = cards.filter(pl.col("deck").str.starts_with("boss:"))
    assert boss.height and set(boss["pilot"]) == {"greedy vs random"}
    assert set(cards.filter(~pl.col("deck").str.starts_with("boss:"))["pilot"]) == {"random vs greedy"}
    # --pilot random is random against random: the run's boss was greedy's
    field, said = exported(turf_store, tmp_path, "deck_field", "--run", "1", "--pilot", "random")
    assert field.height == 0 and "run 1" in said
    listing = cli_here("runs", "--db", str(turf_store))
    assert "boss greedy" in listing.stdout
