"""The card pool holds every card the guide names, as the guide shows it (type, clan, Striver level,
token, Continuous/Equip) with the keyword or card term it is listed under; the numbers the guide
prints; six leaders with Dormant effects and Awaken conditions; every clan filled to at least 20
cards with a legal 40-card starter deck."""
from collections import Counter

import pytest
import yaml

from cardsdb.alleyway.schema import CLANS, card_tags
from tests.alleyway_common import ALLEYWAY, alleyway

INDEX = yaml.safe_load((ALLEYWAY / "guide_index.yaml").read_text(encoding="utf-8"))


def by_name():
    _eng, _pool, _data, ruleset, _decks = alleyway()
    out = {}
    for card in ruleset.cards.values():
        key = card.name + (f" L{card.level}" if card.level else "")
        out[key] = card
    return out


@pytest.mark.parametrize("key", sorted(INDEX["cards"]))
def test_every_card_the_guide_names_is_in_the_pool_as_shown(key):
    want = INDEX["cards"][key]
    card = by_name().get(key)
    assert card is not None, f"{key} is missing from the pool"
    assert card.type == want["type"] and card.clan == want["clan"], key
    assert card.subtype == want.get("subtype"), key
    assert card.level == want.get("level"), key
    assert card.token == want.get("token", False), key
    assert card.continuous == want.get("continuous", False), key
    assert (card.equip is not None) == want.get("equip", False), key


@pytest.mark.parametrize("section", [s for s in INDEX["sections"] if s["tag"]], ids=lambda s: s["section"])
def test_a_card_listed_under_a_keyword_has_it_or_produces_it(section):
    cards = by_name()
    missing = [key for key in section["cards"] if section["tag"] not in card_tags(cards[key])]
    assert not missing, f"{section['section']}: {missing} carry no {section['tag']!r}"


def test_the_numbers_the_guide_prints():
    cards = by_name()
    assert cards["Static"].cost == 1
    assert cards["Sergeant Ironwall"].cost == 4
    assert cards["Sarge"].cost == 7
    assert cards["Dirty Cop"].atk == 2100
    assert cards["The Enforcer"].def_ == 2500


def test_every_striver_has_all_its_levels_and_promotes_in_its_line():
    _eng, _pool, _data, ruleset, _decks = alleyway()
    cards = ruleset.cards
    strivers = [c for c in cards.values() if c.subtype == "striver"]
    for card in strivers:
        if card.level < 3:
            nxt = cards[card.promotes_to]
            assert (nxt.level, nxt.name, nxt.clan, nxt.cost) == (card.level + 1, card.name, card.clan, card.cost), card.id
    lines = Counter(c.name for c in strivers)
    assert all(n == 3 for n in lines.values()), lines


def test_six_leaders_with_dormant_effects_and_awaken_conditions():
    _eng, _pool, _data, ruleset, decks = alleyway()
    leaders = {c.name: c for c in ruleset.cards.values() if c.type == "leader"}
    assert set(leaders) == {"Cinder", "General Graves", "Veyr - the Hollow King", "Vincent Vale", "Archon of Nebula",
                            "Captain Marlow"}
    for card in leaders.values():
        assert card.dormant or card.dormant_aura, card.id
        assert card.awaken is not None and card.influence > 0
    # one starter deck per leader
    assert sorted(_data_leader(d) for d in decks) == sorted(c.id for c in leaders.values())


def _data_leader(deck_id):
    _eng, _pool, data, _rules, _decks = alleyway()
    return data.decks[deck_id].leader


def test_clans_are_filled_out_and_neutral_exists():
    _eng, _pool, _data, ruleset, _decks = alleyway()
    per_clan = Counter(c.clan for c in ruleset.cards.values() if c.type != "leader" and not c.token)
    for clan in CLANS:
        assert per_clan[clan] >= (20 if clan != "neutral" else 9), (clan, per_clan[clan])
    token = [c for c in ruleset.cards.values() if c.token]
    assert [c.name for c in token] == ["Skeleton"]
