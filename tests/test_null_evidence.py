"""Null evidence: ``diff`` and ``value`` find nothing when nothing changed.

An A/A comparison: Wild Frontier's calibration pairing (cardsdb/frontier/calibration.yaml) under
its base rules, against the same rules with the pilots' streams salted (``pilot_salt``: other,
equally fair choices on the same seeds, so the twin matches diverge as a real change makes them
diverge while the true effect is nil), greedy pilots (the designers' pilot), at the size at which
tests/test_planted.py finds a +1/+1 (tests/planted.py's SEEDS: 500 seeds, each from both seats).
The diff must flag no card and no deck (and the nightly batch's alerts stay quiet); the planted
card's value, measured under both, must not have changed.

Each is one fixed-seed draw of tests run at 5% (each deck's McNemar test, the cards' families,
the value change's t-test), as each planted truth is one draw of its detection: a change
elsewhere in the rules or the pilots can move it across. Checked to be able to fail: with
``planted`` (the +1/+1) as the candidate instead of the salted base (CANDIDATE below), on the same
seed, both tests fail, and each check of a deck or a card in the first would too: lawmen-posse
+8.2 points (McNemar p 5e-10), marshal-gunhand flagged (+10.2 points), 46 cards' win rates moved,
9 alerts; the card's value changed by +8.2 points (95% +5.7 to +10.7).
"""
from __future__ import annotations

import io

import polars as pl
import pytest

from cardsdb.calibration import planted, planted_data
from tests.planted import FRONTIER_SEED, SEEDS, shared_frontier_store

pytestmark = pytest.mark.slow  # two runs of 1,000 greedy matches of its own (and the shared ones): about 50 CPU-seconds

GAME = "frontier"
PLANT = planted(GAME)
SEED = FRONTIER_SEED  # the seed of the session's shared Frontier runs (tests/planted.py)
WORKERS = 2
# (rules version, pilot salt) of the candidate: the base rules again, other pilot choices
CANDIDATE = ("base", "salted")


def _salt() -> int:
    from workbench.calibration import AA_SALT

    return AA_SALT if CANDIDATE[1] == "salted" else 0


@pytest.fixture(scope="module")
def aa(tmp_path_factory, worker_id):
    """The A/A diff (``run_diff`` with a pilot salt, as ``workbench bench --stats`` plays it) and
    the four runs of the planted card's value under both: the deck as written and with the card's
    copies replaced by its reference card, unsalted and salted (the diff's two runs are reused)."""
    from rich.console import Console

    from cardsdb.reference import reference_for, reference_ids
    from workbench import games
    from workbench.calibration import Calibration
    from workbench.commands.diff import run_diff
    from workbench.store import Store

    root = tmp_path_factory.mktemp("aa")
    data = planted_data(GAME, root / "data")
    # the session's base run and its reference twin, shared with test_trust and test_planted
    shared_frontier_store(tmp_path_factory, worker_id, root, ("base", "base-ref"))
    db = root / "base.duckdb"
    out, err = io.StringIO(), io.StringIO()
    version, salt = CANDIDATE[0], _salt()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DATA_DIR", str(data))
        diff = run_diff(GAME, "base", version, list(PLANT.decks), ["greedy"], 2 * SEEDS[GAME], SEED, WORKERS, db,
                        True, None, Console(file=out, width=250), Console(file=err), pilot_salt=salt)
        cal = Calibration(Store(db), GAME, data, ["greedy"], WORKERS, Console(file=err))
        _data, ruleset = games.load(GAME, "base", data)
        swap = {"0": {PLANT.card: reference_for(ruleset, PLANT.card, reference_ids(GAME, data))}}
        value_runs = [(cal.run(rules, SEEDS[GAME], SEED, salt=s), cal.run(rules, SEEDS[GAME], SEED, salt=s, substitute=swap))
                      for rules, s in (("base", 0), (version, salt))]
    assert [full for full, _ref in value_runs] == [diff["base_run"], diff["candidate_run"]], "the diff's runs reused"
    # the shared base run (by the diff and by value) and its reference twin, and the diff's
    # salted run (by value): played once each
    assert err.getvalue().count("reusing run ") == 4, err.getvalue()
    return db, diff, out.getvalue(), value_runs


def test_an_aa_diff_flags_no_card_and_no_deck(aa):
    from reports.alerts import alerts
    from reports.diff import version_diff

    db, diff, out, _value_runs = aa
    r = version_diff(db, diff["base_run"], diff["candidate_run"])
    assert r["changed_cards"].is_empty() and r["twins"] == 2 * 2 * SEEDS[GAME]
    decks = r["decks"]
    # a real twin, not a copy: the salt made some twin matches end otherwise
    assert (decks["only_base_won"] + decks["only_candidate_won"]).sum() > 0
    moved = decks.filter((pl.col("mcnemar_p") < 0.05) | (pl.col("change_lo") > 0) | (pl.col("change_hi") < 0))
    assert moved.is_empty(), moved.select("deck", "change", "change_lo", "change_hi", "mcnemar_p")
    assert r["attributed_cards"].is_empty(), r["attributed_cards"].select("card", "effect_points", "q_value")
    assert r["significant_cards"].is_empty(), r["significant_cards"].select("card", "change", "q_value")
    assert r["beyond_deck_cards"].is_empty(), r["beyond_deck_cards"].select("card", "excess_change", "excess_q")
    assert ("other cards whose change differs from their deck's (by how often their place in the shuffled deck "
            "gets them played, Benjamini-Yekutieli, FDR 5%): none") in out
    assert "cards whose win rate moved (paired wins in hand, Benjamini-Hochberg, FDR 5%): none" in out
    # what a nightly batch compares, night against night, at its example threshold: no alert
    found, _diff = alerts(db, diff["base_run"], diff["candidate_run"], 3.0, 0.05, "previous")
    assert found.is_empty(), found.select("kind", "name", "change_points")


def test_an_aa_value_change_holds_zero(aa):
    """The planted card's value (with it against with its reference card, on the same seeds)
    measured under the base rules and under the same rules with salted pilots: the change's
    interval holds 0 and its t-test does not reject."""
    from reports.intervention import value_change

    db, _diff, _out, (before, after) = aa
    change = value_change(db, before, after)
    assert change["twins"] == 2 * SEEDS[GAME]
    assert change["change_hi"] > change["change_lo"], change  # the twins diverged: a test with something to read
    assert change["change_lo"] <= 0 <= change["change_hi"] and change["p_value"] >= 0.05, change
