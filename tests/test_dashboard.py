"""The dashboard pages under Streamlit's AppTest, against a store filled by a real simulation.

Each page is run as a one-line script (``from reports.pages.X import render; render()``); the store
path reaches it through WORKBENCH_DB. Numbers on the page are checked against the store itself,
read here with duckdb directly."""
from __future__ import annotations

import base64
import csv
import io
import json
from pathlib import Path

import duckdb
import numpy as np
import pytest
import streamlit as st
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60
PAGES = ("overview", "cards", "campaign")


def page_app(page: str) -> AppTest:
    return AppTest.from_string(f"from reports.pages.{page} import render\nrender()", default_timeout=TIMEOUT)


@pytest.fixture(autouse=True)
def fresh_cache():
    """Page queries are cached in-process (st.cache_data); no test may see another's results."""
    st.cache_data.clear()
    yield
    st.cache_data.clear()


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The bytes behind each st.download_button, by media file id.

    AppTest stores download data in an in-memory media store it throws away after each run, so
    record what is put in it."""
    stored: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def recording(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        stored[file_id] = path_or_data if isinstance(path_or_data, bytes) else Path(path_or_data).read_bytes()
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", recording)
    return stored


def store_sql(path: Path, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


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
    assert titles == ["Win reasons", "Game length"]
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

    specs = plotly_specs(at)
    assert len(specs) == 1
    bars = specs[0]["data"][0]
    assert bars["type"] == "bar" and len(plotly_values(bars["y"])) > 0
    assert np.all((plotly_values(bars["x"]) >= 0) & (plotly_values(bars["x"]) <= 100))

    assert len(at.dataframe) == 1
    table = at.dataframe[0].value
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

    faction = [w for w in at.sidebar.multiselect if w.label == "Faction"][0]
    keep = faction.options[0]
    faction.set_value([keep]).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert len(table) > 0 and set(table["faction"]) == {keep}


def test_campaign_shows_clear_rates_and_reward_lift(campaign_store, monkeypatch, downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = page_app("campaign").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [s.value for s in at.subheader] == ["Clear rate by crew", "Reward cards: win-rate lift when taken"]
    bars = plotly_specs(at)[0]["data"][0]
    rates = store_sql(campaign_store, "SELECT crew, avg(cleared::INT) FROM campaign_runs GROUP BY crew ORDER BY crew")
    assert sorted(plotly_values(bars["x"]).tolist()) == sorted(100 * r for _c, r in rates)
    assert len(at.dataframe) == 2
    names = [b.proto.label for b in at.get("download_button")]
    assert names == ["Download campaign_clear_rates as CSV", "Download campaign_reward_lift as CSV"]
    sheet = next(v for v in downloads.values() if v.startswith(b"stage,crew"))
    assert sheet.count(b"\n") == 3  # a header and one row per crew


def test_campaign_page_without_campaign_runs_says_what_to_do(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("campaign").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("workbench simulate-run" in i.value for i in at.info)


# --- nothing to show yet --------------------------------------------------------------------------

@pytest.mark.parametrize("page", PAGES)
def test_missing_database_says_what_to_do(page, tmp_path, monkeypatch):
    path = tmp_path / "nowhere" / "missing.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    infos = [i.value for i in at.info]
    assert any("workbench simulate" in text for text in infos), infos
    assert any(str(path) in text for text in infos), infos
    assert not at.get("plotly_chart") and not at.dataframe and not at.metric
    assert not path.exists(), "looking at the dashboard must not create a store"


@pytest.mark.parametrize("page", PAGES)
def test_empty_database_says_what_to_do(page, tmp_path, monkeypatch):
    path = tmp_path / "empty.duckdb"
    duckdb.connect(str(path)).close()  # a valid DuckDB file with no tables
    assert path.exists()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(page).run()
    assert not at.exception, [e.value for e in at.exception]
    infos = [i.value for i in at.info]
    assert any("workbench simulate" in text for text in infos), infos
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
