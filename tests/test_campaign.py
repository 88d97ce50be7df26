"""Frontier Run, Stage I: the route map, one run from start to clear or defeat with trail HP
carried between fights, determinism, the simulate-run command into the store, and the clear-rate
and reward-lift figures on hand-made tables."""
import csv
import random

import duckdb
import pytest

from tests.conftest import DATA, cli_here, run_cli


@pytest.fixture(scope="module")
def stage():
    from cardsdb.loader import load_campaign, load_ruleset
    from sim.registry import campaign, engine

    data, ruleset = load_ruleset("frontier", "base", DATA)
    eng = engine("frontier")
    pool = eng.compile_pool(ruleset)
    runner = campaign("frontier")
    return runner, runner.compile(eng, pool, load_campaign(data, ruleset, "ashfall-trail"))


def test_the_route_map_branches_and_ends_at_the_boss(stage):
    from sim.frontier.campaign.trail_map import build_map

    _runner, content = stage
    for seed in range(30):
        route = build_map(content.stage, random.Random(seed))
        assert len(route) == content.stage.floors + 1
        assert {n.kind for n in route[0]} == {"battle"} and [n.kind for n in route[-1]] == ["boss"]
        for here, there in zip(route, route[1:]):
            assert all(n.links for n in here)                       # every node leads on
            reached = {j for n in here for j in n.links}
            assert reached == set(range(len(there)))                # every node can be reached
        assert build_map(content.stage, random.Random(seed)) == route   # seeded
    kinds = {n.kind for s in range(30) for row in build_map(content.stage, random.Random(s)) for n in row}
    assert kinds == {"battle", "outpost", "shop", "boss"}   # no elites: the guide's route has none


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_a_run_goes_from_start_to_clear_or_defeat_carrying_trail_hp(stage, policy):
    runner, content = stage
    outcomes = set()
    for seed in range(6):
        rec = runner.play_run(content, "gold-gang", seed, policy)
        assert rec.error is None, rec.error
        assert rec.result in ("cleared", "defeated")
        outcomes.add(rec.result)
        assert rec.nodes[0]["hp_before"] == rec.hp_max == content.stage.trail_hp
        for a, b in zip(rec.nodes, rec.nodes[1:]):
            assert b["hp_before"] == a["hp_after"] and b["gold_before"] == a["gold_after"]
            assert b["floor"] == a["floor"] + 1
        last = rec.nodes[-1]
        if rec.cleared:
            assert last["kind"] == "boss" and last["result"] == "win"
        else:
            assert last["result"] in ("loss", "draw") or last["kind"] == "boss"
        for f in rec.fights:   # each fight began at the trail HP of its node, capped at the trail's max
            side = f.result.state.sides[f.player_seat]
            node = next(n for n in rec.nodes if n["step"] == f.step)
            assert side.max_hp == content.stage.trail_hp and node["hp_after"] == max(0, side.hp)
        taken = sum(r["taken"] for r in rec.rewards if r["source"] != "lore")
        lore = sum(r["source"] == "lore" for r in rec.rewards)
        removed = sum(n["detail"].count("remove ") for n in rec.nodes if n["kind"] == "shop")
        assert rec.deck_size == 52 + lore + taken - removed
    assert outcomes  # both outcomes are seen over many runs (the slow test counts them)


def test_a_run_is_deterministic(stage):
    runner, content = stage
    a = runner.play_run(content, "clockwork-harvest", 7, "random", log=True)
    b = runner.play_run(content, "clockwork-harvest", 7, "random", log=True)
    assert a.nodes == b.nodes and a.rewards == b.rewards
    assert [f.result.events.digest() for f in a.fights] == [f.result.events.digest() for f in b.fights]
    c = runner.play_run(content, "clockwork-harvest", 8, "random")
    assert c.nodes != a.nodes


@pytest.mark.slow
def test_a_hundred_and_twenty_seeded_runs_play_without_error(stage):
    """(The 1,000-run figure comes from `workbench simulate-run frontier --crew all --runs 167`.)"""
    runner, content = stage
    results = {}
    for seed in range(60):
        for policy, crew in (("greedy", sorted(content.crews)[seed % 6]), ("random", sorted(content.crews)[(seed + 3) % 6])):
            rec = runner.play_run(content, crew, seed, policy)
            assert rec.error is None, f"{crew} seed {seed}: {rec.error}"
            results[rec.result] = results.get(rec.result, 0) + 1
    assert set(results) == {"cleared", "defeated"}


def test_simulate_run_fills_the_campaign_tables_and_exports(tmp_path):
    db = tmp_path / "runs.duckdb"
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang,deeproot-hollow", "--runs", "3",
                  "--policy", "random", "--workers", "2", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    con = duckdb.connect(str(db), read_only=True)
    try:
        run = con.sql("SELECT kind, decks, matches_target, matches_done, status FROM runs").fetchall()
        assert run == [("campaign", "gold-gang,deeproot-hollow", 6, 6, "done")]
        assert con.sql("SELECT count(*), count(DISTINCT crew) FROM campaign_runs").fetchall() == [(6, 2)]
        # every fight node points at a stored match, and its seats name the crew's deck
        fights = con.sql("""SELECT count(*) FROM campaign_nodes n JOIN matches m USING (run_id, match_no)
                            WHERE n.match_no IS NOT NULL""").fetchall()[0][0]
        assert fights == con.sql("SELECT count(*) FROM matches").fetchall()[0][0] > 6
        assert con.sql("SELECT sum(fights) FROM campaign_runs").fetchall()[0][0] == fights
        crews = {r[0] for r in con.sql("SELECT DISTINCT deck FROM match_seats WHERE deck LIKE 'crew:%'").fetchall()}
        assert crews == {"crew:gold-gang", "crew:deeproot-hollow"}
        assert con.sql("SELECT count(*) FROM card_games WHERE card = 'lucky-nugget-gob'").fetchall()[0][0] > 0
        offered = con.sql("SELECT count(*) FROM campaign_rewards WHERE source <> 'lore'").fetchall()[0][0]
        assert offered > 0
    finally:
        con.close()
    for table in ("campaign_clear_rates", "campaign_reward_lift", "campaign_runs"):
        out = tmp_path / f"{table}.csv"
        res = cli_here("export", table, "--db", str(db), "--csv", str(out))
        assert res.returncode == 0, res.stderr
        rows = list(csv.DictReader(out.open(encoding="utf-8")))
        assert rows
    rates = list(csv.DictReader((tmp_path / "campaign_clear_rates.csv").open(encoding="utf-8")))
    assert {r["crew"] for r in rates} == {"gold-gang", "deeproot-hollow"}
    assert {"clear_rate", "clear_rate_lo", "clear_rate_hi", "runs"} <= set(rates[0])
    lift = list(csv.DictReader((tmp_path / "campaign_reward_lift.csv").open(encoding="utf-8")))
    assert {"card", "offers", "taken", "wr_taken", "wr_skipped", "lift"} <= set(lift[0])
    # the same seeds give the same runs
    again = tmp_path / "again.duckdb"
    run_cli("simulate-run", "frontier", "--crew", "gold-gang,deeproot-hollow", "--runs", "3", "--policy", "random",
            "--workers", "1", "--db", str(again), "--quiet")
    q = "SELECT crew, seed, result, hp_left, floor_reached FROM campaign_runs ORDER BY run_no"
    assert duckdb.connect(str(db), read_only=True).sql(q).fetchall() == \
        duckdb.connect(str(again), read_only=True).sql(q).fetchall()


def test_simulate_run_refuses_an_unknown_crew_policy_or_stage(tmp_path):
    from tests.test_cardsdb_errors import one_clean_error

    db = str(tmp_path / "x.duckdb")
    one_clean_error(run_cli("simulate-run", "frontier", "--crew", "nobody", "--db", db), "unknown crew 'nobody'")
    one_clean_error(run_cli("simulate-run", "frontier", "--policy", "smart", "--db", db), "unknown policy 'smart'")
    one_clean_error(run_cli("simulate-run", "frontier", "--stage", "stage-ix", "--db", db), "no stage 'stage-ix'")
    # a weight set the game does not have (it ended in a traceback: the bad-input audit, 2026-12-07)
    one_clean_error(run_cli("simulate-run", "frontier", "--fight-pilot", "greedy@nope", "--db", db),
                    "--fight-pilot: no weight set 'nope'")


def test_clear_rate_and_reward_lift_on_hand_made_tables(tmp_path):
    """Planted truth: two crews clearing 3 of 4 and 1 of 4; a card whose takers win every later
    fight while the skippers win half."""
    from reports.campaign import clear_rates, reward_lift
    from workbench.store import SCHEMA

    path = tmp_path / "planted.duckdb"
    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    for run_no, (crew, cleared) in enumerate([("a", True)] * 3 + [("a", False)] + [("b", True)] + [("b", False)] * 3):
        con.execute("INSERT INTO campaign_runs VALUES (1, ?, 0, 'frontier', 's', ?, ?, 'greedy', 'greedy', ?, ?, "
                    "10, 150, 8, 0, 53, 3, 3, 1.0, NULL)", [run_no, crew, run_no, "cleared" if cleared else "defeated",
                                                            cleared])
        taken = run_no % 2 == 0
        con.execute("INSERT INTO campaign_rewards VALUES (1, ?, 1, 'battle', 'gem', 0, ?)", [run_no, taken])
        for step, won in ((2, True), (3, taken)):   # after the offer: takers win both, skippers one
            con.execute("INSERT INTO campaign_nodes VALUES (1, ?, ?, ?, 'n', 'battle', '', '', 10, 10, 0, 0, ?, ?, '')",
                        [run_no, step, step, run_no * 64 + step, "win" if won else "loss"])
    con.close()
    rates = {r["crew"]: r for r in clear_rates(path).iter_rows(named=True)}
    assert (rates["a"]["runs"], rates["a"]["cleared"], rates["a"]["clear_rate"]) == (4, 3, 0.75)
    assert rates["b"]["clear_rate"] == 0.25 and rates["b"]["clear_rate_lo"] < 0.25 < rates["b"]["clear_rate_hi"]
    gem = reward_lift(path).row(0, named=True)
    assert (gem["offers"], gem["taken"], gem["fights_taken"], gem["fights_skipped"]) == (8, 4, 8, 8)
    assert (gem["wr_taken"], gem["wr_skipped"], gem["lift"]) == (1.0, 0.5, 0.5)
    assert (gem["clear_rate_taken"], gem["clear_rate_skipped"]) == (0.75, 0.25)  # runs 0,2,4 | 1 cleared


def test_reward_lift_never_pools_two_policies(campaign_store, tmp_path):
    """A policy that takes a card and one that skips it make the lift a fact about the policies,
    not the card: each (policy, fight pilot) gets its own rows, the same as that batch alone."""
    import shutil

    from reports.campaign import reward_lift

    db = tmp_path / "two.duckdb"
    shutil.copy(campaign_store, db)
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang", "--runs", "3", "--policy", "greedy",
                  "--workers", "1", "--db", str(db), "--quiet")
    assert res.returncode == 0, res.stderr
    ids = {p: [r for (r,) in duckdb.connect(str(db), read_only=True).sql(
        f"SELECT run_id FROM runs WHERE kind = 'campaign' AND pilots LIKE '{p}%'").fetchall()] for p in ("random", "greedy")}
    both = reward_lift(db)
    assert set(both["policy"]) == {"random", "greedy"} and set(both["fight_pilot"]) == {"greedy"}
    for policy, runs in ids.items():
        alone = reward_lift(db, runs)
        assert both.filter(both["policy"] == policy).equals(alone), policy


def test_a_campaign_batch_names_the_weights_its_fights_think_with():
    """As a run of duels does: a batch played before a weight set changed is not reused after."""
    from sim.core.pilots import weights_fingerprint
    from sim.registry import engine
    from workbench.campaign.spec import CampaignSpec
    from workbench.commands.simulate_run import new_batch

    spec, _payload = new_batch("frontier", "base", None, ["gold-gang"], 2, "random", "greedy", 1, 0.0, None, 1)
    assert spec.weights_hash == weights_fingerprint(["greedy", "greedy"], engine("frontier")) != ""
    older = CampaignSpec.from_json({**spec.to_json(), "weights_hash": ""})
    assert older.spec_hash() != spec.spec_hash()
    # a batch stored before the field keeps the hash it was stored under (its resume still matches)
    import hashlib
    import json
    from dataclasses import asdict

    before = {k: v for k, v in asdict(older).items() if k not in ("event_sample", "weights_hash")}
    assert older.spec_hash() == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:16]
