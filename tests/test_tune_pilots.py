"""Every figure ``workbench tune`` writes says which pilots produced it: each row of its CSVs
(``--csv`` and ``workbench export tune_*``) carries its proposal's ``pilots``, as the ``tune`` row
names them, and its progress lines name them too (they had named no pilot; only the final table
did)."""
from __future__ import annotations

import csv
import io

import pytest

from reports.tune import proposal_table, proposals
from tests.conftest import cli_here
from tests.test_tune import PLANTED, hand_made_proposals, tune, workspace

TUNE_ROWS = ("tune_changes", "tune_decks", "tune_steps", "tune_values")


def read_csv(path):
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def three_proposals(path):
    """The two hand-made proposals (pilots greedy) and a third played by other pilots (one per deck)."""
    from workbench.store import Store
    from workbench.tune.record import record

    hand_made_proposals(path)
    record(Store(path), {"game": "frontier", "kind": "field", "base_version": "base", "version": None,
                         "decks": "goblin-gold-gang,lawmen-posse", "pilots": "random,greedy", "seed": 2,
                         "search_matches": 50, "matches_search": 100, "matches_verify": 0, "changes": 0,
                         "in_band": True, "verdict": "every deck is already inside the band"},
           {"tune_decks": [{"deck": "goblin-gold-gang", "search_before": 0.5, "search_after": 0.5}],
            "tune_values": [{"card": "ash-wraith", "field": "atk", "number": 3, "deck": "goblin-gold-gang",
                             "reference": "reference-creature-3", "chosen": True}]})
    return path


@pytest.mark.parametrize("table", TUNE_ROWS)
def test_workbench_export_of_a_tune_table_names_each_rows_pilots(tmp_path, table):
    path = three_proposals(tmp_path / "hand.duckdb")
    pilots = dict(proposals(path).select("tune_id", "pilots").iter_rows())
    assert pilots == {1: "greedy", 2: "greedy", 3: "random,greedy"}
    out = tmp_path / f"{table}.csv"
    r = cli_here("export", table, "--db", str(path), "--csv", str(out))
    assert r.returncode == 0, r.stderr
    header, rows = read_csv(out)
    assert header[-1] == "pilots" and header.count("pilots") == 1, header
    assert rows, table
    for row in rows:
        assert row["pilots"] == pilots[int(row["tune_id"])], row
    # the proposal row itself names them as it always did
    r = cli_here("export", "tune", "--db", str(path), "--csv", str(tmp_path / "tune.csv"))
    assert r.returncode == 0 and {t["pilots"] for t in read_csv(tmp_path / "tune.csv")[1]} == set(pilots.values())


def test_tune_csv_writes_the_pilots_on_every_row_even_of_an_empty_table(tmp_path):
    """``--csv``'s files, on the hand-made store: the store's columns and then ``pilots``, the
    header alone for a table the proposal has no row of."""
    from rich.console import Console

    from workbench.commands.tune import _csv
    from workbench.store import Store

    path = three_proposals(tmp_path / "hand.duckdb")
    for tune_id, pilots in ((1, "greedy"), (3, "random,greedy")):
        folder = tmp_path / f"csv{tune_id}"
        _csv(folder, Store(path), tune_id, TUNE_ROWS, Console(file=io.StringIO()))
        for table in TUNE_ROWS:
            header, rows = read_csv(folder / f"{table}.csv")
            stored = proposal_table(path, table, tune_id)
            assert header == [*stored.columns, "pilots"] and len(rows) == stored.height, (table, header)
            assert all(row["pilots"] == pilots for row in rows), (table, rows)


def progress(stderr: str) -> list[str]:
    """The lines of a tune's progress that report win rates or values."""
    starts = ("start", "[round", "take:", "verifying", "verified", "round ", f"{PLANTED} atk")
    return [line for line in stderr.splitlines() if line.startswith(starts)]


@pytest.mark.slow
def test_a_field_tunes_csv_and_progress_name_its_pilots(tmp_path):
    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    r = tune(ws, store, "--rules", "planted", "--band", "40-60", "--max-changes", "1", "--matches", "20",
             "--verify-matches", "20", "--matches-budget", "200", "--csv", str(tmp_path / "csv"))
    assert r.returncode in (0, 1), r.stderr
    lines = progress(r.stderr)
    assert any(x.startswith("start") for x in lines) and any(x.startswith("[round") for x in lines), r.stderr
    assert all("pilots random" in x for x in lines), lines
    p = proposals(store).row(0, named=True)
    assert p["pilots"] == "random"
    for table in ("tune_changes", "tune_decks", "tune_steps"):
        header, rows = read_csv(tmp_path / "csv" / f"{table}.csv")
        assert header == [*proposal_table(store, table, p["tune_id"]).columns, "pilots"], header
        assert all(row["pilots"] == "random" for row in rows), rows
    assert read_csv(tmp_path / "csv" / "tune_steps.csv")[1], "the search tried no candidate"


@pytest.mark.slow
def test_one_cards_csv_and_progress_name_its_pilots(tmp_path):
    ws, store = workspace(tmp_path), tmp_path / "s.duckdb"
    r = tune(ws, store, "--rules", "planted", "--card", PLANTED, "--stat", "atk", "--matches", "10",
             "--csv", str(tmp_path / "csv"))
    assert r.returncode == 0, r.stderr
    lines = [x for x in progress(r.stderr) if x.startswith(PLANTED)]
    assert lines and all("pilots random" in x for x in lines), r.stderr
    header, rows = read_csv(tmp_path / "csv" / "tune_values.csv")
    assert header[-1] == "pilots" and rows and all(row["pilots"] == "random" for row in rows), (header, rows)
