"""One definition of "off budget" (cardsdb/budget.py): ``workbench cards validate`` and the cost
curve (the Cost curves page, the ``cost_curve`` export, the HTML report) name the same cards on
the same data. The data: each game's rules plus its planted calibration version (one card made
stronger by one cost step of stats), written into a copy; the store: the ``cards`` rows a run of
each version records."""
from __future__ import annotations

import io

import pytest
from rich.console import Console

from cardsdb.budget import TOLERANCE, is_off_budget, off_budget_cards
from cardsdb.calibration import PLANTED_VERSION, planted, planted_data
from cardsdb.loader import load_game, resolve
from cardsdb.registry import GAMES


def store_of_versions(path, data) -> None:
    """A store whose runs record the card tables of every rules version of ``data`` (no matches:
    the cost curve reads the card definitions of the runs' versions)."""
    from workbench.commands.simulate import card_rows
    from workbench.store import Store

    store = Store(path)
    store.init()
    for version in sorted(data.rules):
        ruleset = resolve(data, version)
        spec = {"game": ruleset.game, "rules": version, "rules_hash": ruleset.hash, "decks": ["x", "y"],
                "pilots": ["random", "random"], "matches_total": 0, "seed": 1, "event_sample": 0.0}
        store.create_run(spec, f"spec-{version}", card_rows(ruleset), 0, "test")


def validate_notes(game: str, data_dir) -> dict[str, dict[str, float]]:
    """What ``workbench cards validate`` prints, read back: version -> {card: surplus}."""
    from workbench.commands.cards import validate

    text = io.StringIO()
    validate(game, data_dir, Console(file=text, width=200), Console(file=io.StringIO()))
    notes, version = {}, None
    for line in text.getvalue().splitlines():
        if line.startswith("note: "):
            version = line.split(":")[1].strip()
            notes[version] = {}
        elif version and line.startswith("  ") and "stat points against its budget" in line:
            card, rest = line.strip().split(": ", 1)
            notes[version][card] = float(rest.split()[0])
        else:
            version = None
    return notes


@pytest.mark.parametrize("game", sorted(GAMES))
def test_validate_and_the_cost_curve_name_the_same_cards(game, tmp_path):
    import polars as pl

    from reports.costs import stat_budget

    data_dir = planted_data(game, tmp_path / "data")
    data = load_game(game, data_dir)
    store = tmp_path / "s.duckdb"
    store_of_versions(store, data)
    cards, _lines = stat_budget(store)
    page = {v: dict(zip(part["card"], part["surplus"]))
            for (v,), part in cards.filter(pl.col("off_budget")).group_by(["rules_version"])}
    said = validate_notes(game, data_dir)
    plant = planted(game).card
    assert plant in page[PLANTED_VERSION] and plant in said[PLANTED_VERSION], "the planted card is off budget"
    for version in data.rules:
        flagged = page.get(version, {})
        # the cards validate names under a version are flagged on the page, with the same surplus ...
        for card, value in said.get(version, {}).items():
            assert flagged.get(card) == pytest.approx(value, abs=0.05), (version, card)
        # ... and each card the page flags is named by validate there or under the version it extends
        parent = data.rules[version].extends
        for card, value in flagged.items():
            named = said.get(version, {}).get(card, said.get(parent, {}).get(card))
            assert named == pytest.approx(value, abs=0.05), (version, card)
        assert set(flagged) == set(off_budget_cards(data.schema, resolve(data, version))), version


def test_the_rule():
    assert not is_off_budget(TOLERANCE) and not is_off_budget(-TOLERANCE) and not is_off_budget(0.0)
    assert is_off_budget(TOLERANCE + 0.5) and is_off_budget(-TOLERANCE - 0.5)
    assert not is_off_budget(None) and not is_off_budget(float("nan"))


def test_a_type_with_too_few_cards_gets_no_line_and_says_so(tmp_path):
    """Wild Frontier's 3 items: no fit, no R² of nan, the reason in the line's row."""
    from reports.costs import TOO_FEW, stat_budget

    data = load_game("frontier")
    data.rules = {"base": data.rules["base"]}
    store = tmp_path / "s.duckdb"
    store_of_versions(store, data)
    cards, lines = stat_budget(store)
    rows = {r["type"]: r for r in lines.iter_rows(named=True)}
    assert rows["item"]["note"] == TOO_FEW and rows["item"]["r_squared"] is None
    assert rows["creature"]["note"] is None and 0 < rows["creature"]["r_squared"] <= 1
    items = cards.filter(cards["type"] == "item")
    assert items["fitted_stats"].null_count() == items.height and items["residual_z"].null_count() == items.height
