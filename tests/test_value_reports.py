"""What reads the ``card_value`` table (``workbench value``'s measurements): reports/value.py, the
``card_value`` export, the Card value page and the HTML report's section. The rows are made by
hand (tests/value_common.py) in a store made by Store.init."""
from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from reports.value import COLUMNS, card_values
from tests.conftest import cli_here
from tests.value_common import add_card_values, value_rows
from workbench.store import Store

LEAD = ["game", "rules_version", "deck", "card", "name", "copies", "twins", "value_points", "value_lo", "value_hi",
        "p_value", "q_value"]
GREEDY_LAWMEN = ["marshal-gunhand", "tin-star-recruit", "deadeye-shot"]  # the latest rows, best first
HINT = "workbench value frontier --deck lawmen-posse --all --matches 1000"
pytestmark = pytest.mark.usefixtures("fresh_cache")  # the page caches its queries in-process


def new_store(path: Path, rows: list[dict] | None = None) -> Path:
    Store(path).init()
    if rows:
        add_card_values(path, rows)
    return path


@pytest.fixture
def value_store(tmp_path) -> Path:
    return new_store(tmp_path / "value.duckdb", value_rows())


@pytest.fixture
def old_store(tmp_path) -> Path:
    """A store from before ``workbench value``: no card_value table."""
    path = new_store(tmp_path / "old.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute("DROP TABLE card_value")
    return path


# --- reports/value.py -------------------------------------------------------------------------------

def test_latest_measurement_per_card_ranked_within_deck(value_store):
    frame = card_values(value_store)
    assert list(frame.columns) == list(COLUMNS)
    greedy = frame.filter(deck="lawmen-posse", rules_version="base", pilots="greedy")
    assert greedy["card"].to_list() == GREEDY_LAWMEN
    # the card measured again counts once, with its newer measurement
    assert greedy.filter(card="tin-star-recruit").select("value_id", "value_points", "twins").row(0) == (2, 3.0, 4000)
    assert greedy["value_points"].to_list() == sorted(greedy["value_points"].to_list(), reverse=True)
    # another pilot or rules version is another measured quantity, kept beside it
    assert frame.filter(card="marshal-gunhand").select("rules_version", "pilots").rows() == [
        ("base", "greedy"), ("base", "random"), ("first-player-skips-draw", "greedy")]
    assert frame.height == len(value_rows()) - 1


def test_a_card_without_twins_ranks_last_with_empty_figures(tmp_path):
    empty = dict(value_rows()[0], value_id=9, card="hanging-judge", name="Hanging Judge", twins=0,
                 **dict.fromkeys(("wr_with", "wr_without", "value_points", "value_lo", "value_hi", "p_value",
                                  "q_value"), float("nan")))
    path = new_store(tmp_path / "nan.duckdb", value_rows()[:1] + [empty])
    frame = card_values(path)
    assert frame["card"].to_list() == ["marshal-gunhand", "hanging-judge"]
    assert frame.row(1, named=True)["value_points"] is None and frame["p_value"].null_count() == 1


def test_every_measurement_when_not_latest_and_the_filters(value_store):
    everything = card_values(value_store, latest=False)
    assert everything.height == len(value_rows())
    assert sorted(everything.filter(card="tin-star-recruit")["value_id"].to_list()) == [1, 2]
    assert set(card_values(value_store, decks=["goblin-gold-gang"])["card"]) == {"goblin-cutpurse"}
    assert set(card_values(value_store, versions=["first-player-skips-draw"])["value_id"]) == {5}
    assert card_values(value_store, game="alleyway").is_empty()


def test_a_store_without_the_table_gives_the_same_empty_frame(old_store, tmp_path):
    missing = card_values(old_store)
    assert missing.is_empty()
    assert missing.schema == card_values(new_store(tmp_path / "empty.duckdb")).schema
    assert card_values(tmp_path / "nowhere.duckdb").is_empty()


def test_export_writes_the_documented_columns_first(value_store, tmp_path):
    out = tmp_path / "card_value.csv"
    res = cli_here("export", "card_value", "--csv", str(out), "--game", "frontier", "--rules", "base",
                  "--deck", "lawmen-posse", "--db", str(value_store))
    assert res.returncode == 0, res.stderr
    assert "wrote 4 rows of card_value" in res.stderr
    with open(out, encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]
    assert header[:len(LEAD)] == LEAD
    assert set(header) == set(COLUMNS)
    assert [r["card"] for r in body if r["pilots"] == "greedy"] == GREEDY_LAWMEN
    top = body[0]
    assert (top["name"], top["copies"], top["twins"], top["value_points"], top["value_lo"], top["value_hi"]) == (
        "Marshal Gunhand", "3", "2000", "5.0", "2.0", "8.0")
    assert (top["wr_with"], top["significant"], top["created_at"]) == ("0.55", "true", "2025-01-01T12:00:00")


# --- the Card value page ------------------------------------------------------------------------------

def value_page(path: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_string("from reports.pages.value import render\nrender()", default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.title] == ["Card value"]
    return at


def sidebar_box(at: AppTest, label: str):
    found = [s for s in at.sidebar.selectbox if s.label == label]
    assert found, [s.label for s in at.sidebar.selectbox]
    return found[0]


def test_page_ranks_the_cards_with_intervals_and_names_the_pilots(value_store, monkeypatch, downloads):
    at = value_page(value_store, monkeypatch)
    assert not at.warning and not at.error
    # the page opens on the newest measurement, and offers pilots only where a deck has several
    assert [s.label for s in at.sidebar.selectbox] == ["Game", "Rules version", "Deck"]
    assert (sidebar_box(at, "Rules version").value, sidebar_box(at, "Deck").value) == (
        "first-player-skips-draw", "lawmen-posse")
    sidebar_box(at, "Rules version").set_value("base").run()
    assert sidebar_box(at, "Deck").value == "lawmen-posse", "measurement 4, the newest under base"
    assert [s.label for s in at.sidebar.selectbox] == ["Game", "Rules version", "Deck", "Pilots"]
    assert sidebar_box(at, "Pilots").value == "random"
    sidebar_box(at, "Pilots").set_value("greedy").run()
    assert sidebar_box(at, "Pilots").value == "greedy"
    assert at.subheader[0].value == "lawmen-posse against the field, piloted by greedy (base)"
    assert any("Pilots: **greedy**" in m.value for m in at.markdown)
    assert any("vanilla reference card of the same cost, on the same seeds and seats" in c.value for c in at.caption)

    [chart] = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert "piloted by greedy" in chart["layout"]["title"]["text"]
    bars = chart["data"][0]
    assert bars["orientation"] == "h"
    assert chart["layout"]["yaxis"]["categoryarray"][::-1] == bars["y"], "the best card on top"
    assert [y.split(" ×")[0] for y in bars["y"]] == ["Marshal Gunhand", "Tin Star Recruit", "Deadeye Shot"]
    assert list(bars["x"]) == [5.0, 3.0, -4.0]
    assert list(bars["error_x"]["array"]) == [3.0, 2.0, 3.0] and list(bars["error_x"]["arrayminus"]) == [3.0, 2.0, 3.0]
    assert bars["marker"]["color"][0] != bars["marker"]["color"][2], "a card that adds and one that costs"
    assert bars["customdata"][1][2:5] == [4000, 3, "vanilla-3"], "hover: twins, copies, reference"
    assert "q (BH)" in bars["hovertemplate"]

    table = at.dataframe[0].value
    assert table["card"].tolist() == GREEDY_LAWMEN
    assert table["wr_with"].tolist() == pytest.approx([55, 53, 47]), "rates shown as percentages"
    [button] = [b for b in at.get("download_button") if b.label == "Download card_value as CSV"]
    rows = list(csv.DictReader(io.StringIO(downloads[Path(button.proto.url).stem].decode("utf-8"))))
    assert [r["card"] for r in rows] == GREEDY_LAWMEN
    assert float(rows[0]["wr_with"]) == 0.55 and rows[0]["pilots"] == "greedy", "the file keeps the stored values"

    sidebar_box(at, "Pilots").set_value("random").run()
    assert at.subheader[0].value == "lawmen-posse against the field, piloted by random (base)"
    assert at.dataframe[0].value["value_points"].tolist() == [1.0]
    sidebar_box(at, "Deck").set_value("goblin-gold-gang").run()
    assert [s.label for s in at.sidebar.selectbox] == ["Game", "Rules version", "Deck"]
    assert at.dataframe[0].value["card"].tolist() == ["goblin-cutpurse"]


def test_page_says_which_deck_had_which_pilot_when_they_differ(tmp_path, monkeypatch):
    """A measurement of lawmen-posse played by greedy against goblin-gold-gang played by random
    stores its pilots as "greedy,random"; the title reads them deck by deck from its base run."""
    rows = [r | {"pilots": "greedy,random", "base_run": 1} for r in value_rows() if r["value_id"] == 1]
    path = new_store(tmp_path / "mixed.duckdb", rows)
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO runs (run_id, game, rules_version, rules_hash, decks, pilots, matches_target, "
                    "chunks_target, base_seed, swap, event_sample, spec, spec_hash, status, created_at, updated_at, "
                    "kind) VALUES (1, 'frontier', 'base', 'hash-base', 'lawmen-posse,goblin-gold-gang', 'greedy,random', "
                    "2, 1, 1, true, 0, '{}', 'h1', 'done', now(), now(), 'duel')")
    at = value_page(path, monkeypatch)
    words = "lawmen-posse: greedy; goblin-gold-gang: random"
    assert at.subheader[0].value == f"lawmen-posse against the field, piloted by {words} (base)"
    assert any(f"Pilots: **{words}**" in m.value for m in at.markdown)


@pytest.mark.parametrize("store", ["empty", "old"])
def test_page_without_a_measurement_says_what_to_run(store, tmp_path, old_store, monkeypatch):
    path = new_store(tmp_path / "empty.duckdb") if store == "empty" else old_store
    at = value_page(path, monkeypatch)
    assert any(HINT in i.value for i in at.info), [i.value for i in at.info]
    assert not at.get("plotly_chart") and not at.dataframe and not at.warning


# --- the HTML report ------------------------------------------------------------------------------------

def test_html_report_has_the_card_value_section(small_store, tmp_path):
    from reports.html import build

    path = tmp_path / "report.duckdb"
    shutil.copy(small_store, path)
    with duckdb.connect(str(path), read_only=True) as con:
        [(run_id, game)] = con.execute("SELECT max(run_id), any_value(game) FROM runs").fetchall()
    assert "Card value" not in build(path, [run_id])
    # each measurement's runs as stored: the store's greedy run (the report's) or its random one
    with duckdb.connect(str(path), read_only=True) as con:
        pilots_run = dict(con.execute("SELECT pilots, max(run_id) FROM runs GROUP BY 1").fetchall())
    add_card_values(path, [r | {"base_run": pilots_run[f"{r['pilots']},{r['pilots']}"]} for r in value_rows(game)])
    text = build(path, [run_id])
    section = text[text.index("<h2>Card value</h2>"):]
    assert text.index("Cards that over- and under-perform") < text.index("<h2>Card value</h2>") < text.index("<h2>Keywords")
    for title in ("lawmen-posse against the field, piloted by greedy (base)",
                  "goblin-gold-gang against the field, piloted by greedy (base)"):
        assert title in section
    # a ranking measured under other pilots than the report's run is named in a note, not shown
    assert "lawmen-posse against the field, piloted by random (base)" not in section
    assert "measured under other pilots" in section and "random" in section.split("measured under other pilots", 1)[1][:200]
    assert "first-player-skips-draw" not in section, "only the report's rules version"
    ranked = section[section.index("lawmen-posse against the field, piloted by greedy (base)"):]
    assert ranked.index("Marshal Gunhand") < ranked.index("Tin Star Recruit") < ranked.index("Deadeye Shot")
    assert "+5.0" in ranked and "2.0 to 8.0" in ranked
    assert section.count("Win rate added per card") == 2, "a chart per ranking shown (two: the random one is left out)"


# --- the Cards page -------------------------------------------------------------------------------------

def test_cards_page_shows_the_newest_card_value_beside_each_card(small_store, tmp_path, monkeypatch, downloads):
    from tests.test_dashboard import csv_of, page_app

    path = tmp_path / "cards.duckdb"
    shutil.copy(small_store, path)
    shutil.copytree(f"{small_store}.events", f"{path}.events")
    with duckdb.connect(str(path), read_only=True) as con:
        [(game, rules_hash)] = con.execute("SELECT any_value(game), any_value(rules_hash) FROM runs "
                                           "WHERE rules_version = 'base'").fetchall()
    measured = [{**r, "rules_hash": rules_hash} for r in value_rows(game)
                if r["pilots"] == "greedy" and r["rules_version"] == "base"]
    # a newer measurement of the same name under another card set (an edited data folder's "base"):
    # not the value of the cards these runs played
    gunhand = next(r for r in measured if r["card"] == "marshal-gunhand")
    other_set = {**gunhand, "value_id": 99, "rules_hash": "hash-edited", "value_points": 40.0}
    add_card_values(path, measured + [other_set])
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app("cards").run()
    assert not at.exception, [e.value for e in at.exception]
    rows = {r["card"]: r for r in csv_of(at, downloads, "card_stats")}
    assert float(rows["marshal-gunhand"]["value_points"]) == 5.0, "its own card set's, not the newer 40.0"
    assert float(rows["tin-star-recruit"]["value_points"]) == 3.0, "the newer measurement"
    assert rows["tin-star-recruit"]["value_by"] == "lawmen-posse vs field, greedy (base)"
    unmeasured = [r for c, r in rows.items() if c not in GREEDY_LAWMEN]
    assert unmeasured and all(r["value_points"] == "" for r in unmeasured)


def test_a_version_measured_under_two_card_sets_is_two_rankings(tmp_path, monkeypatch):
    """A version edited between two measurements (or of one name in two data folders) ranked an
    edited 6/6 Gunhand beside the shipped cards as one measurement."""
    rows = [r for r in value_rows() if r["value_id"] == 1]
    edited = {**rows[0], "value_id": 6, "rules_hash": "hash-edited", "value_points": 22.5, "base_run": 11,
              "variant_run": 12, "created_at": rows[0]["created_at"].replace(day=9)}
    path = new_store(tmp_path / "sets.duckdb", rows + [edited])
    frame = card_values(path)
    gunhand = frame.filter(card="marshal-gunhand")
    assert sorted(gunhand["rules_hash"].to_list()) == ["hash-base", "hash-edited"]  # both kept, not the newer alone
    from reports.value import contexts
    assert len(contexts(frame)) == 2
    at = value_page(path, monkeypatch)
    assert "Card set" in [s.label for s in at.sidebar.selectbox]
    assert at.subheader[0].value.endswith("(base, card set hash-edi)"), at.subheader[0].value
    shown = at.dataframe[0].value
    assert len(shown) == 1, shown  # the edited card set's ranking alone
