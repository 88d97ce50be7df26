"""``workbench ladder``: Bradley-Terry on planted data, the schedule, a tiny ladder end to end
through the CLI, determinism over worker counts, bad input, and the Pilots page."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from reports.ladder import ELO, bradley_terry, ladder_tables
from tests.conftest import run_cli

TRUE = {"greedy": 1500.0, "random": 1250.0, "planner": 1620.0, "mcts:100": 1800.0}


def planted_pairs(rng: np.random.Generator, games: int, draw_share: float = 0.0) -> list[tuple]:
    names = list(TRUE)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = 1.0 / (1.0 + 10 ** ((TRUE[b] - TRUE[a]) / 400.0))
            draws = rng.binomial(games, draw_share)
            wins = rng.binomial(games - draws, p)
            pairs.append((a, b, wins + 0.5 * draws, games))
    return pairs


def test_bradley_terry_recovers_the_planted_order_and_its_intervals_cover():
    fit = bradley_terry(list(TRUE), planted_pairs(np.random.default_rng(12), 2000), prior_draws=0)
    by = {r["pilot"]: r for r in fit.iter_rows(named=True)}
    assert by["greedy"]["rating"] == 1500.0 and by["greedy"]["anchor"]
    assert sorted(TRUE, key=lambda p: by[p]["rating"]) == sorted(TRUE, key=TRUE.get)
    for p, truth in TRUE.items():
        assert abs(by[p]["rating"] - truth) < 40, (p, by[p]["rating"])
    # 95% intervals: over many planted ladders, each pilot's interval holds its true rating ~95% of the time
    rng = np.random.default_rng(3)
    covered = {p: 0 for p in TRUE if p != "greedy"}
    reps = 150
    for _ in range(reps):
        fit = bradley_terry(list(TRUE), planted_pairs(rng, 200), prior_draws=0)
        for r in fit.iter_rows(named=True):
            if r["pilot"] in covered:
                covered[r["pilot"]] += r["rating_lo"] <= TRUE[r["pilot"]] <= r["rating_hi"]
    for p, k in covered.items():
        assert 0.88 <= k / reps <= 0.995, (p, k / reps)


def test_bradley_terry_clean_sweep_stays_finite_and_anchor_is_first_without_greedy():
    fit = bradley_terry(["a", "b"], [("a", "b", 20.0, 20)])
    a, b = fit.row(0, named=True), fit.row(1, named=True)
    assert a["anchor"] and a["rating"] == 1500.0 and a["rating_lo"] == a["rating_hi"] == 1500.0
    assert np.isfinite(b["rating"]) and b["rating"] < 1000
    # one virtual draw: 0.5 of 21 games, so the odds are (0.5 / 20.5) exactly
    assert b["rating"] == pytest.approx(1500 + ELO * np.log(0.5 / 20.5))
    assert b["rating_lo"] < b["rating"] < b["rating_hi"]


def test_schedule_plays_each_seed_with_both_pilots_on_both_decks_from_both_seats():
    from workbench.commands.ladder import schedule

    jobs = schedule(["random", "greedy", "mcts:5"], 3, 24, seed=1)
    assert len(jobs) == 3 * 24 and [j["match_no"] for j in jobs] == list(range(72))
    for pair_no in range(3):
        mine = [j for j in jobs if j["pair_no"] == pair_no]
        a = mine[0]["pilot_a"]
        for block in {j["block"] for j in mine}:
            four = [j for j in mine if j["block"] == block]
            assert len(four) == 4 and len({j["seed"] for j in four}) == 1
            seen = {(j["pilot_0"] == a, j["slot_0"] if j["pilot_0"] == a else j["slot_1"]) for j in four}
            assert len(seen) == 4  # A on both decks, from both seats
    # every pair of pilots plays the same seeds and deck pairings
    per_pair = [[(j["block"], j["seed"], j["slot_0"], j["slot_1"]) for j in jobs if j["pair_no"] == k] for k in range(3)]
    assert per_pair[0] == per_pair[1] == per_pair[2]
    # three decks: blocks rotate over the three deck pairings
    assert {(j["slot_0"], j["slot_1"]) for j in jobs if j["block"] < 3 and j["pilot_0"] == j["pilot_a"]} >= {(0, 1), (0, 2), (1, 2)}
    mirror = schedule(["random", "greedy"], 1, 6, seed=1)
    assert [(j["pilot_0"], j["block"]) for j in mirror] == [("random", 0), ("greedy", 0), ("random", 1),
                                                             ("greedy", 1), ("random", 2), ("greedy", 2)]


def test_tiny_ladder_end_to_end(tmp_path):
    db, out = tmp_path / "l.duckdb", tmp_path / "csv"
    res = run_cli("ladder", "frontier", "--pilots", "random,greedy", "--matches", "20", "--workers", "1",
                  "--db", str(db), "--csv", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    assert "greedy" in res.stdout and "random" in res.stdout
    with open(out / "ladder.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:5] == ["pilot", "rating", "rating_lo", "rating_hi", "matches"]
    with open(out / "ladder_pairs.csv", newline="") as fh:
        pairs = list(csv.DictReader(fh))
    assert list(pairs[0])[:6] == ["pilot_a", "pilot_b", "matches", "a_win_rate", "lo", "hi"]
    by = {r["pilot"]: r for r in rows}
    assert float(by["greedy"]["rating"]) == 1500.0
    assert float(by["greedy"]["rating"]) > float(by["random"]["rating"])
    assert int(by["greedy"]["matches"]) == int(by["random"]["matches"]) == 20
    assert pairs[0]["pilot_a"] == "random" and float(pairs[0]["a_win_rate"]) < 0.5
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM ladder_matches").fetchone()[0] == 20
        assert con.execute("SELECT count(*), min(ladder_id) FROM ladder").fetchone() == (2, 1)
        assert con.execute("SELECT sum(decisions_0 + decisions_1) = sum(decisions), min(cpu_s) > 0 "
                           "FROM ladder_matches").fetchone() == (True, True)
        assert con.execute("SELECT matches, a_wins + b_wins + draws FROM ladder_pairs").fetchone() == (20, 20)
    finally:
        con.close()


def test_same_ladder_with_one_and_two_workers():
    from workbench.commands.ladder import MATCH_SCHEMA, plan, play

    timing = ["cpu_s", "cpu_0", "cpu_1", "wall_ms"]
    frames = []
    for workers in (1, 2):
        payload = plan("frontier", "base", ["goblin-gold-gang", "lawmen-posse", "deeproot-hollow"],
                       ["random", "greedy"], 12, 5, workers)
        frames.append(play(payload, workers))
    assert frames[0].height == 12 and list(frames[0].schema) == list(MATCH_SCHEMA)
    assert frames[0].drop(timing).equals(frames[1].drop(timing))
    pilots = ["random", "greedy"]
    assert ladder_tables(frames[0], pilots)[0].drop(["decisions_per_s", "matches_per_s", "cpu_seconds", "seat_cpu_seconds"]).equals(
        ladder_tables(frames[1], pilots)[0].drop(["decisions_per_s", "matches_per_s", "cpu_seconds", "seat_cpu_seconds"]))


def test_a_rating_interval_says_what_its_pair_table_says():
    """The second walk-through: six games, all lost by random, read "random 1,054 [555, 1,554]"
    (might be level with greedy's 1,500) beside the pair table's 0.0% [0.0%, 39.0%] (clearly
    weaker). The ratings' Wald interval is now the profile likelihood's, the test the pair's
    Wilson interval inverts too; over every score of 2 to 30 games the two agree on "level or
    not" but at a few scores next to the boundary (the rating's prior draw): 6 of 493, where the
    Wald interval disagreed at 30."""
    from reports.ladder import wilson_score

    one = bradley_terry(["random", "greedy"], [("random", "greedy", 0.0, 6)])
    assert one["rating_hi"][0] < 1500.0, one  # random is below greedy's anchor, as the pair says
    disagree = total = 0
    for n in range(2, 31):
        for k in range(n + 1):
            row = bradley_terry(["random", "greedy"], [("random", "greedy", float(k), n)]).row(0, named=True)
            lo, hi = wilson_score([k], [n])
            level_by_rating = row["rating_lo"] <= 1500.0 <= row["rating_hi"]
            level_by_pair = lo[0] <= 0.5 <= hi[0]
            disagree += level_by_rating != level_by_pair
            total += 1
    assert disagree <= 0.03 * total, (disagree, total)


def test_a_stopped_ladder_resumes_where_it_stopped_and_ends_as_one_uninterrupted_run(tmp_path, monkeypatch, capsys):
    """Ctrl-C after two chunks keeps them beside the store; the same command again plays only the
    rest, and the stored ladder is the uninterrupted run's (CPU times apart)."""
    from workbench.commands import ladder as ladder_cmd

    args = ["ladder", "frontier", "--pilots", "random,greedy", "--matches", "12", "--workers", "1", "--quiet",
            "--decks", "goblin-gold-gang,lawmen-posse"]
    timing = ["cpu_s", "cpu_0", "cpu_1", "wall_ms"]
    code, err = run_main(monkeypatch, capsys, *args, "--db", str(tmp_path / "whole.duckdb"))
    assert code is None or code == 0, err
    whole = duckdb.connect(str(tmp_path / "whole.duckdb"), read_only=True).sql(
        "SELECT * FROM ladder_matches ORDER BY match_no").pl()

    real_chunk, played = ladder_cmd.play_chunk, []

    def stop_after_two(chunk):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(chunk)
        return real_chunk(chunk)

    db = tmp_path / "l.duckdb"
    monkeypatch.setattr(ladder_cmd, "play_chunk", stop_after_two)
    code, err = run_main(monkeypatch, capsys, *args, "--db", str(db))
    assert code == 130 and "nothing was stored" in err and "run the same command again" in err, err
    assert not db.exists()
    (kept,) = list((tmp_path / ".ladder-partial").iterdir())
    with kept.open("a") as fh:
        fh.write('{"rows": [{"match_no": 11, "tor')  # a kill mid-write leaves a torn line
    size = ladder_cmd.plan("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["random", "greedy"], 12,
                           1, 1)["chunk_size"]
    reader = ladder_cmd.PartialChunks(kept.parent, "")
    reader.path = kept
    assert sorted(reader.load()) == list(range(2 * size))  # the two chunks, the torn line ignored
    resumed = []
    monkeypatch.setattr(ladder_cmd, "play_chunk", lambda chunk: resumed.append(chunk) or real_chunk(chunk))
    code, err = run_main(monkeypatch, capsys, *args, "--db", str(db))
    assert code is None or code == 0, err
    assert sorted(resumed) == [c for c in range(-(-12 // size)) if c not in played] and len(played) == 2
    again = duckdb.connect(str(db), read_only=True).sql("SELECT * FROM ladder_matches ORDER BY match_no").pl()
    assert again.drop(timing + ["ladder_id"]).equals(whole.drop(timing + ["ladder_id"]))
    assert not (tmp_path / ".ladder-partial").exists()


@pytest.mark.parametrize("where", ["while it is stored", "after it is stored"])
def test_a_ladder_stopped_after_its_matches_says_what_was_kept(tmp_path, monkeypatch, capsys, where):
    """The stop audit: a stop after the matches (while the ladder was made into tables and stored,
    or while it was shown) said only "interrupted". Before it is stored, the line says the
    matches are kept and the same command goes on; after, that the ladder is stored, so it is
    never stored twice (the store and the partial file's removal are one held step)."""
    from workbench.commands import ladder as ladder_cmd

    def stop(*_args, **_kwargs):
        raise KeyboardInterrupt

    import reports.ladder

    if where == "while it is stored":
        monkeypatch.setattr(reports.ladder, "ladder_tables", stop)
    else:
        monkeypatch.setattr(ladder_cmd, "show", stop)
    db = tmp_path / "l.duckdb"
    code, err = run_main(monkeypatch, capsys, "ladder", "frontier", "--pilots", "random,greedy", "--matches", "4",
                         "--workers", "1", "--quiet", "--decks", "goblin-gold-gang,lawmen-posse", "--db", str(db),
                         "--csv", str(tmp_path / "csv"))
    lines = err.strip().splitlines()
    assert code == 130 and len(lines) == 1, err
    if where == "while it is stored":
        assert lines[0].startswith("error: ladder stopped; nothing was stored, but the matches played so far are "
                                   "kept in "), err
        assert not db.exists() and (tmp_path / ".ladder-partial").exists()
    else:
        assert lines[0] == (f"error: ladder 1 is stored in {db}; stopped before its tables were shown and its "
                            "CSVs written"), err
        assert duckdb.connect(str(db), read_only=True).sql("SELECT count(*) FROM ladder_matches").fetchall() == [(4,)]
        assert not (tmp_path / ".ladder-partial").exists() and not (tmp_path / "csv").exists()


def run_main(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """The ``workbench`` entry point in this process (as the console script runs it): exit code, stderr."""
    import sys

    from workbench import cli

    monkeypatch.setattr(sys, "argv", ["workbench", *args])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    return exit_.value.code, capsys.readouterr().err


@pytest.mark.parametrize("args, words", [
    (["frontier", "--pilots", "random,nobody"], "unknown pilot"),
    (["frontier", "--pilots", "greedy"], "at least two"),
    (["frontier", "--pilots", "random,greedy", "--matches", "0"], "--matches"),
    (["frontier", "--pilots", "random,greedy", "--decks", "no-such-deck,lawmen-posse"], "no-such-deck"),
    (["frontier", "--pilots", "random,random"], "twice"),
    (["chess", "--pilots", "random,greedy"], "unknown game"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, words):
    db = tmp_path / "l.duckdb"
    size = [] if "--matches" in args else ["--matches", "4"]
    code, err = run_main(monkeypatch, capsys, "ladder", *args, *size, "--db", str(db), "--quiet",
                         "--csv", str(tmp_path / "c"))
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in err, err
    assert not db.exists() and not (tmp_path / "c").exists()


def test_bad_input_exits_2_from_the_installed_command(tmp_path):
    res = run_cli("ladder", "frontier", "--pilots", "greedy", "--db", str(tmp_path / "l.duckdb"))
    assert res.returncode == 2
    assert [line for line in res.stderr.splitlines() if line.strip()] == [
        "error: --pilots needs at least two pilots, comma separated (got greedy)"]


# --- the Pilots page ---------------------------------------------------------------------------------

def ladder_store(path: Path) -> None:
    """A store holding one ladder of three pilots, made from hand-written matches."""
    from workbench.store import Store

    rows = []
    pilots = ["random", "greedy", "mcts:3"]
    outcomes = {("random", "greedy"): (2, 7, 1), ("random", "mcts:3"): (1, 9, 0), ("greedy", "mcts:3"): (4, 5, 1)}
    pairs = [(a, b) for i, a in enumerate(pilots) for b in pilots[i + 1:]]
    for pair_no, (a, b) in enumerate(pairs):
        aw, bw, dr = outcomes[(a, b)]
        for k, w in enumerate(["a"] * aw + ["b"] * bw + [None] * dr):
            first = a if k % 2 == 0 else b
            second = b if first == a else a
            winner = None if w is None else (a if w == "a" else b)
            seat = None if winner is None else (0 if winner == first else 1)
            rows.append({"match_no": len(rows), "pair_no": pair_no, "pilot_a": a, "pilot_b": b, "block": k // 4,
                         "seed": k, "pilot_0": first, "pilot_1": second, "deck_0": "x", "deck_1": "y",
                         "winner_seat": seat, "winner_pilot": winner, "reason": "hp", "turns": 10,
                         "decisions": 40, "decisions_0": 20, "decisions_1": 20, "cpu_s": 0.1, "cpu_0": 0.05,
                         "cpu_1": 0.04, "wall_ms": 100.0, "error": None})
    from workbench.commands.ladder import MATCH_SCHEMA

    frame = pl.DataFrame(rows, schema=MATCH_SCHEMA)
    ladder, pair_frame = ladder_tables(frame, pilots)
    meta = {"game": "frontier", "rules_version": "base", "rules_hash": "h", "decks": "x,y", "matches_per_pair": 10,
            "base_seed": 1, "code_version": "test"}
    Store(path).record_ladder([{**meta, **r} for r in ladder.to_dicts()],
                              [{"pair_no": i, **r} for i, r in enumerate(pair_frame.to_dicts())], frame.to_dicts())


def test_pilots_page_shows_the_latest_ladder(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    path = tmp_path / "p.duckdb"
    ladder_store(path)
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_string("from reports.pages.pilots import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    charts = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert charts and set(charts[0]["data"][0]["y"]) == {"random", "greedy", "mcts:3"}
    shown = [df.value for df in at.dataframe]
    assert any("a_win_rate" in d.columns or "A's win rate" in " ".join(map(str, d.columns)) for d in shown)
    assert any("decisions_per_s" in d.columns for d in shown)
    # the row-against-column matrix: a pilot against itself is a dash, the rest percentages
    matrix = next(d for d in shown if "pilot" in d.columns and list(d.columns) == ["pilot", *d["pilot"].tolist()])
    for _, row in matrix.iterrows():
        assert row[row["pilot"]] == "—"
        assert all(str(row[c]).endswith("%") for c in matrix["pilot"] if c != row["pilot"])


def test_pilots_page_says_how_to_make_a_ladder(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from workbench.store import Store

    path = tmp_path / "empty.duckdb"
    Store(path).init()
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    at = AppTest.from_string("from reports.pages.pilots import render\nrender()", default_timeout=60)
    at.run()
    assert not at.exception
    assert any("workbench ladder" in i.value for i in at.info)


@pytest.mark.parametrize("pilots", ["greedy,greedy@tuned", "random,random@tuned", "mcts:20,mcts:20@hand"])
def test_two_names_of_one_pilot_are_refused(pilots):
    """`ladder --pilots greedy,greedy@tuned` played greedy against itself and printed 50.0% as a
    measurement (greedy thinks with tuned; random reads no weights; mcts with the hand set)."""
    from workbench.commands.ladder import check_pilots
    from workbench.errors import UserError

    with pytest.raises(UserError, match="are one pilot"):
        check_pilots(pilots.split(","), "frontier")
    assert check_pilots(["greedy", "greedy@hand"], "frontier") == ["greedy", "greedy@hand"]
