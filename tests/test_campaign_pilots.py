"""A campaign's clear rates and reward lifts say which pilot played the enemies, not only the
crew's fight pilot and the policy: the stage's ``enemy_pilot`` played every enemy seat, and a
clear rate depends on it as much. The run spec does not name it; every fight the batch played
records it (the seat whose deck is not the crew's ``crew:<crew>``), and that is where
reports/campaign.py reads it from."""
from __future__ import annotations

import csv

import duckdb
import pytest

from tests.conftest import cli_here
from tests.test_dashboard_edges import opened


def texts(at) -> list[str]:
    """The page's words: captions, markdown, alerts."""
    return [e.value for kind in ("caption", "markdown", "info", "success", "warning") for e in getattr(at, kind)]


def stage_enemy_pilot() -> str:
    """The shipped first stage's ``enemy_pilot`` (what the campaign_store fixture's batch played)."""
    from workbench.campaign.stage import load_stage

    return load_stage("frontier", "base", None)[2].stage.enemy_pilot


def two_batches(path) -> None:
    """The same crew, policy and fight pilot (greedy) in two batches whose enemies were played by
    greedy (batch 1: 3 of 4 runs cleared) and by random (batch 2: 1 of 4). One fight per run, after
    an offer of the card ``gem``, taken in every other run."""
    from workbench.store import SCHEMA

    con = duckdb.connect(str(path))
    con.execute(SCHEMA)
    for run_id, enemy, clears in ((1, "greedy", 3), (2, "random", 1)):
        for run_no in range(4):
            cleared = run_no < clears
            con.execute("INSERT INTO campaign_runs VALUES (?, ?, 0, 'frontier', 's', 'a', ?, 'greedy', 'greedy', ?, ?, "
                        "10, 150, 8, 0, 53, 1, ?, 1.0, NULL)",
                        [run_id, run_no, run_no, "cleared" if cleared else "defeated", cleared, int(cleared)])
            con.execute("INSERT INTO campaign_rewards VALUES (?, ?, 1, 'battle', 'gem', 0, ?)",
                        [run_id, run_no, run_no % 2 == 0])
            match_no = run_no * 64
            con.execute("INSERT INTO campaign_nodes VALUES (?, ?, 2, 2, 'n', 'battle', '', '', 10, 10, 0, 0, ?, ?, '')",
                        [run_id, run_no, match_no, "win" if cleared else "loss"])
            # the crew's seat is greedy in both batches: only the enemy's seat says who played the enemies
            for seat, deck, pilot in ((0, "crew:a", "greedy"), (1, "ironhold-garrison", enemy)):
                con.execute("INSERT INTO match_seats (run_id, match_no, seat, team, deck, pilot, result) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [run_id, match_no, seat, seat, deck, pilot,
                             "win" if cleared == (seat == 0) else "loss"])
    con.close()


def test_clear_rates_name_and_split_by_the_enemy_pilot(tmp_path):
    from reports.campaign import clear_rates

    path = tmp_path / "two.duckdb"
    two_batches(path)
    rates = clear_rates(path)
    assert rates.columns[:5] == ["stage", "crew", "policy", "fight_pilot", "enemy_pilot"], rates.columns
    by_enemy = {r["enemy_pilot"]: r for r in rates.iter_rows(named=True)}
    assert set(by_enemy) == {"greedy", "random"}, rates  # never pooled into a figure neither produced
    assert (by_enemy["greedy"]["runs"], by_enemy["greedy"]["cleared"]) == (4, 3)
    assert (by_enemy["random"]["runs"], by_enemy["random"]["cleared"]) == (4, 1)
    assert clear_rates(path, [2])["enemy_pilot"].to_list() == ["random"]


def test_reward_lift_names_and_splits_by_the_enemy_pilot(tmp_path):
    from reports.campaign import reward_lift

    path = tmp_path / "two.duckdb"
    two_batches(path)
    lift = reward_lift(path)
    assert "enemy_pilot" in lift.columns and lift.columns.index("enemy_pilot") == 2, lift.columns
    assert sorted(lift["enemy_pilot"].to_list()) == ["greedy", "random"] and set(lift["offers"]) == {4}
    for run_id, enemy in ((1, "greedy"), (2, "random")):
        assert lift.filter(lift["enemy_pilot"] == enemy).equals(reward_lift(path, [run_id])), enemy


@pytest.mark.parametrize("table", ["campaign_clear_rates", "campaign_reward_lift"])
def test_the_export_names_the_enemy_pilot_its_batch_played(campaign_store, tmp_path, table):
    out = tmp_path / f"{table}.csv"
    r = cli_here("export", table, "--db", str(campaign_store), "--csv", str(out))
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert rows and all(row["enemy_pilot"] == stage_enemy_pilot() for row in rows), rows[:2]


@pytest.mark.usefixtures("fresh_cache")
def test_the_campaign_page_names_the_enemy_pilot(campaign_store, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(campaign_store))
    at = opened("campaign")
    [line] = [t for t in texts(at) if t.startswith("Pilots: ")]
    enemy = stage_enemy_pilot()
    assert "played the fights" in line and f"enemies played by {enemy}" in line, line
    clear = at.dataframe[0].value
    assert "enemy_pilot" in clear.columns and set(clear["enemy_pilot"]) == {enemy}, clear.columns


def test_the_caption_names_every_enemy_pilot_or_says_none_was_recorded():
    from reports.pages.campaign import pilots_caption

    line = pilots_caption(["random"], ["greedy"], ["greedy", "random"])
    assert "random played the fights against enemies played by greedy, random" in line, line
    assert "no recorded pilot" in pilots_caption(["random"], ["greedy"], [])
