"""Setup as the guide writes it: Morale 6000, a 5-card hand redrawn at most once, the leader
Dormant beside the field with its Influence, the Hideout holding the higher Striver levels; and
the deck construction rules, with bad decks reported on one line."""
import shutil
from collections import Counter

import pytest
import yaml

from tests.alleyway_common import ALLEYWAY, act, alleyway
from tests.conftest import cli_here


def new(seed=1, a="cinder-wildfire", b="graves-garrison"):
    eng, pool, _data, _rules, decks = alleyway()
    return eng, pool, eng.new_match(pool, [decks[a], decks[b]], seed)


def test_new_match_setup_and_the_redraw():
    eng, pool, state = new()
    first, second = state.sides
    assert first.morale == second.morale == 6000
    assert len(first.hand) == len(second.hand) == 5 and len(first.deck) == 35
    assert pool.slug(first.leader) == "cinder" and first.influence == 4000 and first.leader_state == 0
    assert sorted(pool.slug(c) for c in set(first.hideout)) == sorted(
        f"{line}-{lv}" for line in ("kindle", "haze", "blaze-maddox", "fuse", "flint") for lv in (2, 3))
    # the opening-hand decision comes first, in seat order, one redraw at most
    assert state.phase == "mulligan" and state.to_act == 0
    assert [eng.describe(state, a) for a in eng.legal_actions(state)] == ["keep", "redraw"]
    hand_before = list(first.hand)
    act(eng, state, "redraw")
    assert state.to_act == 1 and len(first.hand) == 5 and first.hand != hand_before
    _eng, _pool, _data, _rules, decks = alleyway()
    assert Counter(first.hand + first.deck) == Counter(decks["cinder-wildfire"].cards)
    act(eng, state, "keep")
    # turn 1: seat 0, 1 Authority, no draw (decided), Deployment phase
    assert (state.turn, state.active, state.phase, first.authority, len(first.hand)) == (1, 0, "deployment", 1, 5)
    assert state.ledger.opening[0] == Counter(first.hand)


def test_redraw_keeps_the_cards_and_comes_from_the_seed():
    eng, pool, a = new(5)
    _, _, b = new(5)
    act(eng, a, "redraw", "redraw")
    act(eng, b, "redraw", "redraw")
    assert a.sides[0].hand == b.sides[0].hand and a.sides[1].hand == b.sides[1].hand
    _, _, c = new(6)
    act(eng, c, "redraw", "redraw")
    assert c.sides[0].hand != a.sides[0].hand
    eng_, _, _, _, decks = alleyway()
    assert Counter(a.sides[0].hand + a.sides[0].deck) == Counter(decks["cinder-wildfire"].cards)


# --- deck construction ------------------------------------------------------------------------------

@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(ALLEYWAY, root / "alleyway", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def edit_deck(data, deck_id, **changes):
    path = data / "alleyway" / "decks" / f"{deck_id}.yaml"
    doc = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(doc.get(key), dict):
            doc[key].update(value)
            doc[key] = {k: v for k, v in doc[key].items() if v is not None}
        else:
            doc[key] = value
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def error_line(res):
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr + res.stdout
    return res.stderr


def validate(data):
    return cli_here("cards", "validate", "alleyway", "--data-dir", str(data))


def test_the_shipped_alleyway_data_is_valid_and_on_budget():
    res = cli_here("cards", "validate", "alleyway")
    assert res.returncode == 0, res.stderr
    assert "ok: alleyway" in res.stdout and "off the stat budget" not in res.stdout


@pytest.mark.parametrize("change, needles", [
    ({"cards": {"static": 4}}, ["graves-garrison.yaml", "static", "4 copies"]),
    ({"cards": {"static": None}}, ["graves-garrison.yaml", "37 cards", "40 to 60"]),
    ({"cards": {"sable": 3, "static": None}}, ["sable", "clan underworld"]),
    ({"cards": {"thomas-2": 1}}, ["thomas-2", "Hideout, not the deck"]),
    ({"cards": {"skeleton": 3, "static": None}}, ["skeleton", "token is not a deck card"]),
    ({"hideout": {"kade-2": 1}}, ["kade-2", "hideout", "clan nebula"]),
    ({"hideout": {"static": 1}}, ["static", "higher levels of Strivers"]),
    ({"leader": "sarge"}, ["sarge", "leader", "not a leader"]),
])
def test_a_bad_deck_is_one_clear_line(data, change, needles):
    edit_deck(data, "graves-garrison", **change)
    err = error_line(validate(data))
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert any(all(n in line for n in needles) for line in lines), lines


def test_hideout_needs_the_lower_level(data):
    edit_deck(data, "graves-garrison", cards={"thomas-1": None, "static": 6},
              hideout={"thomas-2": None})
    err = error_line(validate(data))
    assert "thomas-3" in err and "lower level" in err


def test_an_unknown_keyword_or_effect_is_an_error(data):
    path = data / "alleyway" / "cards" / "neutral.yaml"
    cards = yaml.safe_load(path.read_text())
    cards[0]["keywords"] = {"flying": True}
    cards[1]["abilities"] = [{"when": "deployed", "do": [{"effect": "teleport"}]}]
    path.write_text(yaml.safe_dump(cards, sort_keys=False))
    err = error_line(validate(data))
    assert "unknown keyword 'flying'" in err and "street-rat" in err
    assert "teleport" in err and "dirty-cop" in err


@pytest.mark.parametrize("kind, met, unmet", [
    ("own_turn", {"turns": 6}, {"turns": 5}),
    ("morale_at_most", {"morale": 2000}, {"morale": 2001}),
    ("gutter_characters", {"gutter": ["static"] * 4 + ["gas-can"]}, {"gutter": ["static"] * 3 + ["gas-can"] * 3}),
    ("kos", {"kos": 3}, {"kos": 2}),
    ("coin_flips", {"flips": 9}, {"flips": 8}),
    ("plundered", {"plundered": 4}, {"plundered": 3}),
    ("burn_dealt", {"burn_dealt": 900}, {"burn_dealt": 899}),
])
def test_every_awaken_condition(kind, met, unmet):
    from sim.alleyway.play import awaken_ready
    from tests.alleyway_common import scenario_state

    numbers = {"own_turn": 6, "morale_at_most": 2000, "gutter_characters": 4, "kos": 3, "coin_flips": 9,
               "plundered": 4, "burn_dealt": 900}
    for spec, ready in ((met, True), (unmet, False)):
        _eng, state = scenario_state({"turn": 11, "seats": [{"leader": "cinder", **spec}, {}]})
        leader = state.pool.cards[state.sides[0].leader]
        original = leader.awaken
        leader.awaken = (kind, numbers[kind])  # the compiled card, for this check only
        try:
            assert awaken_ready(state, 0) is ready, (kind, spec)
        finally:
            leader.awaken = original


def test_spreadsheet_round_trip_with_nested_fields(data, tmp_path):
    """Export the cards, change a number and a keyword's list of statuses in the sheet, import:
    only those changes come back (a keyword's list is [a|b] in the keywords cell; lists such as
    Dormant effects are numbered columns)."""
    import csv

    sheet = tmp_path / "cards.csv"
    res = cli_here("cards", "export", "alleyway", "--csv", str(sheet), "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row in rows:
        if row["id"] == "sarge":
            row["atk"] = "4200"
        if row["id"] == "kowalski-3":
            assert row["keywords"] == "immune=[suppress|stun|freeze]"
            row["keywords"] = "immune=[stun]"
    with sheet.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    res = cli_here("cards", "import", str(sheet), "--game", "alleyway", "--as", "tuned", "--base", "base",
                  "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "2 cards changed, 0 added, 0 removed" in res.stderr
    doc = yaml.safe_load((data / "alleyway" / "rules" / "tuned.yaml").read_text())
    assert doc["patch"] == {"sarge": {"atk": 4200}, "kowalski-3": {"keywords": {"immune": ["stun"]}}}
