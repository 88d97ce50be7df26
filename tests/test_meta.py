"""The meta a rational field would play (reports/meta.py): the equilibrium of hand-made matrices
with known answers, the bootstrap's determinism, hand-made store tables (draws, seeds, left-out
decks, duel runs only), and a real run through the export, the Matchups page and the HTML report."""
from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import polars as pl
import pytest

from reports import html, meta
from reports.exports import export_frame
from reports.filters import Filters
from tests.test_dashboard import csv_of, page_app, table_labelled
from workbench.store import MIGRATIONS, SCHEMA

# rock beats scissors, scissors paper, paper rock: each 70% (payoff +0.2)
RPS = np.array([[0.5, 0.3, 0.7],
                [0.7, 0.5, 0.3],
                [0.3, 0.7, 0.5]])


def test_rock_paper_scissors_is_played_in_equal_shares():
    shares, value = meta.equilibrium(RPS)
    assert shares == pytest.approx([1 / 3] * 3)
    assert value == pytest.approx(0, abs=1e-9)
    assert meta.against_mix(RPS, shares) == pytest.approx([0.5] * 3)


def test_a_dominated_deck_gets_no_share():
    # the fourth deck does 10 points worse than rock against everyone (and loses to rock)
    rates = np.array([[0.5, 0.3, 0.7, 0.6],
                      [0.7, 0.5, 0.3, 0.8],
                      [0.3, 0.7, 0.5, 0.4],
                      [0.4, 0.2, 0.6, 0.5]])
    shares, _ = meta.equilibrium(rates)
    assert shares == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=1e-9)
    assert meta.against_mix(rates, shares) == pytest.approx([0.5, 0.5, 0.5, 0.4])


def test_a_dominant_deck_takes_the_whole_field():
    rates = np.array([[0.5, 0.6, 0.55],
                      [0.4, 0.5, 0.9],
                      [0.45, 0.1, 0.5]])
    shares, _ = meta.equilibrium(rates)
    assert shares == pytest.approx([1, 0, 0], abs=1e-9)
    assert meta.against_mix(rates, shares) == pytest.approx([0.5, 0.4, 0.45])


def test_the_value_of_a_symmetric_game_is_zero():
    rng = np.random.default_rng(3)
    for _ in range(50):
        k = int(rng.integers(2, 8))
        upper = np.triu(rng.uniform(0, 1, (k, k)), 1)
        rates = upper + np.tril(1 - upper.T, -1) + np.eye(k) * 0.5
        mix, value = meta.maximin(meta.payoff(rates))
        assert value == pytest.approx(0, abs=1e-9)
        assert mix.sum() == pytest.approx(1) and (mix >= 0).all()
        # no deck beats the equilibrium, and every deck it plays breaks even against it
        shares, _ = meta.equilibrium(rates)
        against = meta.against_mix(rates, shares)
        assert (against <= 0.5 + 1e-9).all() and against[shares > 0] == pytest.approx(0.5)


def test_tied_decks_split_toward_equal_shares():
    """Any mix is an equilibrium of two decks at exactly 50%; the tie-break picks equal shares,
    not whichever vertex the solver meets first. Two identical decks in a rock-paper-scissors
    field share rock's third between them (the L1 tie-break need not split it evenly)."""
    shares, _ = meta.equilibrium([[0.5, 0.5], [0.5, 0.5]])
    assert shares == pytest.approx([0.5, 0.5])
    twins = np.array([[0.5, 0.5, 0.3, 0.7], [0.5, 0.5, 0.3, 0.7], [0.7, 0.7, 0.5, 0.3], [0.3, 0.3, 0.7, 0.5]])
    shares, _ = meta.equilibrium(twins)
    assert shares[0] + shares[1] == pytest.approx(1 / 3) and shares[0] > 0 and shares[1] > 0
    assert shares[2:] == pytest.approx([1 / 3, 1 / 3])


def test_a_deck_that_never_met_another_is_left_out():
    rates = np.array([[0.5, 0.6, np.nan], [0.4, 0.5, 0.7], [np.nan, 0.3, 0.5]])
    assert meta.complete(rates) == [1, 2]
    assert meta.complete(RPS) == [0, 1, 2]


def random_cells(rng) -> meta.Cells:
    return {(i, j): (rng.integers(0, 3, 30) / 1.0, np.full(30, 2.0)) for i in range(3) for j in range(i + 1, 3)}


def test_bootstrap_is_deterministic():
    cells = random_cells(np.random.default_rng(5))
    shares, _ = meta.equilibrium(meta.matrix(cells, 3))
    first = meta.bootstrap(cells, 3, shares)
    again = meta.bootstrap(cells, 3, shares)
    other = meta.bootstrap(cells, 3, shares, seed=meta.SEED + 1)
    for name, values in first.items():
        assert np.array_equal(values, again[name]), name
    assert any(not np.array_equal(values, other[name]) for name, values in first.items())
    assert (first["share_lo"] <= shares + 1e-12).all() and (shares <= first["share_hi"] + 1e-12).all()


# --- hand-made store tables -----------------------------------------------------------------------------

def seeds(deck_x: str, deck_y: str, outcomes: tuple[str, str], n: int) -> list[tuple]:
    """n seeds of a pairing, each played from both seats: deck_x's result in seat 0, then in seat 1."""
    return [(deck_x, deck_y, outcomes)] * n


def write_store(path, runs: dict[tuple[int, str, str], list[tuple]]) -> None:
    """Runs (run id, game, kind) -> seeds as ``seeds`` makes them, pairing by pairing."""
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    con.execute(MIGRATIONS)
    now = dt.datetime(2026, 1, 1)
    flip = {"win": "loss", "loss": "win", "draw": "draw"}
    for (run, game, kind), played in runs.items():
        con.execute("""INSERT INTO runs (run_id, game, rules_version, rules_hash, decks, pilots, matches_target,
                       chunks_target, base_seed, swap, event_sample, spec, spec_hash, status, created_at, updated_at, kind)
                       VALUES (?, ?, 'base', 'h', 'x', 'p', 1, 1, 1, true, 1, '{}', 's', 'done', ?, ?, ?)""",
                    [run, game, now, now, kind])
        pairings = {pair: n for n, pair in enumerate(dict.fromkeys((x, y) for x, y, _ in played))}
        for no, (x, y, outcomes) in enumerate(played):
            for seating, result in enumerate(outcomes):
                match = 2 * no + seating
                seated = [(x, result), (y, flip[result])][::-1 if seating else 1]
                winner = next((s for s, (_, r) in enumerate(seated) if r == "win"), None)
                con.execute("""INSERT INTO matches (run_id, match_no, chunk, seed, pairing, swapped, winner_seat,
                               winner_deck, reason, turns, decisions, wall_ms, events_logged)
                               VALUES (?, ?, 0, ?, ?, ?, ?, ?, 'hp', 9, 9, 1.0, false)""",
                            [run, match, 1000 + no, pairings[(x, y)], bool(seating), winner,
                             None if winner is None else seated[winner][0]])
                for seat, (deck, r) in enumerate(seated):
                    con.execute("INSERT INTO match_seats (run_id, match_no, seat, team, deck, pilot, result) "
                                "VALUES (?, ?, ?, ?, ?, 'greedy', ?)", [run, match, seat, seat, deck, r])
    con.close()


@pytest.fixture
def hand_store(tmp_path):
    """Three games: rock-paper-scissors where every seed is a win and a draw for the stronger deck
    (75%, a draw counting half); two decks that split every seed, one win each; and a field with a
    pair that never met. A value twin of the first game would make rock dominant if it counted."""
    path = tmp_path / "meta.duckdb"
    rps = (seeds("paper", "rock", ("win", "draw"), 5) + seeds("rock", "scissors", ("draw", "win"), 5)
           + seeds("paper", "scissors", ("draw", "loss"), 5))
    gap = seeds("a", "b", ("win", "win"), 3) + seeds("b", "c", ("win", "loss"), 3)
    write_store(path, {(1, "rps", "duel"): rps, (2, "split", "duel"): seeds("x", "y", ("win", "loss"), 8),
                       (3, "gap", "duel"): gap, (4, "rps", "value"): seeds("rock", "paper", ("win", "win"), 20)})
    return path


def rows_of(frame: pl.DataFrame, game: str) -> dict[str, dict]:
    return {r["deck"]: r for r in frame.filter(pl.col("game") == game).iter_rows(named=True)}


def test_store_meta_counts_draws_half_and_resamples_whole_seeds(hand_store):
    mix = meta.meta_mix(hand_store)
    units = meta.seed_scores(hand_store, Filters(game="rps"))
    assert set(units["run_id"]) == {1}  # the value twin is not a duel run
    assert units.filter(pl.col("deck_a") == "paper", pl.col("deck_b") == "rock")["score_a"].to_list() == [1.5] * 5
    rps = rows_of(mix, "rps")
    for r in rps.values():
        # every seed alike: every resample is the same matrix, so the intervals are points
        assert (r["share"], r["share_lo"], r["share_hi"]) == pytest.approx((1 / 3,) * 3)
        assert (r["wr_vs_mix"], r["wr_vs_mix_lo"], r["wr_vs_mix_hi"]) == pytest.approx((0.5,) * 3)
        assert (r["games"], r["pilots"], r["in_mix"]) == (20, "greedy", 1.0)
    # each seed is one win and one loss: resampled by seed it stays 50%; resampled by match it would not
    split = rows_of(mix, "split")
    assert {d: (r["share"], r["share_lo"], r["share_hi"], r["wr_vs_mix_lo"]) for d, r in split.items()} == {
        "x": pytest.approx((0.5, 0.5, 0.5, 0.5)), "y": pytest.approx((0.5, 0.5, 0.5, 0.5))}


def test_a_deck_that_never_met_another_keeps_a_row_with_a_note(hand_store):
    gap = rows_of(meta.meta_mix(hand_store, Filters(game="gap")), "gap")
    assert gap["a"]["share"] is None and gap["a"]["note"] == "left out: never met c"
    assert gap["b"]["share"] == pytest.approx(0.5) and gap["c"]["share"] == pytest.approx(0.5)


def test_the_deck_filter_solves_the_game_of_those_decks(hand_store):
    mix = meta.meta_mix(hand_store, Filters(game="rps", decks=["paper", "rock"]))
    assert rows_of(mix, "rps")["paper"]["share"] == pytest.approx(1)
    assert rows_of(mix, "rps")["rock"]["wr_vs_mix"] == pytest.approx(0.25)
    assert meta.meta_mix(hand_store, Filters(game="rps", decks=["paper"])).is_empty()


# --- a real run ----------------------------------------------------------------------------------------

def greedy_run(path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute("SELECT run_id FROM runs WHERE pilots = 'greedy,greedy'").fetchone()[0]


def test_a_real_run_gives_a_mix_and_its_export(small_store):
    filters = Filters(runs=[greedy_run(small_store)])
    mix = meta.meta_mix(small_store, filters)
    assert set(mix["deck"]) == {"goblin-gold-gang", "lawmen-posse"} and set(mix["pilots"]) == {"greedy"}
    assert mix["share"].sum() == pytest.approx(1) and mix["games"].to_list() == [20, 20]
    assert ((mix["share_lo"] <= mix["share"] + 1e-12) & (mix["share"] <= mix["share_hi"] + 1e-12)).all()
    exported = export_frame(small_store, "meta_mix", filters)
    assert exported["pilot"].to_list() == ["greedy"] * 2 and exported.drop("pilot", "card_set").equals(mix)
    assert meta.meta_mix(small_store, filters).equals(mix)


@pytest.mark.parametrize("table", ["matchups", "meta_mix", "cards", "keywords", "deck_mulligan"])
def test_an_export_over_two_pilots_splits_them(small_store, table):
    """A store of a random run and a greedy run: the export is each pilot's table, headed by its
    pilot, never one figure pooled from both (every balance figure says which pilot made it)."""
    from reports.exports import COMPUTED

    exported = export_frame(small_store, table, Filters())
    # a table that splits by its seats' pilots itself (matchups) keeps them: the block's is match_pilots
    group = "match_pilots" if "match_pilots" in exported.columns else "pilot"
    assert set(exported[group]) == {"greedy", "random"}
    for pilot in ("greedy", "random"):
        alone = COMPUTED[table](small_store, Filters(pilots=[pilot]))
        # (the export names each block's game and card set where the table does not)
        rows = exported.filter(pl.col(group) == pilot).drop(group, "card_set", strict=False)
        rows = rows.drop("game") if "game" not in alone.columns else rows
        assert rows.equals(alone.select(rows.columns)), (table, pilot)
    pooled = COMPUTED[table](small_store, Filters())
    assert exported.height != pooled.height or not exported.drop(group).equals(pooled)


def test_matchups_page_shows_the_meta_and_its_pilots(small_store, monkeypatch, downloads, fresh_cache):
    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    at = page_app("matchups").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(s.value == "The meta a rational field would play" for s in at.subheader)
    assert any(meta.MEANING in m.value and "Pilots: **greedy**" in m.value for m in at.markdown)
    assert any(c.value.startswith("Pilots: greedy.") for c in at.caption)
    shown = table_labelled(at, "share", "wr_vs_mix")
    exported = csv_of(at, downloads, "meta_mix")
    assert {r["deck"] for r in exported} == set(shown["deck"]) == {"goblin-gold-gang", "lawmen-posse"}
    assert {r["pilots"] for r in exported} == {"greedy"}
    assert sum(shown["share"]) == pytest.approx(100)  # shown in percent, exported as shares
    assert sum(float(r["share"]) for r in exported) == pytest.approx(1)


def test_html_report_has_the_meta_section(small_store):
    text = html.build(small_store, [greedy_run(small_store)])
    section = text[text.index("<h2>The meta a rational field would play</h2>"):]
    assert "Pilots: greedy." in section and "lawmen-posse" in section


def test_html_reports_keyword_q_values(small_store):
    """The keyword impact table shows each keyword's Benjamini-Hochberg q beside its p, as the
    Keywords page does: twenty p-values at once hold a few below 0.05 by chance alone."""
    text = html.build(small_store, [greedy_run(small_store)])
    section = text[text.index("<h2>Keywords</h2>"):text.index("<h2>Cost curve</h2>")]
    assert "<th>p</th><th>q</th>" in section and "read significance from q" in section
