"""Options a command would silently ignore are refused in one line before anything runs (the
user would believe they applied): a resume's run options, the other mode's options of ``diff``,
``tune`` and ``fit-weights``; and comparisons of a version with itself (``value --base-rules``,
a batch suite's ``baseline``). Defaults are never refused: only what the command line gives."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reports import db
from tests.conftest import cli_here, run_cli
from workbench.commands.simulate import create, new_run
from workbench.store import Store

PAIR = ["goblin-gold-gang", "lawmen-posse"]


def one_line(res, *words: str) -> str:
    """The refusal: exit code 2, one error line holding ``words``, nothing on stdout."""
    assert res.returncode == 2, res.stdout + res.stderr
    assert "Traceback" not in res.stderr
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, res.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert not res.stdout.strip(), "nothing may run before the refusal"
    return lines[0]


@pytest.fixture(scope="module")
def stopped(tmp_path_factory) -> Path:
    """A store holding run 1: a frontier duel run recorded, nothing of it played."""
    path = tmp_path_factory.mktemp("resume") / "s.duckdb"
    spec, payload = new_run("frontier", "base", PAIR, ["random"], matches=2, seed=3, swap=True, events=0.0,
                            chunk_size=2, workers=1)
    assert create(Store(path), spec, payload) == 1
    return path


def untouched(path: Path) -> None:
    assert db.query(path, "SELECT status, matches_done FROM runs").rows() == [("running", 0)]
    assert db.query(path, "SELECT count(*) FROM chunks").rows() == [(0,)]


# --- A: simulate --resume and simulate-run --resume -------------------------------------------

@pytest.mark.parametrize("args, unread", [
    (["--matches", "2"], "--matches"),
    (["--decks", "lawmen-posse,goblin-gold-gang"], "--decks"),
    (["--pilots", "random"], "--pilots"),
    (["--rules", "no-such-version"], "--rules"),
    (["--seed", "9"], "--seed"),
    (["--mode", "ffa", "--seats", "3"], "--mode, --seats"),
    (["--events", "none"], "--events"),
    (["--chunk-size", "5"], "--chunk-size"),
    (["--no-swap"], "--no-swap"),
    (["--boss", "x", "--boss-pilot", "greedy"], "--boss, --boss-pilot"),
])
def test_simulate_resume_refuses_the_options_that_describe_a_run(stopped, args, unread):
    line = one_line(cli_here("simulate", "--resume", "1", "--db", str(stopped), "--workers", "1", "--quiet", *args),
                    f"does not read {unread}:", "simulate --resume", "workbench simulate --help")
    assert "--workers" not in line and "--db" not in line and "--quiet" not in line
    untouched(stopped)


@pytest.mark.parametrize("args, unread", [
    (["--runs", "2"], "--runs"),
    (["--crew", "all"], "--crew"),
    (["--stage", "x"], "--stage"),
    (["--policy", "random", "--fight-pilot", "random"], "--policy, --fight-pilot"),
    (["--seed", "9", "--rules", "nope"], "--seed, --rules"),
    (["--events", "all", "--chunk-size", "3"], "--events, --chunk-size"),
])
def test_simulate_run_resume_refuses_the_options_that_describe_a_batch(stopped, args, unread):
    one_line(cli_here("simulate-run", "--resume", "1", "--db", str(stopped), "--quiet", *args),
             f"does not read {unread}:", "simulate-run --resume", "workbench simulate-run --help")
    untouched(stopped)


@pytest.mark.parametrize("command", ["simulate", "simulate-run"])
def test_a_resume_naming_another_game_is_refused(stopped, command):
    one_line(cli_here(command, "alleyway", "--resume", "1", "--db", str(stopped), "--quiet"),
             "run 1 is a frontier run, not alleyway")
    untouched(stopped)


def test_a_resume_naming_its_own_game_plays_the_run(tmp_path):
    path = tmp_path / "s.duckdb"
    spec, payload = new_run("frontier", "base", PAIR, ["random"], matches=2, seed=3, swap=True, events=0.0,
                            chunk_size=2, workers=1)
    create(Store(path), spec, payload)
    res = run_cli("simulate", "frontier", "--resume", "1", "--db", str(path), "--workers", "1", "--quiet")
    assert res.returncode == 0, res.stderr
    assert db.query(path, "SELECT status, matches_done FROM runs").rows() == [("done", 2)]


# --- B: simulate-run --resume of a duel run ---------------------------------------------------

def test_simulate_run_resume_of_a_duel_run_says_which_command_resumes_it(stopped):
    one_line(cli_here("simulate-run", "--resume", "1", "--db", str(stopped), "--quiet"),
             "run 1 is a batch of duels", "workbench simulate --resume 1")
    untouched(stopped)


# --- C: diff's two modes ----------------------------------------------------------------------

DIFF = ("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--pilots", "random",
        "--workers", "1", "--quiet")


@pytest.mark.parametrize("args, unread", [
    (["--delta", "2"], "--delta"),
    (["--alpha", "7"], "--alpha"),
    (["--beta", "0.1", "--delta0", "1"], "--delta0, --beta"),
    (["--max-matches", "50"], "--max-matches"),
    (["--status", "x.json"], "--status"),
])
def test_diff_without_until_decided_refuses_the_sequential_options(tmp_path, args, unread):
    store = tmp_path / "s.duckdb"
    one_line(cli_here(*DIFF, "--db", str(store), "--matches", "2", *args),
             f"diff without --until-decided does not read {unread}:", "workbench diff --help")
    assert not store.exists()


@pytest.mark.parametrize("args, unread", [
    (["--matches", "2"], "--matches"),
    (["--seats", "2"], "--seats"),
])
def test_diff_until_decided_refuses_the_fixed_size_options(tmp_path, args, unread):
    store = tmp_path / "s.duckdb"
    one_line(cli_here(*DIFF, "--db", str(store), "--until-decided", "--max-matches", "50", *args),
             f"diff --until-decided does not read {unread}:")
    assert not store.exists()


# --- D: tune --card --stat --------------------------------------------------------------------

@pytest.mark.parametrize("args, unread", [
    (["--band", "40-60"], "--band"),
    (["--max-changes", "2"], "--max-changes"),
    (["--matches-budget", "500"], "--matches-budget"),
    (["--verify-matches", "30"], "--verify-matches"),
])
def test_tune_card_refuses_the_field_search_options(tmp_path, args, unread):
    store = tmp_path / "s.duckdb"
    one_line(cli_here("tune", "frontier", "--card", "x", "--stat", "atk", "--db", str(store), "--matches", "30",
                      *args),
             f"tune --card --stat does not read {unread}:", "workbench tune --help")
    assert not store.exists()


# --- E: fit-weights --by ----------------------------------------------------------------------

@pytest.mark.parametrize("args, unread", [
    (["--by", "outcomes", "--steps", "0", "--pairs", "-5"], "--steps, --pairs"),
    (["--by", "outcomes", "--steps", "5"], "--steps"),
    (["--matches", "50000"], "--matches"),
    (["--by", "play", "--matches", "20"], "--matches"),
])
def test_fit_weights_refuses_the_other_by_modes_options(args, unread):
    from sim.core.weights import weight_set_file
    from sim.registry import engine

    path = weight_set_file(engine("frontier"), "pytest-unread")
    res = cli_here("fit-weights", "frontier", "--name", "pytest-unread", "--workers", "1", *args)
    by = args[args.index("--by") + 1] if "--by" in args else "play"
    one_line(res, f"fit-weights --by {by} does not read {unread}:")
    assert not path.exists()


# --- F: value --base-rules --------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--base-rules", "base"],
                                  ["--rules", "first-player-skips-draw", "--base-rules", "first-player-skips-draw"]])
def test_value_base_rules_the_same_as_rules_is_refused(tmp_path, args):
    store = tmp_path / "s.duckdb"
    one_line(cli_here("value", "frontier", "--deck", "lawmen-posse", "--matches", "2", "--pilots", "random",
                      "--workers", "1", "--quiet", "--db", str(store), *args),
             "--base-rules and --rules both name", "nothing would differ")
    assert not store.exists()


# --- G: a batch suite whose baseline is its own rules version ---------------------------------

@pytest.mark.parametrize("suite", [{"baseline": "base"},
                                   {"rules": "first-player-skips-draw", "baseline": "first-player-skips-draw"}])
def test_a_batch_suite_baseline_that_is_its_own_rules_is_refused(tmp_path, suite):
    file = tmp_path / "nightly.yaml"
    file.write_text(yaml.safe_dump({"name": "nightly", "suites": [
        {"name": "fine", "game": "frontier", "matches": 2},
        {"name": "same", "game": "frontier", "matches": 2, **suite}]}))
    store, out = tmp_path / "s.duckdb", tmp_path / "batches"
    one_line(cli_here("batch", str(file), "--db", str(store), "--out", str(out), "--workers", "1"),
             str(file), "suite 'same'", "field 'baseline'", "own rules version")
    assert not store.exists() and not out.exists()


# --- the tables name real options -------------------------------------------------------------

def test_the_read_tables_name_the_commands_options():
    """A misspelt name in a table would refuse (or let through) the wrong option."""
    import typer.main

    from workbench import cli

    def names(callback) -> set[str]:
        return {p.name for p in typer.main.get_command_from_info(
            typer.models.CommandInfo(callback=callback), pretty_exceptions_short=True, rich_markup_mode=None).params}

    assert cli.RESUME_READS <= names(cli.simulate) and cli.RESUME_READS <= names(cli.simulate_run)
    assert cli.SEQUENTIAL_OPTIONS | {"matches", "seats"} <= names(cli.diff)
    assert cli.TUNE_SEARCH_OPTIONS | {"card", "stat"} <= names(cli.tune)
    assert set().union(*cli.FIT_UNREAD.values()) <= names(cli.fit_weights)
