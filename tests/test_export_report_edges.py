"""`workbench export` and `workbench report` at their edges: a run with no stored match yet, an
export half written, filters a table does not read or values that name nothing, another
application's DuckDB file, a run as its own diff base. Each is one clear line and exit 2, and
leaves no file behind; or, for the empty run, the usual columns."""
from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.conftest import built_once, cli_here, run_cli


def _edges_store(path: Path) -> None:
    """Run 1: two random matches. Run 2: the same spec, made as simulate makes a run and stopped
    before its first chunk was stored (what an interrupted simulate leaves)."""
    from workbench.store import Store

    res = run_cli("simulate", "frontier", "--decks", "lawmen-posse,goblin-gold-gang", "--pilots", "random",
                  "--matches", "2", "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    with duckdb.connect(str(path), read_only=True) as con:
        spec = json.loads(con.execute("SELECT spec FROM runs WHERE run_id = 1").fetchone()[0])
    store = Store(path)
    run = store.create_run(spec, "stopped-before-its-first-chunk", [], 1, "test")
    store.set_status(run, "stopped")


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "edges", _edges_store)


def one_error_line(res) -> str:
    """The single line a refused command printed (exit 2, no traceback)."""
    text = res.stdout + res.stderr
    lines = [line for line in text.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (res.returncode, text)
    assert "Traceback" not in text
    return lines[0]


def header(path: Path) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return next(csv.reader(fh))


# --- 1. a run with no stored matches ------------------------------------------------------------

def test_a_run_without_matches_exports_the_usual_columns(store, tmp_path):
    for table in ("cards", "cards_by_deck"):
        full, empty = tmp_path / f"{table}-1.csv", tmp_path / f"{table}-2.csv"
        assert cli_here("export", table, "--run", "1", "--csv", str(full), "--db", str(store)).returncode == 0
        res = cli_here("export", table, "--run", "2", "--csv", str(empty), "--db", str(store))
        assert res.returncode == 0 and f"wrote 0 rows of {table}" in res.stderr, res.stderr
        assert header(empty) == header(full)
        assert "played_wr_lo" in header(empty) and "example_win_key" not in header(empty)


def test_a_report_of_a_run_without_matches_is_refused_in_one_line(store, tmp_path):
    out = tmp_path / "r.html"
    line = one_error_line(cli_here("report", "2", "--html", str(out), "--db", str(store)))
    assert "run 2 has no stored matches yet" in line and "--resume 2" in line
    line = one_error_line(cli_here("report", "1", "2", "--html", str(out), "--db", str(store)))
    assert "run 2 has no stored matches yet" in line
    assert not out.exists() and not list(tmp_path.iterdir())


# --- 2. an export that fails half way -------------------------------------------------------------

def test_a_failed_parquet_write_leaves_no_csv_and_says_why(tmp_path):
    from reports.db import StoreError
    from reports.export import write_frame

    csv_path = tmp_path / "x.csv"
    csv_path.write_text("kept\n")
    with pytest.raises(StoreError) as info:
        write_frame(pl.DataFrame({"a": [1]}), csv=csv_path, parquet="/proc/x.parquet")
    assert str(info.value) == "/proc/x.parquet: cannot write: No such file or directory"
    assert csv_path.read_text() == "kept\n" and sorted(p.name for p in tmp_path.iterdir()) == ["x.csv"]


def test_export_refuses_in_one_line_when_a_file_cannot_be_written(store, tmp_path, monkeypatch):
    def failing(self, *args, **kwargs):
        raise pl.exceptions.ComputeError("the disk is full")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", failing)
    res = cli_here("export", "runs", "--csv", str(tmp_path / "r.csv"), "--parquet", str(tmp_path / "r.parquet"),
                   "--db", str(store))
    line = one_error_line(res)
    assert "r.parquet: cannot write: the disk is full" in line and "None" not in line
    assert not list(tmp_path.iterdir())


def test_csv_and_parquet_cannot_be_one_file(store, tmp_path):
    out = tmp_path / "x"
    line = one_error_line(cli_here("export", "runs", "--csv", str(out), "--parquet", str(out), "--db", str(store)))
    assert "--csv and --parquet" in line and not out.exists()


# --- 3. filters: read by the table, naming something in the store --------------------------------

REFUSED = [
    (["cards", "--game", "nosuch"], ("--game 'nosuch'", "frontier")),
    (["cards", "--deck", "nosuch"], ("--deck 'nosuch'", "goblin-gold-gang, lawmen-posse")),
    (["cards", "--pilot", "nosuch"], ("--pilot 'nosuch'", "random")),
    (["cards", "--rules", "nosuch"], ("--rules 'nosuch'", "base")),
    (["cards", "--game", "frontier", "--deck", "brass-syndicate"], ("--deck 'brass-syndicate'", "--game frontier")),
    (["cards", "--run", "1", "--rules", "base,nosuch"], ("--rules 'nosuch'", "run 1")),
    (["runs", "--deck", "nosuch"], ("runs does not filter by --deck",)),
    (["matches", "--pilot", "greedy"], ("matches does not filter by --pilot",)),
    (["matches", "--game", "alleyway"], ("--game 'alleyway'", "frontier")),
    (["diff_decks", "--diff", "1", "--deck", "nosuch", "--game", "alleyway", "--pilot", "nosuch"],
     ("diff_decks does not filter by --game, --deck, --pilot", "--diff")),
    (["runs", "--diff", "5"], ("runs does not filter by --diff",)),
    (["cards", "--diff", "5"], ("cards does not filter by --diff",)),
    (["card_value", "--run", "1"], ("card_value does not filter by --run",)),
    (["campaign_clear_rates", "--game", "frontier"], ("campaign_clear_rates does not filter by --game",)),
]


@pytest.mark.parametrize("args, needles", REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_a_filter_the_table_ignores_or_that_names_nothing_is_refused(store, tmp_path, args, needles):
    out = tmp_path / "x.csv"
    line = one_error_line(cli_here("export", *args, "--csv", str(out), "--db", str(store)))
    for needle in needles:
        assert needle in line, (needle, line)
    assert not list(tmp_path.iterdir())


def test_the_filters_a_table_reads_narrow_it(store, tmp_path):
    out = tmp_path / "x.csv"
    res = cli_here("export", "match_seats", "--game", "frontier", "--rules", "base", "--deck", "lawmen-posse",
                   "--csv", str(out), "--db", str(store))
    assert res.returncode == 0, res.stderr
    assert pl.read_csv(out)["deck"].to_list() == ["lawmen-posse", "lawmen-posse"]
    res = cli_here("export", "matches", "--game", "frontier", "--csv", str(out), "--db", str(store))
    assert res.returncode == 0 and "wrote 2 rows of matches" in res.stderr, res.stderr
    res = cli_here("export", "cards", "--run", "1", "--deck", "lawmen-posse", "--pilot", "random",
                   "--csv", str(out), "--db", str(store))
    assert res.returncode == 0 and pl.read_csv(out).height > 0, res.stderr


# --- 4. another application's DuckDB file ---------------------------------------------------------

def test_runs_export_and_report_name_another_applications_duckdb(tmp_path):
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE foo (a INTEGER)")
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    for argv in (["runs"], ["export", "runs", "--csv", str(tmp_path / "r.csv")],
                 ["report", "1", "--html", str(tmp_path / "r.html")]):
        line = one_error_line(cli_here(*argv, "--db", str(other)))
        assert "other.duckdb: not a workbench store (it holds other tables: foo)" in line, (argv, line)
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.duckdb"]


# --- 5. a run as its own diff base ----------------------------------------------------------------

@pytest.mark.parametrize("runs", [["1"], ["1", "2"]])
def test_a_run_of_the_report_is_not_its_own_diff_base(store, tmp_path, runs):
    out = tmp_path / "r.html"
    line = one_error_line(cli_here("report", *runs, "--diff", "1", "--html", str(out), "--db", str(store)))
    assert "--diff 1 is one of the report's runs" in line
    assert not out.exists()


def test_a_run_named_twice_in_a_report_is_refused(store, tmp_path):
    """Its matches would count twice in every pooled figure of the report."""
    out = tmp_path / "r.html"
    line = one_error_line(cli_here("report", "1", "1", "--html", str(out), "--db", str(store)))
    assert "run 1 is named twice" in line
    assert not out.exists()


# --- 6. runs the report would pool into figures nobody produced -----------------------------------

def test_a_report_of_two_pilots_or_two_rules_versions_is_refused(small_store, diff_store, tmp_path):
    """Every figure of the report pools its runs: greedy's seats with random's, or a card under
    two definitions, would be a number neither produced."""
    out = tmp_path / "r.html"
    line = one_error_line(cli_here("report", "1", "2", "--html", str(out), "--db", str(small_store)))
    assert "runs 1 and 2 are of different pilots" in line and "greedy" in line and "random" in line
    line = one_error_line(cli_here("report", "1", "2", "--html", str(out), "--db", str(diff_store)))
    assert "different rules versions" in line and "--diff" in line
    assert not out.exists()
    res = cli_here("report", "2", "--diff", "1", "--html", str(out), "--db", str(diff_store))
    assert res.returncode == 0 and out.exists(), res.stderr
