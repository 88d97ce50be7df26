"""Wild Frontier's sheriffs are data (cardsdb/frontier/sheriffs.yaml): their passives compile into
numbers the engine reads, rules constants reach them, a bad file is one line naming it, and the
engine no longer asks which sheriff a seat has."""
from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from cardsdb.errors import DataError
from cardsdb.frontier.schema import Constants
from cardsdb.frontier.sheriffs import Passive, load_sheriffs
from sim.frontier.sheriffs import NO_SHERIFF, SHERIFF_NAMES, SLOTS, compile_sheriffs

ROOT = Path(__file__).resolve().parents[1]


def by_id(sheriffs):
    return {s.id: s for s in sheriffs}


def test_every_passive_kind_has_its_slots():
    kinds = typing.get_args(typing.get_args(Passive)[0])
    assert {k.model_fields["passive"].annotation.__args__[0] for k in kinds} == set(SLOTS)
    for kind in kinds:
        name = kind.model_fields["passive"].annotation.__args__[0]
        assert {field for field, _ in SLOTS[name]} == set(kind.model_fields) - {"passive"}, name


def test_the_guides_sheriffs_with_the_base_numbers():
    compiled = compile_sheriffs(Constants())
    assert [s.id for s in compiled[:NO_SHERIFF]] == list(SHERIFF_NAMES) == [
        "calloway", "zix", "malachar", "reedwick", "cogsworth", "ironhold"]
    s = by_id(compiled)
    assert (s["ironhold"].start_hp, s["ironhold"].damage_reduction) == (35, 1)
    assert (s["zix"].opening_hand, s["zix"].discard_uses, s["zix"].discard_draws) == (8, 1, 2)
    assert (s["calloway"].gold_every, s["calloway"].gold) == (3, 2)
    assert (s["cogsworth"].first_turn_gold, s["cogsworth"].trim, s["cogsworth"].trims_per_turn) == (1, 1, 1)
    assert (s["reedwick"].start_cover, s["reedwick"].mana_per_cover_broken) == (3, 1)
    assert s["malachar"].first_attack_bonus == 1
    assert s["zix"].kinds == {"opening_hand", "discard_draw"} and compiled[NO_SHERIFF].kinds == set()
    # a sheriff without a passive has the rules' own numbers and no extras
    for sheriff in (s["calloway"], compiled[NO_SHERIFF]):
        assert (sheriff.start_hp, sheriff.opening_hand) == (30, 7)
        assert (sheriff.damage_reduction, sheriff.discard_uses, sheriff.first_attack_bonus) == (0, 0, 0)
    assert compiled[NO_SHERIFF].gold_every == compiled[NO_SHERIFF].start_cover == 0


def test_a_rules_version_changes_a_sheriff_through_its_constants():
    s = by_id(compile_sheriffs(Constants(ironhold_hp=40, calloway_gold=5, zix_opening_hand=9)))
    assert (s["ironhold"].start_hp, s["calloway"].gold, s["zix"].opening_hand) == (40, 5, 9)


def test_a_new_sheriff_in_data_with_plain_numbers(tmp_path):
    path = tmp_path / "sheriffs.yaml"
    path.write_text("- id: wyatt\n  name: Wyatt\n  passives:\n"
                    "  - {passive: starting_hp, hp: 28}\n"
                    "  - {passive: first_attack_bonus, atk: malachar_attack_bonus}\n"
                    "  - {passive: gold_every, turns: 2, gold: 1}\n")
    wyatt = compile_sheriffs(Constants(malachar_attack_bonus=2), load_sheriffs(Constants.model_fields, path))[0]
    assert (wyatt.id, wyatt.start_hp, wyatt.first_attack_bonus, wyatt.gold_every, wyatt.gold) == ("wyatt", 28, 2, 2, 1)


@pytest.mark.parametrize("passive, words", [
    ("{passive: starting_hp, hp: iron_hp}", "'iron_hp' is no rules constant"),
    ("{passive: free_beer, amount: 1}", "passive"),
    ("{passive: starting_hp, hp: -3}", "hp"),
])
def test_a_bad_sheriff_file_is_one_line_naming_it(tmp_path, passive, words):
    path = tmp_path / "sheriffs.yaml"
    path.write_text(f"- id: wyatt\n  name: Wyatt\n  passives:\n  - {passive}\n")
    with pytest.raises(DataError) as err:
        load_sheriffs(Constants.model_fields, path)
    line = err.value.line()
    assert line.startswith("sheriffs.yaml") and words in line and "\n" not in line


def test_the_engine_never_asks_which_sheriff():
    names = "|".join(SHERIFF_NAMES)
    asked = re.compile(rf"sheriff\s*==|\b({names.upper()})\b|[\"']({names})[\"']")
    found = [f"{path.name}:{n}: {line.strip()}" for path in sorted((ROOT / "sim" / "frontier").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1) if asked.search(line)]
    assert found == []
