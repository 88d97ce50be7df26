"""The Pilot filter under its meaning "every seat of a match" (reports/filters.py): it offers only
the pilots that played some chosen run alone, and what the pages say follows the runs it keeps.

Before, it offered every pilot seated in the chosen runs: with a run of greedy against greedy and
one of greedy against random chosen, "random" was offered and chose no run, and the pages said
"No card rows in these matches yet"; a campaign run alone offered "greedy", which emptied every
page; the pilots line advised picking one pilot where no choice showed one alone, and did not name
a run of two pilots against each other pooled into its figures. The stat budget and the keyword
price list (card definitions, no play) vanished under a pilot filter; the weights warning, the
Card and Deck pages' scope line and downloads, the Matchups meta's campaign note and the Overview's
runs download described runs the page did not count. Each test failed before the fix."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from reports.filters import Filters
from tests.conftest import built_once, page_downloads, run_cli
from tests.test_dashboard_edges import opened, page_app, sidebar

pytestmark = pytest.mark.usefixtures("fresh_cache")  # page queries are cached in-process

DECKS = "goblin-gold-gang,lawmen-posse"


def _build(path: Path) -> None:
    """Run 1: greedy against greedy; 2: random against random; 3: greedy (goblin-gold-gang) against
    random (lawmen-posse); 4: a campaign batch (its pilots "random/greedy": policy and fight pilot)."""
    for pilots in ("greedy", "random", "greedy,random"):
        res = run_cli("simulate", "frontier", "--decks", DECKS, "--pilots", pilots, "--matches", "4", "--seed", "3",
                      "--workers", "1", "--db", str(path), "--quiet")
        assert res.returncode == 0, res.stderr
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "1", "--policy", "random",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "pilot_options", _build)


@pytest.fixture
def at_store(store, monkeypatch) -> Path:
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    return store


def pilots_line(at) -> str:
    lines = [c.value for c in at.caption if c.value.startswith("Pilots: ")]
    assert lines, [c.value for c in at.caption]
    return lines[0]


# --- 2: the choices offered, and what the pilots line says of the runs no choice selects ---------------

@pytest.mark.parametrize(("runs", "offered"), [("1,3", ["greedy"]), ("3", []), ("4", []), ("1,2,3", ["greedy", "random"]),
                                               ("1,2,3,4", ["greedy", "random"])])
def test_the_pilot_filter_offers_only_pilots_that_played_a_chosen_run_alone(at_store, runs, offered):
    at = opened("cards", runs=runs)
    assert sidebar(at, "Pilot").options == offered


@pytest.mark.parametrize("page", ["cards", "keywords", "costs", "matchups"])
def test_a_pilot_asked_for_that_chooses_no_run_is_not_chosen_and_said(at_store, page):
    """Runs 1 and 3 with "random" asked for (a link, another page's choice): it chose no run and
    each page said something else was missing."""
    at = opened(page, runs="1,3", pilots="random")
    assert sidebar(at, "Pilot").value == []
    assert any("Not offered: random, which played no chosen run alone" in c.value for c in at.sidebar.caption)
    said = [e.value for e in at.info]
    assert not any(s.startswith(("No card rows", "No keyword was played", "No two-seat matches", "No card in these"))
                   for s in said), said


def test_the_pilots_line_names_a_mixed_run_no_pilot_choice_selects_instead_of_advising_one(at_store):
    alone = pilots_line(opened("cards", runs="3"))
    assert "pick one pilot" not in alone, alone
    assert ("Run 3 seats greedy against random, pooled in here: no pilot choice selects it, so it counts only with "
            "no pilot filter.") in alone, alone
    greedy = pilots_line(opened("matchups", runs="1,2,3", pilots="greedy"))
    assert greedy.startswith("Pilots: greedy. ") and "Run 3 seats greedy against random: it counts only with both chosen." \
        in greedy, greedy
    without_random = pilots_line(opened("matchups", runs="1,3", pilots="greedy"))
    assert "Run 3 seats greedy against random: no pilot choice selects it" in without_random, without_random


def test_the_pilots_line_says_a_campaign_run_is_chosen_by_no_pilot(at_store):
    line = pilots_line(opened("matchups", runs="4"))
    assert "pick one pilot" not in line, line
    assert "Campaign run 4 seats its crews' pilot against the enemies', pooled in here: no pilot choice selects it" \
        in line, line
    line = pilots_line(opened("matchups", runs="1,4", pilots="greedy"))
    assert "Campaign run 4 seats its crews' pilot against the enemies': no pilot choice selects it" in line, line


def test_the_stat_budget_and_price_list_do_not_vanish_under_a_pilot_filter(store):
    """Card definitions, no play: read over the chosen runs' rules versions whatever pilots played."""
    from reports.costs import stat_budget
    from reports.keywords import keyword_prices

    for pilots in (["greedy"], ["random"], ["nobody"]):
        chosen = Filters(game="frontier", runs=[1, 3, 4], pilots=pilots)
        every = Filters(game="frontier", runs=[1, 3, 4])
        budget = stat_budget(store, chosen)
        assert budget.cards.height and budget.cards.equals(stat_budget(store, every).cards)
        prices = keyword_prices(store, chosen)
        assert prices.height and prices.equals(keyword_prices(store, every))


def test_deck_curves_do_not_vanish_under_a_pilot_filter(store):
    """A deck list is no pilot's play: lawmen-posse played only against random in run 3 kept its curve
    under "greedy" only by accident of run 1; over run 3 alone it vanished."""
    from reports.costs import deck_curves

    every = deck_curves(store, Filters(game="frontier", runs=[3]))
    assert set(every["deck"].to_list()) == set(DECKS.split(","))
    for pilots in (["greedy"], ["random"]):
        assert deck_curves(store, Filters(game="frontier", runs=[3], pilots=pilots)).equals(every)
    res = run_cli("export", "deck_curves", "--pilot", "greedy", "--csv", "x.csv", "--db", str(store))
    assert res.returncode == 2 and "deck_curves does not filter by --pilot" in res.stderr, res.stderr


@pytest.mark.parametrize(("page", "name"), [("costs", "card_budget"), ("costs", "deck_curves"),
                                            ("keywords", "keyword_prices")])
def test_definition_downloads_record_no_pilots(at_store, named_downloads, page, name):
    """A stat budget, a price list and a deck list are no pilot's play: their files named the
    session's pilot choice (or every pilot of the runs) as if the rows were that pilot's figures."""
    at = opened(page, runs="1,3", pilots="greedy")
    files = page_downloads(at, named_downloads)
    mine = [values for file, values in files.items() if file.startswith(name + "__")]
    assert mine, list(files)
    assert all("pilots" not in (f or "") for f in mine[0]), mine[0]


# --- 4: the weights warning, over the runs the pilot filter keeps --------------------------------------

def test_the_weights_warning_considers_only_the_runs_the_pilot_filter_keeps(store, tmp_path, monkeypatch):
    import duckdb

    from reports.pages.common import reweighted_note

    copy = tmp_path / "w.duckdb"
    shutil.copy(store, copy)
    with duckdb.connect(str(copy)) as con:  # run 3 as greedy stored it under other weights
        spec = json.loads(con.execute("SELECT spec FROM runs WHERE run_id = 3").fetchall()[0][0])
        spec["weights_hash"] = "other-weights"
        con.execute("UPDATE runs SET spec = ? WHERE run_id = 3", [json.dumps(spec, sort_keys=True)])
    assert "Careful: greedy thought with other weight files" in reweighted_note(copy, Filters(runs=[1, 2, 3]))
    assert reweighted_note(copy, Filters(runs=[1, 2, 3], pilots=["greedy"])) == ""  # run 3 is not counted
    assert "Careful: greedy" in reweighted_note(copy, Filters(runs=[1, 2, 3], pilots=["greedy", "random"]))
    monkeypatch.setenv("WORKBENCH_DB", str(copy))
    assert "Careful" not in pilots_line(opened("cards", runs="1,2,3", pilots="greedy"))


# --- 5: the Card and Deck pages name the runs and matches they count ----------------------------------

@pytest.mark.parametrize(("page", "item"), [("deck", {"deck": "goblin-gold-gang"}), ("card", None)])
def test_the_item_pages_scope_and_downloads_name_the_runs_the_pilot_filter_keeps(at_store, named_downloads, page, item):
    if item is None:
        from reports import db
        with db.connect(at_store) as con:
            card = con.execute("SELECT card FROM card_games WHERE run_id = 1 AND played > 0 LIMIT 1").fetchall()[0][0]
        item = {"card": card}
    at = opened(page, pilots="greedy", **item)
    line = pilots_line(at)
    assert "The duel runs of frontier with every seat played by greedy: run 1 (4 matches)" in line, line
    files = page_downloads(at, named_downloads)
    assert files and all("__runs-1." in name for name in files), list(files)
    assert all(f.startswith("game=frontier; runs=1;") for values in files.values() for f in values), files
    every = pilots_line(opened(page, **item))
    assert "Every duel run of frontier: runs 1, 2, 3 (12 matches)" in every, every


# --- 7: the Matchups meta's campaign note ----------------------------------------------------------------

def test_the_meta_says_campaign_fights_were_counted_above_only_when_they_were(at_store):
    def meta_caption(at) -> str:
        return next(c.value for c in at.caption if "bootstrap intervals" in c.value)

    pooled = meta_caption(opened("matchups", runs="1,2,3,4"))
    assert "the fights of campaign run 4, counted above, are left out" in pooled, pooled
    greedy = opened("matchups", runs="1,2,3,4", pilots="greedy")
    assert not any("crew:" in d for d in greedy.dataframe[0].value["deck"]), "the filter keeps no campaign fight"
    caption = meta_caption(greedy)
    assert "counted above" not in caption and "campaign run 4 are counted nowhere on this page" in caption, caption


# --- 8: the Overview's runs download records what the page applies ------------------------------------

def test_the_overview_runs_download_records_no_filter_the_page_does_not_apply(at_store, named_downloads):
    at = page_app("overview")
    for name, chosen in {"game": ["frontier"], "runs": [1], "pilots": ["greedy"], "decks": ["lawmen-posse"]}.items():
        at.session_state[f"keep:{name}"] = chosen
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    button = next(b for b in at.get("download_button") if b.label == "Download runs as CSV")
    name, data = named_downloads[Path(button.proto.url).stem]
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert sorted(int(r["run_id"]) for r in rows) == [1, 2, 3, 4]
    assert {r["filters"] for r in rows} == {"game=frontier; runs=1,2,3,4; pilots=greedy,random"}, rows[0]["filters"]
    assert name == "runs__frontier__runs-1-2-3-4.csv"


# --- 9: a run of two pilots against each other, pooled in, is named -------------------------------------

@pytest.mark.parametrize("page", ["matchups", "cards", "keywords", "costs", "overview"])
def test_the_pilots_line_names_a_run_of_two_pilots_pooled_in(at_store, page):
    line = pilots_line(opened(page, runs="1,2,3"))
    assert line.startswith("Pilots: greedy, random. ") and "Run 3 seats greedy against random, pooled in here" in line, line
    if page != "overview":  # the page's Pilot filter: how the run can be counted under it
        assert "under a pilot filter it counts only with both chosen" in line, line
    assert "Run 3" not in pilots_line(opened(page, runs="1,2"))
