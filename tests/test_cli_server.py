"""The warm server that runs the tests' ``workbench`` commands (tests/cli_server.py): a command
forked from it answers as one started in a new interpreter does (output, error lines, exit
code, what it stores), and a command over its time limit is killed with its workers."""
import os
import subprocess
import time

import pytest

from reports import db
from tests.conftest import run_cli

COMMANDS = (
    ("--help",),
    ("simulate", "nope"),  # a user mistake: one line, exit 2
    ("simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", "3", "--oops"),
)


def both_ways(monkeypatch, *args):
    forked = run_cli(*args)
    monkeypatch.setenv("WORKBENCH_FRESH_CLI", "1")
    fresh = run_cli(*args)
    monkeypatch.delenv("WORKBENCH_FRESH_CLI")
    return forked, fresh


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:30])
def test_a_forked_command_answers_as_a_new_interpreter_does(monkeypatch, args):
    forked, fresh = both_ways(monkeypatch, *args)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)


def test_a_forked_simulate_stores_what_a_new_interpreter_stores(monkeypatch, tmp_path):
    dbs = tmp_path / "forked.duckdb", tmp_path / "fresh.duckdb"
    args = ("simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", "4", "--pilots", "greedy",
            "--workers", "2", "--quiet", "--db")
    forked = run_cli(*args, str(dbs[0]))
    monkeypatch.setenv("WORKBENCH_FRESH_CLI", "1")
    fresh = run_cli(*args, str(dbs[1]))
    assert forked.returncode == fresh.returncode == 0, forked.stderr + fresh.stderr
    rows = [db.query(p, "SELECT match_no, seed, winner_seat, reason, turns, decisions FROM matches ORDER BY match_no").rows()
            for p in dbs]
    assert rows[0] == rows[1] and len(rows[0]) == 4


def test_a_command_over_its_time_limit_is_killed_with_its_workers(tmp_path):
    if os.environ.get("WORKBENCH_FRESH_CLI") == "1":
        pytest.skip("commands run in new interpreters (WORKBENCH_FRESH_CLI=1)")
    from tests.conftest import _CLI_SERVER

    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_cli("simulate", "frontier", "--matches", "100000", "--workers", "2", "--quiet",
                "--db", str(tmp_path / "long.duckdb"), timeout=3)
    assert time.monotonic() - started < 30
    group = _CLI_SERVER.last_pid
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # SIGKILL is delivered at once; the kernel reaps them
        try:
            os.killpg(group, 0)  # any process of the command's session: it or a worker of its farm
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail(f"processes of the timed-out command's group {group} are still running")
