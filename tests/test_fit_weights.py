"""Weight sets (sim/core/weights.py, ``greedy@<set>``) and ``workbench fit-weights``."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from sim.core.match import play_match
from sim.core.pilots import check_pilot, make_pilot, split_pilot
from sim.core.rng import Streams
from sim.core.weights import engine_with_weights, weight_set_file
from sim.registry import engine as get_engine
from tests.conftest import cli_here
from workbench import games
from workbench.fit.logistic import fit
from workbench.fit.params import fitted_params
from workbench.fit.positions import Sample


def _frontier():
    engine = get_engine("frontier")
    data, ruleset = games.load("frontier", "base")
    pool = engine.compile_pool(ruleset)
    decks = [engine.compile_deck(pool, d) for d in games.decks_for(data, ruleset, None)]
    return engine, pool, decks


def _positions(engine, pool, decks, n=60):
    taken = []
    play_match(engine, pool, decks[:2], 5, ["greedy", "greedy"], log=False,
               on_decision=lambda s, _a: taken.append(engine.clone(s)))
    return [s for s in taken if not s.over][:n]


def test_a_weight_set_changes_evaluate_and_leaves_the_game_alone():
    engine, pool, decks = _frontier()
    from sim.frontier import evaluate as module

    states = _positions(engine, pool, decks)
    before = [engine.evaluate(s, 0) for s in states]
    same = engine_with_weights(engine, copy.deepcopy(module.WEIGHTS))
    doubled = copy.deepcopy(module.WEIGHTS)
    doubled["weights"]["life"] *= 2
    other = engine_with_weights(engine, doubled)
    assert [same.evaluate(s, 0) for s in states] == before
    assert [other.evaluate(s, 0) for s in states] != before
    assert [engine.evaluate(s, 0) for s in states] == before  # the game's own module untouched


def _moves(engine, pool, decks, pilots, seed=3):
    actions = []
    result = play_match(engine, pool, decks[:2], seed, pilots, log=False,
                        on_decision=lambda _s, a: actions.append(repr(a)))
    assert result.error is None
    return actions, result.winner


def test_a_bare_pilot_thinks_with_the_set_its_game_names():
    """Frontier's weights.yaml names `tuned` for greedy (pilot_sets): `greedy` plays exactly as
    `greedy@tuned` and not as `greedy@hand` (the hand file); the planner names none, so it thinks
    with the hand set; an engine already given a set (fit-weights' candidates) is kept."""
    engine, pool, decks = _frontier()
    assert make_pilot("greedy", engine, 0, Streams(1).pilot(0, 0)).engine is \
        make_pilot("greedy@tuned", engine, 0, Streams(1).pilot(0, 0)).engine
    assert make_pilot("greedy@hand", engine, 0, Streams(1).pilot(0, 0)).engine is engine
    assert make_pilot("planner", engine, 0, Streams(1).pilot(0, 0)).engine is engine
    given = engine_with_weights(engine, copy.deepcopy(engine_module(engine).WEIGHTS))
    assert make_pilot("greedy", given, 0, Streams(1).pilot(0, 0)).engine is given
    games_seen = [_moves(engine, pool, decks, [p, p], seed) for p in ("greedy", "greedy@tuned", "greedy@hand")
                  for seed in (3, 4)]
    assert games_seen[0:2] == games_seen[2:4]  # greedy is greedy@tuned, move for move
    assert games_seen[0:2] != games_seen[4:6]  # and not the hand weights
    # Allegiance names `tuned` for its planner too; mcts follows its game's planner (PILOTS.md)
    from sim.registry import engine as game_engine
    allegiance = game_engine("allegiance")
    assert make_pilot("planner", allegiance, 0, Streams(1).pilot(0, 0)).engine is \
        make_pilot("planner@tuned", allegiance, 0, Streams(1).pilot(0, 0)).engine is not allegiance
    for game in ("frontier", "alleyway", "allegiance"):
        eng = game_engine(game)
        assert make_pilot("mcts:4", eng, 0, Streams(1).pilot(0, 0)).engine is \
            make_pilot("planner", eng, 0, Streams(1).pilot(0, 0)).engine, game
    assert make_pilot("mcts:4@hand", allegiance, 0, Streams(1).pilot(0, 0)).engine is allegiance
    refused = cli_here("fit-weights", "frontier", "--name", "hand", "--steps", "1", "--pairs", "1")
    assert refused.returncode == 2 and "own weights.yaml" in refused.stderr


def engine_module(engine):
    import importlib

    from sim.core.weights import evaluate_module_name
    return importlib.import_module(evaluate_module_name(engine))


def test_pilot_names_with_a_weight_set(tmp_path, monkeypatch):
    engine, pool, decks = _frontier()
    assert split_pilot("mcts:40@tuned") == ("mcts", 40)
    with pytest.raises(ValueError, match="weight set"):
        split_pilot("greedy@Bad Name")
    with pytest.raises(ValueError, match="no weight set 'nosuchset'"):
        check_pilot("greedy@nosuchset", engine)
    # a set shipped beside evaluate (written here into a temporary copy's place)
    path = weight_set_file(engine, "testset")
    from sim.frontier import evaluate as module

    doc = copy.deepcopy(module.WEIGHTS)
    doc["weights"]["hand"] = 5.0
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    try:
        pilot = make_pilot("greedy@testset", engine, 0, Streams(1).pilot(0, 0))
        state = _positions(engine, pool, decks, 1)[0]
        assert pilot.engine.evaluate(state, 0) != engine.evaluate(state, 0) or len(state.sides[0].hand) == 0
        # a match with one seat thinking with the set is deterministic
        runs = []
        for _ in range(2):
            actions = []
            result = play_match(engine, pool, decks[:2], 3, ["greedy", "greedy@testset"], log=False,
                                on_decision=lambda _s, a, seen=actions: seen.append(repr(a)))
            assert result.error is None
            runs.append((actions, result.winner, result.turns))
        assert runs[0] == runs[1]
    finally:
        path.unlink()


def test_the_logistic_fit_recovers_planted_weights():
    """Positions labelled by a known evaluate: the fit moves from a wrong start toward it."""
    rng = np.random.default_rng(1)
    n, k = 6000, 4
    slopes = rng.normal(size=(n, k))
    truth = np.array([2.0, 0.5, 1.0, 3.0])
    start = np.array([1.0, 1.0, 1.0, 1.0])
    p = 1 / (1 + np.exp(-(slopes @ truth) / 2.0))
    result = rng.random(n) < p
    sample = Sample(np.arange(n) // 20, result.astype(float), slopes, slopes @ start)
    out = fit(sample, start)
    ratio = out.weights / out.weights[2]  # the scale is free: compare shapes
    assert np.allclose(ratio, truth / truth[2], rtol=0.25)
    assert out.loss_fitted < out.loss_start < out.loss_coin + 1e-9


def test_the_fit_finds_nothing_to_move_when_the_start_is_the_truth():
    rng = np.random.default_rng(2)
    n = 6000
    slopes = rng.normal(size=(n, 3))
    start = np.array([1.0, 2.0, 0.5])
    result = rng.random(n) < 1 / (1 + np.exp(-(slopes @ start)))
    out = fit(Sample(np.arange(n) // 20, result.astype(float), slopes, slopes @ start), start)
    assert np.allclose(out.weights / start, (out.weights / start).mean(), rtol=0.2)


def test_fitted_params_leave_out_the_ends_of_the_game():
    from sim.allegiance import evaluate as module

    keys = [p.key for p in fitted_params(module.WEIGHTS)]
    assert "win" not in keys and "blight_calm" not in keys and "stronghold_hp" in keys


def test_fit_weights_command_by_play_writes_a_set(tmp_path):
    from rich.console import Console

    from workbench.commands.fit_weights import run_fit_weights

    engine = get_engine("frontier")
    path = weight_set_file(engine, "pytest-spsa")
    try:
        out = run_fit_weights("frontier", "base", "greedy", 1, 3, "pytest-spsa", False, 1, Console(file=None),
                              Console(stderr=True), by="play", steps=2, pairs=1)
        written = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert set(written["weights"]) == set(yaml.safe_load(weight_set_file(engine, "x").with_name(
            "weights.yaml").read_text())["weights"])
        assert len(out["weights"]) == len(fitted_params(written))
        from workbench.errors import UserError

        with pytest.raises(UserError, match="exists"):
            run_fit_weights("frontier", "base", "greedy", 1, 3, "pytest-spsa", False, 1, Console(),
                            Console(stderr=True), by="play", steps=1, pairs=1)
    finally:
        path.unlink(missing_ok=True)


def test_a_fitted_set_leaves_the_hand_files_settings_out():
    # AlleyWay's weights.yaml has both settings sections; a set the fit writes holds weights only
    from sim.core.weights import SETTINGS
    from workbench.commands.fit_weights import plan

    payload = plan("alleyway", "base", "greedy", 4, 1, 1)
    assert SETTINGS == ("pilot_sets", "search")
    assert not set(SETTINGS) & set(payload["document"])
    assert "weights" in payload["document"]


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_a_weight_set_that_lost_a_weight_is_refused_naming_the_file_and_the_weight(game, tmp_path):
    """A set edited by hand that lost a weight, or holds a word where a number goes, is one
    ValueError naming the file and the weight (it crashed deep inside evaluate with a KeyError);
    the settings and the notes (statuses, neutral) are not weights and may be left out."""
    import importlib

    from sim.core.weights import WeightFileError, read_weight_set

    hand = importlib.import_module(f"sim.{game}.evaluate").WEIGHTS
    path = tmp_path / "weights-edited.yaml"
    whole = copy.deepcopy(hand)
    for section in ("pilot_sets", "search", "statuses", "neutral"):
        whole.pop(section, None)
    path.write_text(yaml.safe_dump(whole), encoding="utf-8")
    assert read_weight_set(path, hand) == whole
    name = next(iter(hand["weights"]))
    lost = copy.deepcopy(whole)
    del lost["weights"][name]
    path.write_text(yaml.safe_dump(lost), encoding="utf-8")
    with pytest.raises(WeightFileError, match=rf"weights-edited.yaml: weight weights\.{name} is missing"):
        read_weight_set(path, hand)
    worded = copy.deepcopy(whole)
    worded["weights"][name] = "lots"
    path.write_text(yaml.safe_dump(worded), encoding="utf-8")
    with pytest.raises(WeightFileError, match=rf"weight weights\.{name} is 'lots', not a finite number"):
        read_weight_set(path, hand)
    # the bad-input audit of 2026-12-07: .nan and .inf were taken, and every match of a run
    # thinking with them raised while the run was stored as done; a misspelt weight was ignored
    # (the one meant kept its old value); the same weight twice kept the last
    for bad in (".nan", ".inf"):
        path.write_text(yaml.safe_dump(whole).replace(f"\n  {name}: ", f"\n  {name}: {bad} #", 1), encoding="utf-8")
        with pytest.raises(WeightFileError, match=rf"weight weights\.{name} is (nan|inf), not a finite number"):
            read_weight_set(path, hand)
    misspelt = copy.deepcopy(whole)
    misspelt["weights"][name + "z"] = misspelt["weights"].pop(name)
    path.write_text(yaml.safe_dump(misspelt), encoding="utf-8")
    with pytest.raises(WeightFileError, match=rf"weight weights\.{name}z is not one weights.yaml has"):
        read_weight_set(path, hand)
    path.write_text(yaml.safe_dump(whole).replace("weights:\n", f"weights:\n  {name}: 1.0\n", 1), encoding="utf-8")
    with pytest.raises(WeightFileError, match=rf"weights-edited.yaml: .*{name}.* written twice"):
        read_weight_set(path, hand)
    path.write_text("weights: [unclosed\n", encoding="utf-8")
    with pytest.raises(WeightFileError, match="not a readable YAML weight set"):
        read_weight_set(path, hand)


def test_a_pilot_named_with_a_broken_set_is_one_line_at_the_command(tmp_path):
    """Through the command line: one error line, exit 2, nothing stored."""
    engine = get_engine("frontier")
    path = weight_set_file(engine, "testbroken")
    from sim.frontier import evaluate as module

    doc = copy.deepcopy(module.WEIGHTS)
    del doc["weights"]["board"]
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    try:
        res = cli_here("simulate", "frontier", "--matches", "1", "--workers", "1", "--quiet", "--pilots",
                       "greedy@testbroken", "--decks", "lawmen-posse,goblin-gold-gang", "--db",
                       str(tmp_path / "w.duckdb"))
    finally:
        path.unlink()
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "weights-testbroken.yaml: weight weights.board is missing" in lines[0] and "Traceback" not in res.stderr
    assert not list(tmp_path.iterdir()), "nothing may be stored"


def test_a_fit_finishing_second_does_not_overwrite_one_of_the_same_name(tmp_path):
    """Two fits of one --name started together: both checked that the file did not exist, both
    wrote it (a fixed .tmp renamed over it), and the first fit's result was gone without a word."""
    from workbench.fit.document import write_weight_set

    path = tmp_path / "weights-race.yaml"
    how = {"pilot": "greedy", "name": "race"}
    write_weight_set(path, "frontier", {"weights": {}}, [], [], ["first"], how)
    with pytest.raises(FileExistsError):
        write_weight_set(path, "frontier", {"weights": {}}, [], [], ["second"], how)
    assert "# first" in path.read_text(encoding="utf-8")
    write_weight_set(path, "frontier", {"weights": {}}, [], [], ["second"], how, replace=True)
    assert "# second" in path.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weights-race.yaml"]  # no temporary left


def test_the_suggested_ladder_measures_the_set_against_where_it_started():
    """It suggested `greedy,greedy@NAME`; greedy thinks with `tuned`, the fit starts from the hand
    weights, and after `--name tuned --replace` that was one pilot twice (50.0% exactly)."""
    from workbench.fit.document import measure_command

    assert measure_command("frontier", "greedy", "mine", "tuned").split("--pilots ")[1].split()[0] == \
        "greedy@hand,greedy@mine,greedy"
    assert "--pilots greedy@hand,greedy@tuned " in measure_command("frontier", "greedy", "tuned", "tuned")
    assert "--pilots planner@hand,planner@mine " in measure_command("frontier", "planner", "mine", "hand")


def test_threads_building_a_weight_set_at_once_all_think_with_it(monkeypatch):
    """A Dask worker plays tasks on several threads; each may build the engine of a weight set
    (``weighted_engine``) for the first time at once. Every thread must get that set's weights,
    never the hand set's: the determinism audit of 2026-12-07 found a process-wide "document
    being read" that one thread's copy of evaluate.py reset under another's, so a run stored as
    ``greedy`` (tuned) played with the hand weights on a two-thread worker."""
    import threading

    from sim.core import weights

    engine = get_engine("frontier")
    tuned = weights.read_weight_set(weight_set_file(engine, "tuned"), weights.game_settings(engine))
    wrong = several = 0
    for _round in range(20):
        monkeypatch.setattr(weights, "_ENGINES", {})  # as a worker that has built none yet
        start = threading.Barrier(4)
        got = []

        def build(start, got):
            start.wait()
            got.append(weights.weighted_engine(engine, "tuned"))

        threads = [threading.Thread(target=build, args=(start, got)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wrong += sum(view.evaluate.__globals__["WEIGHTS"] != tuned for view in got)
        several += len({id(view) for view in got}) > 1  # one engine per set, whichever thread built it
    assert (wrong, several) == (0, 0), f"{wrong} of 80 engines thought with other weights; {several} rounds built twice"
