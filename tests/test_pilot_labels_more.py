"""Every balance figure says which pilot produced it (an audit's findings 7-9): the skill premium's
"stronger pilot" reads a pilot's weight set (greedy = the game's measured set ranks above
greedy@hand) and the command, the export and the Cards page choose it alike; a diff's stored rows
export with their pilots; the play charts name their pilots under their title."""
import json

import duckdb
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import run_cli

DECKS = ["lawmen-posse", "goblin-gold-gang"]


def test_pilot_strength_reads_the_kind_then_the_budget_then_the_weight_set():
    from reports.pilot_sensitivity import pilot_strength

    names = ["mcts:100", "greedy@tuned", "planner@hand", "greedy", "mcts:100@hand", "random", "greedy@hand", "planner"]
    assert sorted(names, key=pilot_strength) == ["random", "greedy@hand", "greedy@tuned", "greedy", "planner@hand",
                                                 "planner", "mcts:100@hand", "mcts:100"]
    assert pilot_strength("greedy#1")[:4] == pilot_strength("greedy")[:4], "a salted twin is the same pilot"


@pytest.mark.parametrize("named, base, strong", [
    (["greedy@hand", "greedy"], "greedy@hand", "greedy"), (["greedy", "greedy@hand"], "greedy@hand", "greedy"),
    (["random", "greedy"], "random", "greedy"), (["mcts:200", "greedy", "random"], "greedy", "mcts:200"),
    (["random", "random#1"], "random", "random#1")])
def test_the_premium_s_pilots_do_not_depend_on_the_order_named(named, base, strong):
    from reports.pilot_sensitivity import premium_pilots

    b, s = premium_pilots(named)
    assert (named[b], named[s]) == (base, strong)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """greedy@hand and greedy (Frontier's tuned set) on the same 6 matches, named weakest last, and
    a diff of two rules versions whose decks two pilots played, with one sequential verdict."""
    import io

    from rich.console import Console

    from workbench.commands.pilot_sensitivity import run_pilot_sensitivity

    db = tmp_path_factory.mktemp("labels") / "l.duckdb"
    result = run_pilot_sensitivity("frontier", ["greedy@hand", "greedy"], 6, DECKS, 1, "base", 2, db, True, None,
                                   Console(file=io.StringIO(), width=200), Console(file=io.StringIO(), width=200))
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "second-seat-mana", "--matches", "6",
                  "--decks", ",".join(DECKS), "--pilots", "greedy,random", "--workers", "2", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    with duckdb.connect(str(db)) as con:
        diff_id = con.execute("SELECT max(diff_id) FROM diffs").fetchone()[0]
        # as a sequential diff (--until-decided) stores it, without playing its rounds
        con.execute("UPDATE diffs SET decision = 'undecided', matches_used = 6, delta_points = 3, delta0_points = 0, "
                    "alpha = 0.05, beta = 0.05 WHERE diff_id = ?", [diff_id])
        con.execute("INSERT INTO diff_verdicts VALUES (?, 'goblin-gold-gang', 6, -3.3, -10.5, 3.8, -1.0, 0.4, "
                    "'undecided')", [diff_id])
    return db, result, diff_id


def test_the_command_the_export_and_the_cards_page_choose_the_same_stronger_pilot(store):
    from reports.pilot_sensitivity import premium_partner, premium_table

    db, result, _ = store
    (hand_label, hand_run), (tuned_label, tuned_run) = result["runs"]
    assert (hand_label, tuned_label) == ("greedy@hand", "greedy")
    command = result["premium"]
    export = premium_table(db, [hand_run, tuned_run])
    for frame in (command, export):
        assert frame["base_pilot"].unique().to_list() == ["greedy@hand"]
        assert frame["strong_pilot"].unique().to_list() == ["greedy"]
    assert command.equals(export), "the same premium, the same sign"
    for run in (hand_run, tuned_run):
        partner = premium_partner(db, run)
        assert (partner["base_pilot"], partner["strong_pilot"]) == ("greedy@hand", "greedy")


@pytest.mark.parametrize("table", ["diffs", "diff_verdicts"])
def test_a_diff_s_stored_rows_export_with_its_pilots(store, table, tmp_path):
    db, _, diff_id = store
    out = tmp_path / f"{table}.csv"
    res = run_cli("export", table, "--csv", str(out), "--db", str(db))
    assert res.returncode == 0, res.stderr
    rows = pl.read_csv(out).filter(pl.col("diff_id") == diff_id)
    assert rows.height and rows.columns[-1] == "pilots"
    assert rows["pilots"].unique().to_list() == ["greedy (lawmen-posse), random (goblin-gold-gang)"]


def _subtitles(at) -> dict[str, str | None]:
    out = {}
    for el in at.get("plotly_chart"):
        title = json.loads(el.proto.spec).get("layout", {}).get("title", {})
        out[title.get("text")] = (title.get("subtitle") or {}).get("text")
    return out


def _page(db, page: str, monkeypatch, **kept) -> AppTest:
    import streamlit as st

    st.cache_data.clear()
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    at = AppTest.from_string(f"from reports.pages.{page} import render\nrender()", default_timeout=60)
    for key, value in kept.items():
        at.session_state[f"keep:{key}"] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_matchups_charts_name_their_one_pilot(store, monkeypatch):
    db, result, _ = store
    at = _page(db, "matchups", monkeypatch, game="frontier", runs=[result["runs"][0][1]])
    subtitles = _subtitles(at)
    assert subtitles["Deck against deck: the row deck's win rate"] == "Pilots: greedy@hand"
    assert subtitles["Each deck against the field (95% Wilson interval)"] == "Pilots: greedy@hand"


def test_the_diff_charts_name_the_pilots_deck_by_deck(store, monkeypatch):
    db, _, _ = store
    at = _page(db, "diff", monkeypatch)
    subtitles = _subtitles(at)
    assert subtitles and all(s == "Pilots: greedy (lawmen-posse), random (goblin-gold-gang)"
                             for s in subtitles.values()), subtitles


def test_the_campaign_lift_chart_tells_two_pilots_points_apart():
    from reports.pages.campaign import chart_pilots, lift_chart

    lift = pl.DataFrame({"card": ["kade", "kade"], "name": ["Kade", "Kade"], "clear_lift": [0.1, -0.1],
                         "clear_lift_lo": [0.0, -0.2], "clear_lift_hi": [0.2, 0.0], "clear_taken_n": [5, 5],
                         "clear_skipped_n": [6, 6], "rules_version": ["base"] * 2, "rules_hash": ["d9"] * 2,
                         "policy": ["random"] * 2, "fight_pilot": ["greedy", "random"], "enemy_pilot": ["random"] * 2})
    labels = list(lift_chart(lift).data[0].y)
    assert len(set(labels)) == 2 and "greedy vs random" in labels[0] + labels[1], labels
    assert chart_pilots(["greedy"], ["random"], ["planner"]) == ["greedy (fights)", "planner (enemies)",
                                                                "random (policy)"]


def _measured(db, run: int, pilots: str, value_id: int) -> None:
    """A stored card value (as `workbench value` records one) read off run ``run``."""
    with duckdb.connect(str(db)) as con:
        rules_hash = con.execute("SELECT rules_hash FROM runs WHERE run_id = ?", [run]).fetchone()[0]
        con.execute("""INSERT INTO card_value VALUES (?, 'frontier', 'base', ?, 'lawmen-posse', 'tin-star-recruit',
                       'Tin Star Recruit', 'reference-creature-1', 'goblin-gold-gang', ?, ?, ?, 2, 10, 0.5, 0.4, 10.0,
                       -5.0, 25.0, 0.3, 0.3, false, now())""", [value_id, rules_hash, pilots, run, run])


def test_the_report_s_card_values_are_its_pilots_named_deck_by_deck(store, tmp_path):
    import html
    import shutil

    from reports.html import build

    db = tmp_path / "v.duckdb"
    shutil.copy(store[0], db)
    (_, hand_run), _ = store[1]["runs"]
    with duckdb.connect(str(db)) as con:
        mixed_run = con.execute("SELECT base_run FROM diffs WHERE diff_id = ?", [store[2]]).fetchone()[0]
    _measured(db, hand_run, "greedy@hand", 1)
    _measured(db, mixed_run, "greedy,random", 2)
    page = html.unescape(build(db, [hand_run]))
    value = page[page.index("<h2>Card value"):]
    assert "piloted by greedy@hand (base)" in value
    assert "piloted by greedy,random" not in value and "piloted by lawmen-posse" not in value
    assert "1 ranking(s) measured under other pilots ([lawmen-posse: greedy; goblin-gold-gang: random])" in value
    page = html.unescape(build(db, [mixed_run]))
    value = page[page.index("<h2>Card value"):]
    assert "piloted by lawmen-posse: greedy; goblin-gold-gang: random (base)" in value
    assert "piloted by greedy@hand" not in value


def test_the_deck_s_seat_split_never_pools_two_pilots(store):
    from reports.deck_page import seat_split
    from reports.filters import Filters

    db, result, _ = store
    rows = seat_split(db, Filters(runs=[run for _, run in result["runs"]], decks=["lawmen-posse"]))
    assert sorted(set(rows.select("pilot", "seat").iter_rows())) == [
        ("greedy", "first"), ("greedy", "second"), ("greedy@hand", "first"), ("greedy@hand", "second")]
    assert rows["games"].sum() == 2 * 6, "lawmen-posse's one seat in each of a run's 6 matches, counted once"
