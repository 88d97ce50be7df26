"""The dashboard's breakdowns by pilot split by the seat's pilots, as the exports do: the Card
page's trend (a line per group) and the Cards page's "Split by: pilots" count a seat under its own
pilot and its opponent's ("greedy": greedy against greedy; "greedy vs random": greedy's seats
against random, apart from "random vs greedy"; tests/test_pilot_seat_groups.py), not its own
pilot alone. Before, greedy's line pooled its games against random with its games against
greedy, a figure neither the export's "greedy" nor its "greedy+random" rows gave. And the Cards
page's card value column shows a measurement whose pilots the page's pilot filter chose, not the
newest of any pilots. Each test failed before the fix."""
from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from reports import db
from reports.cards import card_metrics
from reports.exports import export_frame
from reports.filters import Filters
from tests.conftest import run_cli
from tests.test_dashboard import plotly_specs, store_sql, table_labelled
from tests.test_dashboard_edges import page_app

pytestmark = pytest.mark.usefixtures("fresh_cache")  # page queries are cached in-process

DECKS = "goblin-gold-gang,lawmen-posse"
GROUPS = ["greedy", "greedy vs random", "random", "random vs greedy"]
COUNTS = ("games", "played_games", "oh_games")


@pytest.fixture(scope="module")
def pilots_store(tmp_path_factory) -> Path:
    """Run 1: greedy against greedy; run 2: random against random; run 3: greedy against random."""
    path = tmp_path_factory.mktemp("pilot_breakdowns") / "p.duckdb"
    for pilots in ("greedy", "random", "greedy,random"):
        res = run_cli("simulate", "frontier", "--decks", DECKS, "--pilots", pilots, "--matches", "6", "--workers",
                      "1", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    return path


def card_of_every_run(path: Path) -> str:
    """A deck card played in every run (so each group has a point), the most played."""
    return store_sql(path, """SELECT card FROM card_games WHERE played > 0 AND copies > 0 GROUP BY card
                              HAVING count(DISTINCT run_id) = 3 ORDER BY count(*) DESC, card LIMIT 1""")[0][0]


def exported(path: Path) -> pl.DataFrame:
    """`workbench export cards` of the three runs: one group of rows per pilots of the match."""
    table = export_frame(path, "cards", Filters(runs=[1, 2, 3]))
    assert sorted(set(table["pilot"])) == GROUPS
    return table


def same_figures(shown: pl.DataFrame, export: pl.DataFrame, column: str, counts=COUNTS) -> None:
    """The page's rows of one card (its table: rates in percent) carry the export's figures, group
    by group."""
    want = {r["pilot"]: r for r in export.iter_rows(named=True)}
    assert sorted(shown[column].to_list()) == sorted(want) and len(want) >= 3 and set(want) <= set(GROUPS), \
        shown[column].to_list()
    for row in shown.iter_rows(named=True):
        w = want[row[column]]
        assert {c: row[c] for c in counts} == {c: w[c] for c in counts}, row[column]
        assert row["played_wr"] == pytest.approx(w["played_wr"] * 100), row[column]
        assert row["gp_wr"] == pytest.approx(w["gp_wr"] * 100), row[column]


def test_card_trend_draws_a_line_per_pilots_of_the_match_as_the_export_splits(pilots_store, monkeypatch):
    card = card_of_every_run(pilots_store)
    export = exported(pilots_store).filter(pl.col("card") == card)
    monkeypatch.setenv("WORKBENCH_DB", str(pilots_store))
    at = page_app("card", card=card, runs="1,2,3").run()
    assert not at.exception, [e.value for e in at.exception]
    at.radio(key="card_trend_by").set_value("rules version").run()
    assert not at.exception, [e.value for e in at.exception]
    [spec] = [s for s in plotly_specs(at) if "played win rate by rules version" in s["layout"]["title"]["text"]]
    assert sorted(t["name"] for t in spec["data"]) == [f"pilots {g}" for g in sorted(set(export["pilot"]))]
    points = pl.from_pandas(table_labelled(at, "label", "played_games"))
    same_figures(points, export, "pilots", ("games", "played_games"))
    # by run: each run is one group, its point the run's own figures
    at.radio(key="card_trend_by").set_value("run").run()
    by_run = pl.from_pandas(table_labelled(at, "label", "played_games"))
    labels = set(zip(by_run["run_id"], by_run["pilots"]))
    assert {(1, "greedy"), (2, "random")} < labels and {p for r, p in labels if r == 3} <= set(GROUPS[1::2])


def test_cards_split_by_pilots_gives_the_exports_groups(pilots_store, monkeypatch):
    card = card_of_every_run(pilots_store)
    export = exported(pilots_store)
    monkeypatch.setenv("WORKBENCH_DB", str(pilots_store))
    at = page_app("cards", runs="1,2,3").run()
    [split] = [w for w in at.sidebar.multiselect if w.label == "Split by"]
    split.set_value(["rules_version", "pilots"]).run()
    assert not at.exception, [e.value for e in at.exception]
    table = pl.from_pandas(table_labelled(at, "pilots", "played_games", "card"))
    mine = table.filter(pl.col("card") == card)
    same_figures(mine, export.filter(pl.col("card") == card), "pilots")
    # every card of every group, each group's within-group figures (shrinkage, q) the export's
    keys = ["pilots", "card"]
    page = table.select(*keys, *COUNTS, "oh_excess").sort(keys)
    theirs = export.select(pl.col("pilot").alias("pilots"), "card", *COUNTS,
                           pl.col("oh_excess") * 100).filter(pl.col("card").is_in(page["card"].to_list())).sort(keys)
    assert page.select(*keys, *COUNTS).to_dicts() == theirs.select(*keys, *COUNTS).to_dicts()
    assert page["oh_excess"].to_list() == pytest.approx(theirs["oh_excess"].to_list(), nan_ok=True)


def test_a_campaign_batch_is_a_group_of_its_own_named_by_its_pilots(campaign_store):
    """A campaign run's pilots ("policy/fight pilot") name no deck slots: its group is that name,
    its figures the run's own, none dropped."""
    runs = dict(store_sql(campaign_store, "SELECT run_id, pilots FROM runs"))
    split = card_metrics(campaign_store, Filters(runs=list(runs)), ("rules_version", "pilots"))
    assert set(split["pilots"]) == set(runs.values()) and all("/" in p for p in runs.values())
    whole = card_metrics(campaign_store, Filters(runs=list(runs)))
    assert split.drop("pilots").select("card", *COUNTS).sort("card").to_dicts() \
        == whole.select("card", *COUNTS).sort("card").to_dicts()


# --- the card value column ----------------------------------------------------------------------------

def measure(path: Path, card: str, measurements: list[tuple[int, str, float]]) -> None:
    """Store ``workbench value`` rows of ``card`` (value_id, pilots as --pilots names them, points):
    the figures are set here, so which measurement the page shows is plain."""
    rules_hash, deck, name = store_sql(path, """SELECT r.rules_hash, cg.deck, c.name FROM card_games cg
                                               JOIN runs r USING (run_id)
                                               JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
                                               WHERE cg.card = ? AND cg.copies > 0 LIMIT 1""", [card])[0]
    against = [d for d in DECKS.split(",") if d != deck][0]
    with db.connect(path, read_only=False) as con:
        for value_id, pilots, points in measurements:
            con.execute("""INSERT INTO card_value (value_id, game, rules_version, rules_hash, deck, card, name, reference,
                                                   against, pilots, base_run, variant_run, copies, twins, wr_with,
                                                   wr_without, value_points, value_lo, value_hi, p_value, q_value,
                                                   significant, created_at)
                           VALUES (?, 'frontier', 'base', ?, ?, ?, ?, 'vanilla', ?, ?, 1, 1, 2, 12, 0.5, 0.5, ?,
                                   ?, ?, 0.5, 0.5, false, now())""",
                        [value_id, rules_hash, deck, card, name, against, pilots, points, points - 5, points + 5])


def value_of(at, card: str) -> tuple[float, str]:
    rows = pl.from_pandas(table_labelled(at, "value_points", "value_by", "card")).filter(pl.col("card") == card)
    return rows["value_points"][0], rows["value_by"][0]


def test_the_card_value_shown_is_of_the_pilots_the_filter_chose(pilots_store, tmp_path, monkeypatch):
    path = tmp_path / "v.duckdb"
    path.write_bytes(pilots_store.read_bytes())
    card = card_of_every_run(path)
    # greedy against greedy first, then a newer measurement of greedy against random
    measure(path, card, [(1, "greedy", 10.0), (2, "greedy,random", 0.0)])
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    greedy = page_app("cards", runs="1,2,3", pilots="greedy").run()
    assert not greedy.exception, [e.value for e in greedy.exception]
    points, by = value_of(greedy, card)
    assert points == pytest.approx(10.0) and ", greedy (base)" in by, by
    # a filter that chooses both pilots chooses both measurements: the newest
    both = page_app("cards", runs="1,2,3", pilots="greedy,random").run()
    points, by = value_of(both, card)
    assert points == pytest.approx(0.0) and "greedy,random" in by, by
    # no measurement of random alone: the newest of any pilots, named
    alone = page_app("cards", runs="1,2,3", pilots="random").run()
    points, by = value_of(alone, card)
    assert points == pytest.approx(0.0) and "greedy,random" in by, by
    # split by pilots: each row the measurement of its own pilots where there is one
    split_page = page_app("cards", runs="1,2,3").run()
    [split] = [w for w in split_page.sidebar.multiselect if w.label == "Split by"]
    split.set_value(["rules_version", "pilots"]).run()
    assert not split_page.exception, [e.value for e in split_page.exception]
    rows = pl.from_pandas(table_labelled(split_page, "pilots", "value_points", "card")).filter(pl.col("card") == card)
    shown = {r["pilots"]: (r["value_points"], r["value_by"]) for r in rows.iter_rows(named=True)}
    assert shown["greedy"][0] == pytest.approx(10.0) and ", greedy (base)" in shown["greedy"][1]
    mixed = [label for label in shown if " vs " in label]  # run 3's seat of the card's deck
    assert mixed and all(shown[m][0] == pytest.approx(0.0) and "greedy,random" in shown[m][1] for m in mixed)
