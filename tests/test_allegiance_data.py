"""Allegiance's card data: the shipped pool is valid and on its stat budget; a mistake in a card
or deck file gets one clear line naming the file, the card and the field (exit 2); the
spreadsheet round trip keeps every card."""
import shutil

import pytest
import yaml

from tests.conftest import DATA, cli_here
from tests.test_cardsdb_errors import one_clean_error


@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(DATA / "allegiance", root / "allegiance", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def edit(path, card_id, **changes):
    cards = yaml.safe_load(path.read_text())
    for card in cards:
        if card["id"] == card_id:
            card.update(changes)
    path.write_text(yaml.safe_dump(cards, sort_keys=False))


def validate(data):
    return cli_here("cards", "validate", "allegiance", "--data-dir", str(data))


def test_the_shipped_pool_is_valid_complete_and_on_budget():
    from cardsdb.loader import load_ruleset

    res = cli_here("cards", "validate", "allegiance")
    assert res.returncode == 0, res.stderr
    assert "ok: allegiance" in res.stdout and "off the stat budget" not in res.stdout
    data, ruleset = load_ruleset("allegiance", "base")
    cards = list(ruleset.cards.values())
    for faction in ("black_forge", "descendants"):
        warriors = [c for c in cards if c.type == "warrior" and c.faction == faction]
        assert len(warriors) >= 30
        assert {c.stars for c in warriors} == {1, 2, 3, 4, 5}
        reach = [max(a.span[1] for a in c.attacks) for c in warriors]
        assert min(reach) == 1 and max(reach) >= 3  # melee and ranged
        strongholds = [c for c in cards if c.type == "stronghold" and c.faction == faction]
        assert sorted(c.bastion for c in strongholds) == [False, False, True]
        decks = [d for d in data.decks.values() if d.faction == faction]
        assert len(decks) >= 3
    others = [c for c in cards if c.type in ("war_supply", "battle_cry", "tactic")]
    assert len(others) >= 25
    assert {"shield-of-the-victor", "heavy-plate"} <= {c.id for c in others if c.supply == "armor"}
    beasts = {c.id: c.beast for c in cards if c.beast is not None}
    assert beasts["anima-of-zealot"].blight_on_field == 6 and beasts["guardian-of-the-castle"].blight_destroyed == 4
    starters = {d.id for d in data.decks.values() if d.starter}
    assert starters == {"forge-reapers", "citadel-wardens"}


@pytest.mark.parametrize("change, needles", [
    ({"keywords": {"flying": True}}, ["card 'ash-thrall'", "keywords.flying", "unknown keyword 'flying'"]),
    ({"abilities": [{"kind": "attack", "name": "cleave", "range": 1, "damage": 2,
                     "do": [{"effect": "teleport"}]}]}, ["card 'ash-thrall'", "abilities.0", "teleport"]),
    ({"abilities": [{"kind": "attack", "name": "cleave", "range": "3-2", "damage": 2}]},
     ["card 'ash-thrall'", "field 'abilities.0.range'", "ends before it starts"]),
    ({"abilities": [{"kind": "support", "name": "oops", "target": "friendly warrior", "do": [{"effect": "purge"}]}]},
     ["card 'ash-thrall'", "'purge' needs a blight"]),
    ({"stars": 6}, ["card 'ash-thrall'", "field 'stars'"]),
    ({"move": None}, ["card 'ash-thrall'", "needs move"]),
])
def test_a_bad_card_names_the_file_card_and_field(data, change, needles):
    edit(data / "allegiance" / "cards" / "black_forge.yaml", "ash-thrall", **change)
    one_clean_error(validate(data), "black_forge.yaml", *needles)


def test_an_effect_in_the_wrong_kind_of_card(data):
    edit(data / "allegiance" / "cards" / "tactics.yaml", "parry",
         abilities=[{"kind": "tactic", "do": [{"effect": "blight"}]}])
    one_clean_error(validate(data), "tactics.yaml", "card 'parry'", "cannot use effect 'blight'")


@pytest.mark.parametrize("change, needles", [
    (lambda d: d["cards"].update({"ash-thrall": 2}), ["19 warriors"]),
    # "Main deck, 40 cards" on its own: one card more, the warriors and every copy limit kept
    (lambda d: d["cards"].update({"shield-of-the-victor": 3}), ["41 cards", "a main deck has exactly 40"]),
    (lambda d: d["cards"].update({"forge-tyrant": 2, "forge-reaper": 2}), ["card 'forge-tyrant'", "at most 1"]),
    # "Copy limits: 1-2 star cards up to 3 copies, 3-4 star up to 2, 5 star only 1" (the warriors'
    # count kept at 18, so only the copies are wrong)
    (lambda d: d["cards"].update({"ash-thrall": 4, "forge-reaper": 2}), ["card 'ash-thrall'", "1-star card, at most 3"]),
    (lambda d: d["cards"].update({"ravager": 3, "forge-reaper": 2}), ["card 'ravager'", "3-star card, at most 2"]),
    (lambda d: d["cards"].update({"ash-thrall": 2, "citadel-recruit": 1}), ["card 'citadel-recruit'", "warrior of descendants"]),
    (lambda d: d["cards"].update({"iron-sword": 2, "divine-shield": 1}), ["card 'divine-shield'", "descendants card"]),
    (lambda d: d.update({"strongholds": ["ember-keep", "sky-citadel"]}), ["card 'sky-citadel'", "field 'strongholds'"]),
    (lambda d: d.update({"bastion": "slag-fortress"}), ["card 'slag-fortress'", "field 'bastion'", "not a bastion"]),
    (lambda d: d["cards"].update({"no-such-card": 1}), ["card 'no-such-card'", "unknown card"]),
])
def test_a_deck_breaking_construction_rules(data, change, needles):
    path = data / "allegiance" / "decks" / "forge-reapers.yaml"
    deck = yaml.safe_load(path.read_text())
    change(deck)
    path.write_text(yaml.safe_dump(deck, sort_keys=False))
    one_clean_error(validate(data), "forge-reapers.yaml", *needles)


def test_spreadsheet_round_trip_changes_nothing(data, tmp_path):
    sheet = tmp_path / "cards.csv"
    res = cli_here("cards", "export", "allegiance", "--csv", str(sheet), "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    res = cli_here("cards", "import", str(sheet), "--game", "allegiance", "--as", "same", "--data-dir", str(data))
    # nothing changed, so nothing is written (a version equal to base would only be refused by diff)
    assert res.returncode == 2 and "no rules version written" in res.stderr, res.stderr
    assert not (data / "allegiance" / "rules" / "same.yaml").exists()


def test_the_stat_budget_by_hand():
    """RULES.md, "The stat budget": a Warrior may have 5 + 4 x stars points, a War Supply, Battle
    Cry or Tactic 4 x stars + 2 x AP, a Stronghold 16 and a Bastion 20 (each number a constant of
    the rules version, so each is pinned here by a card of the pool)."""
    from cardsdb.allegiance.budget import budget_points
    from cardsdb.loader import load_ruleset

    _data, ruleset = load_ruleset("allegiance", "base")
    cards, consts = ruleset.cards, ruleset.constants
    assert budget_points(cards["ash-thrall"], consts) == 5 + 4 * 1
    assert budget_points(cards["forge-tyrant"], consts) == 5 + 4 * 5
    assert (cards["blessing-of-light"].stars, cards["blessing-of-light"].ap) == (2, 1)
    assert budget_points(cards["blessing-of-light"], consts) == 4 * 2 + 2 * 1
    assert budget_points(cards["ember-keep"], consts) == 16 and not cards["ember-keep"].bastion
    assert budget_points(cards["black-anvil"], consts) == 20 and cards["black-anvil"].bastion
