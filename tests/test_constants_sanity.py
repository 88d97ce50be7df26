"""Constants that cannot make a playable game are refused where they are written: one line naming
the rules file, the constant (``constants.<name>``) and why, exit code 2, no traceback, and no
error blamed on a deck file instead. Each constraint of the three games' ``Constants`` has a test
here (the audit's findings among them: 0 AP a turn, a Morale cap below the starting Morale, an
Authority cap of 0, copy limits of -3 or 0 or for 9 stars, more Warriors than a deck holds); the
last test keeps the experiments a designer may legitimately try loading."""
from __future__ import annotations

import shutil

import pytest
import yaml

from tests.conftest import DATA, cli_here, run_cli

GAMES = ("frontier", "alleyway", "allegiance")


@pytest.fixture
def data(tmp_path):
    """A private copy of every game's data (card, deck, rules and boss files), to add a rules
    version to."""
    root = tmp_path / "data"
    for game in GAMES:
        shutil.copytree(DATA / game, root / game, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def trial(data, game: str, constants: dict, version: str = "trial") -> None:
    """A rules version ``version`` of ``game`` that extends base and sets ``constants``."""
    doc = {"version": version, "extends": "base", "constants": constants}
    (data / game / "rules" / f"{version}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


def validate(data, game: str):
    return cli_here("cards", "validate", game, "--data", str(data))


def refused(res, *needles: str) -> str:
    """Exit 2, no traceback, and an error line naming the trial's rules file and every needle;
    no error line blames a deck file (the constant is the mistake, not the decks)."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stdout + res.stderr
    lines = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert lines, res.stderr
    matching = [line for line in lines if "rules/trial.yaml" in line and all(n in line for n in needles)]
    assert matching, f"no error line names trial.yaml and {needles}: {lines}"
    assert not [line for line in lines if "/decks/" in line], lines
    return matching[0]


# --- Allegiance ---------------------------------------------------------------------------------

def test_allegiance_no_ap_a_turn(data):
    """The audit's case: with 0 AP a turn (and 0 on the first) every match was a turn-limit draw."""
    trial(data, "allegiance", {"ap_per_turn": 0, "first_turn_ap": 0})
    line = refused(validate(data, "allegiance"), "field 'constants.ap_per_turn'", "(got 0)")
    assert "greater than or equal to 1" in line


def test_allegiance_no_ap_a_turn_stops_a_run(data, tmp_path):
    """``simulate`` refuses the version before anything plays (it exited 0 with every match drawn)."""
    trial(data, "allegiance", {"ap_per_turn": 0, "first_turn_ap": 0})
    db = tmp_path / "s.duckdb"
    res = run_cli("simulate", "allegiance", "--data", str(data), "--rules", "trial", "--decks",
                  "forge-reapers,citadel-wardens", "--pilots", "random", "--workers", "1", "--matches", "2",
                  "--events", "none", "--quiet", "--db", str(db))
    refused(res, "field 'constants.ap_per_turn'")
    assert not db.exists()


def test_allegiance_deploying_costs_more_than_a_turn_gives(data):
    trial(data, "allegiance", {"deploy_ap": 8})
    refused(validate(data, "allegiance"), "constants.deploy_ap (8)", "constants.ap_per_turn 7", "deployed")


@pytest.mark.parametrize("stars,limit", [(1, -3), (5, 0)])
def test_allegiance_copy_limit_below_one(data, stars, limit):
    """A limit of 0 or less was accepted, and every deck was then blamed: '3 copies ..., at most -3'."""
    trial(data, "allegiance", {"copy_limits": {stars: limit}})
    res = validate(data, "allegiance")
    refused(res, f"field 'constants.copy_limits.{stars}'", f"(got {limit})", f"{stars}-star")
    assert "at most" not in res.stderr


def test_allegiance_copy_limit_for_stars_no_card_has(data):
    trial(data, "allegiance", {"copy_limits": {9: 4}})
    refused(validate(data, "allegiance"), "field 'constants.copy_limits.9'", "no card has 9 stars", "1 to 5")


def test_allegiance_more_warriors_than_a_deck_holds(data):
    """50 Warriors in a 40-card deck: refused at the constant, not blamed on every deck."""
    trial(data, "allegiance", {"warriors_per_deck": 50})
    refused(validate(data, "allegiance"), "constants.warriors_per_deck (50)", "constants.deck_size 40")


def test_allegiance_no_warriors(data):
    trial(data, "allegiance", {"warriors_per_deck": 0})
    refused(validate(data, "allegiance"), "field 'constants.warriors_per_deck'", "(got 0)")


def test_allegiance_opening_hand_past_the_deck(data):
    trial(data, "allegiance", {"opening_hand": 41})
    refused(validate(data, "allegiance"), "constants.opening_hand (41)", "constants.deck_size 40")


# --- AlleyWay -----------------------------------------------------------------------------------

@pytest.mark.parametrize("constants", [{"morale_cap": 100}, {"starting_morale": 7000}],
                         ids=["cap-lowered", "start-raised"])
def test_alleyway_morale_cap_below_the_starting_morale(data, constants):
    """The audit's ``morale_cap: 100`` under a starting 6000; raising the start alone is the same mistake."""
    trial(data, "alleyway", constants)
    refused(validate(data, "alleyway"), "constants.morale_cap", "constants.starting_morale", "more Morale")


def test_alleyway_no_authority_cap(data):
    """The audit's ``authority_cap: 0``: no card that costs Authority could be played."""
    trial(data, "alleyway", {"authority_cap": 0})
    refused(validate(data, "alleyway"), "field 'constants.authority_cap'", "(got 0)")


def test_alleyway_authority_cap_below_the_start(data):
    trial(data, "alleyway", {"authority_start": 5, "authority_cap": 3})
    refused(validate(data, "alleyway"), "constants.authority_cap (3)", "constants.authority_start (5)")


def test_alleyway_no_authority_at_all(data):
    trial(data, "alleyway", {"authority_start": 0, "authority_per_turn": 0})
    refused(validate(data, "alleyway"), "constants.authority_start", "constants.authority_per_turn", "both 0")


def test_alleyway_no_card_ever_drawn(data):
    trial(data, "alleyway", {"opening_hand": 0, "draw_per_turn": 0})
    refused(validate(data, "alleyway"), "constants.opening_hand", "constants.draw_per_turn", "both 0")


def test_alleyway_opening_hand_past_the_smallest_deck(data):
    trial(data, "alleyway", {"opening_hand": 45})
    refused(validate(data, "alleyway"), "constants.opening_hand (45)", "constants.deck_min 40")


# --- Wild Frontier ------------------------------------------------------------------------------

@pytest.mark.parametrize("constants,needles", [
    ({"hand_limit": 6}, ("constants.opening_hand (7)", "constants.hand_limit 6")),
    ({"zix_opening_hand": 11}, ("constants.zix_opening_hand (11)", "constants.hand_limit 10")),
    ({"second_seat_extra_cards": 3}, ("constants.zix_opening_hand plus constants.second_seat_extra_cards (11)",
                                      "constants.hand_limit 10")),
], ids=["limit-lowered", "zix-raised", "extra-cards"])
def test_frontier_opening_hand_above_the_hand_limit(data, constants, needles):
    """A dealt hand above the limit is a state the game never allows (a card drawn into a full
    hand is burned), and the engine's invariants refuse it from the first position on."""
    trial(data, "frontier", constants)
    refused(validate(data, "frontier"), *needles, "a hand never holds more")


def test_frontier_opening_hand_past_the_deck(data):
    trial(data, "frontier", {"opening_hand": 60, "hand_limit": 60})
    refused(validate(data, "frontier"), "constants.opening_hand (60)", "constants.deck_size 52")


# --- what stays allowed -------------------------------------------------------------------------

# Experiments that make an odd game but a playable one (each is one version, checked alone).
ALLOWED = {
    "frontier": [
        {"turn_limit": 5}, {"opening_hand": 0}, {"gold_per_turn": 0, "gold_per_damage_instance": 0},
        {"hand_limit": 8}, {"max_cover_per_lane": 0},
    ],
    "alleyway": [
        {"turn_limit": 5}, {"starting_morale": 9000, "morale_cap": 9000}, {"morale_cap": 9000},
        {"authority_start": 0}, {"authority_per_turn": 0}, {"authority_cap": 1, "authority_start": 1},
        {"draw_per_turn": 0}, {"opening_hand": 0}, {"hand_limit": 0},
    ],
    "allegiance": [
        {"turn_limit": 5}, {"first_turn_ap": 0}, {"deploy_ap": 7}, {"ap_per_turn": 2},
        {"copy_limits": {1: 4}}, {"copy_limits": {5: 3}}, {"opening_hand": 0}, {"muster_size": 0},
        {"attacks_per_turn": 0}, {"warriors_per_deck": 40},
    ],
}


@pytest.mark.parametrize("game", GAMES)
def test_legitimate_experiments_still_load(data, game):
    for i, constants in enumerate(ALLOWED[game]):
        trial(data, game, constants, version=f"x{i}")
    res = validate(data, game)
    # a derived version may make the shipped decks illegal (a warning, not an error)
    assert res.returncode == 0, (res.stdout, res.stderr)
    for i in range(len(ALLOWED[game])):
        assert f"x{i}: " in res.stdout, res.stdout


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_rules_versions_load(game):
    res = cli_here("cards", "validate", game)
    assert res.returncode == 0, res.stderr
    assert f"ok: {game}" in res.stdout
