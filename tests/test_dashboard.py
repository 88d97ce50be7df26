"""The dashboard pages under Streamlit's AppTest, against a store filled by a real simulation.

Each page is run as a one-line script (``from reports.pages.X import render; render()``); the store
path reaches it through WORKBENCH_DB. Numbers on the page are checked against the store itself,
read here with duckdb directly."""
from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from reports import db

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60
PAGES = ("overview", "cards", "keywords", "costs", "matchups", "diff", "value", "replay", "campaign")
# every page of the navigation: each says what to do when there is no store or nothing in it
EVERY_PAGE = PAGES + ("ffa", "series", "turf", "pilots", "whatif", "tune")
# the command a page's empty state names ("workbench simulate" unless the page has its own)
WHAT_TO_RUN = {"pilots": "workbench ladder"}
# page queries are cached in-process (st.cache_data): no test may see another's results
pytestmark = pytest.mark.usefixtures("fresh_cache")


def page_app(page: str) -> AppTest:
    """One page alone; the replay page gets the replay function as the app entry hands it in."""
    if page == "replay":
        script = "from reports.pages.replay import render\nfrom workbench.replay import replay_match\nrender(replay_match)"
    else:
        script = f"from reports.pages.{page} import render\nrender()"
    return AppTest.from_string(script, default_timeout=TIMEOUT)


def store_sql(path: Path, sql: str, params: list | None = None) -> list[tuple]:
    with db.connect(path) as con:  # a reading connection: it has the events view
        return con.execute(sql, params or []).fetchall()


def run_ids_newest_first(path: Path) -> list[int]:
    return [r[0] for r in store_sql(path, "SELECT run_id FROM runs ORDER BY created_at DESC, run_id DESC")]


def match_count(path: Path, run_ids: list[int]) -> int:
    marks = ", ".join("?" for _ in run_ids)
    return store_sql(path, f"SELECT count(*) FROM matches WHERE run_id IN ({marks})", run_ids)[0][0]


def metric(at: AppTest, label: str) -> str:
    found = [m.value for m in at.metric if m.label == label]
    assert found, f"no metric {label!r}; metrics: {[m.label for m in at.metric]}"
    return found[0]


def plotly_specs(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def plotly_values(value) -> np.ndarray:
    """A plotly trace array: a plain list, or plotly's typed-array form {'dtype', 'bdata'}."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value)


def runs_multiselect(at: AppTest):
    found = [w for w in at.sidebar.multiselect if w.label == "Runs"]
    assert found, "no 'Runs' filter in the sidebar"
    return found[0]


# --- with data ------------------------------------------------------------------------------------

def test_overview_shows_metrics_charts_and_runs(small_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("overview").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Overview"]
    assert not at.error and not at.warning

    newest = run_ids_newest_first(small_store)[0]
    assert runs_multiselect(at).value == [newest], "the default run filter is the newest run"
    n = match_count(small_store, [newest])
    assert n > 0
    assert int(metric(at, "Matches").replace(",", "")) == n

    first_wins, decided = store_sql(
        small_store, "SELECT count(*) FILTER (WHERE winner_seat = 0), count(*) FILTER (WHERE winner_seat IS NOT NULL) "
                     "FROM matches WHERE run_id = ?", [newest])[0]
    assert decided > 0
    assert metric(at, "First-seat win rate") == f"{first_wins / decided:.1%}"
    assert any("95% CI" in c.value for c in at.caption)
    draws, errors = store_sql(small_store, "SELECT count(*) FILTER (WHERE winner_seat IS NULL), "
                                           "count(*) FILTER (WHERE error IS NOT NULL) FROM matches WHERE run_id = ?",
                              [newest])[0]
    assert int(metric(at, "Draws").replace(",", "")) == draws
    assert int(metric(at, "Errors").replace(",", "")) == errors

    specs = plotly_specs(at)
    assert len(specs) == 2
    titles = [s["layout"]["title"]["text"] for s in specs]
    assert titles == [f"Win reasons (n = {n:,} matches)", f"Game length (n = {n:,} matches)"]
    # the win-reason bars add up to the matches of the run; the histogram holds one entry per match
    assert plotly_values(specs[0]["data"][0]["y"]).sum() == n
    assert sum(len(plotly_values(trace["x"])) for trace in specs[1]["data"]) == n

    # the runs table: every run of the store, with its progress
    assert len(at.dataframe) == 1
    runs = at.dataframe[0].value
    assert sorted(runs["run_id"].tolist()) == sorted(run_ids_newest_first(small_store))
    assert "progress" in runs.columns
    assert runs["progress"].between(0, 1).all()
    button = [b for b in at.get("download_button") if b.label == "Download runs as CSV"]
    assert button
    rows = list(csv.DictReader(io.StringIO(downloads[Path(button[0].proto.url).stem].decode("utf-8"))))
    assert sorted(int(r["run_id"]) for r in rows) == sorted(runs["run_id"].tolist())


def test_cards_shows_chart_table_and_csv(small_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Cards"]
    assert not at.error and not at.warning

    newest = run_ids_newest_first(small_store)[0]
    cards = {r[0] for r in store_sql(small_store, "SELECT DISTINCT card FROM card_games WHERE run_id = ?", [newest])}
    assert cards

    # the default ranks within the deck (tests/test_card_effects.py); the pooled view, one click
    # away, ranks by the shrunken played WR and charts the played WR
    from reports.pages.cards import POOLED
    at.radio(key="cards_view").set_value(POOLED.label).run()
    assert not at.exception, [e.value for e in at.exception]
    specs = plotly_specs(at)
    assert len(specs) == 1
    chart = specs[0]
    assert chart["layout"]["xaxis"]["title"]["text"] == "Played win rate (%)"
    shrunk = [t for t in chart["data"] if t["name"].startswith("shrunk")]
    assert len(shrunk) == 1
    played = store_sql(small_store, "SELECT count(DISTINCT card) FROM card_games WHERE run_id = ? AND played > 0",
                       [newest])[0][0]
    assert len(shrunk[0]["y"]) == played, "one chart row per card played"
    assert all(re.search(r"\(n=\d+\)$", label) for label in shrunk[0]["y"]), "sample sizes on the chart labels"
    for trace in chart["data"]:
        assert np.all((plotly_values(trace["x"]) >= 0) & (plotly_values(trace["x"]) <= 100))

    assert len(at.dataframe) == 1
    table = at.dataframe[0].value
    # ranked by the shrunken played WR, best first; cards never played last
    ranked = table["played_wr_shrunk"].dropna().tolist()
    assert ranked == sorted(ranked, reverse=True)
    assert table["played_wr_shrunk"].notna().tolist() == sorted(table["played_wr_shrunk"].notna().tolist(), reverse=True)
    assert set(table["card"]) == cards
    assert len(table) == len(cards), "one row per card"
    assert table["name"].notna().all(), "every card row has its name from the cards table"
    assert any(c.value.startswith(f"{len(cards)} cards") for c in at.caption)

    labels = {k: v.get("label") for k, v in json.loads(at.dataframe[0].proto.columns).items()}
    assert labels["gih_wr"] == "GIH WR" and labels["played_wr"] == "Played WR"
    for rate in ("gih_wr", "played_wr"):
        for col in (rate, f"{rate}_lo", f"{rate}_hi"):
            assert col in table.columns
        shown = table[table[rate].notna()]
        assert len(shown) > 0
        # percentages (the page scales rates by 100), rounded to 0.1: the Wilson bounds bracket the rate
        assert shown[rate].between(0, 100).all()
        assert (shown[f"{rate}_lo"] <= shown[rate] + 1e-9).all(), rate
        assert (shown[rate] <= shown[f"{rate}_hi"] + 1e-9).all(), rate
        assert (shown[f"{rate}_lo"] < shown[f"{rate}_hi"]).all(), rate
    # a rate exists exactly where its sample does
    assert (table["played_wr"].notna() == (table["played_games"] > 0)).all()
    assert (table["gih_wr"].notna() == (table["gih_games"] > 0)).all()

    button = [b for b in at.get("download_button") if b.label == "Download card_stats as CSV"]
    assert button, [b.label for b in at.get("download_button")]
    text = downloads[Path(button[0].proto.url).stem].decode("utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert {"card", "name", "faction", "games", "gih_wr", "gih_wr_lo", "gih_wr_hi", "played_wr",
            "played_wr_lo", "played_wr_hi"} <= set(header)
    # every column card_metrics gives is in the file (and is available to the table)
    from reports.cards import card_metrics
    from reports.filters import Filters
    assert set(card_metrics(small_store, Filters(runs=[newest])).columns) <= set(header)
    assert set(header) - {"filters"} <= set(table.columns)  # the download also says which filters made it
    assert len(body) == len(cards)
    assert all(len(r) == len(header) for r in body)
    assert {r[header.index("card")] for r in body} == cards
    # the file holds the documented rates (0 to 1, as `workbench export card_stats`), not percentages
    rates = [float(r[header.index("gih_wr")]) for r in body if r[header.index("gih_wr")]]
    assert rates and all(0.0 <= x <= 1.0 for x in rates)


def test_run_filter_changes_the_matches(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    newest, other = run_ids_newest_first(small_store)[:2]
    assert match_count(small_store, [newest]) != match_count(small_store, [other]), "the fixture's runs differ in size"

    at = page_app("overview").run()
    assert int(metric(at, "Matches").replace(",", "")) == match_count(small_store, [newest])

    runs_multiselect(at).set_value([other]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert runs_multiselect(at).value == [other]
    assert int(metric(at, "Matches").replace(",", "")) == match_count(small_store, [other])

    runs_multiselect(at).set_value([newest, other]).run()
    assert int(metric(at, "Matches").replace(",", "")) == match_count(small_store, [newest, other])

    runs_multiselect(at).set_value([]).run()
    assert not at.exception
    assert any("Pick at least one run" in i.value for i in at.info)
    assert not at.metric


def test_cards_follow_the_run_filter_and_faction_filter(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    newest, other = run_ids_newest_first(small_store)[:2]
    at = page_app("cards").run()
    games_newest = at.dataframe[0].value.set_index("card")["games"]

    runs_multiselect(at).set_value([other]).run()
    assert not at.exception
    games_other = at.dataframe[0].value.set_index("card")["games"]
    expected = dict(store_sql(small_store, "SELECT card, count(*) FILTER (WHERE copies > 0) FROM card_games "
                                           "WHERE run_id = ? GROUP BY card", [other]))
    assert games_other.to_dict() == expected
    assert games_other.to_dict() != games_newest.to_dict()

    deck_filter = [w for w in at.sidebar.multiselect if w.label == "Deck"][0]
    deck = deck_filter.options[0]
    deck_filter.set_value([deck]).run()
    expected = dict(store_sql(small_store, "SELECT card, count(*) FILTER (WHERE copies > 0) FROM card_games "
                                           "WHERE run_id = ? AND deck = ? GROUP BY card", [other, deck]))
    assert at.dataframe[0].value.set_index("card")["games"].to_dict() == expected
    [w for w in at.sidebar.multiselect if w.label == "Deck"][0].set_value([]).run()

    faction = [w for w in at.sidebar.multiselect if w.label == "Faction / clan"][0]
    keep = faction.options[0]  # offered by name (factions.yaml), kept as its id
    faction.set_value([keep]).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["faction_name"]) == {keep} and table["faction"].nunique() == 1


def test_campaign_shows_clear_rates_and_reward_lift(campaign_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = page_app("campaign").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader] == ["Clear rate by crew", "Reward cards: lift when taken"]
    bars = plotly_specs(at)[0]["data"][0]
    rates = store_sql(campaign_store, "SELECT crew, avg(cleared::INT) FROM campaign_runs GROUP BY crew ORDER BY crew")
    assert sorted(plotly_values(bars["x"]).tolist()) == sorted(100 * r for _c, r in rates)
    assert len(at.dataframe) == 2
    names = [b.proto.label for b in at.get("download_button")]
    assert names == ["Download campaign_clear_rates as CSV", "Download campaign_reward_lift as CSV"]
    sheet = next(v for v in downloads.values() if v.startswith(b"stage,crew"))
    assert sheet.count(b"\n") == 3  # a header and one row per crew


def test_replay_page_rebuilds_a_campaign_fight(campaign_store, monkeypatch):
    """A fight of a campaign run (an example link from the card pages may point at one) is rebuilt
    by playing its whole run again: its decks and HP are the ones the run had reached."""
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    [(run_id, match_no, run_no, crew, hp_before)] = store_sql(campaign_store, """
        SELECT n.run_id, n.match_no, n.run_no, r.crew, n.hp_before FROM campaign_nodes n
        JOIN campaign_runs r USING (run_id, run_no) WHERE n.match_no IS NOT NULL
        ORDER BY n.step DESC, n.match_no DESC LIMIT 1""")
    at = page_app("replay")
    at.query_params["run"], at.query_params["match"] = str(run_id), str(match_no)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith(f"Run {run_id} · match {match_no} ·")
    assert any("agrees with the stored result" in s.value for s in at.success)
    assert any(f"campaign run **{run_no}** (crew **{crew}**" in m.value for m in at.markdown)
    seats = at.dataframe[0].value
    assert f"crew:{crew}" in set(seats["deck"])
    hp = table_labelled(at, "turn", "hp")
    crew_seat = f"p{list(seats['deck']).index(f'crew:{crew}')}"
    first = hp[hp["seat"] == crew_seat].sort_values("turn").iloc[0]
    assert first["hp"] <= hp_before, "the crew starts the fight at the trail HP it had reached"
    # the sidebar picks a campaign run, then one of its fights
    assert [s.label for s in at.sidebar.selectbox] == ["Game", "Run", "Campaign run", "Fight"]
    fight_box = at.sidebar.selectbox[3]
    assert fight_box.value == match_no
    [(earlier,)] = store_sql(campaign_store, "SELECT min(match_no) FROM campaign_nodes WHERE run_id = ? AND run_no = ?",
                             [run_id, run_no])
    assert earlier < match_no
    fight_box.select(earlier).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith(f"Run {run_id} · match {earlier} ·")
    assert any("agrees with the stored result" in s.value for s in at.success)
    assert at.query_params["match"] == str(earlier)


def test_campaign_page_without_campaign_runs_says_what_to_do(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("campaign").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("workbench simulate-run" in i.value for i in at.info)


# --- nothing to show yet --------------------------------------------------------------------------

@pytest.mark.parametrize("page", EVERY_PAGE)
def test_missing_database_says_what_to_do(page, tmp_path, monkeypatch):
    path = tmp_path / "nowhere" / "missing.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    infos = [i.value for i in at.info]
    assert any(WHAT_TO_RUN.get(page, "workbench simulate") in text for text in infos), infos
    assert any(str(path) in text for text in infos), infos
    assert not at.get("plotly_chart") and not at.dataframe and not at.metric
    assert not path.exists(), "looking at the dashboard must not create a store"


@pytest.mark.parametrize("page", EVERY_PAGE)
def test_empty_database_says_what_to_do(page, tmp_path, monkeypatch):
    path = tmp_path / "empty.duckdb"
    duckdb.connect(str(path)).close()  # a valid DuckDB file with no tables
    assert path.exists()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    infos = [i.value for i in at.info]
    assert any(WHAT_TO_RUN.get(page, "workbench simulate") in text for text in infos), infos
    assert not at.get("plotly_chart") and not at.dataframe and not at.metric


@pytest.mark.parametrize("page", PAGES)
def test_a_file_that_is_not_a_database_gives_a_warning(page, tmp_path, monkeypatch):
    path = tmp_path / "notes.duckdb"
    path.write_text("not a database\n")
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(str(path) in w.value for w in at.warning), [w.value for w in at.warning]
    assert not at.get("plotly_chart") and not at.dataframe


# --- the whole app --------------------------------------------------------------------------------

def test_whole_app_runs(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Overview"], "the Overview is the default page"
    newest = run_ids_newest_first(small_store)[0]
    assert int(metric(at, "Matches").replace(",", "")) == match_count(small_store, [newest])
    assert len(at.get("plotly_chart")) == 2


def test_whole_app_runs_without_a_store(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "missing.duckdb"))
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("workbench simulate" in i.value for i in at.info)


# --- the pages of the analytics issue -------------------------------------------------------------

def csv_of(at: AppTest, downloads: dict[str, bytes], name: str) -> list[dict]:
    button = [b for b in at.get("download_button") if b.label == f"Download {name} as CSV"]
    assert button, [b.label for b in at.get("download_button")]
    return list(csv.DictReader(io.StringIO(downloads[Path(button[0].proto.url).stem].decode("utf-8"))))


def table_labelled(at: AppTest, *columns: str):
    """The first table holding all these columns."""
    for frame in at.dataframe:
        if set(columns) <= set(frame.value.columns):
            return frame.value
    raise AssertionError(f"no table with columns {columns}")


def select_row(at: AppTest, key: str, row: int) -> AppTest:
    """Select one row of a table with single-row selection, as a click on its box would."""
    at.session_state[key] = {"selection": {"rows": [row], "columns": [], "cells": []}}
    return at.run()


def open_page(at: AppTest, url_path: str) -> AppTest:
    """Switch the whole app to one of its pages (a click in the sidebar navigation). The pages are
    functions, which ``AppTest.switch_page`` (file pages only) cannot reach; st.navigation keeps
    them by url path in the registry AppTest reads."""
    found = [h for h, info in at._registered_pages.items() if info.get("url_pathname") == url_path]
    assert found, f"no page {url_path!r}: {[i.get('url_pathname') for i in at._registered_pages.values()]}"
    at._page_hash = found[0]
    return at.run()


def card_played_by_winner(path: Path, run_id: int, match_no: int, seat: int, card: str) -> bool:
    return bool(store_sql(path, "SELECT count(*) FROM card_games WHERE run_id = ? AND match_no = ? AND seat = ? "
                                "AND card = ? AND played > 0 AND won", [run_id, match_no, seat, card])[0][0])


def test_selecting_a_card_shows_it_and_asks_for_its_example_replay(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("cards").run()
    table = at.dataframe[0].value
    assert not at.button, "no replay button before a card is selected"
    select_row(at, "cards_table", 0)
    assert not at.exception, [e.value for e in at.exception]
    top = table.iloc[0]
    assert [s.value for s in at.subheader] == [top["name"]]
    # the selected card's win rate by the turn it was first played: every game it was played in, once
    turns = table_labelled(at, "turn")
    assert turns["games"].sum() == top["played_games"]
    specs = plotly_specs(at)
    assert any(s["layout"]["xaxis"]["title"]["text"] == "Seat's own turn when first played" for s in specs)

    [button] = [b for b in at.button if b.label == "Replay an example match"]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    run_id, match_no, seat = (int(x[1:]) for x in table["example_win"].iloc[0].split("ex=")[1].split("-"))
    request = at.session_state["replay_request"]
    assert (request["run"], request["match"], request["seat"]) == (run_id, match_no, seat)
    assert at.query_params["run"] == str(run_id) and at.query_params["match"] == str(match_no)
    assert card_played_by_winner(small_store, run_id, match_no, seat, top["card"])


def test_three_clicks_from_cards_to_a_replay(small_store, monkeypatch):
    """Which card is too strong? Open Cards (1), select the top of the ranking (2), replay an
    example match (3): the app is on the replay of a match where that card was played and won."""
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT).run()
    open_page(at, "cards")
    assert [t.value for t in at.title] == ["Cards"]
    top = at.dataframe[0].value.iloc[0]
    select_row(at, "cards_table", 0)
    [b for b in at.button if b.label == "Replay an example match"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Match replay"]
    run_id, match_no, seat = (int(x[1:]) for x in top["example_win"].split("ex=")[1].split("-"))
    assert at.subheader[0].value.startswith(f"Run {run_id} · match {match_no} ·")
    assert any("agrees with the stored result" in s.value for s in at.success)
    assert any(c.value.startswith(f"Opened as an example of: {top['name']}") for c in at.caption)
    assert card_played_by_winner(small_store, run_id, match_no, seat, top["card"])


def test_keywords_page(small_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("keywords").run()
    assert not at.exception, [e.value for e in at.exception]
    # the only warning the page may give on 20 matches is the one about its own estimates
    # disagreeing in sign (which keywords it names depends on how the pilots played)
    assert not at.error
    assert all("point in opposite directions" in w.value for w in at.warning), [w.value for w in at.warning]
    newest = run_ids_newest_first(small_store)[0]
    exposed = dict(store_sql(small_store, """
        SELECT k.keyword, count(DISTINCT (cg.match_no, cg.seat)) FROM card_games cg JOIN runs r USING (run_id)
        JOIN (SELECT rules_hash, card, unnest(keywords) AS keyword FROM cards) k
             ON k.rules_hash = r.rules_hash AND k.card = cg.card
        WHERE cg.run_id = ? AND cg.played > 0 GROUP BY 1""", [newest]))
    assert exposed
    impact = table_labelled(at, "seats_exposed")
    assert dict(zip(impact["keyword"], impact["seats_exposed"])) == exposed
    seats = 2 * match_count(small_store, [newest])
    assert (impact["seats_exposed"] + impact["seats_unexposed"] == seats).all()
    # the model's effect beside the plain difference, each with its interval, in one chart
    chart = plotly_specs(at)[0]
    assert chart["layout"]["xaxis"]["title"]["text"] == "Difference in win rate (points)"
    assert chart["layout"]["xaxis2"]["title"]["text"] == "Odds ratio (log scale)"
    assert all(re.search(r"\(n=\d+\)$", y) for y in chart["data"][0]["y"])
    # 20 greedy matches of two decks: the per-card-played model meets separation (no estimate shown
    # rather than an absurd odds ratio); the opening-hand model is estimable
    for prefix in ("", "oh_"):
        modelled = impact[impact[f"{prefix}odds_ratio"].notna()]
        lo, mid, hi = (modelled[f"{prefix}odds_ratio{s}"] for s in ("_lo", "", "_hi"))
        assert ((lo <= mid) & (mid <= hi) & (np.log(hi) - np.log(lo) <= 20)).all()
    assert impact["oh_odds_ratio"].notna().sum() > 0
    rows = csv_of(at, downloads, "keyword_impact")
    assert {"keyword", "seats_exposed", "wr_with", "wr_without", "plain_diff", "plain_diff_lo", "plain_diff_hi",
            "log_odds", "log_odds_lo", "log_odds_hi", "odds_ratio", "p_value", "example_win"} <= set(rows[0])
    assert all(0 <= float(r["wr_with"]) <= 1 for r in rows), "the file holds rates, not percentages"
    # the price list: attack and defense priced for every fitted type, with intervals around the price
    prices = csv_of(at, downloads, "keyword_prices")
    assert {"attack", "defense"} <= {r["term"] for r in prices}
    assert all(float(r["cost_lo"]) <= float(r["cost"]) <= float(r["cost_hi"]) for r in prices)
    assert len(plotly_specs(at)) == 2


def test_cost_curves_page_counts_each_deck_once_across_rules_versions(diff_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = page_app("costs").run()
    both = run_ids_newest_first(diff_store)
    runs_multiselect(at).set_value(both).run()
    assert not at.exception, [e.value for e in at.exception]
    # the decks are the same under both versions: a deck's curve adds up to its list, per version
    sizes = dict(store_sql(diff_store, """SELECT deck, sum(copies) FROM (SELECT DISTINCT deck, card, copies
                                          FROM card_games WHERE run_id = ?) GROUP BY deck""", [both[0]]))
    curves = csv_of(at, downloads, "deck_curves")
    for version in ("base", "first-player-skips-draw"):
        totals: dict[str, int] = {}
        for r in curves:
            if r["rules_version"] == version:
                totals[r["deck"]] = totals.get(r["deck"], 0) + int(r["cards"])
        assert totals == sizes, version
    # a seat counts once per cost it played (not once per card), within its rules version
    played = store_sql(diff_store, f"""SELECT count(*) FROM (SELECT DISTINCT r.rules_hash, c.budget_cost, cg.run_id,
                                         cg.match_no, cg.seat FROM card_games cg JOIN runs r USING (run_id)
                                         JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
                                         WHERE cg.played > 0 AND cg.run_id IN ({both[0]}, {both[1]}))""")[0][0]
    win_rates = csv_of(at, downloads, "win_rate_by_cost")
    assert sum(int(r["games"]) for r in win_rates) == played
    assert {r["rules_version"] for r in win_rates} == {"base", "first-player-skips-draw"}
    titles = [s["layout"]["title"]["text"] for s in plotly_specs(at)]
    assert titles[0] == "Stat points against cost, with the fitted budget line per card type"
    budget = plotly_specs(at)[0]
    types = {r[0] for r in store_sql(diff_store, "SELECT DISTINCT type FROM cards WHERE stat_points IS NOT NULL")}
    # one budget line per type, or the reason it has none (Wild Frontier's 3 items: too few cards for a fit)
    named = [t["name"] for t in budget["data"] if " budget: " in t["name"] or "too few cards for a fit" in t["name"]]
    assert len(named) == len(types) and any("item: too few cards for a fit" in n for n in named)
    assert not any("nan" in t["name"] for t in budget["data"])
    # the cost filter narrows the win rate by cost to the chosen costs
    cost = [s for s in at.sidebar.slider if s.label == "Cost"][0]
    lo, hi = cost.value
    cost.set_value((lo, lo + 1)).run()
    shown = table_labelled(at, "win_rate")
    assert set(shown["cost"]) == {lo, lo + 1}


def test_matchups_page(small_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("matchups").run()
    assert not at.exception, [e.value for e in at.exception]
    newest = run_ids_newest_first(small_store)[0]
    pairs = {(d, o): (n, w) for d, o, n, w in store_sql(small_store, """
        SELECT a.deck, b.deck, count(*), count(*) FILTER (WHERE a.result = 'win') FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat
        WHERE a.run_id = ? GROUP BY 1, 2""", [newest])}
    heat = plotly_specs(at)[0]["data"][0]
    assert heat["type"] == "heatmap"
    for i, deck in enumerate(heat["y"]):
        for j, opponent in enumerate(heat["x"]):
            if (deck, opponent) in pairs:
                n, won = pairs[(deck, opponent)]
                assert heat["z"][i][j] == pytest.approx(100 * won / n)
                assert f"n={n:,}" in heat["text"][i][j] and "95% CI" in heat["customdata"][i][j]
    table = table_labelled(at, "opponent")
    assert all(str(u).startswith(f"replay?run={newest}&match=") for u in table["example"])
    field = csv_of(at, downloads, "deck_field")
    assert {r["deck"] for r in field} == {d for d, o in pairs if d != o}
    assert len(plotly_specs(at)) == 2


def test_version_diff_page(diff_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    at = page_app("diff").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error and not at.warning
    assert at.subheader[0].value == "base → first-player-skips-draw"
    base, candidate = sorted(run_ids_newest_first(diff_store))
    wins = [store_sql(diff_store, "SELECT count(*) FILTER (WHERE winner_seat = 0), count(*) FROM matches "
                                  "WHERE run_id = ?", [r])[0] for r in (base, candidate)]
    assert metric(at, "First-seat win rate") == f"{wins[0][0] / wins[0][1]:.1%} → {wins[1][0] / wins[1][1]:.1%}"
    assert metric(at, "Variance the pairing saved").endswith("%")
    decks = csv_of(at, downloads, "diff_decks")
    assert "(first seat)" in {r["deck"] for r in decks}
    assert all(int(r["twins"]) == wins[0][1] for r in decks), "every match has its twin"
    for r in decks:  # the paired interval is never wider than the unpaired one here
        assert float(r["change_hi"]) - float(r["change_lo"]) <= float(r["unpaired_hi"]) - float(r["unpaired_lo"]) + 1e-9
    cards = csv_of(at, downloads, "diff_cards")
    assert {"card", "change", "change_lo", "change_hi", "mcnemar_p", "q_value", "significant"} <= set(cards[0])
    significant = [r["card"] for r in cards if r["significant"] == "true"]
    assert metric(at, "Cards whose win rate moved") == str(len(significant))
    power = csv_of(at, downloads, "diff_power")
    assert [int(r["change_points"]) for r in power] == [1, 2, 5]
    assert all(int(r["paired_matches"]) <= int(r["unpaired_matches_per_version"]) for r in power)
    assert len(plotly_specs(at)) == 2


def test_version_diff_page_without_a_diff_says_how_to_make_one(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("diff").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("workbench diff" in i.value for i in at.info), [i.value for i in at.info]
    assert not at.get("plotly_chart") and not at.dataframe


def test_replay_page_rebuilds_the_stored_match(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    run_id = run_ids_newest_first(small_store)[0]
    at = page_app("replay")
    at.query_params["run"], at.query_params["match"] = str(run_id), "3"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith(f"Run {run_id} · match 3 ·")
    assert any("agrees with the stored result" in s.value for s in at.success)
    # this run kept its event log: the replay shows the very events stored, turn by turn
    stored = dict(store_sql(small_store, "SELECT turn, count(*) FROM events WHERE run_id = ? AND match_no = 3 "
                                         "GROUP BY turn", [run_id]))
    assert stored
    events = table_labelled(at, "event")
    assert events.groupby("turn").size().to_dict() == stored
    turns = store_sql(small_store, "SELECT turns FROM matches WHERE run_id = ? AND match_no = 3", [run_id])[0][0]
    seats = table_labelled(at, "turn", "hand")
    assert sorted(set(seats["turn"])) == list(range(1, turns + 1)), "the board after every turn"
    chart = plotly_specs(at)[0]
    assert chart["layout"]["xaxis"]["title"]["text"] == "Turn (player-turns)"
    assert len(chart["data"]) == 2, "one line per seat"


def test_replay_page_works_without_a_stored_event_log(diff_store, monkeypatch):
    """A diff's runs keep no event log: the replay plays the seed again, and offers the twin."""
    monkeypatch.setenv("WORKBENCH_DB", str(diff_store))
    candidate = max(run_ids_newest_first(diff_store))
    assert store_sql(diff_store, "SELECT count(*) FROM events WHERE run_id = ?", [candidate])[0][0] == 0
    at = page_app("replay").run()
    run_box = [s for s in at.sidebar.selectbox if s.label == "Run"][0]
    run_box.set_value(candidate).run()
    [n for n in at.sidebar.number_input if n.label == "Match"][0].set_value(5).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.subheader[0].value.startswith(f"Run {candidate} · match 5 ·")
    assert any("agrees with the stored result" in s.value for s in at.success)
    assert len(table_labelled(at, "event")) > 0
    assert at.query_params["run"] == str(candidate) and at.query_params["match"] == "5"
    [twin] = [b for b in at.button if b.label.startswith("Open its twin under base")]
    twin.click().run()
    assert at.session_state["replay_request"]["run"] == min(run_ids_newest_first(diff_store))
    at.run()  # the request moves the page to the twin
    assert at.subheader[0].value.startswith(f"Run {min(run_ids_newest_first(diff_store))} · match 5 ·")


def test_replay_page_names_an_unknown_run(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("replay")
    at.query_params["run"], at.query_params["match"] = "99", "0"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Run 99 is not in this store" in w.value for w in at.warning)


def test_pages_wait_for_a_writer_and_hold_nothing(small_store, monkeypatch):
    """While another process holds the store for writing, a page waits for it instead of failing;
    once drawn, the page holds no connection, so a writer can open the store at once."""
    import subprocess
    import sys

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    hold = ("import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); "
            "time.sleep(1.5); c.close()")
    writer = subprocess.Popen([sys.executable, "-c", hold, str(small_store)], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "held"
        at = page_app("cards").run()
    finally:
        writer.wait(timeout=30)
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert len(at.dataframe[0].value) > 0
    grab = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    assert subprocess.run([sys.executable, "-c", grab, str(small_store)], timeout=30).returncode == 0
