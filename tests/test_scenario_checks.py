"""What ``workbench scenario run`` checks and says, from an audit of the runner:

- a step's action words are read against the game's forms before anything plays: a misspelt card
  id, lane or target is a mistake in the file (exit 2), not an ``illegal`` step that passes while
  checking nothing (``illegal: attack m1 p1.sherif`` had said "ok");
- ``expect`` compares strictly (``true`` had matched 1, ``1.0`` matched 1, ``false`` matched 0);
- a folder stands for its ``.yaml`` and ``.yml`` files, never a hidden one (an editor's lock);
- the results say the rules version, its hash, the seed, and a data folder not the shipped one;
- a step body of the wrong shape is a mistake in the file, the model's errors name the scenario,
  and the summary of what did run is printed when another file has a mistake.

Cases run through the real command line in this process (``workbench.cli.main``)."""
from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

import pytest
import yaml

from cardsdb.loader import load_ruleset
from cardsdb.models import ScenarioFile
from sim.core.scenario import misread, run_scenario, same
from tests.conformance_walk import starter_game, walk
from tests.conftest import DATA
from tests.test_bad_input import run_main

# the README's example: a Quickdraw deputy and a coyote facing each other in m1
SETUP = {"turn": 3, "seats": [{"lanes": {"m1": {"card": "dust-creek-deputy", "atk": 2, "def": 1}}},
                              {"lanes": {"m1": {"card": "dire-coyote", "atk": 5, "def": 2}}}]}
GOOD_STEPS = [{"illegal": "attack m1 p1.sheriff"}, {"do": "attack m1 p1.m1"},
              {"expect": {"p1.lanes.m1": None, "p0.lanes.m1.def": 1}}]


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("WORKBENCH_DATA", "WORKBENCH_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def write(name: str, steps: list, setup: dict | None = None, **extra) -> str:
    doc = {"name": Path(name).stem, "game": "frontier", "setup": SETUP if setup is None else setup,
           "steps": steps, **extra}
    with open(name, "w", encoding="utf-8") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    return name


def one_error(argv: list[str], capsys, *needles: str) -> str:
    """The command's one line: an error naming ``needles``, exit 2, no traceback."""
    code, out, err = run_main(["scenario", "run", *argv], capsys)
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (code, out + err)
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


# --- 5: misspelt action words ----------------------------------------------------------------------

@pytest.mark.parametrize("step, word", [
    ({"illegal": "attack m1 p1.sherif"}, "'p1.sherif' is not a target"),
    ({"illegal": "play dire-coyotee m2"}, "'dire-coyotee' is not a card id"),
    ({"illegal": "attack m9 p1.m1"}, "'m9' is not a lane"),
    ({"illegal": "atack m1 p1.m1"}, "'atack' is not end, play, attack"),
    ({"illegal": "end now"}, "'end' is a whole action, 'now' follows it"),
    ({"do": "attack m1 p1.sherif"}, "'p1.sherif' is not a target"),
    ({"legal": ["attack m1 p1.m1", "attack m1 p1.sherif"]}, "'p1.sherif' is not a target"),
])
def test_a_misspelt_action_is_a_mistake_in_the_file(step, word, capsys):
    path = write("typo.yaml", [*GOOD_STEPS[:1], step, *GOOD_STEPS[1:]])
    one_error([path], capsys, "typo.yaml", "scenario 'typo'", "field 'steps'", "step 2", word)


def test_well_formed_words_of_no_legal_action_still_pass_an_illegal_step(capsys):
    """Only the words are checked: a well-formed action that is not legal now is what ``illegal``
    is for (the blocker comes first; no seat 2; no card in hand)."""
    steps = [{"illegal": ["attack m1 p1.sheriff", "attack m2 p1.m1", "play dire-coyote m2", "choose pass"]},
             *GOOD_STEPS[1:]]
    code, out, err = run_main(["scenario", "run", write("fine.yaml", steps)], capsys)
    assert code == 0 and "1 of 1 scenarios passed" in out, out + err


@pytest.mark.parametrize("game, setup, step, word", [
    ("alleyway", {}, {"illegal": "deploy street-ratt atk l1"}, "'street-ratt' is not a card id"),
    ("alleyway", {}, {"illegal": "attack l1 p1.drect"}, "'p1.drect' is not a target"),
    ("allegiance", {}, {"illegal": "move p0.A33x"}, "'p0.A33x' is not a cell"),
    ("allegiance", {"seats": [{"units": {"p0.A3": "forge-reaper"}}, {}]}, {"illegal": "attack p0.A3 reapp p1.A3"},
     "'reapp' is not an attack ability"),
])
def test_every_game_reads_its_action_words(game, setup, step, word):
    eng, pool = compiled(game)
    failures = run_scenario(eng, pool, setup, [step])
    assert len(failures) == 1 and failures[0].startswith("step 1 (illegal): ") and word in failures[0], failures


def test_a_cell_off_the_board_is_a_well_formed_move_never_legal():
    """Allegiance's shipped scenarios pin the board's size so (battlefield-columns.yaml)."""
    eng, pool = compiled("allegiance")
    setup = {"turn": 5, "seats": [{"units": {"p0.A6": "ash-thrall", "p0.D1": "ember-keep"}},
                                  {"units": {"p1.B2": "sky-citadel"}}]}
    assert run_scenario(eng, pool, setup, [{"do": "move p0.A6"}, {"illegal": ["to p0.A7", "to p0.E3"]}]) == []


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_every_action_a_match_offers_reads_as_well_formed(game):
    """The forms hold every action ``describe`` prints: each legal action of two random-play
    walks over the starter decks (else a designer's correct words would be refused)."""
    eng, _pool, _pairs = starter_game(game)
    wrong = set()

    def visit(state, _action):
        forms = eng.scenario_module.action_forms(state)
        wrong.update(filter(None, (misread(forms, eng.describe(state, a)) for a in eng.legal_actions(state))))

    for seed in range(2):
        walk(game, seed, visit)
    assert not wrong, sorted(wrong)[:5]


# --- 6: strict expectations ------------------------------------------------------------------------

@pytest.mark.parametrize("want, got, equal", [
    (True, 1, False), (1, True, False), (False, 0, False), (1.0, 1, False), (1, 1.0, False),
    ([1, True], [1, 1], False), ({"a": 0}, {"a": False}, False), ({"a": 1}, {"a": 1, "b": 2}, False),
    (True, True, True), (1, 1, True), (2.5, 2.5, True), ([1, [None, "x"]], [1, [None, "x"]], True),
    ({"a": [False]}, {"a": [False]}, True), (None, None, True),
])
def test_expect_compares_strictly(want, got, equal):
    assert same(want, got) is equal


def test_a_bool_or_a_float_expectation_fails_against_a_whole_number():
    eng, pool = compiled("frontier")
    failures = run_scenario(eng, pool, SETUP, [{"expect": {"over": 0, "p1.hp": 30.0, "p0.lanes.m1.atk": True}},
                                               {"expect": {"over": False, "p1.hp": 30, "p0.lanes.m1.atk": 2}}])
    assert failures == ["step 1: over: expected 0, got False", "step 1: p1.hp: expected 30.0, got 30",
                        "step 1: p0.lanes.m1.atk: expected True, got 2"]


# --- 7: which files a folder stands for ------------------------------------------------------------

def test_a_folder_reads_yml_too_and_passes_over_hidden_files(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    write("mine/one.yaml", GOOD_STEPS)
    write("mine/two.yml", GOOD_STEPS)
    (folder / ".#one.yaml").write_text("name: [half-saved", encoding="utf-8")  # an editor's lock
    (folder / "notes.txt").write_text("not a scenario", encoding="utf-8")
    code, out, err = run_main(["scenario", "run", "mine"], capsys)
    assert code == 0, out + err
    assert "mine/one.yaml: one" in out and "mine/two.yml: two" in out and "2 of 2 scenarios passed" in out


# --- 8: what the results were played with ----------------------------------------------------------

def test_results_name_the_rules_version_its_hash_and_the_seed(capsys):
    _data, ruleset = load_ruleset("frontier", "base", DATA)
    code, out, err = run_main(["scenario", "run", write("seeded.yaml", GOOD_STEPS, seed=7)], capsys)
    assert code == 0, out + err
    assert "seeded.yaml: seeded  [rules base, seed 7]" in out
    assert f"rules: frontier base (hash {ruleset.hash})" in out
    assert "data:" not in out  # the shipped data is not named


def test_a_data_folder_not_the_shipped_one_is_named(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(DATA / "frontier", data / "frontier", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    code, out, err = run_main(["scenario", "run", write("mine.yaml", GOOD_STEPS), "--data", str(data)], capsys)
    assert code == 0, out + err
    assert f"data: {data}" in out


# --- 9: mistakes in the file, named with the scenario ----------------------------------------------

@pytest.mark.parametrize("step, words", [
    ({"expect": ["p1.hp", 30]}, "step 1 (expect): expected a mapping of path: value"),
    ({"expect": {}}, "step 1 (expect): expected a mapping"),
    ({"do": []}, "step 1 (do): expected an action's words"),
    ({"illegal": 5}, "step 1 (illegal): expected an action's words"),
    ({"legal": ["end", None]}, "step 1 (legal): expected an action's words"),
])
def test_a_step_body_of_the_wrong_shape_is_a_mistake_in_the_file(step, words, capsys):
    one_error([write("shape.yaml", [step])], capsys, "shape.yaml", "scenario 'shape'", "field 'steps'", words)


@pytest.mark.parametrize("extra, field", [({"sed": 3}, "field 'sed'"), ({"seed": "abc"}, "field 'seed'")])
def test_the_models_own_errors_name_the_scenario(extra, field, capsys):
    one_error([write("model.yaml", GOOD_STEPS, **extra)], capsys, "model.yaml", "scenario 'model'", field)


def test_a_misspelt_field_is_named_beside_the_field_it_misses(capsys):
    """The second walk-through: ``stepz:`` for ``steps:`` said only that 'steps' is missing (the
    one line a scenario's mistake gets); it now names the misspelling the file has."""
    name = write("spelt.yaml", GOOD_STEPS)
    doc = yaml.safe_load(Path(name).read_text())
    doc["stepz"] = doc.pop("steps")
    Path(name).write_text(yaml.safe_dump(doc, sort_keys=False))
    one_error([name], capsys, "scenario 'spelt'", "field 'steps': required field is missing (the file has 'stepz': "
              "misspelt?)")


def test_a_misspelt_verb_names_the_scenario(capsys):
    one_error([write("verb.yaml", [{"expct": {"p1.hp": 30}}])], capsys, "scenario 'verb'", "field 'steps'",
              "step 1 names 'expct'")


def test_what_did_run_is_summed_up_when_another_file_has_a_mistake(capsys):
    good, bad = write("good.yaml", GOOD_STEPS), write("bad.yaml", [{"expect": ["p1.hp", 30]}])
    code, out, err = run_main(["scenario", "run", good, bad], capsys)
    assert code == 2
    assert "1 of 1 scenarios passed (1 file not played" in out
    assert err.count("error: ") == 1 and "bad.yaml: scenario 'bad'" in err


def test_the_model_refuses_a_step_body_of_the_wrong_shape():
    doc = {"name": "x", "game": "frontier", "setup": {}, "steps": [{"expect": ["p1.hp", 30]}]}
    with pytest.raises(ValueError, match="step 1 .expect.: expected a mapping"):
        ScenarioFile.model_validate(doc)


@cache
def compiled(game: str) -> tuple:
    from sim.registry import engine

    eng = engine(game)
    return eng, eng.compile_pool(load_ruleset(game, "base", DATA)[1])
