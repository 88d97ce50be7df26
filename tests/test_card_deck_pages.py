"""The Card and Deck pages (issue 18, item 4) under Streamlit's AppTest, on a store filled by a real
simulation: what they show is checked against the store itself, read here with SQL; ``?card=``
and ``?deck=`` open them; the search box finds a card by part of its name and opens its page;
empty and missing stores give the friendly states."""
from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from reports import db
from reports.find import find
from tests.test_dashboard import (
    ROOT,
    TIMEOUT,
    open_page,
    page_app,
    plotly_specs,
    plotly_values,
    store_sql,
    table_labelled,
)

pytestmark = pytest.mark.usefixtures("fresh_cache")
DECK = "lawmen-posse"


def most_played_card(path: Path) -> tuple[str, str]:
    """(id, name) of the deck card (one with copies in a deck list, not a Deputy) played in the most
    games of the store, with a tie broken by id."""
    return tuple(store_sql(path, """SELECT cg.card, any_value(c.name) FROM card_games cg JOIN runs r USING (run_id)
                                    JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card
                                    WHERE cg.played > 0 AND cg.copies > 0 GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1""")[0])


def item_page(kind: str, path: Path, monkeypatch, item: str | None) -> AppTest:
    """The Card or Deck page alone on ``?<kind>=item`` (no parameter when None)."""
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = page_app(kind)
    if item is not None:
        at.query_params[kind] = item
    return at.run()


def card_page(path: Path, monkeypatch, card: str | None) -> AppTest:
    return item_page("card", path, monkeypatch, card)


def deck_page(path: Path, monkeypatch, deck: str | None) -> AppTest:
    return item_page("deck", path, monkeypatch, deck)


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def chart_titled(at: AppTest, start: str) -> dict:
    found = [s for s in plotly_specs(at) if (s["layout"].get("title") or {}).get("text", "").startswith(start)]
    assert found, [(s["layout"].get("title") or {}).get("text") for s in plotly_specs(at)]
    return found[0]


# --- the card page ---------------------------------------------------------------------------------

def test_card_page_shows_the_card_its_budget_and_its_figures(small_store, monkeypatch):
    card, name = most_played_card(small_store)
    at = card_page(small_store, monkeypatch, card)
    no_exception(at)
    assert [h.value for h in at.header] == [name]
    assert {"Across runs and rules versions", "By deck", "By the turn it was first played",
            "Opening hand and mulligans", "On the play and on the draw", "Example matches"} <= {s.value for s in at.subheader}
    facts = next(m.value for m in at.markdown if m.value.startswith(f"**{name}**"))
    assert "Cost: " in facts and "Stats: " in facts and "Keywords: " in facts
    cost, stat_points, budget_points = store_sql(small_store, "SELECT budget_cost, stat_points, budget_points FROM cards "
                                                              "WHERE card = ? LIMIT 1", [card])[0]
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Budget cost"]) == cost and float(metrics["Stat points"]) == stat_points
    assert float(metrics["Budget points of its cost"]) == budget_points
    assert any(c.value.startswith("Pilots: greedy, random.") for c in at.caption), "the page names its pilots"


def test_card_trend_has_a_point_per_run_and_pilot_with_its_interval(small_store, monkeypatch):
    card, name = most_played_card(small_store)
    at = card_page(small_store, monkeypatch, card)
    spec = chart_titled(at, f"{name}: played win rate by run")
    played = dict(store_sql(small_store, "SELECT run_id, count(*) FROM card_games WHERE card = ? AND played > 0 "
                                         "GROUP BY 1", [card]))
    pilots = dict(store_sql(small_store, "SELECT run_id, pilots FROM runs"))
    traces = {t["name"]: t for t in spec["data"]}
    # a line per pilots of the match: each run here is one pilot against itself ("greedy,greedy")
    assert set(traces) == {f"pilots {pilots[r].split(',')[0]}" for r in played}
    for run_id, n in played.items():
        trace = traces[f"pilots {pilots[run_id].split(',')[0]}"]
        assert [x for x in trace["x"] if x.startswith(f"run {run_id} ")] and f"n={n:,}" in trace["text"]
        assert len(plotly_values(trace["error_y"]["array"])) == len(trace["x"]), "every point has its interval"
    table = table_labelled(at, "label", "played_games")
    assert dict(zip(table["run_id"], table["played_games"])) == played


def test_card_trend_by_rules_version(diff_store, monkeypatch):
    card, name = most_played_card(diff_store)
    at = card_page(diff_store, monkeypatch, card)
    at.radio(key="card_trend_by").set_value("rules version").run()
    no_exception(at)
    spec = chart_titled(at, f"{name}: played win rate by rules version")
    versions = [v for (v,) in store_sql(diff_store, "SELECT rules_version FROM runs ORDER BY run_id")]
    assert list(spec["data"][0]["x"]) == versions, "one point per rules version, in the order first run"


def test_card_by_deck_turn_and_play_draw_tables_count_the_stores_games(small_store, monkeypatch):
    card, _ = most_played_card(small_store)
    at = card_page(small_store, monkeypatch, card)
    by_deck = table_labelled(at, "deck", "gp_wr", "oh_excess")
    games = dict(store_sql(small_store, "SELECT deck, count(*) FROM card_games WHERE card = ? AND copies > 0 "
                                        "GROUP BY 1", [card]))
    assert {d.split("=")[-1]: n for d, n in zip(by_deck["deck"], by_deck["games"])} == games
    assert all(d.startswith("deck?deck=") for d in by_deck["deck"]), "a deck links to its page"
    turns = table_labelled(at, "turn", "win_rate")
    played = store_sql(small_store, "SELECT count(*) FROM card_games WHERE card = ? AND played > 0", [card])[0][0]
    assert turns["games"].sum() == played
    split = table_labelled(at, "seat", "counted")
    stored = dict(store_sql(small_store, "SELECT on_play, count(*) FROM card_games WHERE card = ? AND copies > 0 "
                                         "GROUP BY 1", [card]))
    in_deck = split[split["counted"] == "in the deck"]
    assert dict(zip(in_deck["seat"], in_deck["games"])) == {"first": stored[True], "second": stored[False]}
    assert set(split["counted"]) == {"in the deck", "in the opening hand", "played"}


def test_card_opening_hand_table_and_no_redraw_in_frontier(small_store, monkeypatch):
    """Keep/redraw figures are tests/test_mulligan.py's; Wild Frontier has no redraw, said in one line."""
    card, _ = most_played_card(small_store)
    at = card_page(small_store, monkeypatch, card)
    said = [m.value for m in at.markdown if "redraw" in m.value.lower() and "Kept or redrawn" not in m.value]
    assert len(said) == 1 and said[0].startswith("**No redraw** in frontier"), [m.value for m in at.markdown]
    opening = table_labelled(at, "oh_games", "not_oh_games")
    oh = store_sql(small_store, "SELECT count(*) FROM card_games WHERE card = ? AND in_opening_hand > 0", [card])[0][0]
    assert opening["oh_games"].sum() == oh


def test_card_examples_link_to_replays_where_it_was_played(small_store, monkeypatch):
    card, _ = most_played_card(small_store)
    at = card_page(small_store, monkeypatch, card)
    links = next(m.value for m in at.markdown if "played in [a win" in m.value)
    run_id, match_no, seat = _first_example(links)
    assert store_sql(small_store, "SELECT count(*) FROM card_games WHERE run_id = ? AND match_no = ? AND seat = ? "
                                  "AND card = ? AND played > 0 AND won", [run_id, match_no, seat, card])[0][0] == 1
    assert f"(replay?run={run_id}&match={match_no}&seat={seat}&ex=" in links


def _first_example(markdown: str) -> tuple[int, int, int]:
    key = markdown.split("[a win (", 1)[1].split(")", 1)[0]  # r<run>-m<match>-s<seat>
    return tuple(int(part[1:]) for part in key.split("-"))


def test_an_unknown_card_is_named_and_no_card_asks_for_one(small_store, monkeypatch):
    at = card_page(small_store, monkeypatch, "no-such-card")
    no_exception(at)
    assert any("no-such-card" in w.value for w in at.warning)
    assert not at.dataframe and not at.get("plotly_chart")
    at = card_page(small_store, monkeypatch, None)
    assert any("Find a card above" in i.value for i in at.info)


# --- the deck page ---------------------------------------------------------------------------------

def test_deck_page_shows_its_list_curve_opponents_seats_and_ranked_cards(small_store, monkeypatch):
    at = deck_page(small_store, monkeypatch, DECK)
    no_exception(at)
    assert [h.value for h in at.header] == [DECK]
    newest = store_sql(small_store, "SELECT max(run_id) FROM match_seats WHERE deck = ?", [DECK])[0][0]
    copies = dict(store_sql(small_store, "SELECT card, max(copies) FROM card_games WHERE run_id = ? AND deck = ? "
                                         "AND copies > 0 GROUP BY 1", [newest, DECK]))
    listed = table_labelled(at, "card", "name", "copies")
    assert {c.split("=")[-1]: n for c, n in zip(listed["card"], listed["copies"])} == copies
    assert chart_titled(at, "How many cards of each cost each deck runs")
    curve = table_labelled(at, "cost", "cards")
    assert curve["cards"].sum() == sum(copies.values())
    # a row per opponent and pilot pairing (reports/matchups.py: the store holds runs of two pilots)
    versus = {(o, p, q): n for o, p, q, n in store_sql(small_store, """
        SELECT b.deck, a.pilot, b.pilot, count(*) FROM match_seats a JOIN match_seats b
        ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat WHERE a.deck = ? GROUP BY ALL""", [DECK])}
    opponents = table_labelled(at, "opponent", "win_rate")
    assert {(o.split("=")[-1], p, q): n for o, p, q, n in zip(opponents["opponent"], opponents["pilot"],
                                                             opponents["opponent_pilot"], opponents["games"])} == versus
    assert len({p for _o, p, _q in versus}) > 1, "the store holds runs of two pilots: rows per pairing are tested"
    # a row per seat and pilot pairing (the seat split pools no pilots)
    seats = table_labelled(at, "seat", "drawn")
    stored = {(("first", "second")[s], p, q): n for s, p, q, n in store_sql(small_store, """
        SELECT a.seat, a.pilot, b.pilot, count(*) FROM match_seats a JOIN match_seats b
        ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat WHERE a.deck = ? GROUP BY ALL""", [DECK])}
    assert {(s, p, q): n for s, p, q, n in zip(seats["seat"], seats["pilot"], seats["opponent_pilot"],
                                                seats["games"])} == stored
    ranked = table_labelled(at, "rank", "oh_excess")
    assert list(ranked["rank"]) == list(range(1, len(ranked) + 1))
    in_list = ranked[ranked["copies"].notna()]
    assert {c.split("=")[-1]: n for c, n in zip(in_list["card"], in_list["copies"])} == copies, \
        "every card of the list, with its copies (and what it played from outside the list, such as Deputies)"
    known = ranked["oh_excess"].dropna()
    assert list(known) == sorted(known, reverse=True), "ranked by what each adds to the deck"
    assert chart_titled(at, "What each card adds to its own deck")


def test_an_unknown_deck_is_named(small_store, monkeypatch):
    at = deck_page(small_store, monkeypatch, "no-such-deck")
    no_exception(at)
    assert any("no-such-deck" in w.value for w in at.warning)


# --- the search box --------------------------------------------------------------------------------

def test_find_matches_part_of_a_name_or_id_in_any_case():
    cards = pl.DataFrame({"card": ["ash-wraith", "iron-horse-cavalry", "sheriff-x", "horse-thief"],
                          "name": ["Ash Wraith", "Iron Horse Cavalry", None, "Horse Thief"]})
    assert [r["id"] for r in find(cards, ["lawmen-posse"], "WRAI")] == ["ash-wraith"]
    assert [r["id"] for r in find(cards, ["lawmen-posse"], "sheriff")] == ["sheriff-x"], "a card without a name"
    assert [(r["kind"], r["id"]) for r in find(cards, ["lawmen-posse", "horse-deck"], "horse")] == \
        [("card", "horse-thief"), ("card", "iron-horse-cavalry"), ("deck", "horse-deck")], "names starting so first"
    assert [r["id"] for r in find(cards, ["lawmen-posse"], "Posse")] == ["lawmen-posse"]
    assert find(cards, ["lawmen-posse"], "  ") == []


def test_search_finds_a_card_by_part_of_its_name_and_opens_it(small_store, monkeypatch):
    card, name = most_played_card(small_store)
    part = name.split()[-1][1:].upper()  # the middle of a word, in another case
    at = card_page(small_store, monkeypatch, None)
    at.text_input(key="find-card").input(part).run()
    no_exception(at)
    button = at.button(key=f"find-card-card-{card}")
    assert name in button.label
    button.click().run()
    no_exception(at)
    assert at.query_params["card"] in (card, [card])
    assert [h.value for h in at.header] == [name]


def test_search_finds_a_deck_and_the_cards_page_sidebar_opens_the_card_page(small_store, monkeypatch):
    card, name = most_played_card(small_store)
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT).run()
    open_page(at, "cards")
    at.sidebar.text_input(key="find-cards").input(name.lower()).run()
    at.sidebar.button(key=f"find-cards-card-{card}").click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Card"] and [h.value for h in at.header] == [name]
    at = deck_page(small_store, monkeypatch, None)
    at.text_input(key="find-deck").input("POSSE").run()
    at.button(key=f"find-deck-deck-{DECK}").click().run()
    assert [h.value for h in at.header] == [DECK]


# --- the app opens them by URL ----------------------------------------------------------------------

@pytest.mark.parametrize("kind, item", [("card", None), ("deck", DECK)])
def test_the_app_opens_the_pages_by_url(small_store, monkeypatch, kind, item):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    item = item or most_played_card(small_store)[0]
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT)
    at.query_params[kind] = item
    at.run()
    open_page(at, kind)
    no_exception(at)
    assert [t.value for t in at.title] == [kind.title()]
    assert at.header and at.header[0].value in (item, most_played_card(small_store)[1])


def test_a_link_naming_only_a_card_opens_the_game_that_holds_it(small_store, tmp_path, monkeypatch):
    path = tmp_path / "two-games.duckdb"
    shutil.copy(small_store, path)
    with db.connect(path, read_only=False) as con:  # the newest run is another game's: the default game
        con.execute("INSERT INTO runs SELECT * REPLACE (3 AS run_id, 'alleyway' AS game) FROM runs WHERE run_id = 2")
    card, name = most_played_card(small_store)
    at = card_page(path, monkeypatch, card)
    no_exception(at)
    assert at.session_state["keep:game"] == ["frontier"] and [h.value for h in at.header] == [name]


# --- nothing to show yet ----------------------------------------------------------------------------

@pytest.mark.parametrize("page", ["card", "deck"])
def test_missing_and_empty_stores_say_what_to_do(page, tmp_path, monkeypatch):
    missing = tmp_path / "nowhere" / "missing.duckdb"
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    for path in (missing, empty):
        monkeypatch.setenv("WORKBENCH_DB", str(path))
        at = page_app(page).run()
        no_exception(at)
        assert any("workbench simulate" in i.value for i in at.info), [i.value for i in at.info]
        assert not at.get("plotly_chart") and not at.dataframe and not at.metric
    assert not missing.exists(), "looking at the dashboard must not create a store"
    garbage = tmp_path / "notes.duckdb"
    garbage.write_text("not a database\n")
    monkeypatch.setenv("WORKBENCH_DB", str(garbage))
    at = page_app(page).run()
    no_exception(at)
    assert any(str(garbage) in w.value for w in at.warning)


@pytest.mark.parametrize("page", ["card", "deck"])
def test_a_store_without_duel_runs_says_so(page, campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = page_app(page).run()
    no_exception(at)
    assert any("no duel runs" in i.value for i in at.info), [i.value for i in at.info]
    assert not at.get("plotly_chart") and not at.dataframe


def test_every_deck_page_download_names_the_runs_and_deck_it_counts(small_store, monkeypatch, named_downloads):
    """Not the runs or deck another page kept: the page counts every duel run of the game, one deck."""
    import csv
    import io

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("deck")
    at.query_params["deck"] = DECK
    at.session_state["keep:runs"] = [2]  # chosen on the Cards page, say
    at.session_state["keep:decks"] = ["goblin-gold-gang"]
    at.run()
    no_exception(at)
    runs = [r for (r,) in store_sql(small_store, "SELECT run_id FROM runs ORDER BY 1")]
    buttons = at.get("download_button")
    assert len(buttons) == len(at.dataframe) >= 5, [b.label for b in buttons]
    for button in buttons:
        name, data = named_downloads[Path(button.proto.url).stem]
        assert name.endswith(f"__frontier__runs-{'-'.join(map(str, runs))}.csv"), name
        rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
        # a deck list is no pilot's play: its curve's file names no pilots
        played = "" if name.startswith("deck_curves") else "; pilots=greedy,random"
        assert {r["filters"] for r in rows} == {
            f"game=frontier; runs={','.join(map(str, runs))}; decks={DECK}{played}"}, name


def test_the_card_is_described_from_the_games_own_runs_and_a_changed_card_is_said_to_be_pooled(
        small_store, tmp_path, monkeypatch):
    """A what-if's trial run, newest in the store, plays the card as the designer changed it
    (+1 attack): the page describes the card as the game's own runs play it, not the trial's, and
    says the runs counted play two cards under one id, which the tables pool; a rules version
    chosen in the sidebar reads one card and no warning."""
    path = tmp_path / "store.duckdb"
    shutil.copy2(small_store, path)
    shutil.copytree(Path(f"{small_store}.events"), Path(f"{path}.events"))
    card, name = most_played_card(path)
    with duckdb.connect(str(path)) as con:
        (base_hash, greedy_run), = con.execute("SELECT rules_hash, max(run_id) FROM runs GROUP BY 1").fetchall()
        con.execute("""INSERT INTO runs SELECT * REPLACE (run_id + 1 AS run_id, 'try-' || ? AS rules_version,
                       'trial-hash' AS rules_hash, base_seed + 1000 AS base_seed) FROM runs WHERE run_id = ?""",
                    [card, greedy_run])
        con.execute("INSERT INTO cards SELECT * REPLACE ('try-' || ? AS rules_version, 'trial-hash' AS rules_hash, "
                    "CASE WHEN card = ? THEN attack + 1 ELSE attack END AS attack, "
                    "CASE WHEN card = ? THEN stat_points + 1 ELSE stat_points END AS stat_points) "
                    "FROM cards WHERE rules_hash = ?", [card, card, card, base_hash])
        con.execute("INSERT INTO card_games SELECT * REPLACE (run_id + 1 AS run_id) FROM card_games WHERE run_id = ?",
                    [greedy_run])
        attack, points = con.execute("SELECT attack, stat_points FROM cards WHERE card = ? AND rules_hash = ?",
                                     [card, base_hash]).fetchone()
    at = card_page(path, monkeypatch, card)
    no_exception(at)
    facts = next(m.value for m in at.markdown if m.value.startswith(f"**{name}**"))
    assert "rules version base" in facts and "try-" not in facts, facts
    assert float({m.label: m.value for m in at.metric}["Stat points"]) == points, "its budget is base's card's"
    warned = [w.value for w in at.warning if "not the same card" in w.value]
    assert len(warned) == 1, [w.value for w in at.warning]
    assert "base: " in warned[0] and f"try-{card}: " in warned[0], warned[0]
    assert f"{attack}/" in warned[0] and f"{attack + 1}/" in warned[0], warned[0]
    at.multiselect(key="w:rules").set_value(["base"]).run()
    no_exception(at)
    assert not [w.value for w in at.warning if "not the same card" in w.value]
