"""A resume reads the card data folder its run started from (``runs.data_dir``) when the command
line names none: a run begun with ``--data my-cards --rules my-change`` could not be resumed
without naming the folder again (the shipped data has no ``my-change``), though the README says
``workbench simulate --resume RUN`` finishes it and the run records its folder."""
from __future__ import annotations

import shutil

from tests.conftest import cli_here, run_cli
from workbench.store import Store


def _stopped_workspace_run(tmp_path):
    ws = tmp_path / "my-cards"
    assert cli_here("init", str(ws), "--game", "frontier").returncode == 0
    (ws / "frontier" / "rules" / "my-change.yaml").write_text(
        "version: my-change\nextends: base\npatch:\n  bison-bull: {atk: 5}\n", encoding="utf-8")
    db = tmp_path / "s.duckdb"
    res = run_cli("simulate", "frontier", "--data", str(ws), "--rules", "my-change", "--decks",
                  "lawmen-posse,goblin-gold-gang", "--pilots", "random", "--matches", "2", "--workers", "1",
                  "--quiet", "--db", str(db))
    assert res.returncode == 0, res.stderr
    Store(db).set_status(1, "stopped")  # as a killed run leaves it (its last chunk is played again)
    return ws, db


def test_a_resume_reads_the_data_folder_its_run_started_from(tmp_path):
    _ws, db = _stopped_workspace_run(tmp_path)
    res = run_cli("simulate", "--resume", "1", "--db", str(db), "--workers", "1", "--quiet")
    assert res.returncode == 0, res.stderr
    assert Store(db).run(1)["status"] == "done"


def test_a_resume_whose_data_folder_is_gone_says_so_in_one_line(tmp_path):
    ws, db = _stopped_workspace_run(tmp_path)
    shutil.rmtree(ws)
    res = run_cli("simulate", "--resume", "1", "--db", str(db), "--workers", "1", "--quiet")
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "read its cards from" in lines[0] and "which is gone" in lines[0] and "Traceback" not in res.stderr
