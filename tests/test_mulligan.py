"""Keep or redraw (issue 18, item 4): the card ledger records the hand as first dealt and whether
the seat redrew; the farm stores both (``card_games.in_dealt_hand``, ``redrew``, and
``match_seats.redrew``); reports/mulligan.py counts kept and redrawn hands per card and deck on
hand-made tables; a store from before the columns answers with empty tables."""
from __future__ import annotations

import csv
import io
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import polars as pl
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from reports import mulligan
from reports.filters import Filters
from reports.stats import diff_interval, wilson
from tests.alleyway_common import act, alleyway
from tests.conftest import run_cli
from tests.hand_store import insert_run
from tests.test_dashboard import plotly_specs, plotly_values, table_labelled
from workbench.store import SCHEMA

DECKS = "cinder-wildfire,graves-garrison"


# --- the ledger ------------------------------------------------------------------------------------

def redrawn_match(seed: int = 3):
    """A seeded AlleyWay match where seat 0 redraws and seat 1 keeps, with the hands each seat
    held before the decision."""
    eng, pool, _data, _rules, decks = alleyway()
    state = eng.new_match(pool, [decks["cinder-wildfire"], decks["graves-garrison"]], seed)
    dealt = [list(side.hand) for side in state.sides]
    act(eng, state, "redraw", "keep")
    return state, dealt


def test_the_ledger_keeps_the_dealt_hand_beside_the_hand_kept_after_a_redraw():
    state, dealt = redrawn_match()
    ledger, first, second = state.ledger, state.sides[0], state.sides[1]
    assert Counter(first.hand) != Counter(dealt[0]), "the redraw dealt seat 0 another hand"
    assert ledger.dealt[0] == Counter(dealt[0]) and ledger.opening[0] == Counter(first.hand)
    assert ledger.dealt[1] == ledger.opening[1] == Counter(dealt[1]) == Counter(second.hand)
    assert ledger.redrew == [True, False]
    rows = {row.card: row for row in ledger.rows(0)}
    assert {c: r.dealt for c, r in rows.items() if r.dealt} == Counter(dealt[0])
    assert {c: r.opening for c, r in rows.items() if r.opening} == Counter(first.hand)


def test_a_game_without_a_redraw_deals_its_opening_hand_and_asks_nobody(frontier):
    eng, pool, _data, _rules, decks = frontier
    state = eng.new_match(pool, decks, 11)
    assert state.ledger.redrew == [None, None]
    for seat, side in enumerate(state.sides):
        dealt = Counter(state.ledger.dealt[seat])
        assert dealt == state.ledger.opening[seat] and dealt.total() >= 3
        assert not dealt - Counter(side.hand), "still in the hand (the first turn's draw added to it)"


# --- the farm ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def alley_store(tmp_path_factory) -> Path:
    """40 random-pilot AlleyWay matches of one pairing (random pilots redraw about half the time)."""
    path = tmp_path_factory.mktemp("mulligan") / "alley.duckdb"
    res = run_cli("simulate", "alleyway", "--decks", DECKS, "--matches", "40", "--pilots", "random",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    return path


def sql(path: Path, text: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(text, params or []).fetchall()
    finally:
        con.close()


def test_a_farm_run_stores_the_dealt_hand_and_the_choice(alley_store):
    per_seat = sql(alley_store, """SELECT cg.match_no, cg.seat, sum(cg.in_dealt_hand), sum(cg.in_opening_hand),
                                          bool_and(cg.redrew = s.redrew), count(DISTINCT cg.redrew), any_value(s.redrew),
                                          bool_and(cg.in_dealt_hand = cg.in_opening_hand)
                                   FROM card_games cg JOIN match_seats s USING (run_id, match_no, seat)
                                   GROUP BY ALL""")
    assert len(per_seat) == 80
    for _match, _seat, dealt, opening, agrees, kinds, redrew, same_hand in per_seat:
        assert dealt == opening == 5 and agrees and kinds == 1, "a 5-card hand dealt, the seat's choice on every row"
        assert redrew is not None, "every AlleyWay seat is offered the redraw"
        if not redrew:
            assert same_hand, "a seat that kept plays the hand it was dealt"
    choices = Counter(row[6] for row in per_seat)
    assert choices[True] and choices[False], choices
    assert any(row[6] and not row[7] for row in per_seat), "some redraw brought other cards"


def test_the_stored_dealt_hand_is_the_ledgers(alley_store):
    """Match 0 played again in-process from its stored seed and seats: the same dealt hands and choices."""
    from sim.core.match import play_match

    eng, pool, _data, _rules, decks = alleyway()
    seed, swapped = sql(alley_store, "SELECT seed, swapped FROM matches WHERE match_no = 0")[0]
    names = DECKS.split(",")[::-1] if swapped else DECKS.split(",")
    result = play_match(eng, pool, [decks[n] for n in names], seed, ["random", "random"], log=False)
    for seat in (0, 1):
        stored = dict(sql(alley_store, "SELECT card, in_dealt_hand FROM card_games WHERE match_no = 0 AND seat = ? "
                                       "AND in_dealt_hand > 0", [seat]))
        assert stored == {eng.card_name(pool, c): n for c, n in result.ledger.dealt[seat].items()}
        assert sql(alley_store, "SELECT redrew FROM match_seats WHERE match_no = 0 AND seat = ?", [seat])[0][0] \
            == result.ledger.redrew[seat]


def test_a_frontier_run_stores_the_opening_hand_as_dealt_and_no_choice(small_store):
    rows = sql(small_store, "SELECT count(*), count_if(in_dealt_hand = in_opening_hand), count(redrew) FROM card_games")
    assert rows[0][0] > 0 and rows[0][1] == rows[0][0] and rows[0][2] == 0
    assert sql(small_store, "SELECT count(redrew) FROM match_seats")[0][0] == 0


# --- the report on a planted table --------------------------------------------------------------------

# (match, seat, deck, won, redrew, dealt cards): seat rows of one run; every seat's deck holds a, b
PLANTED = [
    (0, 0, "x", True, False, {"a"}), (0, 1, "y", False, True, {"a", "b"}),
    (1, 0, "x", False, True, {"a"}), (1, 1, "y", True, False, {"b"}),
    (2, 0, "x", True, False, {"a", "b"}), (2, 1, "y", False, False, set()),
    (3, 0, "x", True, True, {"a"}), (3, 1, "y", False, None, {"a"}),  # seat 1 of match 3: never offered
]


@pytest.fixture
def planted(tmp_path) -> Path:
    path = tmp_path / "planted.duckdb"
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    insert_run(con, matches_target=4)
    con.execute("INSERT INTO cards (game, rules_version, rules_hash, card, name) VALUES ('g', 'base', 'h1', 'a', 'A')")
    for match, seat, deck, won, redrew, dealt in PLANTED:
        result = "win" if won else "loss"
        con.execute("INSERT INTO match_seats (run_id, match_no, seat, team, deck, pilot, result, redrew) "
                    "VALUES (1, ?, ?, ?, ?, 'p', ?, ?)", [match, seat, seat, deck, result, redrew])
        for card in ("a", "b"):
            con.execute("INSERT INTO card_games (run_id, match_no, seat, deck, pilot, card, copies, in_opening_hand, "
                        "drawn, played, on_play, won, result, in_dealt_hand, redrew) "
                        "VALUES (1, ?, ?, ?, 'p', ?, 1, 0, 0, 0, ?, ?, ?, ?, ?)",
                        [match, seat, deck, card, seat == 0, won, result, int(card in dealt), redrew])
    con.close()
    return path


def test_card_mulligan_counts_kept_and_redrawn_hands_with_their_intervals(planted):
    rows = {r["card"]: r for r in mulligan.card_mulligan(planted, Filters()).iter_rows(named=True)}
    a, b = rows["a"], rows["b"]
    # a dealt to offered seats: kept in m0 s0 (won), m2 s0 (won); redrawn in m0 s1 (lost), m1 s0 (lost), m3 s0 (won)
    assert (a["name"], a["dealt_games"], a["kept_games"], a["kept_won"], a["redrawn_games"], a["redrawn_won"]) == \
        ("A", 5, 2, 2, 3, 1)
    assert (a["kept_wr"], a["redrawn_wr"], a["keep_rate"]) == (1.0, pytest.approx(1 / 3), 0.4)
    lo, hi = wilson([2, 1, 2], [2, 3, 5])
    assert (a["kept_wr_lo"], a["redrawn_wr_lo"], a["keep_rate_lo"]) == pytest.approx(tuple(lo))
    assert (a["kept_wr_hi"], a["redrawn_wr_hi"], a["keep_rate_hi"]) == pytest.approx(tuple(hi))
    d_lo, d_hi = diff_interval([2], [2], [1], [3])
    assert a["kept_minus_redrawn"] == pytest.approx(200 / 3)
    assert (a["kept_minus_redrawn_lo"], a["kept_minus_redrawn_hi"]) == pytest.approx((d_lo[0] * 100, d_hi[0] * 100))
    # b: kept in m1 s1 (won) and m2 s0 (won), redrawn in m0 s1 (lost); no card definition, so no name
    assert (b["name"], b["kept_games"], b["kept_won"], b["redrawn_games"], b["redrawn_won"]) == (None, 2, 2, 1, 0)


def test_card_mulligan_by_deck_and_filtered(planted):
    by_deck = {(r["card"], r["deck"]): r for r in mulligan.card_mulligan(planted, Filters(), by_deck=True)
               .iter_rows(named=True)}
    assert (by_deck["a", "x"]["kept_games"], by_deck["a", "x"]["redrawn_games"]) == (2, 2)
    assert (by_deck["a", "y"]["kept_games"], by_deck["a", "y"]["redrawn_games"]) == (0, 1)
    assert by_deck["a", "y"]["kept_minus_redrawn"] != by_deck["a", "y"]["kept_minus_redrawn"], "NaN with no kept side"
    only_y = mulligan.card_mulligan(planted, Filters(decks=["y"]))
    assert dict(zip(only_y["card"], only_y["dealt_games"])) == {"a": 1, "b": 2}


def test_deck_keep_rates_count_the_seats_offered(planted):
    decks = {r["deck"]: r for r in mulligan.deck_mulligan(planted, Filters()).iter_rows(named=True)}
    x, y = decks["x"], decks["y"]
    assert (x["seats"], x["offered"], x["kept"], x["kept_won"], x["redrawn"], x["redrawn_won"]) == (4, 4, 2, 2, 2, 1)
    assert (y["seats"], y["offered"], y["kept"], y["kept_won"], y["redrawn"], y["redrawn_won"]) == (4, 3, 2, 1, 1, 0)
    assert (x["keep_rate"], y["keep_rate"], y["kept_wr"]) == (0.5, pytest.approx(2 / 3), 0.5)
    lo, hi = wilson([2], [3])
    assert (y["keep_rate_lo"], y["keep_rate_hi"]) == pytest.approx((lo[0], hi[0]))
    assert mulligan.hand_records(planted, Filters()) == {"card_rows": 16, "unrecorded": 0, "seats": 8, "offered": 7,
                                                         "redrew": 3}


def test_the_card_pages_rows_per_deck_and_for_all_its_decks(planted):
    from reports.card_page import keep_redraw

    rows = keep_redraw(mulligan.card_mulligan(planted, Filters(), by_deck=True),
                       mulligan.deck_mulligan(planted, Filters()), "a")
    assert rows["deck"].to_list() == ["x", "y", "all decks"], "the deck dealt it most first"
    assert rows["deck_keep_rate"].to_list() == pytest.approx([0.5, 2 / 3, 4 / 7])
    pooled = mulligan.card_mulligan(planted, Filters()).filter(pl.col("card") == "a").row(0, named=True)
    total = rows.filter(pl.col("deck") == "all decks").row(0, named=True)
    assert {c: total[c] for c in mulligan.CARD_COLUMNS} == pytest.approx({c: pooled[c] for c in mulligan.CARD_COLUMNS})
    assert keep_redraw(mulligan.card_mulligan(planted, Filters(decks=["x"]), by_deck=True),
                       mulligan.deck_mulligan(planted, Filters()), "a")["deck"].to_list() == ["x"]


def test_the_exports_are_the_reports_tables(planted):
    from reports.exports import EXPORTS, export_frame

    assert {"card_mulligan", "card_mulligan_by_deck", "deck_mulligan"} <= set(EXPORTS)
    exported = export_frame(planted, "card_mulligan", Filters())
    assert exported["pilot"].n_unique() == 1  # one pilot in this store: its table, headed by it
    assert exported.drop("pilot", "card_set").equals(mulligan.card_mulligan(planted, Filters()))
    by_deck = export_frame(planted, "card_mulligan_by_deck", Filters(decks=["x"]))
    assert set(by_deck["deck"]) == {"x"} and by_deck["kept_games"].sum() == 3
    assert export_frame(planted, "deck_mulligan", Filters())["offered"].to_list() == [4, 3]


def drop_recorded_columns(path: Path) -> None:
    """Make ``path`` look like a store from before dealt hands were recorded."""
    con = duckdb.connect(str(path))
    for table, column in (("card_games", "in_dealt_hand"), ("card_games", "redrew"), ("match_seats", "redrew")):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.close()


def test_a_store_from_before_the_columns_gives_empty_tables(planted):
    drop_recorded_columns(planted)
    assert not mulligan.recorded(planted)
    assert mulligan.card_mulligan(planted, Filters()).is_empty()
    assert mulligan.card_mulligan(planted, Filters(), by_deck=True).columns[:3] == ["game", "card", "deck"]
    assert mulligan.deck_mulligan(planted, Filters()).is_empty()
    assert mulligan.hand_records(planted, Filters()) == {"card_rows": 16, "unrecorded": 16, "seats": 8, "offered": 0,
                                                         "redrew": 0}


def test_rows_stored_before_the_columns_count_as_unrecorded(planted, tmp_path):
    copy = tmp_path / "older.duckdb"
    shutil.copy(planted, copy)
    con = duckdb.connect(str(copy))
    con.execute("UPDATE card_games SET in_dealt_hand = NULL, redrew = NULL WHERE match_no < 2")
    con.close()
    records = mulligan.hand_records(copy, Filters())
    assert (records["card_rows"], records["unrecorded"]) == (16, 8)
    assert mulligan.card_mulligan(copy, Filters()).filter(pl.col("card") == "a")["dealt_games"].to_list() == [2]


# --- the Card page ---------------------------------------------------------------------------------

def card_page_on(path: Path, card: str, monkeypatch) -> AppTest:
    from tests.test_card_deck_pages import card_page

    st.cache_data.clear()  # page queries are cached in-process: no test may see another store's
    return card_page(path, monkeypatch, card)


def most_dealt_card(path: Path) -> str:
    return sql(path, "SELECT card FROM card_games WHERE in_dealt_hand > 0 AND copies > 0 GROUP BY 1 "
                     "ORDER BY count(*) DESC, 1 LIMIT 1")[0][0]


def kept_or_redrawn_table(at: AppTest):
    assert "##### Kept or redrawn" in [m.value for m in at.markdown]
    return table_labelled(at, "kept_games", "redrawn_games")


def test_the_card_page_splits_the_hands_dealt_it_into_kept_and_redrawn(alley_store, monkeypatch, downloads):
    card = most_dealt_card(alley_store)
    at = card_page_on(alley_store, card, monkeypatch)
    assert not at.exception, [e.value for e in at.exception]
    table = kept_or_redrawn_table(at)
    stored = {deck: (kept, redrawn) for deck, kept, redrawn in sql(alley_store, """
        SELECT deck, count_if(NOT redrew), count_if(redrew) FROM card_games
        WHERE card = ? AND in_dealt_hand > 0 GROUP BY 1""", [card])}
    shown = {d: (k, r) for d, k, r in zip(table["deck"], table["kept_games"], table["redrawn_games"])}
    assert {d: v for d, v in shown.items() if d != "all decks"} == stored
    if len(stored) > 1:
        assert shown["all decks"] == tuple(map(sum, zip(*stored.values())))
    keep = dict(sql(alley_store, "SELECT deck, avg(CASE WHEN redrew THEN 0 ELSE 1 END) FROM match_seats GROUP BY 1"))
    for deck, rate in zip(table["deck"], table["deck_keep_rate"]):
        if deck in keep:
            assert rate == pytest.approx(keep[deck] * 100), "the deck's keep rate over all its hands, as a percentage"
    spec = next(c for c in plotly_specs(at) if "kept or redrawn" in (c["layout"].get("title") or {}).get("text", ""))
    bars = {t["name"]: t for t in spec["data"]}
    assert set(bars) == {"kept the hand", "redrew the hand"}
    assert list(bars["kept the hand"]["y"]) == list(table["deck"])
    assert list(plotly_values(bars["kept the hand"]["x"])) == pytest.approx(list(table["kept_wr"]), nan_ok=True)
    assert [f"n={n:,}" for n in table["redrawn_games"]] == list(bars["redrew the hand"]["text"])
    rows = csv_rows(at, downloads, f"card_mulligan_{card}")
    assert {r["deck"] for r in rows} == set(shown)
    assert [(r["kept_games"], r["redrawn_games"]) for r in rows] == \
        [(str(k), str(r)) for k, r in zip(table["kept_games"], table["redrawn_games"])]


def test_the_card_page_says_a_game_without_a_redraw_has_none(small_store, monkeypatch):
    card = most_dealt_card(small_store)
    at = card_page_on(small_store, card, monkeypatch)
    said = [m.value for m in at.markdown if "No redraw" in m.value]
    assert said == ["**No redraw** in frontier: its rules offer none in these runs, so the opening hand is the hand "
                    "as dealt."]
    assert not [f for f in at.dataframe if "kept_games" in f.value.columns]


def test_a_store_from_before_the_columns_still_renders_the_card_page(alley_store, tmp_path, monkeypatch):
    old = tmp_path / "old.duckdb"
    shutil.copy(alley_store, old)
    drop_recorded_columns(old)
    card = most_dealt_card(alley_store)
    at = card_page_on(old, card, monkeypatch)
    assert not at.exception, [e.value for e in at.exception]
    assert any("**not recorded**" in m.value for m in at.markdown)
    assert table_labelled(at, "oh_games", "not_oh_games") is not None, "the rest of the section still shows"
    assert not [f for f in at.dataframe if "kept_games" in f.value.columns]


def test_every_card_page_table_downloads_with_the_runs_it_counts(alley_store, monkeypatch, named_downloads):
    """Each table has its CSV, named with the game and the runs the page counts, its filters in a
    column; what another page kept (its runs, a deck) is not what this page counted."""
    from tests.test_dashboard import page_app

    card = most_dealt_card(alley_store)
    monkeypatch.setenv("WORKBENCH_DB", str(alley_store))
    st.cache_data.clear()
    at = page_app("card")
    at.query_params["card"] = card
    at.session_state["keep:runs"] = [7]  # chosen on the Cards page of another store, say
    at.session_state["keep:decks"] = ["graves-garrison"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    buttons = at.get("download_button")
    assert len(buttons) == len(at.dataframe) >= 6, [b.label for b in buttons]
    for button in buttons:
        name, data = named_downloads[Path(button.proto.url).stem]
        assert name.endswith("__alleyway__runs-1.csv"), name
        rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
        assert rows and {r["filters"] for r in rows} == {"game=alleyway; runs=1; pilots=random"}, (name, rows[:1])


def csv_rows(at: AppTest, downloads: dict[str, bytes], name: str) -> list[dict]:
    button = [b for b in at.get("download_button") if b.label == f"Download {name} as CSV"]
    assert button, [b.label for b in at.get("download_button")]
    assert button[0].proto.url and name in button[0].proto.label
    return list(csv.DictReader(io.StringIO(downloads[Path(button[0].proto.url).stem].decode("utf-8"))))
