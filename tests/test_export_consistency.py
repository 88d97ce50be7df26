"""Every CSV reads the same whichever command wrote it: an undefined number is an empty cell in
every table, `workbench diff --csv` writes what `workbench export diff_* --diff ID` writes, and
every table the store makes can be exported."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.conftest import built_once, cli_here, run_cli

TINY = ("--matches", "2", "--pilots", "random", "--workers", "1", "--decks", "goblin-gold-gang,lawmen-posse",
        "--quiet")


def _consistency_store(path: Path) -> None:
    """Diff 1: a constants change (no card changes). Diff 2: a card change (bison-bull's atk), its
    tables also written by `diff --csv` into csv/. Then a ladder, a tune proposal and a batch."""
    from workbench.store import Store

    folder = path.parent
    res = cli_here("init", str(folder / "ws"))
    assert res.returncode == 0, res.stderr
    (folder / "ws" / "frontier" / "rules" / "tough.yaml").write_text(
        "version: tough\nextends: base\npatch: {bison-bull: {atk: 9}}\n", encoding="utf-8")
    data = ("--data", str(folder / "ws"), "--db", str(path))
    for candidate, extra in (("first-player-skips-draw", ()), ("tough", ("--csv", str(folder / "csv")))):
        res = run_cli("diff", "frontier", "--base", "base", "--candidate", candidate, *TINY, *data, *extra)
        assert res.returncode == 0, res.stderr
    res = run_cli("ladder", "frontier", "--pilots", "random,greedy", "--matches", "2", "--workers", "1", "--quiet",
                  "--decks", "goblin-gold-gang,lawmen-posse", *data)
    assert res.returncode == 0, res.stderr
    res = run_cli("tune", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random", "--matches",
                  "2", "--verify-matches", "2", "--matches-budget", "8", "--max-changes", "1", "--workers", "1",
                  "--as", "t1", "--quiet", *data)
    assert res.returncode == 0, res.stderr
    store = Store(path)  # a batch's rows, as workbench/batch/run.py stores them: suite a ran run 1, b run 3
    batch = store.open_batch("nightly", "2024-01-02", "hash")
    store.record_suite(batch, "a", "frontier", 1, None, None, "done", 0)
    store.record_suite(batch, "b", "frontier", 3, None, 1, "done", 0)
    store.finish_batch(batch, "done", 0)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "consistency", _consistency_store)


def exported(store: Path, folder: Path, table: str, *args: str) -> Path:
    out = folder / f"{table}.csv"
    res = cli_here("export", table, *args, "--csv", str(out), "--db", str(store))
    assert res.returncode == 0, res.stderr
    return out


def rows_of(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


# --- 1. an undefined number is an empty cell --------------------------------------------------------

def test_nan_is_an_empty_cell_in_csv_and_null_in_parquet(tmp_path):
    """NaN (a rate of no games) and NULL read the same: empty in the CSV, null in the Parquet."""
    from reports.export import write_frame

    frame = pl.DataFrame({"card": ["a", "b", "c"], "rate": [0.5, float("nan"), None], "n": [2, 0, None]})
    write_frame(frame, csv=tmp_path / "t.csv", parquet=tmp_path / "t.parquet")
    assert rows_of(tmp_path / "t.csv") == [["card", "rate", "n"], ["a", "0.5", "2"], ["b", "", "0"], ["c", "", ""]]
    back = pl.read_parquet(tmp_path / "t.parquet")
    assert back["rate"].to_list() == [0.5, None, None] and back["rate"].is_nan().sum() == 0


def test_no_exported_csv_holds_the_text_nan(store, tmp_path):
    """The diff's tables (from both commands; two twins leave variances undefined) and cards."""
    files = [*(store.parent / "csv").glob("*.csv"),
             *(exported(store, tmp_path, t, *a) for t, a in (("diff_cards", ("--diff", "2")), ("cards", ())))]
    for path in files:
        cells = [c for r in rows_of(path) for c in r]
        assert "NaN" not in cells and "nan" not in cells, path.name


# --- 2. `diff --csv` writes what `export` writes --------------------------------------------------------

def test_diff_csv_writes_exactly_what_export_writes(store, tmp_path):
    from reports.exports import DIFF_TABLES

    for table in DIFF_TABLES:
        written = store.parent / "csv" / f"{table}.csv"
        assert written.read_bytes() == exported(store, tmp_path, table, "--diff", "2").read_bytes(), table
    changed = rows_of(store.parent / "csv" / "diff_changed_cards.csv")
    assert changed == [["card", "name", "change", "field", "base", "candidate"],
                       ["bison-bull", "Bison Bull", "changed", "atk", "4", "9"]]
    assert rows_of(store.parent / "csv" / "diff_cards.csv")[0][:2] == ["card", "name"]
    for table in ("diff_decks", "diff_cards", "diff_power"):  # each names its pilots and runs in every row
        head, *rows = rows_of(store.parent / "csv" / f"{table}.csv")
        assert head[-3:] == ["pilots", "base_run", "candidate_run"], table
        runs = duckdb.connect(str(store), read_only=True).sql(
            "SELECT base_run, candidate_run FROM diffs WHERE diff_id = 2").fetchall()[0]
        assert rows and all(r[-3:] == ["random,random", *map(str, runs)] for r in rows), (table, rows[0][-3:])


def test_an_empty_diff_export_has_the_full_header(store, tmp_path):
    """Diff 1 changes no card: its changed cards are a header alone, the same header as diff 2's."""
    empty = rows_of(exported(store, tmp_path, "diff_changed_cards", "--diff", "1"))
    assert empty == [rows_of(store.parent / "csv" / "diff_changed_cards.csv")[0]]


# --- 3. every table the store makes exports ---------------------------------------------------------------

def store_tables() -> set[str]:
    """The tables the store's code creates, read from its CREATE TABLE statements."""
    from workbench.store import MIGRATIONS, SCHEMA
    from workbench.tune.record import TUNE_SQL

    return set(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA + MIGRATIONS + TUNE_SQL))


def test_every_store_table_is_an_export():
    from reports.exports import EXPORTS, RAW

    # the marker holds no data; `cards` is exported as card_defs, card_value as the computed table
    wanted = store_tables() - {"workbench_store", "cards"}
    assert wanted - set(EXPORTS) == set()
    assert {"batches", "batch_suites", "ladder", "ladder_pairs", "ladder_matches", "tune", "tune_changes",
            "tune_decks", "tune_steps", "tune_values"} <= set(RAW)


@pytest.mark.parametrize("table", ["ladder", "ladder_pairs", "ladder_matches", "tune", "tune_changes", "tune_decks",
                                   "tune_steps", "tune_values", "batches", "batch_suites"])
def test_new_store_tables_export_their_rows(store, tmp_path, table):
    """The whole table, every column, with its header even when it has no rows."""
    with duckdb.connect(str(store), read_only=True) as con:
        columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
        count = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    rows = rows_of(exported(store, tmp_path, table))
    if table.startswith("tune_"):  # a proposal's rows carry its pilots, last (reports/exports.TUNE_ROWS)
        columns = [*columns, "pilots"]
    assert rows[0] == columns and len(rows) - 1 == count
    if table in ("ladder", "ladder_pairs", "ladder_matches", "tune", "tune_decks", "batches", "batch_suites"):
        assert count > 0, table


def test_the_unknown_table_message_lists_them(store, tmp_path):
    res = cli_here("export", "nope", "--csv", str(tmp_path / "x.csv"), "--db", str(store))
    assert res.returncode == 2
    for table in ("ladder", "ladder_pairs", "tune_changes", "tune_decks", "batches", "batch_suites"):
        assert f" {table}," in res.stderr or f" {table})" in res.stderr, table


def test_the_new_tables_read_the_filters_they_hold(store, tmp_path):
    """A batch's rows belong to the runs they name; a ladder plays outside runs and reads none."""
    suites = rows_of(exported(store, tmp_path, "batch_suites", "--run", "3"))
    assert [r[1] for r in suites[1:]] == ["b"]
    suites = rows_of(exported(store, tmp_path, "batch_suites", "--run", "1"))  # b's baseline is run 1
    assert [r[1] for r in suites[1:]] == ["a", "b"]
    assert len(rows_of(exported(store, tmp_path, "batches", "--run", "3"))) == 2
    res = cli_here("export", "ladder", "--game", "frontier", "--csv", str(tmp_path / "l.csv"), "--db", str(store))
    assert res.returncode == 2 and "ladder does not filter by --game (it takes no filters)" in res.stderr


def test_a_store_without_tune_tables_says_so(tmp_path):
    """A store nobody tuned in has no tune tables: one line naming the command that stores them."""
    db = tmp_path / "s.duckdb"
    res = run_cli("simulate", "frontier", *TINY, "--db", str(db))
    assert res.returncode == 0, res.stderr
    res = cli_here("export", "tune_changes", "--csv", str(tmp_path / "t.csv"), "--db", str(db))
    assert res.returncode == 2 and "no tune_changes table yet (`workbench tune` stores it)" in res.stderr
    assert not (tmp_path / "t.csv").exists()
