"""Each matchup row names the pilot that played its deck and the one that played the opponent, and
no row pools matches of two pilot pairings. Before, ``matchups`` pooled every match of a deck
against another whatever its pilots: in a run of greedy's goblin-gold-gang against random's
lawmen-posse (``--pilots greedy,random``: one pilot per deck slot) the rows said nothing of who
played, and runs of greedy and of random counted together gave one row blending both, a win rate
of the pilots as much as of the deck. ``deck_field`` and the Matchups page built on it. Each test
failed before the change."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from reports.filters import Filters
from reports.matchups import deck_field, matchups
from tests.conftest import run_cli
from tests.test_dashboard_edges import opened, store_sql

DECKS = "goblin-gold-gang,lawmen-posse"
MATCHES = 6


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory) -> Path:
    """Run 1: goblin-gold-gang played by greedy against lawmen-posse played by random."""
    db = tmp_path_factory.mktemp("mixed_pilots") / "m.duckdb"
    res = run_cli("simulate", "frontier", "--decks", DECKS, "--pilots", "greedy,random", "--matches", str(MATCHES),
                  "--workers", "1", "--db", str(db), "--quiet", "--seed", "3")
    assert res.returncode == 0, res.stderr
    return db


def pairs(frame) -> set[tuple[str, str, str, str]]:
    return set(frame.select("deck", "pilot", "opponent", "opponent_pilot").iter_rows())


def seat_counts(path: Path, run_id: int) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(deck, opponent) -> (games, won, drawn) of one run, counted straight from the store."""
    rows = store_sql(path, """
        SELECT a.deck, b.deck, count(*), count(*) FILTER (WHERE a.result = 'win'),
               count(*) FILTER (WHERE a.result = 'draw')
        FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat
        WHERE a.run_id = ? GROUP BY 1, 2""", [run_id])
    return {(d, o): (n, w, dr) for d, o, n, w, dr in rows}


# --- the tables ------------------------------------------------------------------------------------

def test_a_mixed_run_names_each_decks_pilot_and_its_games_add_up(mixed_store):
    m = matchups(mixed_store, Filters(runs=[1]))
    assert pairs(m) == {("goblin-gold-gang", "greedy", "lawmen-posse", "random"),
                        ("lawmen-posse", "random", "goblin-gold-gang", "greedy")}
    [[matches]] = store_sql(mixed_store, "SELECT count(*) FROM matches WHERE run_id = 1")
    assert matches == MATCHES and m["games"].sum() == 2 * matches  # every match, from each deck's side
    counted = seat_counts(mixed_store, 1)
    for r in m.iter_rows(named=True):
        assert (r["games"], r["won"], r["drawn"]) == counted[(r["deck"], r["opponent"])]
    field = deck_field(mixed_store, Filters(runs=[1]))
    assert set(field.select("deck", "pilot", "opponent_pilot").iter_rows()) == {
        ("goblin-gold-gang", "greedy", "random"), ("lawmen-posse", "random", "greedy")}
    assert field["games"].sum() == 2 * matches


def test_runs_of_two_pilots_counted_together_are_never_pooled(small_store):
    """The small store: run 1 is random against random, run 2 greedy against greedy. Counted
    together, each deck has a row per pilot, each that run's own count (before: one row of both)."""
    m = matchups(small_store, Filters(runs=[1, 2]))
    by_run = {"random": seat_counts(small_store, 1), "greedy": seat_counts(small_store, 2)}
    assert m.height == sum(len(c) for c in by_run.values())
    for r in m.iter_rows(named=True):
        assert r["pilot"] == r["opponent_pilot"]  # no match here seats two pilots
        assert (r["games"], r["won"], r["drawn"]) == by_run[r["pilot"]][(r["deck"], r["opponent"])]
    field = deck_field(small_store, Filters(runs=[1, 2]))
    assert sorted(field.select("deck", "pilot").iter_rows()) == sorted(
        (d, p) for d in DECKS.split(",") for p in ("greedy", "random"))
    for r in field.iter_rows(named=True):  # its example is a match of its own pilots' run
        run = 2 if r["pilot"] == "greedy" else 1
        assert all(e is None or e.startswith(f"r{run}-") for e in (r["example_win"], r["example_loss"]))


def test_a_one_pilot_run_gives_the_numbers_it_gave_before(small_store):
    """Where every seat had one pilot: a row per deck and opponent with the store's own counts and
    first match, as before, and the new columns naming that pilot; the field as the rows summed,
    with each deck's first win and loss against another deck as its examples."""
    m = matchups(small_store, Filters(runs=[2]))
    counted = seat_counts(small_store, 2)
    assert sorted(m.select("deck", "opponent").iter_rows()) == sorted(counted)
    assert set(m["pilot"]) == set(m["opponent_pilot"]) == {"greedy"}
    first = dict(((d, o), f"r2-m{k}") for d, o, k in store_sql(small_store, """
        SELECT a.deck, b.deck, min(a.match_no) FROM match_seats a
        JOIN match_seats b ON b.run_id = a.run_id AND b.match_no = a.match_no AND b.seat <> a.seat
        WHERE a.run_id = 2 GROUP BY 1, 2"""))
    for r in m.iter_rows(named=True):
        n, won, drawn = counted[(r["deck"], r["opponent"])]
        assert (r["games"], r["won"], r["drawn"], r["example"]) == (n, won, drawn, first[(r["deck"], r["opponent"])])
        assert r["win_rate"] == pytest.approx(won / n)
    field = deck_field(small_store, Filters(runs=[2]))
    assert set(field["pilot"]) == set(field["opponent_pilot"]) == {"greedy"}
    # the first seat of each deck that won against another deck, and the first that did not
    examples = {deck: {"example_win": f"r2-m{w // 16}-s{w % 16}", "example_loss": f"r2-m{lo // 16}-s{lo % 16}"}
                for deck, w, lo in store_sql(small_store, """
        SELECT cg.deck, min(cg.match_no * 16 + cg.seat) FILTER (WHERE cg.won),
               min(cg.match_no * 16 + cg.seat) FILTER (WHERE NOT cg.won)
        FROM card_games cg JOIN match_seats o ON o.run_id = cg.run_id AND o.match_no = cg.match_no AND o.seat <> cg.seat
        WHERE cg.run_id = 2 AND o.deck <> cg.deck GROUP BY 1""")}
    for r in field.iter_rows(named=True):
        others = [v for (d, o), v in counted.items() if d == r["deck"] and o != d]
        assert (r["games"], r["won"], r["drawn"]) == tuple(sum(v[i] for v in others) for i in range(3))
        assert (r["example_win"], r["example_loss"]) == (examples[r["deck"]]["example_win"],
                                                         examples[r["deck"]]["example_loss"])


def test_the_export_of_a_mixed_run_names_the_pilots_of_each_row(mixed_store):
    """``workbench export matchups`` keeps each row's pilots beside the group's (``match_pilots``)."""
    from reports.exports import export_frame

    table = export_frame(mixed_store, "matchups", Filters())
    assert set(table["match_pilots"]) == {"greedy+random"}
    assert pairs(table) == pairs(matchups(mixed_store, Filters(runs=[1])))


# --- the Matchups page -------------------------------------------------------------------------------

def heatmap_of(at) -> dict:
    [heat] = [s["data"][0] for s in (json.loads(el.proto.spec) for el in at.get("plotly_chart"))
              if s["data"][0]["type"] == "heatmap"]
    return heat


def field_bars(at) -> list[str]:
    [bars] = [s["data"][0]["y"] for s in (json.loads(el.proto.spec) for el in at.get("plotly_chart"))
              if s["layout"]["title"]["text"].startswith("Each deck against the field")]
    return bars


def shown_order(at, column: str) -> list[str]:
    """The column order of the first table holding ``column`` (empty: every column shown)."""
    [table] = [t for t in at.dataframe if column in t.value.columns][:1]
    return list(table.proto.column_order)


@pytest.mark.usefixtures("fresh_cache")
def test_the_page_labels_each_deck_with_its_pilot_when_pilots_are_mixed(mixed_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(mixed_store))
    at = opened("matchups", runs="1")
    labels = ["goblin-gold-gang (greedy)", "lawmen-posse (random)"]
    heat = heatmap_of(at)
    assert heat["y"] == labels and heat["x"] == labels
    assert heat["z"][0][1] is not None and heat["z"][1][0] is not None  # each deck's row against the other's
    assert any("Each row names the pilot" in c.value for c in at.caption)
    assert sorted(field_bars(at)) == [f"goblin-gold-gang (greedy against random, n={MATCHES})",
                                      f"lawmen-posse (random against greedy, n={MATCHES})"]
    assert shown_order(at, "opponent") == []  # every column, the pilots' too


@pytest.mark.usefixtures("fresh_cache")
def test_the_page_parts_two_pilots_runs_counted_together(small_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = opened("matchups", runs="1,2")
    heat = heatmap_of(at)
    assert heat["y"] == [f"{d} ({p})" for d in DECKS.split(",") for p in ("greedy", "random")]
    greedy, random = heat["y"].index("goblin-gold-gang (greedy)"), heat["x"].index("lawmen-posse (random)")
    assert heat["text"][greedy][random] == "no matches"  # greedy never met random here: nothing pooled


@pytest.mark.usefixtures("fresh_cache")
def test_the_page_of_one_pilot_reads_as_before_and_keeps_the_pilot_in_its_csv(small_store, monkeypatch,
                                                                            named_downloads):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = opened("matchups", runs="2")
    heat = heatmap_of(at)
    counted = seat_counts(small_store, 2)
    assert heat["y"] == sorted({d for d, _ in counted})  # plain deck names
    for i, deck in enumerate(heat["y"]):
        for j, opponent in enumerate(heat["x"]):
            if (deck, opponent) not in counted:  # the mirror: two decks, no mirror match played
                assert deck == opponent and heat["text"][i][j] == "no matches"
                continue
            n, won, _ = counted[(deck, opponent)]
            assert heat["z"][i][j] == pytest.approx(100 * won / n) and f"n={n:,}" in heat["text"][i][j]
    assert not any("Each row names the pilot" in c.value for c in at.caption)
    order = shown_order(at, "opponent")
    assert order and "pilot" not in order and "opponent_pilot" not in order and "games" in order
    files = {name: list(csv.DictReader(io.StringIO(data.decode("utf-8")))) for name, data in named_downloads.values()}
    [rows] = [rows for name, rows in files.items() if name.startswith("matchups")]
    assert {(r["pilot"], r["opponent_pilot"]) for r in rows} == {("greedy", "greedy")}
