"""The analytics from the command line: every export, the HTML report, the diff tables."""
import csv

import pytest

from reports.exports import COMPUTED, DIFF_TABLES, RAW
from tests.conftest import cli_here, run_cli


@pytest.fixture(scope="module")
def diffed(tmp_path_factory):
    db = tmp_path_factory.mktemp("diffed") / "d.duckdb"
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw",
                  "--matches", "60", "--pilots", "random", "--decks", "goblin-gold-gang,lawmen-posse", "--db", str(db), "--quiet",
                  "--csv", str(db.parent / "csv"))
    assert res.returncode == 0, res.stderr
    return db, res.stdout


def test_diff_prints_decks_power_and_pairing(diffed):
    _db, out = diffed
    assert "first-seat" not in out and "(first seat)" in out
    assert "Games needed" in out and "paired matches of this field" in out and "pairing removed" in out
    assert "cards the candidate changes" not in out  # a constants change: no card differs


def test_diff_reuses_finished_runs(diffed):
    db, _ = diffed
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw",
                  "--matches", "60", "--pilots", "random", "--decks", "goblin-gold-gang,lawmen-posse", "--db", str(db),
                  "--quiet")
    assert res.returncode == 0 and res.stderr.count("reusing run") == 2


MODE_TABLES = ("ffa_", "series", "turf_")  # a mode's own tables come from a store of that mode's runs
REDRAW_TABLES = ("card_mulligan",)  # keep or redraw needs a game with a redraw: AlleyWay's, the modes store


@pytest.fixture(scope="module")
def modes_store(tmp_path_factory):
    """A store with a small run of each AlleyWay mode beyond the duel."""
    from sim.registry import engine

    db = tmp_path_factory.mktemp("modes") / "m.duckdb"
    runs = {"ffa": ["--decks", "archon-star-fleet,cinder-wildfire,graves-garrison,marlows-crew", "--matches", "4"],
            "series": ["--decks", "cinder-wildfire,marlows-crew", "--matches", "4"],
            "turf": ["--decks", "cinder-wildfire,marlows-crew", "--matches", "2"]}
    for mode, args in runs.items():
        if mode in engine("alleyway").modes:
            res = run_cli("simulate", "alleyway", "--mode", mode, *args, "--pilots", "random", "--workers", "1",
                          "--db", str(db), "--quiet")
            assert res.returncode == 0, res.stderr
    return db


# the batch, ladder and tune tables' rows are made and exported in tests/test_export_consistency.py
OWN_STORES = ("batch", "ladder", "tune")


# the pilot tables need runs of one field under different pilots: tests/test_pilot_sensitivity.py
PILOT_TABLES = ("pilot_sensitivity", "skill_premium")


@pytest.mark.parametrize("name", sorted(set(COMPUTED) - set(PILOT_TABLES)) + sorted(DIFF_TABLES) +
                         sorted(n for n in RAW if not n.startswith(OWN_STORES)))
def test_every_table_exports_to_csv_and_parquet(diffed, campaign_store, modes_store, name, tmp_path):
    """In process (the CLI path is the same function; one CLI run is checked below). Campaign
    tables come from a store of Frontier Run batches, a mode's tables (and keep or redraw) from a
    store of AlleyWay's runs."""
    from reports.export import write_frame
    from reports.exports import export_frame
    from reports.filters import Filters

    db = campaign_store if name.startswith("campaign") \
        else modes_store if name.startswith(MODE_TABLES + REDRAW_TABLES) else diffed[0]
    frame = export_frame(db, name, Filters(), 1 if name in DIFF_TABLES else None)
    write_frame(frame, csv=tmp_path / "t.csv", parquet=tmp_path / "t.parquet")
    import duckdb
    assert duckdb.sql(f"SELECT count(*) FROM '{tmp_path / 't.parquet'}'").fetchall()[0][0] == frame.height
    with open(tmp_path / "t.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    header = rows[0]
    assert header and len(set(header)) == len(header) and "" not in header and "index" not in header
    assert all(len(r) == len(header) for r in rows[1:])
    # diffs keep no event logs, and this store holds no `workbench value` (tests/test_value_reports.py)
    if name not in ("diff_changed_cards", "events", "card_value", "diff_verdicts"):  # a fixed-size diff has no verdicts
        assert len(rows) > 1, f"{name} exported no rows"


def test_export_from_the_command_line(diffed, tmp_path):
    db, _ = diffed
    res = cli_here("export", "diff_cards", "--diff", "1", "--csv", str(tmp_path / "c.csv"), "--db", str(db))
    assert res.returncode == 0 and "rows of diff_cards" in res.stderr
    res = cli_here("export", "cards", "--run", "1", "--run", "2", "--deck", "lawmen-posse",
                  "--csv", str(tmp_path / "k.csv"), "--db", str(db))
    assert res.returncode == 0, res.stderr
    with open(tmp_path / "k.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["rules_version"] for r in rows} == {"base", "first-player-skips-draw"}


def test_diff_tables_need_a_diff(diffed, tmp_path):
    db, _ = diffed
    res = cli_here("export", "diff_cards", "--csv", str(tmp_path / "x.csv"), "--db", str(db))
    assert res.returncode == 2 and "needs --diff" in res.stderr


def test_html_report_is_self_contained(diffed, tmp_path):
    db, _ = diffed
    out = tmp_path / "report.html"
    res = cli_here("report", "2", "--diff", "1", "--html", str(out), "--db", str(db))
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    import re
    assert not re.search(r"<script[^>]*\bsrc=", text)  # nothing loaded from elsewhere: plotly is inlined
    assert "plotly.js" in text
    for heading in ("Most over-performing", "Most under-performing", "Keywords", "Cost curve", "Matchups",
                    "Version diff"):
        assert heading in text
    res = cli_here("report", "1", "--diff", "99", "--html", str(out), "--db", str(db))
    assert res.returncode == 2 and "no run 99" in res.stderr


def test_diff_exports_are_spreadsheet_clean(diffed, tmp_path):
    """Card names beside ids; changed cards one row per changed field, no JSON blobs."""
    import polars as pl

    from reports.exports import changed_fields, export_frame
    from reports.filters import Filters

    db, _ = diffed
    cards = export_frame(db, "diff_cards", Filters(), 1)
    assert cards.columns[:2] == ["card", "name"] and cards["name"].null_count() == 0
    assert cards.filter(pl.col("card") == "iron-horse-cavalry")["name"].to_list() == ["Iron Horse Cavalry"]
    changed = pl.DataFrame({"card": ["a", "b"], "change": ["changed", "added"],
                            "base": ['{"atk": 4, "def": 4, "keywords": {"ambush": true, "fortify": 1}}', None],
                            "candidate": ['{"atk": 3, "def": 4, "keywords": {"ambush": false, "fortify": 1}}',
                                          '{"atk": 1}']})
    rows = changed_fields(changed).rows()
    assert rows == [("a", "changed", "atk", "4", "3"), ("a", "changed", "ambush", "yes", "no"),
                    ("b", "added", "atk", "—", "1")]


def test_a_diff_read_twice_gives_the_same_bits(diffed):
    """Its per-card sums run over rows in a fixed order: no last-bit differences between reruns."""
    from reports.diff import version_diff

    db, _ = diffed
    first, second = (version_diff(db, 1, 2)["cards"] for _ in range(2))
    assert first.equals(second, null_equal=True)
