"""Some of the event-log parts gone (one chunk's part, or one run's folder, while other runs keep
theirs): reading ``events`` says so in one line naming the run and how many of its parts are
missing, as it does when every part is gone, instead of silently showing fewer events. The check
compares a listing of each run's folder with the ``chunks`` rows that logged events. Only the
readings that would include the broken run's events fail: those of every other run still read,
whole."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reports import db
from reports.event_parts import part_name

SIMULATE = ["simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random",
            "--matches", "4", "--chunk-size", "2", "--workers", "1", "--quiet"]


def simulate(path: Path, seed: int, capsys) -> None:
    """Four matches in two chunks (two parts) into ``path``, in this process."""
    from workbench.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([*SIMULATE, "--seed", str(seed), "--db", str(path)])
    assert exit_info.value.code == 0, capsys.readouterr().err
    capsys.readouterr()


@pytest.fixture
def two_runs(tmp_path, capsys) -> Path:
    path = tmp_path / "s.duckdb"
    simulate(path, 1, capsys)
    simulate(path, 2, capsys)
    assert db.query(path, "SELECT run_id, count(*) AS parts FROM chunks WHERE events_rows > 0 GROUP BY 1 "
                          "ORDER BY 1").rows() == [(1, 2), (2, 2)]
    return path


def folder(path: Path) -> Path:
    return path.with_name(path.name + ".events")


def test_the_part_name_is_the_one_workers_write():
    from workbench.chunk import part_location

    assert part_location("x", 3, 12) == f"x/run-3/{part_name(12)}"


def test_one_missing_part_is_named_when_events_are_read(two_runs):
    assert db.query(two_runs, "SELECT count(*) FROM events").rows()[0][0] > 0
    (folder(two_runs) / "run-2" / part_name(1)).unlink()
    assert db.query(two_runs, "SELECT count(*) FROM matches").rows() == [(8,)]  # every other table reads
    with pytest.raises(db.StoreError) as exc:
        db.query(two_runs, "SELECT count(*) FROM events")
    line = str(exc.value)
    assert "\n" not in line and "run 2 misses 1 of its 2 parts (chunk-000001.parquet)" in line, line
    assert "run 1" not in line, line


def test_one_runs_missing_folder_is_named_when_events_are_read(two_runs):
    shutil.rmtree(folder(two_runs) / "run-1")
    with pytest.raises(db.StoreError) as exc:
        db.query(two_runs, "SELECT count(*) FROM events")
    line = str(exc.value)
    assert "\n" not in line and "run 1 misses 2 of its 2 parts (its folder run-1 is gone)" in line, line


def test_the_export_of_events_says_so_in_one_line(two_runs, tmp_path, capsys):
    from workbench.cli import main

    (folder(two_runs) / "run-1" / part_name(0)).unlink()
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "events", "--csv", str(tmp_path / "e.csv"), "--db", str(two_runs)])
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if line.strip()]
    assert exit_info.value.code != 0 and len(lines) == 1 and "run 1 misses 1 of its 2 parts" in lines[0], lines
    assert "Traceback" not in captured.err


def test_a_part_left_by_an_unstored_chunk_is_no_missing_part(two_runs):
    """A part beyond the chunk rows (a killed run's) is not counted, nor does it hide one missing."""
    extra = folder(two_runs) / "run-2" / part_name(7)
    shutil.copy2(folder(two_runs) / "run-2" / part_name(0), extra)
    assert db.query(two_runs, "SELECT count(DISTINCT run_id) FROM events").rows() == [(2,)]
    (folder(two_runs) / "run-2" / part_name(0)).unlink()
    with pytest.raises(db.StoreError, match=r"run 2 misses 1 of its 2 parts \(chunk-000000\.parquet\)"):
        db.query(two_runs, "SELECT count(*) FROM events")


def logged(path: Path, run_id: int) -> int:
    """The events the run's stored chunks logged, by the chunk rows (no part read)."""
    return db.query(path, f"SELECT sum(events_rows) FROM chunks WHERE run_id = {run_id}").rows()[0][0]


def test_an_intact_runs_events_read_whole_beside_a_broken_run(two_runs):
    """Run 2 misses a part: run 1's events read, all of them, by a literal or a parameter (as
    workbench/replay.py asks) and with other filters beside; anything that could include run 2
    fails with the line."""
    whole = db.query(two_runs, "SELECT * FROM events WHERE run_id = 1 ORDER BY match_no, seq")
    assert len(whole) == logged(two_runs, 1) > 0
    (folder(two_runs) / "run-2" / part_name(1)).unlink()
    assert db.query(two_runs, "SELECT * FROM events WHERE run_id = 1 ORDER BY match_no, seq").equals(whole)
    assert db.query(two_runs, "SELECT count(*) FROM events WHERE run_id = ?", [1]).rows() == [(len(whole),)]
    assert db.query(two_runs, "SELECT count(*) FROM events WHERE run_id <> 2").rows() == [(len(whole),)]
    kind = whole["kind"][0]
    assert (db.query(two_runs, "SELECT count(*) FROM events WHERE run_id = ? AND kind = ?", [1, kind]).rows()
            == [(whole.filter(whole["kind"] == kind).height,)])
    for sql, params in [("SELECT count(*) FROM events", None),
                        ("SELECT * FROM events WHERE run_id = 2", None),
                        ("SELECT count(*) FROM events WHERE run_id = ?", [2]),
                        ("SELECT count(*) FROM events WHERE run_id IN (1, 2)", None),
                        # a filter on another column must not drop run 2's row and show fewer
                        ("SELECT count(*) FROM events WHERE kind = ?", [kind]),
                        ("SELECT count(*) FROM events WHERE run_id = 1 OR kind = ?", [kind]),
                        # a run filter DuckDB cannot fold into the view fails, never shows fewer
                        ("SELECT count(*) FROM events WHERE run_id IN (SELECT 1)", None)]:
        with pytest.raises(db.StoreError) as exc:
            db.query(two_runs, sql, params)
        line = str(exc.value)
        assert "\n" not in line and "run 2 misses 1 of its 2 parts (chunk-000001.parquet)" in line, (sql, line)


def test_an_intact_runs_events_read_beside_a_runs_missing_folder(two_runs):
    (folder(two_runs) / "run-1").rename(folder(two_runs).with_name("elsewhere"))
    assert db.query(two_runs, "SELECT count(*) FROM events WHERE run_id = 2").rows() == [(logged(two_runs, 2),)]
    for sql in ["SELECT count(*) FROM events", "SELECT count(*) FROM events WHERE run_id = 1"]:
        with pytest.raises(db.StoreError, match=r"run 1 misses 2 of its 2 parts \(its folder run-1 is gone\)"):
            db.query(two_runs, sql)


def test_the_replay_of_an_intact_runs_match_compares_its_log(two_runs):
    """The replay reads its match's log by run and match: run 2's missing part leaves run 1's
    comparison whole and makes run 2's say the line instead."""
    from workbench.replay import replay_match

    (folder(two_runs) / "run-2" / part_name(0)).unlink()
    intact = replay_match(two_runs, 1, 0)["events_compared"]
    assert intact["unreadable"] is None and intact["agree"] is True, intact
    assert intact["stored"] == intact["replayed"] > 0, intact
    broken = replay_match(two_runs, 2, 0)["events_compared"]
    assert broken["stored"] is None and "run 2 misses 1 of its 2 parts" in broken["unreadable"], broken
