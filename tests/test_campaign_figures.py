"""What the campaign figures count, on hand-made tables: each distinct run once (two batches of
the same spec hold the same runs), never two rules versions in one figure, a run that ended in
an error in no average and no clear rate, and a reward offer "skipped" only when the run had not
taken the card before. Also the commands that make such stores: simulate-run reuses a finished
batch of the same spec and refuses a crew named twice."""
from __future__ import annotations

import json

import duckdb
import pytest

from tests.conftest import run_cli


def open_planted(path):
    from workbench.store import MIGRATIONS, SCHEMA

    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    con.execute(MIGRATIONS)
    return con


def add_batch(con, run_id: int, version: str, rules_hash: str, runs: list[tuple], stage_hash: str = "c1") -> None:
    """A finished campaign batch (its ``runs`` row) of ``runs``: (crew, seed, result) each, with
    one fight won at step 2 after an offer of the card ``gem`` at step 1, taken by the cleared;
    ``stage_hash`` the stage content it played (the spec's ``content_hash``)."""
    spec = {"kind": "campaign", "game": "frontier", "rules": version, "rules_hash": rules_hash,
            "content_hash": stage_hash, "weights_hash": "w1", "seed": 1}
    con.execute("INSERT INTO runs (run_id, game, rules_version, rules_hash, decks, pilots, matches_target, "
                "chunks_target, base_seed, swap, event_sample, spec, spec_hash, status, created_at, updated_at, kind) "
                "VALUES (?, 'frontier', ?, ?, 'a', 'random/greedy', ?, 1, 1, false, 0, ?, ?, 'done', now(), now(), "
                "'campaign')", [run_id, version, rules_hash, len(runs), json.dumps(spec), f"h{run_id}"])
    for run_no, (crew, seed, result) in enumerate(runs):
        add_run(con, run_id, run_no, crew, seed, result)
        con.execute("INSERT INTO campaign_rewards VALUES (?, ?, 1, 'battle', 'gem', 0, ?)",
                    [run_id, run_no, result == "cleared"])
        con.execute("INSERT INTO campaign_nodes VALUES (?, ?, 2, 2, 'n', 'battle', '', '', 10, 10, 0, 0, ?, 'win', '')",
                    [run_id, run_no, run_no * 64])


def add_run(con, run_id: int, run_no: int, crew: str, seed: int, result: str, hp_left: int = 10,
            floor: int = 8, deck: int = 53) -> None:
    con.execute("INSERT INTO campaign_runs VALUES (?, ?, 0, 'frontier', 's', ?, ?, 'random', 'greedy', ?, ?, "
                "?, 150, ?, 0, ?, 3, 3, 1.0, ?)",
                [run_id, run_no, crew, seed, result, result == "cleared", hp_left, floor, deck,
                 "RuntimeError: boom" if result == "error" else None])


@pytest.fixture
def repeated(tmp_path):
    """Batches 1, 2 and 4: the same two runs of crew a (seeds 1 and 2: one cleared) under base;
    batch 3 those seeds under another rules version (both cleared); batch 5 under base again, but
    base's cards were edited since (another hash: one run, defeated)."""
    path = tmp_path / "repeated.duckdb"
    con = open_planted(path)
    same = [("a", 1, "cleared"), ("a", 2, "defeated")]
    for run_id, version, rules_hash, runs in ((1, "base", "h-base", same), (2, "base", "h-base", same),
                                              (3, "mana", "h-mana", [("a", 1, "cleared"), ("a", 2, "cleared")]),
                                              (4, "base", "h-base", same),
                                              (5, "base", "h-edited", [("a", 1, "defeated")])):
        add_batch(con, run_id, version, rules_hash, runs)
    con.close()
    return path


def test_clear_rates_count_each_run_once_and_split_by_rules_version(repeated):
    from reports.campaign import clear_rates

    rates = clear_rates(repeated)
    rows = {(r["rules_version"], r["rules_hash"]): r for r in rates.iter_rows(named=True)}
    assert set(rows) == {("base", "h-base"), ("mana", "h-mana"), ("base", "h-edited")}, rates
    base = rows[("base", "h-base")]
    # batches 1, 2 and 4 hold the same two runs: two runs, not six (the old figure pooled 11)
    assert (base["runs"], base["cleared"], base["clear_rate"]) == (2, 1, 0.5)
    assert (base["repeats"], base["repeat_batches"]) == (4, "1,2")   # counted from the newest, batch 4
    assert (rows[("mana", "h-mana")]["runs"], rows[("mana", "h-mana")]["cleared"]) == (2, 2)
    assert (rows[("base", "h-edited")]["runs"], rows[("base", "h-edited")]["repeats"]) == (1, 0)
    alone = clear_rates(repeated, [1, 2]).row(0, named=True)
    assert (alone["runs"], alone["repeats"], alone["repeat_batches"]) == (2, 2, "1")


def test_reward_lift_counts_each_run_once_and_split_by_rules_version(repeated):
    from reports.campaign import reward_lift

    lift = reward_lift(repeated)
    rows = {(r["rules_version"], r["rules_hash"]): r for r in lift.iter_rows(named=True)}
    assert set(rows) == {("base", "h-base"), ("mana", "h-mana"), ("base", "h-edited")}, lift
    base = rows[("base", "h-base")]
    assert (base["offers"], base["taken"], base["fights_taken"], base["fights_skipped"]) == (2, 1, 1, 1)
    assert (base["clear_rate_taken"], base["clear_rate_skipped"]) == (1.0, 0.0)


def test_an_edited_stage_is_never_pooled_with_the_stage_it_was(repeated):
    """Batch 6: the seeds of batches 1, 2 and 4 under the same rules, but the stage file was edited
    since (another content hash: Ashfall Trail's enemies at their normal HP, say): its own row in
    both figures, neither pooled with nor counted as a repeat of the old stage's runs."""
    from reports.campaign import clear_rates, reward_lift

    con = duckdb.connect(str(repeated))
    add_batch(con, 6, "base", "h-base", [("a", 1, "defeated"), ("a", 2, "defeated")], stage_hash="c2")
    con.close()
    rows = {(r["rules_hash"], r["stage_hash"]): r for r in clear_rates(repeated).iter_rows(named=True)}
    assert (rows[("h-base", "c1")]["runs"], rows[("h-base", "c1")]["cleared"]) == (2, 1)
    assert (rows[("h-base", "c2")]["runs"], rows[("h-base", "c2")]["cleared"], rows[("h-base", "c2")]["repeats"]) == (2, 0, 0)
    lift = {(r["rules_hash"], r["stage_hash"]) for r in reward_lift(repeated).iter_rows(named=True)}
    assert {("h-base", "c1"), ("h-base", "c2")} <= lift


def test_the_batch_label_names_the_rules_version_and_a_hash_where_a_name_has_two():
    from reports.pages.campaign import batch_labels

    batches = [{"run_id": 2, "rules_version": "base", "rules_hash": "aaaa1111bbbb", "crews": "gold-gang",
                "policy": "random/greedy", "runs_done": 4, "status": "done"},
               {"run_id": 1, "rules_version": "base", "rules_hash": "cccc2222dddd", "crews": "gold-gang",
                "policy": "random/greedy", "runs_done": 4, "status": "done"},
               {"run_id": 3, "rules_version": "mana", "rules_hash": "eeee3333ffff", "crews": "gold-gang",
                "policy": "random/greedy", "runs_done": 4, "status": "done"}]
    labels = batch_labels(batches)
    assert labels[3] == "run 3: mana, gold-gang (random/greedy, 4 runs, done)", labels
    assert "base (cards aaaa1111)" in labels[2] and "base (cards cccc2222)" in labels[1], labels


def test_the_page_names_the_batches_whose_runs_repeat(repeated):
    from reports.campaign import clear_rates
    from reports.pages.campaign import repeats_note

    note = repeats_note(clear_rates(repeated))
    assert "4 runs of batches 1, 2 repeat" in note and "counted once" in note, note
    assert repeats_note(clear_rates(repeated, [3, 4])) == ""


def test_a_run_that_ended_in_an_error_is_in_no_average_and_no_clear_rate(tmp_path):
    """Two runs cleared (10 HP left, floor 8), one defeated; one raised an error at floor 3."""
    from reports.campaign import clear_rates

    path = tmp_path / "errors.duckdb"
    con = open_planted(path)
    for run_no, result in enumerate(("cleared", "cleared", "defeated")):
        add_run(con, 1, run_no, "a", run_no, result)
    add_run(con, 1, 3, "a", 3, "error", hp_left=0, floor=3, deck=0)
    con.close()
    row = clear_rates(path).row(0, named=True)
    assert (row["runs"], row["cleared"], row["errors"]) == (3, 2, 1)   # the old figure: 4 runs, 2 cleared
    assert row["clear_rate"] == pytest.approx(2 / 3)
    assert (row["avg_floor"], row["avg_deck_size"]) == (8.0, 53.0)


def test_a_run_that_raises_records_its_trail_as_it_was_then(monkeypatch):
    """Not 0 HP, 0 Gold and an empty deck: the trail when the error was raised (the second fight
    here), and the floor it was raised on."""
    from cardsdb.loader import load_campaign, load_ruleset
    from sim.frontier.campaign import run as run_module
    from sim.registry import campaign, engine
    from tests.conftest import DATA

    data, ruleset = load_ruleset("frontier", "base", DATA)
    eng = engine("frontier")
    runner = campaign("frontier")
    content = runner.compile(eng, eng.compile_pool(ruleset), load_campaign(data, ruleset, "ashfall-trail"))
    real, seen = run_module._fight, []

    def fight_once(content, kit, trail, *args):
        seen.append((trail.hp, trail.gold, len(trail.deck)))
        if len(seen) == 2:
            raise RuntimeError("boom")
        return real(content, kit, trail, *args)

    monkeypatch.setattr(run_module, "_fight", fight_once)
    for seed in range(20):  # a seed whose first fight is won, so a second one is fought
        seen.clear()
        rec = runner.play_run(content, "gold-gang", seed, "greedy")
        if len(seen) == 2:
            break
    assert rec.result == "error" and "boom" in rec.error
    assert (rec.hp_left, rec.gold_left, rec.deck_size) == seen[1] and rec.hp_left > 0 and rec.deck_size > 0
    assert rec.floor_reached == rec.nodes[-1]["floor"] + 1   # raised on the floor after the last node done


def test_a_reward_already_taken_in_the_run_is_not_skipped(tmp_path):
    """Run 0 (cleared) takes gem at step 1, passes it at 2 (already in the deck), takes it at 4;
    run 1 (defeated) passes it at 1 and takes it at 3. Only run 1's pass is a skip, and only the
    fights before its take (steps 2 and 3; the take follows step 3's fight) are its fights."""
    from reports.campaign import reward_lift

    path = tmp_path / "skips.duckdb"
    con = open_planted(path)
    plan = {0: ("cleared", {1: True, 2: False, 4: True}, {2: "win", 3: "win", 5: "win"}),
            1: ("defeated", {1: False, 3: True}, {2: "win", 3: "win", 4: "loss"})}
    for run_no, (result, offers, fights) in plan.items():
        add_run(con, 1, run_no, "a", run_no, result)
        for step, taken in offers.items():
            con.execute("INSERT INTO campaign_rewards VALUES (1, ?, ?, 'battle', 'gem', 0, ?)", [run_no, step, taken])
        for step, won in fights.items():
            con.execute("INSERT INTO campaign_nodes VALUES (1, ?, ?, ?, 'n', 'battle', '', '', 10, 10, 0, 0, ?, ?, '')",
                        [run_no, step, step, run_no * 64 + step, won])
    con.close()
    gem = reward_lift(path).row(0, named=True)
    assert (gem["offers"], gem["taken"]) == (5, 3)
    assert (gem["clear_taken_n"], gem["clear_taken"]) == (3, 2)
    assert (gem["clear_skipped_n"], gem["clear_skipped"]) == (1, 0)      # the old figure: 2 offers, 1 cleared
    assert (gem["fights_taken"], gem["wins_taken"]) == (5, 4)
    assert (gem["fights_skipped"], gem["wins_skipped"]) == (2, 2)        # the old figure: 5 fights, 4 won


def test_simulate_run_reuses_a_finished_batch_of_the_same_spec(tmp_path):
    db = str(tmp_path / "twice.duckdb")
    args = ("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "1", "--policy", "random",
            "--workers", "1", "--quiet", "--db", db)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert "reusing run 1" in again.stderr, again.stderr
    con = duckdb.connect(db, read_only=True)
    try:
        assert con.sql("SELECT count(*) FROM runs").fetchall() == [(1,)]
        assert con.sql("SELECT count(*) FROM campaign_runs").fetchall() == [(1,)]
    finally:
        con.close()


def test_simulate_run_reuses_a_finished_batch_cut_into_other_chunks(tmp_path):
    """The default chunk size follows --workers: the same batch asked for with another --workers
    was played again, as a second batch of the same runs."""
    db = str(tmp_path / "chunks.duckdb")
    args = ("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "16", "--policy", "random", "--quiet",
            "--db", db)
    first = run_cli(*args, "--workers", "1")
    assert first.returncode == 0, first.stderr
    again = run_cli(*args, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert "reusing run 1" in again.stderr, again.stderr
    con = duckdb.connect(db, read_only=True)
    try:
        assert con.sql("SELECT count(*) FROM runs").fetchall() == [(1,)]
    finally:
        con.close()


def test_simulate_run_finishes_a_stopped_batch_of_the_same_runs(tmp_path):
    """A batch stopped before its end (Ctrl-C, a kill) was left as it was, and the same command
    played a second batch of the same runs from the start; it finishes the first."""
    from workbench.commands.simulate import create
    from workbench.commands.simulate_run import new_batch
    from workbench.store import Store

    db = tmp_path / "stopped.duckdb"
    spec, payload = new_batch("frontier", "base", None, ["gold-gang"], 2, "random", "greedy", 1, 0.0, None, 1)  # the CLI's defaults
    store = Store(db)
    run_id = create(store, spec, payload)
    con = duckdb.connect(str(db))
    try:
        con.execute("UPDATE runs SET status = 'stopped' WHERE run_id = ?", [run_id])
    finally:
        con.close()
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "2", "--policy", "random",
                  "--workers", "1", "--quiet", "--db", str(db))
    assert res.returncode == 0, res.stderr
    assert f"finishing stopped batch {run_id}" in res.stderr, res.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.sql("SELECT run_id, status FROM runs").fetchall() == [(run_id, "done")]
        assert con.sql("SELECT count(*) FROM campaign_runs").fetchall() == [(2,)]
    finally:
        con.close()


def test_simulate_run_refuses_a_crew_named_twice(tmp_path):
    from tests.test_cardsdb_errors import one_clean_error

    db = tmp_path / "x.duckdb"
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang,deeproot-hollow,gold-gang", "--runs", "1",
                  "--policy", "random", "--workers", "1", "--quiet", "--db", str(db))
    one_clean_error(res, "--crew", "gold-gang", "twice")
    assert not db.exists()
