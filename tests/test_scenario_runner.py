"""The scenario runner names one action per step: words that start two or more legal actions
fail whatever the verb (``do``, ``legal``, ``illegal``), listing the candidates. Before, an
ambiguous ``illegal`` step passed, because the refused prefix read as "not legal"."""
from types import SimpleNamespace

import pytest

from sim.core.scenario import AmbiguousAction, Slot, literal, misread, named_action, run_scenario

# A position with these legal actions, in this order (what ``describe`` prints).
WORDS = ("end", "attack m1 p1.m1", "attack m1 p1.m2", "attack m2 p1.m1", "play coyote m1", "play coyote")


class WordsEngine:
    """Just enough of the engine contract for the runner: actions are their own words, and
    ``apply`` records what was done."""

    def legal_actions(self, state):
        return [w for w in WORDS if w not in state["done"]]

    def describe(self, state, action):
        return action

    def parse_action(self, state, text):
        return named_action(self, state, text)

    def apply(self, state, action):
        state["done"].append(action)

    def snapshot(self, state):
        return {"done": list(state["done"])}

    def check_invariants(self, state):
        return []


def run(steps):
    state = {"done": []}
    return run_scenario(WordsEngine(), None, {}, steps, state=state), state


def test_an_ambiguous_illegal_step_fails_and_lists_the_candidates():
    failures, _ = run([{"illegal": "attack m1"}])
    assert failures == ["step 1: 'attack m1' matches 2 legal actions, name exactly one: "
                        "attack m1 p1.m1; attack m1 p1.m2"]


def test_an_ambiguous_do_step_fails_and_does_nothing():
    failures, state = run([{"do": "attack"}, {"expect": {"done": []}}])
    assert failures == ["step 1: 'attack' matches 3 legal actions, name exactly one: "
                        "attack m1 p1.m1; attack m1 p1.m2; attack m2 p1.m1"]
    assert state["done"] == []


def test_an_ambiguous_legal_step_fails_and_lists_the_candidates():
    failures, _ = run([{"legal": ["attack m1", "attack m2"]}])
    assert failures == ["step 1: 'attack m1' matches 2 legal actions, name exactly one: "
                        "attack m1 p1.m1; attack m1 p1.m2"]  # "attack m2" starts one: legal


def test_a_unique_prefix_and_whole_words_still_name_one_action():
    failures, state = run([{"do": "attack m2"}, {"legal": "attack m1 p1.m2"},
                           {"illegal": ["attack m2", "attack m3", "play rat"]},
                           {"do": "play coyote"}])  # whole words win over the longer "play coyote m1"
    assert failures == []
    assert state["done"] == ["attack m2 p1.m1", "play coyote"]


def test_words_that_start_no_action_still_read_as_not_legal():
    # an engine without ``action_forms``: its words are not read before play (FormsEngine below)
    failures, _ = run([{"illegal": "attack m1 p1.m3"}, {"legal": "attack m3"}])
    assert len(failures) == 1 and failures[0].startswith("step 2: 'attack m3' is not a legal action here")


def test_ambiguous_words_are_a_value_error_a_parse_action_caller_already_catches():
    with pytest.raises(ValueError) as info:
        named_action(WordsEngine(), {"done": []}, "attack m1")
    assert isinstance(info.value, AmbiguousAction)
    assert info.value.candidates == ["attack m1 p1.m1", "attack m1 p1.m2"]


def test_in_a_real_game_an_ambiguous_illegal_step_fails(frontier):
    """Frontier offers a creature into every empty lane: "play CARD" alone starts each of them."""
    eng, pool, *_ = frontier
    setup = {"seats": [{"hand": ["tin-star-recruit"], "mana": 1}, {}]}
    failures = run_scenario(eng, pool, setup, [{"illegal": "play tin-star-recruit"}])
    assert len(failures) == 1 and "'play tin-star-recruit' matches 7 legal actions" in failures[0]
    assert "play tin-star-recruit m1; play tin-star-recruit m2" in failures[0]


# The forms of WORDS, as a game's scenario module gives them (``action_forms``).
LANE, TARGET = Slot("a lane", ("m1", "m2", "m3")), Slot("a target", ("p1.m1", "p1.m2", "p1.m3", "p1.sheriff"))
FORMS = [(literal("end"),), (literal("attack"), LANE, TARGET), (literal("play"), Slot("a card id", ("coyote",)), LANE)]


class FormsEngine(WordsEngine):
    scenario_module = SimpleNamespace(action_forms=lambda state: FORMS)


def test_an_illegal_step_whose_words_name_no_action_of_the_game_fails():
    """Before, any words that were not legal passed an ``illegal`` step: a misspelt target checked nothing."""
    state = {"done": []}
    failures = run_scenario(FormsEngine(), None, {}, [{"illegal": ["attack m1 p1.m3", "attack m1 p1.sherif"]}],
                            state=state)
    assert failures == ["step 1 (illegal): 'attack m1 p1.sherif' names no action: 'p1.sherif' is not a target "
                        "(p1.m1, p1.m2, p1.m3, p1.sheriff)"]


def test_misspelt_words_fail_before_anything_plays():
    state = {"done": []}
    failures = run_scenario(FormsEngine(), None, {}, [{"do": "end"}, {"do": "play coyotee m1"}], state=state)
    assert failures == ["step 2 (do): 'play coyotee m1' names no action: 'coyotee' is not a card id"]
    assert state["done"] == []


@pytest.mark.parametrize("text, problem", [
    ("attack m1", None), ("attack", None), ("play coyote", None), ("end", None),
    ("", "'' names no action"), ("end m1", "'end' is a whole action, 'm1' follows it"),
    ("fight m1", "'fight' is not end, attack or play"), ("attack m4", "'m4' is not a lane (m1, m2, m3)"),
])
def test_words_are_read_as_a_prefix_of_a_form(text, problem):
    found = misread(FORMS, text)
    assert found is None if problem is None else problem in found, found
