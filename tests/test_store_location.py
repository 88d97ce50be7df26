"""Stores that know where they are: a copied, moved or recreated store reads its own rows (the
``events`` view is made per connection from where the file is, never from a path stored in it);
glob characters in a path are names, not patterns; a file that is not a workbench store is
refused untouched; a failed command leaves no empty store; a damaged file or part is one line."""
from __future__ import annotations

import hashlib
import os
import random
import shutil
from pathlib import Path

import duckdb
import pytest

from reports import db
from tests.conftest import run_cli

DECKS = ["--decks", "goblin-gold-gang,lawmen-posse"]


SIMULATE = ["simulate", "frontier", *DECKS, "--matches", "2", "--workers", "1", "--quiet"]


def simulate(path: Path, seed: int, capsys) -> None:
    """A two-match run into ``path``, in this process."""
    code, lines = run_main([*SIMULATE, "--seed", str(seed), "--db", str(path)], capsys)
    assert code == 0, lines


def contents(path: Path) -> dict[str, tuple[int, str]]:
    """Every table of the store and the ``events`` view: (rows, hash of all rows)."""
    with db.connect(path) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_schema = 'main'").fetchall()]
        return {name: con.execute(f'SELECT count(*), md5(coalesce(string_agg(t::VARCHAR, \';\' ORDER BY t::VARCHAR), \'\')) '
                                  f'FROM "{name}" t').fetchone() for name in names}


def copy_store(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    shutil.copytree(f"{source}.events", f"{target}.events")
    return target


def run_main(argv: list[str], capsys) -> tuple[int, list[str]]:
    """The command line in this process: (exit code, the lines printed)."""
    from workbench.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text, text
    return exit_info.value.code, [line for line in text.splitlines() if line.strip()]


def export_events(path: Path, csv: Path, capsys) -> str:
    code, lines = run_main(["export", "events", "--csv", str(csv), "--db", str(path)], capsys)
    assert code == 0, lines
    return csv.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def two_match_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("origin") / "w.duckdb"
    res = run_cli(*SIMULATE, "--seed", "1", "--db", str(path))
    assert res.returncode == 0, res.stderr
    return path


def test_a_copied_moved_or_recreated_store_reads_its_own_rows(two_match_store, tmp_path, capsys):
    original = copy_store(two_match_store, tmp_path / "a" / "w.duckdb")
    before = contents(original)
    assert {"runs", "chunks", "cards", "matches", "match_seats", "card_games", "events", "workbench_store"} <= set(before)
    assert before["events"][0] > 0 and before["matches"][0] == 2
    exported = export_events(original, tmp_path / "before.csv", capsys)

    copy = copy_store(original, tmp_path / "b" / "w.duckdb")
    moved = tmp_path / "c" / "moved.duckdb"
    moved.parent.mkdir()
    os.rename(original, moved)
    os.rename(f"{original}.events", f"{moved}.events")
    simulate(original, seed=99, capsys=capsys)  # a new store where the original was: other seeds, other events

    assert contents(copy) == before
    assert contents(moved) == before
    again = contents(original)
    assert again["events"] != before["events"] and again["matches"] != before["matches"]
    assert export_events(copy, tmp_path / "copy.csv", capsys) == exported
    assert export_events(moved, tmp_path / "moved.csv", capsys) == exported
    assert export_events(original, tmp_path / "again.csv", capsys) != exported

    simulate(copy, seed=5, capsys=capsys)  # a copy is a store of its own: a run added to it stays in it
    assert contents(moved) == before
    assert contents(copy)["runs"][0] == 2


@pytest.mark.parametrize("name", ["s*.duckdb", "s[1].duckdb", "s?.duckdb", "s'q.duckdb", "s**.duckdb"])
def test_glob_characters_in_a_path_are_a_name(two_match_store, tmp_path, name, capsys):
    """Beside stores whose names the pattern would match (s1, sx), each reads only its own parts."""
    for neighbour in ("s1.duckdb", "sx.duckdb"):
        copy_store(two_match_store, tmp_path / neighbour)
    path = copy_store(two_match_store, tmp_path / name)
    (rows, _), = [contents(path)["events"]]
    assert rows == contents(two_match_store)["events"][0] > 0
    assert contents(path) == contents(two_match_store)
    exported = export_events(path, tmp_path / "e.csv", capsys)
    assert exported == export_events(two_match_store, tmp_path / "e0.csv", capsys)


def test_the_writer_stores_into_a_path_with_glob_characters(two_match_store, tmp_path, capsys):
    copy_store(two_match_store, tmp_path / "r1" / "w.duckdb")
    path = tmp_path / "r[1]" / "w.duckdb"
    path.parent.mkdir()
    simulate(path, seed=3, capsys=capsys)
    (chunk_rows,), = db.query(path, "SELECT sum(events_rows) FROM chunks").rows()
    assert db.query(path, "SELECT count(*) FROM events").rows() == [(chunk_rows,)]
    assert contents(tmp_path / "r1" / "w.duckdb") == contents(two_match_store)


def test_a_store_copied_without_its_events_folder_says_so_when_events_are_read(two_match_store, tmp_path):
    path = tmp_path / "alone.duckdb"
    shutil.copy2(two_match_store, path)
    assert db.query(path, "SELECT count(*) FROM matches").rows() == [(2,)]  # every other table reads
    with pytest.raises(db.StoreError, match=r"alone\.duckdb\.events: the event-log folder is missing"):
        db.query(path, "SELECT count(*) FROM events")


def test_a_store_made_before_the_marker_opens_reads_its_own_parts_and_is_marked(two_match_store, tmp_path,
                                                                               monkeypatch, capsys):
    """An older store: no marker, and a stored view naming another folder (whose parts it would
    read twice over)."""
    other = Path(f"{tmp_path / 'other.duckdb'}.events")
    shutil.copytree(f"{two_match_store}.events", other / "a")
    shutil.copytree(f"{two_match_store}.events", other / "b")
    old = copy_store(two_match_store, tmp_path / "old" / "w.duckdb")
    with duckdb.connect(str(old)) as con:
        con.execute("DROP TABLE workbench_store")
        con.execute("DROP MACRO TABLE events_in")
        con.execute(f"CREATE VIEW events AS SELECT * FROM read_parquet('{other}/**/*.parquet')")
        assert con.execute("SELECT count(*) FROM events").fetchone()[0] == 2 * contents(two_match_store)["events"][0]
    want = contents(two_match_store)["events"]
    assert contents(old)["events"] == want  # a reader cannot drop the old view; the per-connection one hides it
    simulate(old, seed=11, capsys=capsys)  # the guard lets an older store in; Store.init marks it and drops the old view
    with duckdb.connect(str(old), read_only=True) as con:
        assert con.execute("SELECT format_version FROM workbench_store").fetchall() == [(1,)]
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'events' "
                           "AND NOT temporary").fetchone() == (0,)
        # what STORE.md tells a DuckDB CLI user to type (from the store's folder)
        monkeypatch.chdir(old.parent)
        via_macro = con.execute("SELECT count(*) FROM events_in('w.duckdb.events')").fetchone()[0]
    assert via_macro == contents(old)["events"][0] > want[0]


def test_the_event_columns_a_view_without_parts_shows_are_the_parts_columns():
    from reports.events_view import EVENT_COLUMNS
    from workbench.chunk import EVENT_SCHEMA

    with duckdb.connect() as con:
        con.register("schema", EVENT_SCHEMA.empty_table())
        described = con.execute("DESCRIBE SELECT * FROM schema").fetchall()
    assert [(name, kind) for name, kind, *_ in described] == list(EVENT_COLUMNS)


# --- files that are not workbench stores ------------------------------------------------------

def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["another-apps-tables", "no-tables", "zero-bytes"])
def test_a_file_that_is_not_a_workbench_store_is_refused_untouched(tmp_path, capsys, kind):
    path = tmp_path / "other.duckdb"
    if kind == "zero-bytes":
        path.touch()
    else:
        with duckdb.connect(str(path)) as con:
            if kind == "another-apps-tables":
                con.execute("CREATE TABLE invoices (id INTEGER, total DOUBLE)")
                con.execute("INSERT INTO invoices VALUES (1, 9.5)")
            con.execute("CHECKPOINT")
    before, listing = digest(path), sorted(os.listdir(tmp_path))
    code, lines = run_main([*SIMULATE, "--db", str(path)], capsys)
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
    assert "other.duckdb" in lines[0] and ("not a workbench store" in lines[0] or "0 bytes" in lines[0]), lines
    assert digest(path) == before and sorted(os.listdir(tmp_path)) == listing


@pytest.mark.parametrize("beside", [".events", ".locks"])
def test_a_file_where_the_stores_folders_go_is_one_line(tmp_path, capsys, beside):
    """A file named like the store's event-log folder or its folder of lock files: one line, not
    (for .locks) a FileExistsError traceback (the bad-input audit of 2026-12-07)."""
    path = tmp_path / "x.duckdb"
    Path(str(path) + beside).write_text("not a folder")
    code, lines = run_main([*SIMULATE, "--db", str(path)], capsys)
    assert code == 2 and len(lines) == 1 and f"x.duckdb{beside} should be the store's" in lines[0], lines
    assert not path.exists()


# --- a failed command leaves no empty store ---------------------------------------------------

def _fail_create_run(*_args, **_kw):
    raise db.StoreError("disk trouble (made up by the test)")


def test_a_command_that_fails_before_storing_removes_the_store_it_created(tmp_path, capsys, monkeypatch):
    from workbench.store import Store

    monkeypatch.setattr(Store, "create_run", _fail_create_run)
    path = tmp_path / "new.duckdb"
    code, lines = run_main([*SIMULATE, "--db", str(path)], capsys)
    assert code == 2 and lines == ["error: disk trouble (made up by the test)"]
    assert os.listdir(tmp_path) == [], "the failed command left a store (or its lock folder)"


def test_a_failed_command_keeps_a_store_that_was_there_before(tmp_path, capsys, monkeypatch):
    from workbench.store import Store

    path = tmp_path / "kept.duckdb"
    Store(path).init()  # an empty store someone made on purpose
    monkeypatch.setattr(Store, "create_run", _fail_create_run)
    code, _lines = run_main([*SIMULATE, "--db", str(path)], capsys)
    assert code == 2
    assert os.listdir(f"{path}.events") == ["_schema.parquet"]
    assert db.query(path, "SELECT format_version FROM workbench_store").rows() == [(1,)]


# --- a damaged file or part: one line naming it -----------------------------------------------

def _overwrite(path: Path, start: float, end: float) -> None:
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.seek(int(size * start))
        fh.write(random.Random(start).randbytes(int(size * (end - start))))


def _truncate(path: Path, keep: float) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(int(path.stat().st_size * keep))


def _biggest_part(store: Path) -> Path:
    return max(Path(f"{store}.events").rglob("chunk-*.parquet"), key=lambda p: p.stat().st_size)


DAMAGE = {
    "db-random-bytes-in-the-middle": lambda store: _overwrite(store, 0.3, 0.9),
    "db-truncated": lambda store: _truncate(store, 0.4),
    "db-header-overwritten": lambda store: _overwrite(store, 0.0, 0.002),
    "part-truncated": lambda store: _truncate(_biggest_part(store), 0.5),
    "part-random-bytes-in-the-middle": lambda store: _overwrite(_biggest_part(store), 0.2, 0.6),
}
READS = [["export", "events", "--csv", "e.csv"], ["export", "matches", "--csv", "m.csv"],
         ["export", "card_games", "--csv", "c.csv"], ["runs"]]


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_store_is_one_line_naming_the_file(two_match_store, tmp_path, capsys, monkeypatch, damage):
    monkeypatch.chdir(tmp_path)
    store = copy_store(two_match_store, tmp_path / "damaged.duckdb")
    part = _biggest_part(store).name
    DAMAGE[damage](store)
    named = part if damage.startswith("part") else "damaged.duckdb"
    failed = 0
    for argv in READS + ([[*SIMULATE, "--seed", "4"]] if damage.startswith("db") else []):
        code, lines = run_main([*argv, "--db", str(store)], capsys)
        if code == 0:  # a read that never touched the damaged blocks
            continue
        failed += 1
        assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (argv, lines)
        assert named in lines[0], (argv, lines)
    assert failed >= 1


@pytest.mark.parametrize("damage", ["db-truncated", "db-random-bytes-in-the-middle"])
def test_the_dashboard_shows_a_damaged_store_in_one_line(two_match_store, tmp_path, monkeypatch, damage):
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    store = copy_store(two_match_store, tmp_path / "damaged.duckdb")
    DAMAGE[damage](store)
    monkeypatch.setenv("WORKBENCH_DB", str(store))
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120).run()
    assert not app.exception, [e.message for e in app.exception]
    said = [e.value for e in app.error] + [w.value for w in app.warning]
    assert len(said) == 1 and "damaged.duckdb" in said[0] and "\n" not in said[0], said


def test_a_new_store_beside_a_dead_stores_event_logs_is_refused(tmp_path):
    """The event logs of a deleted store, left in its folder, would be read as a new store's
    (its runs and chunks are numbered from 1 again): one line, and no store is made."""
    db = tmp_path / "a.duckdb"
    args = ("simulate", "frontier", "--matches", "2", "--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random",
            "--workers", "1", "--quiet", "--db", str(db))
    assert run_cli(*args).returncode == 0
    db.unlink()
    res = run_cli(*args, "--seed", "2")
    assert res.returncode == 2 and "holds the event logs of a store that is no longer there" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and not db.exists()


def test_a_run_stored_without_events_does_not_answer_a_command_that_asks_for_them(tmp_path):
    """`--events none` and then the same matches with `--events all`: played again with their
    events, not "reused" with none; asking again for none reuses the run that has them all."""
    import duckdb

    db = tmp_path / "e.duckdb"
    args = ("simulate", "frontier", "--matches", "2", "--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random",
            "--workers", "1", "--db", str(db))
    assert run_cli(*args, "--events", "none").returncode == 0
    res = run_cli(*args, "--events", "all")
    assert res.returncode == 0 and "reusing run" not in res.stdout + res.stderr
    again = run_cli(*args, "--events", "none")
    assert "reusing run 2" in again.stdout + again.stderr
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT run_id, event_sample FROM runs ORDER BY 1").fetchall() == [(1, 0.0), (2, 1.0)]


def test_events_whose_part_folders_are_gone_say_so(tmp_path, capsys):
    """The run folders of the event log removed (the schema part, which every store has, left):
    reading events says the folder lost its parts, not an empty log."""
    path = tmp_path / "s.duckdb"
    simulate(path, 1, capsys)
    for run in path.with_name(path.name + ".events").glob("run-*"):
        shutil.rmtree(run)
    code, lines = run_main(["export", "events", "--csv", str(tmp_path / "e.csv"), "--db", str(path)], capsys)
    assert code != 0 and any("missing or empty" in line for line in lines), lines
