"""The checks behind the bad-input bar, one by one: what a resume refusal says changed, a batch
file checked whole, the YAML reader's duplicate keys, the shared scenario fields, the bounds at
their edge, and user text printed as written."""
from __future__ import annotations

import pytest
import yaml

from cardsdb.errors import DataError, DataErrors
from tests.conftest import DATA, SCENARIOS, run_cli


def _spec(**changes):
    from workbench.runspec import RunSpec

    base = dict(game="frontier", rules="base", decks=["a", "b"], pilots=["greedy"], matches=4,
                rules_hash="r1", deck_hash="d1")
    return RunSpec(**{**base, **changes})


def test_a_deck_edit_is_not_reported_as_a_rules_change():
    from workbench.commands.simulate import what_changed

    deck_edit = what_changed(_spec(), _spec(deck_hash="d2"))
    assert "decks (a, b) were edited" in deck_edit and "d1 -> d2" in deck_edit and "rules" not in deck_edit
    rules_edit = what_changed(_spec(), _spec(rules_hash="r2"))
    assert "rules version 'base' changed (hash r1 -> r2)" in rules_edit and "deck" not in rules_edit
    both = what_changed(_spec(), _spec(rules_hash="r2", deck_hash="d2"))
    assert "rules version" in both and "edited" in both


def test_a_batch_file_is_checked_whole_before_its_first_suite(tmp_path):
    import datetime as dt

    from workbench.batch.run import plan_suites
    from workbench.batch.spec import Suite

    good = {"name": "ok", "game": "frontier", "decks": ["lawmen-posse", "goblin-gold-gang"], "matches": 2}
    suites = [Suite(**good), Suite(**{**good, "name": "two", "rules": "nope"}),
              Suite(**{**good, "name": "three", "pilots": ["wizard"]})]
    with pytest.raises(DataErrors) as info:
        plan_suites(tmp_path / "b.yaml", suites, dt.date(2026, 12, 1), 1, None)
    lines = [e.line() for e in info.value.errors]
    assert len(lines) == 2 and "suite 'two'" in lines[0] and "nope" in lines[0] and "suite 'three'" in lines[1]
    plans = plan_suites(tmp_path / "b.yaml", suites[:1], dt.date(2026, 12, 1), 1, None)
    assert plans["ok"].run[0].matches == 2 and plans["ok"].baseline is None


def test_duplicate_keys_are_refused_but_merge_keys_may_be_overridden(tmp_path):
    from cardsdb.yamlfile import read_yaml

    path = tmp_path / "x.yaml"
    path.write_text("base: &b {atk: 1, def: 2}\ncard:\n  <<: *b\n  atk: 5\n")
    assert read_yaml(path)["card"] == {"atk": 5, "def": 2}
    path.write_text("card:\n  atk: 1\n  def: 2\n  atk: 5\n")
    with pytest.raises(DataError, match=r"line 4.*'atk' appears twice in one mapping \(first on line 2\)"):
        read_yaml(path)


def test_a_number_at_the_bound_passes_and_one_past_it_fails(tmp_path):
    import shutil

    from cardsdb.bounds import max_number
    from cardsdb.loader import load_game
    from cardsdb.registry import schema

    root = tmp_path / "data"
    shutil.copytree(DATA / "frontier", root / "frontier", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    path = root / "frontier" / "cards" / "humans.yaml"
    limit = max_number(schema("frontier"))
    for atk, ok in ((limit, True), (limit + 1, False)):
        cards = yaml.safe_load((DATA / "frontier" / "cards" / "humans.yaml").read_text())
        cards[0]["atk"] = atk
        path.write_text(yaml.safe_dump(cards, sort_keys=False))
        errors = load_game("frontier", root).errors
        assert (not errors) if ok else (len(errors) == 1 and f"atk {atk} is above" in errors[0].line())


@pytest.mark.parametrize("spec, words", [
    ("oops", "expected a mapping of fields"),
    ({"hand": "tin-star-recruit"}, "hand: expected a list of card ids"),
    ({"turns": True}, "turns: expected a whole number"),
    ({"seats": [1, 2]}, "seats: expected a list with one mapping per seat"),
])
def test_the_shared_position_fields_have_their_shape(spec, words):
    from sim.core.scenario import check_fields

    with pytest.raises(ValueError, match=words):
        check_fields(spec, ["hand", "turns", "seats"], "setup.seats[0]")


def test_a_failing_scenario_prints_its_name_as_written(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"name": "[/red] pattern [a-z0-9]", "game": "frontier",
                                    "setup": {"seats": [{}, {}]}, "steps": [{"expect": {"p0.hp": 3}}]}))
    res = run_cli("scenario", "run", str(path))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "[/red] pattern [a-z0-9]" in res.stdout and "p0.hp: expected 3, got 30" in res.stdout


def test_the_shipped_scenarios_still_pass():
    res = run_cli("scenario", "run", str(SCENARIOS))
    assert res.returncode == 0, res.stdout + res.stderr
