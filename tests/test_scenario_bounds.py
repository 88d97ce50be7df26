"""Every field of every game's scenario position is bounded: a number where it must be, whole,
within what the field can hold (non-negative, below the game's largest number and the rules'
caps), the right number of seats for the game, a list or a mapping where one belongs, flags true
or false, lanes, slots and cells by their names. A mistake is one line (``error: FILE: scenario
'NAME': setup.seats[N].FIELD: ...``), exit 2, no traceback, no file changed; before, ``hp: 10**20``,
``mana: -5``, three Frontier seats or seven AlleyWay seats were accepted without a word and the
engines' ``int()`` errors named no field. Cases run through the real CLI like tests/test_bad_input.py."""
from __future__ import annotations

import shutil

import pytest

from cardsdb.bounds import max_number
from cardsdb.registry import schema
from sim.registry import engine as get_engine
from tests.conftest import DATA
from tests.test_bad_input import GAMES, Case, Workspace, run_main
from tests.test_bad_input import test_bad_input_is_one_line_and_writes_nothing as one_line_and_nothing_written

WHERE = ("bad-scenario.yaml", "scenario 'bad'")  # every line names the file and the scenario
BIG = 10**20


def run(game: str, setup: dict) -> "Case.make":
    return lambda ws: ["scenario", "run", ws.scenario(setup, game=game)]


def seat(game: str, fields: dict, index: int = 0, seats: int = 2) -> "Case.make":
    """A duel whose seat ``index`` has ``fields``."""
    specs = [{} for _ in range(seats)]
    specs[index] = fields
    return run(game, {"seats": specs})


def unit(game: str, zone: str, place: str, fields: dict) -> "Case.make":
    return seat(game, {zone: {place: fields}})


CRITTER = {"card": "plated-armadillo"}  # Wild Frontier: a creature (printed 0 ATK, 9 DEF in scenarios)
BRAWLER = {"card": "street-rat"}       # AlleyWay: a character
THRALL = {"card": "ash-thrall"}        # Allegiance: a Warrior

FRONTIER = [
    Case("frontier-hp-10-20", seat("frontier", {"hp": BIG}), ("seats[0].hp", str(BIG))),
    Case("frontier-mana-minus-5", seat("frontier", {"mana": -5}, 1), ("seats[1].mana", "from 0", "-5")),
    Case("frontier-three-seats", run("frontier", {"seats": [{}, {}, {}]}), ("setup.seats", "2 seats, not 3")),
    Case("frontier-hp-a-word", seat("frontier", {"hp": "lots"}), ("seats[0].hp", "whole number", "'lots'")),
    Case("frontier-max-hp-past-the-game", seat("frontier", {"max_hp": 10**6}), ("seats[0].max_hp", "99,999")),
    Case("frontier-hp-above-max-hp", seat("frontier", {"hp": 31, "max_hp": 30}), ("seats[0].hp", "its max_hp")),
    Case("frontier-hp-0", seat("frontier", {"hp": 0}), ("seats[0].hp", "from 1")),
    Case("frontier-gold-a-fraction", seat("frontier", {"gold": 2.5}), ("seats[0].gold", "2.5")),
    Case("frontier-turn-past-the-limit", run("frontier", {"turn": 10**6}), ("setup.turn", "turn_limit")),
    Case("frontier-active-a-word", run("frontier", {"active": "me"}), ("setup.active", "'me'")),
    Case("frontier-start-a-word", run("frontier", {"start": "yes"}), ("setup.start", "true or false")),
    Case("frontier-hand-over-the-limit", seat("frontier", {"hand": ["ember-imp"] * 11}),
         ("seats[0].hand", "11", "hand_limit")),
    Case("frontier-cover-5", seat("frontier", {"cover": {"m1": 5}}), ("seats[0].cover.m1", "max_cover_per_lane")),
    Case("frontier-cover-a-list", seat("frontier", {"cover": ["m1"]}), ("seats[0].cover", "mapping")),
    Case("frontier-deputies-a-number", seat("frontier", {"deputies": 2}), ("seats[0].deputies", "list")),
    Case("frontier-three-deputies", seat("frontier", {"deputies": ["a", "b", "c"]}),
         ("seats[0].deputies", "deputies_per_deck")),
    Case("frontier-unknown-lane", unit("frontier", "lanes", "m9", CRITTER), ("seats[0].lanes", "unknown lane 'm9'")),
    Case("frontier-unit-def-0", unit("frontier", "lanes", "m3", {**CRITTER, "def": 0}), ("lanes.m3.def", "from 1")),
    Case("frontier-unit-damage-kills-it", unit("frontier", "lanes", "m3", {**CRITTER, "def": 4, "damage": 4}),
         ("lanes.m3.damage", "one less than its DEF")),
    Case("frontier-unit-atk-10-12", unit("frontier", "lanes", "m3", {**CRITTER, "atk": 10**12}),
         ("lanes.m3.atk", "99,999")),
    Case("frontier-unit-attacks-left-3", unit("frontier", "lanes", "m3", {**CRITTER, "attacks_left": 3}),
         ("lanes.m3.attacks_left", "attacks a turn")),
    Case("frontier-unit-ready-a-word", unit("frontier", "lanes", "m3", {**CRITTER, "ready": "no"}),
         ("lanes.m3.ready", "true or false", "'no'")),
    # a seat's own turns by the match's turn, seat 0 first (turns: 40 at turn 3 was accepted)
    Case("frontier-turns-past-the-turn", run("frontier", {"turn": 3, "seats": [{"turns": 40}, {}]}),
         ("seats[0].turns", "from 0 to 2", "seat 0's own turns by turn 3", "40")),
    Case("frontier-second-seat-turns-past-its-share", run("frontier", {"turn": 3, "seats": [{}, {"turns": 2}]}),
         ("seats[1].turns", "from 0 to 1", "seat 1's own turns by turn 3")),
    Case("frontier-turns-with-start", run("frontier", {"start": True, "seats": [{"turns": 3}, {}]}),
         ("seats[0].turns", "start: true")),
    Case("frontier-turn-with-start", run("frontier", {"start": True, "turn": 4}), ("setup.turn", "start: true")),
    Case("frontier-active-with-start", run("frontier", {"start": True, "active": 1}), ("setup.active", "start: true")),
    # only High-Rise units are fresh: fresh in a middle lane was accepted, then dropped
    Case("frontier-fresh-in-a-middle-lane", unit("frontier", "lanes", "m3", {**CRITTER, "fresh": True}),
         ("seats[0].lanes.m3.fresh", "High-Rise")),
]

ALLEYWAY = [
    Case("alleyway-seven-seats", run("alleyway", {"seats": [{}] * 7}), ("setup.seats", "2 to 4 seats, not 7")),
    Case("alleyway-morale-10-8", seat("alleyway", {"morale": 10**8}), ("seats[0].morale", "morale_cap")),
    Case("alleyway-morale-0", seat("alleyway", {"morale": 0}, 1), ("seats[1].morale", "from 1")),
    Case("alleyway-authority-minus-1", seat("alleyway", {"authority": -1}), ("seats[0].authority", "-1")),
    Case("alleyway-authority-10-20", seat("alleyway", {"authority": BIG}), ("seats[0].authority", "9,999,999")),
    Case("alleyway-first-not-a-seat", run("alleyway", {"first": 5}), ("setup.first", "a seat", "5")),
    Case("alleyway-phase-unknown", run("alleyway", {"phase": "lunch"}), ("setup.phase", "'lunch'")),
    Case("alleyway-tax-a-word", seat("alleyway", {"tax": "high"}), ("seats[0].tax", "'high'")),
    Case("alleyway-gutter-a-number", seat("alleyway", {"gutter": 3}), ("seats[0].gutter", "list")),
    Case("alleyway-unit-atk-10-12", unit("alleyway", "lanes", "l1", {**BRAWLER, "atk": 10**12}),
         ("seats[0].lanes.l1.atk", "9,999,999")),
    Case("alleyway-unit-def-minus-100", unit("alleyway", "lanes", "l1", {**BRAWLER, "def": -100}),
         ("lanes.l1.def", "-100")),
    Case("alleyway-unit-pos-attack", unit("alleyway", "lanes", "l1", {**BRAWLER, "pos": "attack"}),
         ("lanes.l1.pos", "atk, def")),
    Case("alleyway-unit-attacks-5", unit("alleyway", "lanes", "l1", {**BRAWLER, "attacks": 5}),
         ("lanes.l1.attacks", "max_extra_attacks")),
    Case("alleyway-unit-freeze-a-word", unit("alleyway", "lanes", "l1", {**BRAWLER, "freeze": "soon"}),
         ("lanes.l1.freeze", "or true")),
    Case("alleyway-unit-poison-minus", unit("alleyway", "lanes", "l1", {**BRAWLER, "poison": -200}),
         ("lanes.l1.poison", "-200")),
    Case("alleyway-unit-bounty-a-number", unit("alleyway", "lanes", "l1", {**BRAWLER, "bounty": 1}),
         ("lanes.l1.bounty", "a list")),
    Case("alleyway-unit-bounty-seat-9", unit("alleyway", "lanes", "l1", {**BRAWLER, "bounty": [[9, 1]]}),
         ("lanes.l1.bounty[0].seat", "a seat")),
    Case("alleyway-unit-downed-a-word", unit("alleyway", "lanes", "l1", {**BRAWLER, "downed": "yes"}),
         ("lanes.l1.downed", "true or false")),
    Case("alleyway-unknown-lane", unit("alleyway", "lanes", "l9", BRAWLER), ("seats[0].lanes", "unknown lane 'l9'")),
    Case("alleyway-back-host-unknown-lane", seat("alleyway", {"back": {"b1": {
        "card": "brass-knuckles", "face": "up", "host": "l9"}}}), ("back.b1.host", "unknown lane 'l9'")),
    Case("alleyway-back-face-sideways", seat("alleyway", {"back": {"b1": {"card": "brass-knuckles",
                                                                          "face": "sideways"}}}),
         ("back.b1.face", "'sideways'")),
    Case("alleyway-back-unknown-field", seat("alleyway", {"back": {"b1": {"card": "brass-knuckles", "turn": 2}}}),
         ("back.b1", "unknown field 'turn'")),
    Case("alleyway-leader-influence-too-high", seat("alleyway", {"leader": {"card": "general-graves",
                                                                            "influence": BIG}}),
         ("seats[0].leader.influence", "printed Influence")),
]

ALLEGIANCE = [
    Case("allegiance-three-seats", run("allegiance", {"seats": [{}, {}, {}]}), ("setup.seats", "2 seats, not 3")),
    Case("allegiance-ap-minus-5", seat("allegiance", {"ap": -5}), ("seats[0].ap", "-5")),
    Case("allegiance-ap-10-20", seat("allegiance", {"ap": BIG}, 1), ("seats[1].ap", "99,999")),
    Case("allegiance-turns-a-word", seat("allegiance", {"turns": "two"}), ("seats[0].turns", "'two'")),
    Case("allegiance-turn-past-the-limit", run("allegiance", {"turn": 10**9}), ("setup.turn", "turn_limit")),
    Case("allegiance-blight-destroyed-minus", run("allegiance", {"blight_destroyed": -1}),
         ("setup.blight_destroyed", "-1")),
    Case("allegiance-blight-past-the-tokens", run("allegiance", {"blight": ["p0.B1"] * 19}),
         ("setup.blight", "19", "blight_tokens")),
    Case("allegiance-blight-a-cell-name", run("allegiance", {"blight": "p0.B1"}), ("setup.blight", "list of cells")),
    Case("allegiance-muster-past-its-room", seat("allegiance", {"muster": ["ash-thrall"] * 5}),
         ("seats[0].muster", "muster_size")),
    Case("allegiance-muster-ready-a-word", seat("allegiance", {"muster": [{"card": "ash-thrall", "ready": "no"}]}),
         ("seats[0].muster[0].ready", "true or false")),
    Case("allegiance-supplies-9", seat("allegiance", {"supplies": 9}), ("seats[0].supplies", "supplies_per_turn")),
    Case("allegiance-units-a-list", seat("allegiance", {"units": ["p0.B2"]}), ("seats[0].units", "mapping")),
    Case("allegiance-unit-hp-0", unit("allegiance", "units", "p0.B2", {**THRALL, "hp": 0}),
         ("units.p0.B2.hp", "from 1")),
    Case("allegiance-unit-hp-above-max", unit("allegiance", "units", "p0.B2", {**THRALL, "hp": 50, "max_hp": 5}),
         ("units.p0.B2.hp", "its max_hp")),
    Case("allegiance-unit-absorb-9", unit("allegiance", "units", "p0.B2", {**THRALL, "absorb": 9}),
         ("units.p0.B2.absorb", "absorb_cap")),
    Case("allegiance-unit-attacks-3", unit("allegiance", "units", "p0.B2", {**THRALL, "attacks": 3}),
         ("units.p0.B2.attacks", "attacks_per_turn")),
    Case("allegiance-unit-power-10-20", unit("allegiance", "units", "p0.B2", {**THRALL, "power": -BIG}),
         ("units.p0.B2.power", "-99,999")),
    Case("allegiance-unit-tap-sideways", unit("allegiance", "units", "p0.B2", {**THRALL, "tap": "sideways"}),
         ("units.p0.B2.tap", "'sideways'")),
    Case("allegiance-unknown-cell", unit("allegiance", "units", "p0.Z9", THRALL), ("seats[0].units", "Z9")),
]

CASES = FRONTIER + ALLEYWAY + ALLEGIANCE


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Workspace:
    """tests/test_bad_input.py's private folder, made once for the module: these cases change
    no data, only the scenario file each writes, so the rules versions compiled for the first
    case of a game serve the others (a pool per case took seconds on a loaded machine)."""
    from workbench.commands import scenarios

    ws = Workspace(tmp_path_factory.mktemp("bounds"))
    for game in GAMES:
        shutil.copytree(DATA / game, ws.game(game), ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ws.root)
        patch.setenv("WORKBENCH_DATA_DIR", str(ws.data))
        patch.setenv("COLUMNS", "200")
        patch.setattr(scenarios, "_POOLS", {})  # pools are cached per data folder name
        yield ws


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_position_out_of_bounds_is_one_line_naming_file_scenario_and_field(case: Case, workspace: Workspace,
                                                                             capsys):
    one_line_and_nothing_written(Case(case.name, case.make, WHERE + case.needles), workspace, capsys)


def test_at_least_five_kinds_per_game():
    assert len({c.name for c in CASES}) == len(CASES)
    for cases in (FRONTIER, ALLEYWAY, ALLEGIANCE):
        assert len(cases) >= 5


@pytest.mark.parametrize("game", ["frontier", "alleyway", "allegiance"])
def test_a_position_never_holds_more_than_the_games_data_may(game):
    """Each engine's largest position number is its game's data bound (cardsdb/bounds.py)."""
    import importlib

    module = importlib.import_module(f"{type(get_engine(game)).__module__.rsplit('.', 1)[0]}.scenario")
    assert module.MAX_NUMBER == max_number(schema(game))


@pytest.mark.parametrize("game, setup", [
    ("frontier", {"seats": [{"hp": 30, "max_hp": 30, "mana": 99_999, "gold": 0, "lanes": {
        "m3": {**CRITTER, "def": 4, "damage": 3, "attacks_left": 2}}}, {"hp": 1}]}),
    ("frontier", {"turn": 3, "seats": [{"turns": 2, "lanes": {"hr1": {**CRITTER, "fresh": True},
                                                              "m1": {**CRITTER, "fresh": False}}}, {"turns": 1}]}),
    ("alleyway", {"first": 2, "active": 3, "seats": [{"morale": 6000}, {"morale": 1}, {}, {"authority": 99}]}),
    ("allegiance", {"turn": 80, "seats": [{"ap": 0, "muster": ["ash-thrall"] * 4}, {"units": {
        "p1.B5": {"card": "sky-citadel", "hp": 1}}}]}),
])
def test_positions_at_the_edges_of_their_ranges_still_set_up(game, setup, workspace: Workspace, capsys):
    """The bounds refuse only what is out of range: the edges themselves are positions."""
    argv = ["scenario", "run", workspace.scenario(setup, game=game)]
    code, out, err = run_main(argv, capsys)
    assert code == 0, out + err
    assert "1 of 1 scenarios passed" in out
