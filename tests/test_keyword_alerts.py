"""A nightly keyword alert is a keyword whose seats moved beyond their decks' own move: when one
card of a deck is buffed, every keyword of every deck in the field used to alert with its deck
(12 keyword alerts of no changed card on one buff, 15 of 19 alerts of a night in an audit)."""
import shutil

import polars as pl
import pytest

from tests.conftest import DATA, run_cli

DECKS = "lawmen-posse,goblin-gold-gang,ironhold-garrison"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("kw")
    data = root / "data"
    shutil.copytree(DATA / "frontier", data / "frontier", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    (data / "frontier" / "rules" / "buff.yaml").write_text(
        "version: buff\nextends: base\npatch:\n  twin-pistol-gob: {atk: 5, def: 5}\n")
    path = root / "k.duckdb"
    for rules in ("base", "buff"):
        res = run_cli("simulate", "frontier", "--rules", rules, "--decks", DECKS, "--pilots", "random", "--matches",
                      "300", "--workers", "1", "--db", str(path), "--quiet", "--events", "none",
                      env={"WORKBENCH_DATA_DIR": str(data)})
        assert res.returncode == 0, res.stderr
    return path


def test_keywords_do_not_alert_with_their_decks(store):
    from reports.alerts import alerts
    from reports.filters import Filters
    from reports.keywords import exposures

    found, _diff = alerts(store, 1, 2, 3.0, 0.05, "previous")
    kinds = dict(found.group_by("kind").len().iter_rows())
    assert kinds.get("deck", 0) >= 2, found  # the buff moved the decks
    assert kinds.get("keyword", 0) == 0, found.filter(pl.col("kind") == "keyword")
    # the raw measure (the win rate of seats that played the keyword, run against run) moves with
    # the decks: what the alerts used to read
    raw = []
    for run in (1, 2):
        data = exposures(store, Filters(runs=[run]))
        raw.append({kw: float(data.filter(pl.col(kw) > 0)["won"].cast(pl.Float64).mean())
                    for kw in ("barricade", "ironclad", "gold_rush", "warrant")})
    moved = [kw for kw in raw[0] if abs(raw[1][kw] - raw[0][kw]) >= 0.05]
    assert len(moved) >= 3, (raw, moved)
