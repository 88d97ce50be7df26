"""More bad input, each one clear line naming the file and the record or the option, exit 2, no
traceback, nothing made (the audit of 2026-12-07): a game's hand ``weights.yaml`` that is broken
(a NaN among its search settings failed every match; broken YAML was a traceback), a ``--cluster``
scheduler nothing answers at (a stopped run was left behind), a parent rules version's mistake met
resolving a child (the child went unnamed), and ``cards validate`` passing a ``reference.yaml`` or a
campaign stage's pilot that ``value`` or ``simulate-run`` then tripped on."""
from __future__ import annotations

import ast
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardsdb.errors import DataError
from cardsdb.loader import load_game, resolve
from tests.conftest import ROOT, cli_here
from tests.test_bad_input import snapshot
from tests.test_input_gaps import copy_game, one_error, validate

# --- 1: the hand weight set, sim/<game>/weights.yaml --------------------------------------------------

GAMES = ("frontier", "alleyway", "allegiance")


def hand_copy(tmp_path: Path, game: str = "frontier") -> Path:
    """The game's weight files copied to ``tmp_path``; the copy of its weights.yaml."""
    for path in (ROOT / "sim" / game).glob("weights*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path / "weights.yaml"


def spoil(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


HAND_MISTAKES = [  # (what is replaced, by what, what the line must name)
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: .nan\n", ("search.mcts_turn_blend", "nan", "finite")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: .inf\n", ("search.mcts_turn_blend", "inf", "finite")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 2\n", ("search.mcts_turn_blend", "from 0 to 1")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: lots\n", ("search.mcts_turn_blend", "'lots'")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 0.5\n  planner_worlds: 2.5\n",
     ("search.planner_worlds", "2.5", "whole number")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 0.5\n  mcts_budget: 0\n", ("search.mcts_budget", "at least 1")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 0.5\n  mcts_horizon: yes\n", ("search.mcts_horizon", "True")),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 0.5\n  planer_worlds: 3\n",
     ("search.planer_worlds", "planner_worlds")),
    ("search:\n  mcts_turn_blend: 0.5\n", "search: 0.5\n", ("search is 0.5", "mapping")),
    ("  win: 10000.0\n", "  win: .nan\n", ("weights.win", "nan")),
    ("  greedy: tuned\n", "  greedy: tunde\n", ("pilot_sets.greedy", "'tunde'", "weights-tunde.yaml")),
    ("  greedy: tuned\n", "  greedy: Tuned\n", ("pilot_sets.greedy", "'Tuned'", "weight set's name")),
    ("  greedy: tuned\n", "  greedy: [tuned]\n", ("pilot_sets.greedy", "['tuned']")),
    ("pilot_sets:\n  greedy: tuned\n", "pilot_sets: [greedy]\n", ("pilot_sets is ['greedy']",)),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: [0.5\n", ("not a readable YAML",)),
    ("  mcts_turn_blend: 0.5\n", "  mcts_turn_blend: 0.5\n  mcts_turn_blend: 0.4\n", ("written twice",)),
    ("# The greedy", "- # The greedy", ("YAML",)),
]


@pytest.mark.parametrize("old,new,needles", HAND_MISTAKES, ids=[m[1].strip()[:40] for m in HAND_MISTAKES])
def test_a_broken_hand_weight_file_is_refused_naming_the_file_and_the_weight(tmp_path, old, new, needles):
    """What each evaluate module reads at import (``load_weights``), checked there, once: a NaN
    blend made every mcts match of a run raise, a count of 2.5 was quietly 2, a misspelt setting
    or a pilot_sets entry naming a set the game lacks was ignored or failed later."""
    from sim.core.weights import WeightFileError, load_weights, read_hand_weights

    path = hand_copy(tmp_path)
    spoil(path, old, new)
    with pytest.raises(WeightFileError) as caught:
        load_weights(str(tmp_path / "evaluate.py"))  # what sim/frontier/evaluate.py does at import
    line = str(caught.value)
    assert line.startswith(f"{path}: ") and "\n" not in line, line
    assert all(n in line for n in needles), (needles, line)
    with pytest.raises(ValueError):  # (a ValueError, as every weight-set mistake is)
        read_hand_weights(path)


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_hand_weight_files_pass(game):
    import importlib

    from sim.core.weights import read_hand_weights

    assert read_hand_weights(ROOT / "sim" / game / "weights.yaml") == importlib.import_module(
        f"sim.{game}.evaluate").WEIGHTS


def test_the_search_settings_checked_are_the_ones_the_pilots_read():
    """SEARCH_SETTINGS holds every key a search pilot reads with ``search_setting``, of its
    default's kind (an int default: a count; a float: a share)."""
    from sim.core.weights import SEARCH_SETTINGS

    read = {}
    for path in sorted((ROOT / "sim" / "core" / "pilots").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "search_setting":
                key, default = node.args[1].value, node.args[2]
                value = default.value if isinstance(default, ast.Constant) else constants[default.id]
                read[key] = "count" if isinstance(value, int) else "share"
    assert read and read == SEARCH_SETTINGS


@pytest.mark.parametrize("old,new,needles", [HAND_MISTAKES[0], HAND_MISTAKES[-3]], ids=["nan-blend", "broken-yaml"])
def test_a_command_playing_with_a_broken_hand_file_says_one_line_and_makes_no_store(tmp_path, old, new, needles):
    """Through the real command line, in a process whose sim/ is a copy with the file spoilt (the
    evaluate modules read it at import): the NaN run was stored with every match an error, the
    broken YAML a traceback."""
    code = tmp_path / "code"
    shutil.copytree(ROOT / "sim", code / "sim", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    spoil(code / "sim" / "frontier" / "weights.yaml", old, new)
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env["PYTHONPATH"] = os.pathsep.join([str(code), str(ROOT)])  # this sim/, the rest as it is
    res = subprocess.run([sys.executable, "-c", "import sys; from workbench.cli import main; main(sys.argv[1:])",
                          "simulate", "frontier", "--pilots", "mcts:2", "--matches", "2", "--workers", "1",
                          "--quiet", "--db", "x.duckdb"], capture_output=True, text=True, env=env, cwd=work,
                         timeout=120)
    text = res.stdout + res.stderr
    lines = [line for line in text.splitlines() if line.strip()]
    assert res.returncode == 2 and "Traceback" not in text, text
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert str(code / "sim" / "frontier" / "weights.yaml") in lines[0], lines[0]
    assert all(n in lines[0] for n in needles), lines[0]
    assert list(work.iterdir()) == []


# --- 2: --cluster at an address nothing answers -------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_main(argv: list[str], capsys) -> tuple[int, str]:
    from workbench.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out + captured.err


@pytest.mark.parametrize("command", [
    ["simulate", "frontier", "--matches", "2"],
    ["simulate-run", "frontier", "--runs", "1"],
])
def test_an_unreachable_cluster_is_one_line_before_anything_is_made(tmp_path, monkeypatch, capsys, command):
    """A run was made, then the executor found no scheduler (10 s later): the run was left
    stopped, in a store the command had made for it."""
    monkeypatch.chdir(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    before = snapshot(tmp_path)
    started = time.monotonic()
    code, text = run_main([*command, "--workers", "1", "--quiet", "--db", "x.duckdb", "--cluster", address], capsys)
    lines = [line for line in text.splitlines() if line.strip()]
    assert code == 2 and "Traceback" not in text, text
    assert len(lines) == 1 and lines[0].startswith(f"error: --cluster {address}: "), lines
    assert "nothing was started" in lines[0], lines[0]
    assert snapshot(tmp_path) == before
    assert time.monotonic() - started < 10


def test_an_unknown_address_scheme_is_one_line_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, text = run_main(["simulate", "frontier", "--matches", "2", "--workers", "1", "--quiet", "--db", "x.duckdb",
                           "--cluster", "foo://127.0.0.1:8786"], capsys)
    lines = [line for line in text.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "--cluster foo://127.0.0.1:8786" in lines[0], text
    assert "unknown address scheme" in lines[0] and list(tmp_path.iterdir()) == []


def test_a_scheduler_that_answers_passes_the_check():
    from distributed import LocalCluster

    from workbench.executors import QUIET_SCHEDULER
    from workbench.limits import check_cluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None, scheduler_kwargs=QUIET_SCHEDULER) as c:
        assert check_cluster(c.scheduler_address) == c.scheduler_address


# --- 3: a parent rules version's mistake names the child being resolved -------------------------------

CHILD = "version: child\nextends: mid\npatch:\n  bison-bull: {atk: 7}\n"


@pytest.mark.parametrize("mid,extra,needles", [
    ("version: mid\nextends: base\npatch:\n  no-such-card: {atk: 2}\n", {},
     ("card 'no-such-card'", "field 'patch'", "cannot patch an unknown card")),
    ("version: mid\nextends: base\nremove: [no-such-card]\n", {}, ("card 'no-such-card'", "field 'remove'")),
    ("version: mid\nextends: base\nadd: [{id: bison-bull, name: Twin}]\n", {}, ("card 'bison-bull'", "field 'add'")),
    ("version: mid\nextends: gone\n", {}, ("field 'extends'", "no rules version 'gone'")),
    ("version: mid\nextends: mid2\n", {"mid2": "version: mid2\nextends: mid\n"}, ("extends loop", "mid -> mid2 -> mid")),
], ids=["patch-unknown", "remove-unknown", "add-existing", "missing-grandparent", "loop-above"])
def test_a_parent_s_mistake_names_the_child_being_resolved(tmp_path, mid, extra, needles):
    """mid.yaml's mistake, met resolving child (which extends mid), named mid.yaml alone: a
    command run with --rules child did not say which version it was resolving."""
    root, game = copy_game(tmp_path)
    (game / "rules" / "mid.yaml").write_text(mid)
    (game / "rules" / "child.yaml").write_text(CHILD)
    for name, text in extra.items():
        (game / "rules" / f"{name}.yaml").write_text(text)
    data = load_game("frontier", root)
    with pytest.raises(DataError) as caught:
        resolve(data, "child")
    line = caught.value.line()
    assert "mid.yaml" in line and "(rules version 'child' builds on this file)" in line, line
    assert all(n in line for n in needles), line
    with pytest.raises(DataError) as own:  # resolving mid itself: mid's own mistake, no child in it
        resolve(data, "mid")
    assert own.value.via is None and "builds on" not in own.value.line(), own.value.line()
    res = cli_here("cards", "export", "frontier", "--rules", "child", "--csv", str(tmp_path / "c.csv"),
                   "--data-dir", str(root))
    one_error(res, "mid.yaml", "rules version 'child'", *needles)
    assert not (tmp_path / "c.csv").exists()


# --- 4: cards validate checks reference.yaml and the campaign's pilots --------------------------------

def test_validate_names_a_reference_card_that_is_no_card(tmp_path):
    """`value` passed over an unknown reference without a word (another, the nearest it found,
    stood in) while validate said ok."""
    root, game = copy_game(tmp_path)
    spoil(game / "reference.yaml", "reference-creature-7]", "reference-creature-77]")
    line = one_error(validate(root), "reference.yaml", "card 'reference-creature-77'", "field 'cards'",
                     "rules version 'base'")
    assert "warning" not in line


@pytest.mark.parametrize("text,needles", [
    ("cards: 5\n", ("field 'cards'", "non-empty list of card ids")),
    ("cards: [reference-creature-1\n", ("bad YAML",)),
    (None, ("no reference cards", "missing")),
], ids=["not-a-list", "broken-yaml", "missing"])
def test_validate_names_a_broken_reference_file(tmp_path, text, needles):
    root, game = copy_game(tmp_path)
    if text is None:
        (game / "reference.yaml").unlink()
    else:
        (game / "reference.yaml").write_text(text)
    one_error(validate(root), "reference.yaml", *needles)


def test_a_derived_version_dropping_a_reference_card_is_a_warning(tmp_path):
    """As a deck a derived version makes illegal: a version may drop a card."""
    root, game = copy_game(tmp_path)
    (game / "rules" / "noref.yaml").write_text("version: noref\nextends: base\nremove: [reference-creature-7]\n")
    res = validate(root)
    assert res.returncode == 0, res.stderr
    assert ("warning: " in res.stdout and "card 'reference-creature-7'" in res.stdout
            and "rules version 'noref'" in res.stdout), res.stdout


@pytest.mark.parametrize("pilot,needles", [
    ("greedy@nope", ("no weight set 'nope'",)),
    ("wizard", ("unknown pilot 'wizard'",)),
    ("mcts:0", ("mcts:0",)),
])
def test_validate_names_a_campaign_pilot_the_game_lacks(tmp_path, pilot, needles):
    """simulate-run refused the stage's enemy_pilot after validate had said ok."""
    root, game = copy_game(tmp_path)
    spoil(game / "campaign" / "ashfall-trail.yaml", "\nenemy_pilot: greedy\n", f"\nenemy_pilot: {pilot}\n")
    one_error(validate(root), "campaign/ashfall-trail.yaml", "field 'enemy_pilot'", *needles)


def test_a_campaign_pilot_the_game_has_passes(tmp_path):
    root, game = copy_game(tmp_path)
    spoil(game / "campaign" / "ashfall-trail.yaml", "\nenemy_pilot: greedy\n", "\nenemy_pilot: planner@hand\n")
    res = validate(root)
    assert res.returncode == 0 and "campaign ashfall-trail:" in res.stdout, res.stderr
