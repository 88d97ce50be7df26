"""The free-for-all tables split by pilot (reports/ffa.py): a store with a run of random pilots,
one of greedy pilots and one that seats both at a table; every table (decks, cards, who put whom
out, targets) counts each pilot's seats, and a table of both pilots, in rows of their own,
recomputed here from the stored seats, and its export and the Free-for-all page's table and
download say so. Before, cards, outs and targets pooled random's seats with greedy's under one
deck, with no pilot column, and every table pooled a pilot's seats at a table of its own with
those at a table of both."""
from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from reports import db, ffa
from sim.core.events import AIMED
from tests.conftest import run_cli
from tests.test_dashboard_edges import opened

DECKS = "archon-star-fleet,cinder-wildfire,graves-garrison,marlows-crew"
RUNS = [1, 2, 3]
PILOTS = {1: "random", 2: "greedy", 3: "random,greedy,random,greedy"}  # run 3: each deck its own pilot


@pytest.fixture(scope="module")
def pilots_store(tmp_path_factory):
    """4-seat free-for-all runs of the same four decks, 3 matches each (one table): random,
    greedy, and both at one table."""
    path = tmp_path_factory.mktemp("ffa_pilots") / "p.duckdb"
    for pilots in PILOTS.values():
        res = run_cli("simulate", "alleyway", "--mode", "ffa", "--decks", DECKS, "--matches", "3", "--pilots", pilots,
                      "--workers", "1", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    assert db.query(path, "SELECT run_id FROM runs ORDER BY 1")["run_id"].to_list() == RUNS
    return path


def seats(path) -> pl.DataFrame:
    """The runs' seat-games, with their table's pilots."""
    return db.query(path, f"""SELECT s.*, t.table_pilots FROM match_seats s
                              JOIN (SELECT run_id, match_no, string_agg(DISTINCT pilot, ',' ORDER BY pilot) AS table_pilots
                                    FROM match_seats GROUP BY ALL) t USING (run_id, match_no)
                              WHERE s.run_id IN {tuple(RUNS)}""")


SPLIT = ["pilot", "table_pilots"]


def by_pilot(frame: pl.DataFrame, pilot: str, column: str = "pilot") -> pl.DataFrame:
    return frame.filter(pl.col(column) == pilot).sort(frame.columns)


def test_the_decks_table_keeps_a_table_of_both_pilots_apart(pilots_store):
    decks = ffa.ffa_decks(pilots_store, RUNS)
    assert decks.columns[:3] == ["deck", *SPLIT]
    rows = seats(pilots_store)
    mine = rows.group_by("deck", *SPLIT).agg(pl.len().alias("n"), pl.col("placement").mean().alias("mean"))
    joined = decks.join(mine, on=["deck", *SPLIT], how="full", coalesce=True)
    assert joined.height == decks.height == mine.height == 4 * 3  # each deck: random, greedy, and run 3's table
    assert (joined["seats"] == joined["n"]).all() and joined["mean_placement"].to_list() == pytest.approx(
        joined["mean"].to_list())
    own = dict(zip(DECKS.split(","), PILOTS[3].split(",")))
    mixed = decks.filter(pl.col("table_pilots") == "greedy,random")
    assert dict(mixed.select("deck", "pilot").iter_rows()) == own and (mixed["seats"] == 3).all()


def test_the_cards_table_is_one_row_per_deck_pilot_and_card(pilots_store):
    cards = ffa.ffa_cards(pilots_store, RUNS)
    assert cards.columns[:5] == ["deck", *SPLIT, "card", "name"]
    assert cards.select("deck", *SPLIT, "card").is_duplicated().sum() == 0
    assert set(cards["pilot"]) == {"random", "greedy"}
    assert set(cards["table_pilots"]) == {"random", "greedy", "greedy,random"}
    games = seats(pilots_store).join(db.query(pilots_store, f"""SELECT run_id, match_no, seat, card, played > 0 AS played
                                                                FROM card_games WHERE run_id IN {tuple(RUNS)}"""),
                                     on=["run_id", "match_no", "seat"])
    mine = games.group_by("deck", *SPLIT, "card").agg(
        pl.col("played").sum().alias("n1"), (~pl.col("played")).sum().alias("n0"),
        pl.col("placement").filter(pl.col("played")).mean().alias("p1"))
    joined = cards.join(mine, on=["deck", *SPLIT, "card"], how="full", coalesce=True)
    assert joined.height == cards.height == mine.height
    assert (joined["played"] == joined["n1"]).all() and (joined["not_played"] == joined["n0"]).all()
    assert joined["placement_played"].to_list() == pytest.approx(joined["p1"].to_list(), nan_ok=True)
    # a card's seat-games are among its own pilot's seat-games of the deck at such tables
    seat_games = seats(pilots_store).group_by("deck", *SPLIT).len()
    for r in cards.join(seat_games, on=["deck", *SPLIT]).iter_rows(named=True):
        assert 0 < r["played"] + r["not_played"] <= r["len"], r


def test_two_runs_of_two_pilots_read_as_each_run_alone(pilots_store):
    """Runs 1 and 2 together: random's rows are run 1's table, greedy's run 2's; nothing pooled."""
    for table in (ffa.ffa_decks, ffa.ffa_cards, ffa.ffa_eliminations, ffa.ffa_targets):
        both = table(pilots_store, [1, 2])
        column = "out_pilot" if table is ffa.ffa_eliminations else "pilot"
        for run, pilot in ((1, "random"), (2, "greedy")):
            alone = table(pilots_store, [run])
            assert set(alone[column]) == {pilot}, table.__name__
            assert_frame_equal(by_pilot(both, pilot, column), alone.sort(alone.columns))


def test_who_put_whom_out_names_both_pilots(pilots_store):
    outs = ffa.ffa_eliminations(pilots_store, RUNS)
    key = ["out_deck", "out_pilot", "table_pilots", "eliminator_deck", "eliminator_pilot"]
    assert outs.columns == [*key, "outs", "share"]
    rows = seats(pilots_store).filter(pl.col("out_turn").is_not_null()).join(
        seats(pilots_store).select("run_id", "match_no", pl.col("seat").alias("out_by"),
                                   pl.col("deck").alias("eliminator_deck"), pl.col("pilot").alias("eliminator_pilot")),
        on=["run_id", "match_no", "out_by"], how="left")
    mine = rows.select(pl.col("deck").alias("out_deck"), pl.col("pilot").alias("out_pilot"), "table_pilots",
                       pl.col("eliminator_deck").fill_null("(nobody)"), "eliminator_pilot").group_by(key).len()
    joined = outs.join(mine, on=key, how="full", coalesce=True, nulls_equal=True)
    assert joined.height == outs.height == mine.height and (joined["outs"] == joined["len"]).all()
    assert outs.group_by(key[:3]).agg(pl.col("share").sum())["share"].to_list() == pytest.approx(
        [1.0] * outs.select(key[:3]).n_unique())
    # run 3 seats random and greedy at one table: each deck's pilot, on either side of an out
    own = dict(zip(DECKS.split(","), PILOTS[3].split(",")))
    mixed = ffa.ffa_eliminations(pilots_store, [3])
    assert set(mixed["table_pilots"]) == {"greedy,random"}
    assert mixed.height and all(own[r["out_deck"]] == r["out_pilot"] for r in mixed.iter_rows(named=True))
    assert all(r["eliminator_deck"] == "(nobody)" and r["eliminator_pilot"] is None
               or own[r["eliminator_deck"]] == r["eliminator_pilot"] for r in mixed.iter_rows(named=True))


def test_targets_name_the_acting_and_the_target_pilot(pilots_store):
    targets = ffa.ffa_targets(pilots_store, RUNS)
    assert targets.columns[:6] == ["deck", *SPLIT, "target_deck", "target_pilot", "target_sits"]
    assert set(targets["pilot"]) == {"random", "greedy"}
    events = db.query(pilots_store, f"""SELECT run_id, match_no, seat FROM events
                                        WHERE run_id IN {tuple(RUNS)} AND kind = '{AIMED}' AND amount IS NOT NULL
                                          AND amount <> seat""")
    hits = events.join(seats(pilots_store), on=["run_id", "match_no", "seat"]).group_by("deck", *SPLIT).agg(
        pl.len().alias("n"))
    summed = targets.group_by("deck", *SPLIT).agg(pl.col("hits").sum(), pl.col("share").sum())
    joined = summed.join(hits, on=["deck", *SPLIT], how="full", coalesce=True)
    assert joined.height == summed.height == hits.height > 0
    assert (joined["hits"] == joined["n"]).all()
    assert joined["share"].to_list() == pytest.approx([1.0] * joined.height)


def csv_frame(data: bytes | str) -> pl.DataFrame:
    return pl.read_csv(io.BytesIO(data if isinstance(data, bytes) else data.encode("utf-8")), infer_schema=False)


def test_the_exports_carry_the_pilot_columns(pilots_store, tmp_path):
    for name, column in (("ffa_cards", "pilot"), ("ffa_eliminations", "out_pilot"), ("ffa_targets", "pilot")):
        out = tmp_path / f"{name}.csv"
        res = run_cli("export", name, "--db", str(pilots_store), "--run", "1", "--run", "2", "--csv", str(out))
        assert res.returncode == 0, res.stderr
        exported = csv_frame(out.read_text())
        assert set(exported[column]) == {"random", "greedy"}, name
        assert exported.height == getattr(ffa, name)(pilots_store, [1, 2]).height, name


def test_the_page_splits_cards_outs_and_targets_by_pilot(pilots_store, monkeypatch, named_downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(pilots_store))
    at = opened("ffa", timeout=120, ffa_runs="1,2")
    assert any("Pilots: greedy, random" in c.value and "splits by pilot" in c.value for c in at.caption)
    frames = {tuple(f.value.columns): f for f in at.dataframe}
    cards = next(f for cols, f in frames.items() if "placement_gain" in cols)
    assert list(cards.proto.column_order)[:3] == ["name", "pilot", "table_pilots"]
    assert set(cards.value["pilot"]) == {"random", "greedy"}
    outs = next(f for cols, f in frames.items() if "eliminator_deck" in cols)
    assert list(outs.proto.column_order)[:5] == ["out_deck", "out_pilot", "table_pilots", "eliminator_deck",
                                                 "eliminator_pilot"]
    by_sits = next(f for cols, f in frames.items() if "target_sits" not in cols and "next" in cols)
    assert by_sits.value[["deck", *SPLIT]].duplicated().sum() == 0 and set(by_sits.value["pilot"]) == {
        "random", "greedy"}
    import json

    heat = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]  # who put whom out: deck (pilot)
    assert all(y.endswith((" (random)", " (greedy)")) for y in heat["y"]) and len(heat["y"]) == len(set(heat["y"]))
    assert {y.rsplit(" ", 1)[1] for y in heat["y"]} == {"(random)", "(greedy)"}
    # each download holds the page's rows, pilot by pilot
    saved = {name: csv_frame(data) for name, data in (named_downloads[Path(b.proto.url).stem]
                                                      for b in at.get("download_button"))}
    for table, column in (("ffa_cards", "pilot"), ("ffa_eliminations", "out_pilot"), ("ffa_targets", "pilot")):
        frame = next(f for n, f in saved.items() if n.startswith(table + "__"))
        assert set(frame[column]) == {"random", "greedy"}, table
        assert frame.height == getattr(ffa, table)(pilots_store, [1, 2]).height, table


def test_the_page_labels_a_table_of_both_pilots(pilots_store, monkeypatch):
    """Runs 1 and 3: random's seats at its own tables and at tables with greedy are two bars, two
    heat-map rows, never one."""
    import json

    monkeypatch.setenv("WORKBENCH_DB", str(pilots_store))
    at = opened("ffa", timeout=120, ffa_runs="1,3")
    bars, heat = (json.loads(c.proto.spec)["data"][0] for c in at.get("plotly_chart")[:2])
    assert "archon-star-fleet (random at greedy,random tables, n=3)" in bars["y"]
    assert "archon-star-fleet (random, n=3)" in bars["y"]
    assert {"archon-star-fleet (random)", "archon-star-fleet (random at greedy,random tables)"} <= set(heat["y"])
    assert len(heat["y"]) == len(set(heat["y"]))
