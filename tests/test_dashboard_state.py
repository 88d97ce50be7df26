"""Filters that follow the user (issue 18): the game and the runs are kept across pages and in
the URL, a run that stores more does not reset the choice, the default game is the newest run's,
and two runs of the very same matches are not pooled without a word."""
from __future__ import annotations

import shutil

import pytest
from streamlit.testing.v1 import AppTest

from reports import db

pytestmark = pytest.mark.usefixtures("fresh_cache")


def page(name: str) -> AppTest:
    return AppTest.from_string(f"from reports.pages.{name} import render\nrender()", default_timeout=60)


def sidebar(at: AppTest, label: str):
    found = [w for w in [*at.sidebar.selectbox, *at.sidebar.multiselect] if w.label == label]
    assert found, label
    return found[0]


@pytest.fixture()
def store(small_store, tmp_path, monkeypatch):
    """small_store's two Frontier runs, plus a third run row of another game (newest), and a
    fourth: a copy of run 1 (the very same spec)."""
    path = tmp_path / "s.duckdb"
    shutil.copy(small_store, path)
    with db.connect(path, read_only=False) as con:
        con.execute("""INSERT INTO runs SELECT * REPLACE (3 AS run_id, 'alleyway' AS game) FROM runs WHERE run_id = 2""")
        con.execute("""INSERT INTO runs SELECT * REPLACE (4 AS run_id) FROM runs WHERE run_id = 1""")
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    return path


def test_the_game_follows_the_user_from_page_to_page_and_defaults_to_the_newest_run(store):
    cards = page("cards").run()
    assert sidebar(cards, "Game").value == "frontier"  # run 4, the newest, is Frontier
    sidebar(cards, "Game").set_value("alleyway").run()
    assert cards.session_state["keep:game"] == ["alleyway"]
    assert cards.query_params["game"] in ("alleyway", ["alleyway"])
    keywords = page("keywords")
    keywords.session_state["keep:game"] = cards.session_state["keep:game"]  # one session, another page
    keywords.run()
    assert sidebar(keywords, "Game").value == "alleyway"


def test_a_copied_link_opens_the_same_view(store):
    at = page("cards")
    at.query_params["game"] = "frontier"
    at.query_params["runs"] = "2"
    at.run()
    assert sidebar(at, "Game").value == "frontier" and sidebar(at, "Runs").value == [2]


def test_a_run_that_stores_more_keeps_the_runs_chosen(store):
    at = page("cards").run()
    sidebar(at, "Runs").set_value([2]).run()
    with db.connect(store, read_only=False) as con:  # run 2's label changes as a writing run's does
        con.execute("UPDATE runs SET matches_done = matches_done + 1, status = 'running' WHERE run_id = 2")
    at.run()
    assert sidebar(at, "Runs").value == [2]


def test_two_runs_of_the_same_matches_are_not_pooled_without_a_word(store):
    at = page("cards").run()
    sidebar(at, "Runs").set_value([1, 4]).run()
    warned = [w.value for w in at.sidebar.warning]
    assert any("Runs 1, 4 share matches" in w for w in warned), warned
    # the one kept has the most matches, and of equals the newest
    [b for b in at.sidebar.button if b.label == "Keep only run 4"][0].click().run()
    assert sidebar(at, "Runs").value == [4] and not at.sidebar.warning


def test_deck_and_pilot_filters_follow_the_user_and_live_in_the_url(store):
    at = page("cards").run()
    sidebar(at, "Runs").set_value([2]).run()  # run 4 (the default) is a bare copy: no matches, no decks
    sidebar(at, "Deck").set_value(["lawmen-posse"]).run()
    assert at.query_params["decks"] in ("lawmen-posse", ["lawmen-posse"])
    other = page("keywords")
    for name in ("runs", "decks"):
        other.session_state[f"keep:{name}"] = at.session_state[f"keep:{name}"]
    other.run()
    assert sidebar(other, "Deck").value == ["lawmen-posse"]
    linked = page("cards")
    linked.query_params["runs"] = "1"
    linked.query_params["pilots"] = "random"
    linked.run()
    assert sidebar(linked, "Pilot").value == ["random"]


def test_a_download_records_the_filters_that_made_it(store, downloads):
    import csv
    import io
    from pathlib import Path

    from reports.pages.common import download_name

    at = page("cards").run()
    sidebar(at, "Runs").set_value([2]).run()
    sidebar(at, "Deck").set_value(["lawmen-posse"]).run()
    button = [b for b in at.get("download_button") if "card_stats" in b.proto.label]
    rows = list(csv.DictReader(io.StringIO(downloads[Path(button[0].proto.url).stem].decode("utf-8"))))
    assert rows and {r["filters"] for r in rows} == {"game=frontier; runs=2; decks=lawmen-posse; pilots=greedy"}
    assert download_name("card_stats", {"game": "frontier", "runs": "2,5"}) == "card_stats__frontier__runs-2-5.csv"


def test_the_keywords_page_takes_a_one_deck_filter(store):
    """One deck chosen: the keyword model has no deck contrast to take (it failed building one)."""
    at = page("keywords")
    at.query_params["runs"] = "2"
    at.query_params["decks"] = "lawmen-posse"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert sidebar(at, "Deck").value == ["lawmen-posse"]


# --- the pages with a choice of their own: the modes' runs, the ladder, the proposal ------------------

MODES = {"ffa": ("ffa_runs", "Free-for-all runs"), "series": ("series_runs", "Series runs"),
         "turf": ("turf_runs", "Turf Defense runs")}


def kept_state(at: AppTest, names) -> dict:
    """The choices a page kept (what the next page of the same session starts from)."""
    return {f"keep:{n}": at.session_state[f"keep:{n}"] for n in names if f"keep:{n}" in at.session_state}


def after(at: AppTest, name: str, names) -> AppTest:
    """Page ``name`` opened next in ``at``'s session (AppTest runs one page a session: the kept
    choices are what a page change carries)."""
    other = page(name)
    for key, value in kept_state(at, names).items():
        other.session_state[key] = value
    return other.run()


@pytest.fixture()
def mode_runs(store):
    """store, plus two (empty) runs of each of AlleyWay's other modes: ffa 5 and 6, series 7
    and 8, turf 9 and 10."""
    with db.connect(store, read_only=False) as con:
        for i, mode in enumerate(MODES):
            for run_id in (5 + 2 * i, 6 + 2 * i):
                con.execute(f"""INSERT INTO runs SELECT * REPLACE ({run_id} AS run_id, 'alleyway' AS game,
                                '{mode}' AS kind, '{mode}' AS mode) FROM runs WHERE run_id = 2""")
    return store


@pytest.mark.parametrize("mode", MODES)
def test_a_mode_pages_runs_follow_the_user_and_live_in_the_url(mode_runs, mode):
    name, label = MODES[mode]
    older = 5 + 2 * list(MODES).index(mode)
    names = ("game", "runs", name)
    cards = page("cards").run()
    sidebar(cards, "Game").set_value("frontier").run()  # (the mode runs are the newest: AlleyWay's)
    sidebar(cards, "Runs").set_value([2]).run()
    at = after(cards, mode, names)
    assert sidebar(at, label).value == [older + 1]  # the newest by default
    sidebar(at, label).set_value([older]).run()
    assert at.query_params[name] in (str(older), [str(older)])
    back = after(at, "cards", names)  # the duel pages' runs are other runs: untouched
    assert sidebar(back, "Runs").value == [2]
    assert sidebar(after(back, mode, names), label).value == [older]
    linked = page(mode)
    linked.query_params[name] = str(older)
    linked.run()
    assert sidebar(linked, label).value == [older]


@pytest.fixture()
def ladders(store):
    """store, plus two Frontier ladders (1, 2) and, newest, a copy of ladder 2 as Allegiance's
    (3): a game with a ladder and no runs, while AlleyWay has runs and no ladder."""
    from tests.test_ladder import ladder_store

    ladder_store(store)
    ladder_store(store)
    with db.connect(store, read_only=False) as con:
        con.execute("INSERT INTO ladder SELECT * REPLACE (3 AS ladder_id, 'allegiance' AS game) FROM ladder "
                    "WHERE ladder_id = 2")
    return store


def test_the_pilots_pages_game_and_ladder_follow_the_user_and_live_in_the_url(ladders):
    names = ("game", "runs", "ladder")
    cards = page("cards").run()
    sidebar(cards, "Game").set_value("alleyway").run()
    at = after(cards, "pilots", names)
    assert sidebar(at, "Game").value == "allegiance"  # AlleyWay has no ladder: the newest ladder's game
    assert at.session_state["keep:game"] == ["alleyway"]  # ... and the other pages still show AlleyWay
    sidebar(at, "Game").set_value("frontier").run()
    assert sidebar(at, "Ladder").value == 2
    sidebar(at, "Ladder").set_value(1).run()
    assert at.query_params["game"] in ("frontier", ["frontier"]) and at.query_params["ladder"] in ("1", ["1"])
    back = after(after(at, "cards", names), "pilots", names)
    assert sidebar(back, "Game").value == "frontier" and sidebar(back, "Ladder").value == 1
    linked = page("pilots")
    linked.query_params["game"] = "frontier"
    linked.query_params["ladder"] = "1"
    linked.run()
    assert sidebar(linked, "Game").value == "frontier" and sidebar(linked, "Ladder").value == 1


def test_the_rebalancing_pages_proposal_follows_the_user_and_lives_in_the_url(store):
    from tests.test_tune import hand_made_proposals

    hand_made_proposals(store)
    at = page("tune").run()
    assert sidebar(at, "Proposal").value == 2  # the newest
    sidebar(at, "Proposal").set_value(1).run()
    assert at.query_params["proposal"] in ("1", ["1"])
    assert sidebar(after(after(at, "cards", ("proposal",)), "tune", ("proposal",)), "Proposal").value == 1
    linked = page("tune")
    linked.query_params["proposal"] = "1"
    linked.run()
    assert sidebar(linked, "Proposal").value == 1


def test_the_pilots_and_rebalancing_downloads_record_the_pages_own_choice(ladders, named_downloads):
    """Not the runs the duel pages kept (99, say): the ladder, the proposal the page shows."""
    from tests.conftest import opened_after_the_duel_pages, page_downloads
    from tests.test_tune import hand_made_proposals

    hand_made_proposals(ladders)
    pilots = page_downloads(opened_after_the_duel_pages("pilots", ladder=[1]), named_downloads)
    assert pilots == {f"{name}__frontier__ladder-1.csv": {"game=frontier; ladder=1; pilots=mcts:3,greedy,random"}
                      for name in ("ladder", "ladder_pairs")}
    named_downloads.clear()
    tune = page_downloads(opened_after_the_duel_pages("tune", proposal=[1]), named_downloads)
    assert tune and all(name.endswith("__frontier__proposal-1.csv") for name in tune), tune
    assert set().union(*tune.values()) == {"game=frontier; proposal=1; pilots=greedy"}


# --- the pages' own choices: the Card value page's measurement, the campaign batches ----------------------

def test_the_card_value_pages_choices_follow_the_user_and_live_in_the_url(tmp_path, monkeypatch, named_downloads):
    from tests.conftest import page_downloads
    from tests.test_value_reports import new_store, value_rows

    monkeypatch.setenv("WORKBENCH_DB", str(new_store(tmp_path / "value.duckdb", value_rows())))
    names = ("game", "value_rules", "value_deck", "value_pilots")
    at = page("value").run()
    assert sidebar(at, "Rules version").value == "first-player-skips-draw"  # the newest measurement's
    sidebar(at, "Rules version").set_value("base").run()
    sidebar(at, "Pilots").set_value("greedy").run()
    assert at.query_params["value_rules"] in ("base", ["base"]) and at.query_params["value_pilots"] in (
        "greedy", ["greedy"])
    back = after(after(at, "cards", names), "value", names)
    assert (sidebar(back, "Rules version").value, sidebar(back, "Pilots").value) == ("base", "greedy")
    linked = page("value")
    linked.query_params["value_rules"] = "base"
    linked.query_params["value_pilots"] = "greedy"
    linked.run()
    assert (sidebar(linked, "Rules version").value, sidebar(linked, "Pilots").value) == ("base", "greedy")
    assert page_downloads(linked, named_downloads)["card_value__frontier__deck-lawmen-posse__against-field.csv"] == {
        "game=frontier; rules=base; deck=lawmen-posse; against=field; pilots=greedy"}


def test_the_campaign_pages_batches_follow_the_user_and_live_in_the_url(campaign_store, tmp_path, monkeypatch):
    path = tmp_path / "c.duckdb"
    shutil.copy(campaign_store, path)
    with db.connect(path, read_only=False) as con:  # a second batch, newest
        con.execute("INSERT INTO runs SELECT * REPLACE (2 AS run_id) FROM runs WHERE run_id = 1")
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    names = ("game", "runs", "campaign_runs")
    at = page("campaign").run()
    assert sidebar(at, "Campaign batches").value == [2]
    sidebar(at, "Campaign batches").set_value([1]).run()
    assert at.query_params["campaign_runs"] in ("1", ["1"])
    assert sidebar(after(after(at, "cards", names), "campaign", names), "Campaign batches").value == [1]
    linked = page("campaign")
    linked.query_params["campaign_runs"] = "1"
    linked.run()
    assert sidebar(linked, "Campaign batches").value == [1]


def test_the_item_pages_count_one_of_each_set_of_runs_that_replay_the_same_seeds(tmp_path, monkeypatch):
    """A simulate and the base runs of sequential diffs that reused its seeds at other caps are
    the same matches: the Card page pooled them, counting a match up to four times."""
    from tests.conftest import run_cli
    from tests.test_dashboard_edges import opened

    store = tmp_path / "s.duckdb"
    for matches in ("30", "20"):  # the same seeds, the second run's are the first's first 20
        res = run_cli("simulate", "frontier", "--decks", "lawmen-posse,goblin-gold-gang", "--pilots", "random",
                      "--matches", matches, "--seed", "5", "--workers", "1", "--db", str(store), "--quiet")
        assert res.returncode == 0, res.stderr
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    at = opened("deck", deck="lawmen-posse")
    line = next(c.value for c in at.caption if "Every duel run" in c.value)
    assert "run 1 (30 matches)" in line and "Left out, as they share matches with a run counted here (they would count twice): run 2." in line


def test_a_trial_run_is_not_the_default_run(store):
    """After a what-if, its trial run (rules version try-...) was the newest duel run, and the pages
    opened on the trial's cards as if they were the game's."""
    with db.connect(store, read_only=False) as con:
        con.execute("""INSERT INTO runs SELECT * REPLACE (5 AS run_id, 'try-tin-star-recruit-atk-abc123' AS rules_version)
                       FROM runs WHERE run_id = 2""")
    at = page("cards").run()
    assert sidebar(at, "Runs").value == [4], sidebar(at, "Runs").value  # the newest that is not a trial
