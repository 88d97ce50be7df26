"""The dashboard at its edges, under Streamlit's AppTest: a campaign store, AlleyWay's cards played
without having been in hand, a pairing that saved no variance, a free-for-all of three games, a
store whose only runs are free-for-all runs, a price fit with no R², filters that leave nothing to
chart, a run stopped before it stored a match. Each test failed before its fix (the dashboard
audit's defects 1 to 11)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from tests.conftest import built_once, run_cli

TIMEOUT = 60
pytestmark = pytest.mark.usefixtures("fresh_cache")  # page queries are cached in-process


def page_app(page: str, timeout: float = TIMEOUT, **query) -> AppTest:
    """One page alone (the replay page gets the replay function, as the app entry hands it in),
    opened with ``query`` as its URL's parameters; ``timeout``: seconds a run may take."""
    if page == "replay":
        script = "from reports.pages.replay import render\nfrom workbench.replay import replay_match\nrender(replay_match)"
    else:
        script = f"from reports.pages.{page} import render\nrender()"
    at = AppTest.from_string(script, default_timeout=timeout)
    for key, value in query.items():
        at.query_params[key] = value
    return at


def opened(page: str, timeout: float = TIMEOUT, **query) -> AppTest:
    at = page_app(page, timeout, **query).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sidebar(at: AppTest, label: str):
    found = [w for w in [*at.sidebar.selectbox, *at.sidebar.multiselect, *at.sidebar.slider,
                         *at.sidebar.number_input] if w.label == label]
    assert found, label
    return found[0]


def texts(elements) -> list[str]:
    return [e.value for e in elements]


def store_sql(path: Path, sql: str, params: list | None = None) -> list[tuple]:
    with db.connect(path) as con:
        return con.execute(sql, params or []).fetchall()


def changed(path: Path, *statements: str) -> None:
    with db.connect(path, read_only=False) as con:
        for sql in statements:
            con.execute(sql)


def _alleyway_store(path: Path) -> None:
    """An AlleyWay duel (run 1: its leaders are played without being dealt or drawn) and a
    four-seat free-for-all of two games (run 2)."""
    for args in (["--decks", "marlows-crew,cinder-wildfire", "--matches", "4"],
                 ["--mode", "ffa", "--decks", "marlows-crew,cinder-wildfire,graves-garrison,veyr-bone-court",
                  "--matches", "2"]):
        res = run_cli("simulate", "alleyway", *args, "--pilots", "random", "--workers", "1", "--db", str(path),
                      "--quiet")
        assert res.returncode == 0, res.stderr


@pytest.fixture(scope="session")
def alleyway_store(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "edges-alleyway", _alleyway_store)


@pytest.fixture()
def own_copy(tmp_path, monkeypatch):
    """A store copied for one test to change, and the pages pointed at it."""
    def copy(path: Path) -> Path:
        mine = tmp_path / path.name
        shutil.copy(path, mine)
        monkeypatch.setenv("WORKBENCH_DB", str(mine))
        return mine
    return copy


# --- 1: the Cards page on a campaign store ---------------------------------------------------------

def test_cards_page_on_a_campaign_run_says_why_it_has_no_skill_premium(campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = opened("cards")
    [run] = sidebar(at, "Runs").value
    hints = [c for c in texts(at.caption) if c.startswith("No skill premium")]
    assert hints == [f"No skill premium column: run {run} is a campaign run, and a skill premium compares two duel "
                     "runs of the same matches under two pilots."]
    assert len(at.dataframe[0].value) > 0


# --- 2: play rate over the games the card was in hand or played ---------------------------------------

def test_play_rate_counts_the_games_a_card_was_in_hand_or_played(alleyway_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(alleyway_store))
    [(outside_hand,)] = store_sql(alleyway_store, "SELECT count(*) FROM card_games WHERE run_id = 1 AND played > 0 "
                                                  "AND in_opening_hand = 0 AND drawn = 0")
    assert outside_hand > 0, "the store has plays from outside the hand (the leaders at least)"
    table = opened("cards", game="alleyway").dataframe[0].value
    assert table["play_rate"].dropna().between(0, 100).all() and table["dead_pct"].dropna().between(0, 100).all()
    assert (table["available_games"] >= table["played_games"]).all()
    assert (table["available_games"] >= table["gih_games"]).all()
    leaders = table[table["type"] == "leader"]
    assert len(leaders) and (leaders["gih_games"] == 0).all(), "leaders are never dealt nor drawn"
    assert (leaders["play_rate"] == 100).all(), "a leader is played every game"
    # the minimum-games slider counts the same games: at 1 it hid every leader (never in hand)
    at = opened("cards", game="alleyway")
    sidebar(at, "Minimum games in hand or played").set_value(1).run()
    assert not at.exception
    kept = at.dataframe[0].value
    assert len(kept[kept["type"] == "leader"]) == len(leaders)


# --- 3: a pairing that saved no variance --------------------------------------------------------------

@pytest.mark.parametrize("saved, shown, caption", [
    (-1.0, "none", "pairing removed none of the variance of a deck's win-rate change here"),
    (0.0, "none", "pairing removed none of the variance of a deck's win-rate change here"),
    (0.5, "50%", "pairing removed 50% of the variance of a deck's win-rate change; an unpaired comparison would need "
                 "about 2.0× the matches"),
    (1.0, "100%", "pairing removed 100% of the variance of a deck's win-rate change"),
])
def test_diff_page_reads_a_pairing_that_saved_no_variance_as_none(diff_store, monkeypatch, saved, shown, caption):
    from reports.pages import common

    measured = common.QUERIES["version_diff"]
    monkeypatch.setitem(common.QUERIES, "version_diff", lambda *args: {**measured(*args), "variance_saved": saved})
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = opened("diff")
    assert [m.value for m in at.metric if m.label == "Variance the pairing saved"] == [shown]
    assert caption in texts(at.caption)


# --- 4: the mean placement's interval -----------------------------------------------------------------

def test_ffa_mean_placement_interval_stays_in_range_and_has_width(alleyway_store, own_copy):
    store = own_copy(alleyway_store)
    # two games a deck: one deck placed first both times, one first and last (its normal interval
    # ran from below 1 to above 4, the first had none)
    changed(store, "UPDATE match_seats SET placement = 1 WHERE run_id = 2 AND deck = 'marlows-crew'",
            "UPDATE match_seats SET placement = CASE WHEN match_no = 0 THEN 1 ELSE 4 END "
            "WHERE run_id = 2 AND deck = 'cinder-wildfire'")
    decks = opened("ffa").dataframe[0].value.set_index("deck")
    assert (decks["seats"] == 2).all() and (decks["table_seats"] == 4).all()
    assert ((decks["mean_placement_lo"] >= 1) & (decks["mean_placement_hi"] <= 4)).all()
    assert (decks["mean_placement_lo"] <= decks["mean_placement"]).all()
    assert (decks["mean_placement"] <= decks["mean_placement_hi"]).all()
    assert (decks["mean_placement_hi"] > decks["mean_placement_lo"]).all()
    first = decks.loc["marlows-crew"]
    assert first["mean_placement"] == 1 and first["mean_placement_lo"] == 1 and 2 < first["mean_placement_hi"] < 4
    assert decks.loc["cinder-wildfire", "mean_placement"] == 2.5


# --- 5: a game whose runs are all free-for-all runs ------------------------------------------------------

@pytest.mark.parametrize("page", ["overview", "cards", "keywords", "costs", "matchups"])
def test_duel_pages_point_a_free_for_all_store_to_its_page(small_store, own_copy, page):
    store = own_copy(small_store)
    changed(store, "INSERT INTO runs SELECT * REPLACE (3 AS run_id, 'alleyway' AS game, 'ffa' AS kind, 'ffa' AS mode) "
                   "FROM runs WHERE run_id = 2")  # the newest run: its game is the one shown
    at = opened(page)
    assert sidebar(at, "Game").value == "alleyway"
    assert texts(at.main.info) == ["The store's alleyway runs are all free-for-all runs, which have a page of their "
                                   "own: open the Free-for-all page."]
    if page == "overview":
        assert at.dataframe[0].value["run_id"].tolist() == [3]


# --- 6: a price fit with no R² -------------------------------------------------------------------------

def test_keywords_price_list_says_why_a_fit_has_no_r_squared(alleyway_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(alleyway_store))
    at = opened("keywords", game="alleyway")
    box = [w for w in at.selectbox if w.label == "Rules version and card type"][0]
    box.set_value(("base", "leader")).run()
    fits = [c for c in texts(at.caption) if c.startswith("Fitted over")]
    assert fits == ["Fitted over 6 leader cards of base: no R², as every one of these cards costs the same (no spread "
                    "in cost to explain). Keywords on fewer than two cards of the type get no price."]
    assert not any("nan" in c for c in texts(at.caption))
    prices = at.dataframe[-1].value
    assert (prices["r_squared"].isna() == (prices["type"] == "leader")).all(), "a blank, not 'nan', and only there"


# --- 7: a ranking with nothing to chart ----------------------------------------------------------------

def test_cards_ranking_says_why_it_has_nothing_to_chart(alleyway_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(alleyway_store))
    at = opened("cards", game="alleyway")
    sidebar(at, "Card type").set_value(["leader"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe[0].value) == 2, "the table still lists both leaders"
    assert not at.get("plotly_chart")
    assert texts(at.main.info) == ["No card here has an OH excess yet, so there is nothing to chart: it needs games of "
                                   "the card's deck with the card in the opening hand and games without it (a card "
                                   "never dealt, such as a leader, has none)."]
    at.radio(key="cards_view").set_value("Played win rate pooled over decks: carries deck strength").run()
    assert len(at.get("plotly_chart")) == 1 and not at.main.info, "leaders are played: the pooled view charts them"


# --- 8, 9: a run stopped before it stored a match ---------------------------------------------------------

@pytest.fixture()
def stopped_run(small_store, own_copy) -> Path:
    """small_store with run 2 asking 400 matches (it stored 20), and run 3, the newest: a copy of
    run 2 stopped before it stored any."""
    store = own_copy(small_store)
    changed(store, "INSERT INTO runs SELECT * REPLACE (3 AS run_id, 'stopped' AS status, 0 AS matches_done, "
                   "400 AS matches_target) FROM runs WHERE run_id = 2",
            "UPDATE runs SET matches_target = 400 WHERE run_id = 2")
    return store


def test_overview_of_a_run_without_matches_says_so(stopped_run):
    at = opened("overview")
    assert sidebar(at, "Runs").value == [3]
    assert texts(at.main.info) == ["The chosen run holds no stored matches yet, so there is nothing to count. A run "
                                   "stopped before it stored any goes on with `workbench simulate --resume 3`."]
    assert not at.get("plotly_chart") and not at.metric
    assert sorted(at.dataframe[0].value["run_id"]) == [1, 2, 3]


def test_replay_offers_only_stored_matches(stopped_run):
    at = opened("replay")
    assert sidebar(at, "Run").value == 3
    assert not [w for w in at.sidebar.number_input if w.label == "Match"]
    assert texts(at.info) == ["Run 3 holds no stored matches yet, so there is none to replay. A run stopped before it "
                              "stored any goes on with `workbench simulate --resume 3`."]
    assert not at.warning
    sidebar(at, "Run").set_value(2).run()
    [(last,)] = store_sql(stopped_run, "SELECT max(match_no) FROM matches WHERE run_id = 2")
    box = sidebar(at, "Match")
    assert (box.min, box.max) == (0, last) and last < 399
    assert at.subheader[0].value.startswith("Run 2 · match 0 ·")


# --- 10: the meta of campaign runs ---------------------------------------------------------------------

def test_matchups_on_campaign_runs_says_why_there_is_no_meta(campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = opened("matchups")
    assert len(at.dataframe) >= 2, "the matrix and the field count the campaign's fights"
    assert texts(at.info) == ["The meta is solved over duel runs, and the chosen runs are campaign runs: their fights "
                              "pit each crew against the enemies on its map, not decks a field chooses between, so "
                              "there is no game to solve. The matrix and field figures above count those fights; "
                              "pick a duel run in the sidebar to see the meta."]


# --- 11: a Cost filter that leaves no deck card ---------------------------------------------------------

def test_cost_filter_that_leaves_nothing_says_so(alleyway_store, monkeypatch):
    from reports.costs import deck_curves
    from reports.filters import Filters

    monkeypatch.setenv("WORKBENCH_DB", str(alleyway_store))
    at = opened("costs", game="alleyway")
    cost = sidebar(at, "Cost")
    held = set(deck_curves(alleyway_store, Filters(runs=sidebar(at, "Runs").value))["cost"].to_list())
    steps = int((cost.max - cost.min) / cost.step)
    free = [c for c in (cost.min + i * cost.step for i in range(steps + 1)) if c not in held]
    assert free, f"every cost from {cost.min} to {cost.max} is in a deck"
    cost.set_value((free[-1], free[-1])).run()
    assert not at.exception, [e.value for e in at.exception]
    assert texts(at.main.info) == [
        f"No deck in these matches holds a card costing {free[-1]:g}: widen the Cost filter in the sidebar.",
        f"No card costing {free[-1]:g} was played in these matches: widen the Cost filter in the sidebar."]
    assert [s.value for s in at.subheader][-2:] == ["Deck cost curves", "Win rate when played, by cost"]
