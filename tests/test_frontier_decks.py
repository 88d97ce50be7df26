"""The card pool and the deck rules issue 4 added: Sheriffs and Deputies in a deck, the Online
Legal flag, the Items rule, Golem forms; and what the shipped pool must cover."""
import shutil
from collections import Counter

import pytest
import yaml

from tests.conftest import DATA, cli_here
from tests.test_cardsdb_errors import one_clean_error


@pytest.fixture
def data(tmp_path):
    root = tmp_path / "data"
    shutil.copytree(DATA / "frontier", root / "frontier", ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return root


def edit_deck(data, deck_id, **changes):
    path = data / "frontier" / "decks" / f"{deck_id}.yaml"
    doc = yaml.safe_load(path.read_text())
    for key, value in changes.items():
        if callable(value):
            value(doc)
        else:
            doc[key] = value
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def validate(data):
    return cli_here("cards", "validate", "frontier", "--data-dir", str(data))


def swap_card(old, new):
    def change(doc):
        doc["cards"][old] -= 1
        if not doc["cards"][old]:
            del doc["cards"][old]
        doc["cards"][new] = doc["cards"].get(new, 0) + 1
    return change


def test_an_online_deck_holds_only_online_legal_cards(data):
    edit_deck(data, "clockwork-harvest", cards=swap_card("root-snare", "scarecrows-vigil"))
    one_clean_error(validate(data), "clockwork-harvest.yaml", "card 'scarecrows-vigil'", "not Online Legal")


def test_a_tabletop_deck_may_hold_them(data):
    edit_deck(data, "clockwork-harvest", cards=swap_card("root-snare", "scarecrows-vigil"), online=False,
              deputies=["sprocket-gearwright", "iron-maiden-engine"])
    res = validate(data)
    assert res.returncode == 0, res.stderr


def test_the_online_roster_refuses_a_tabletop_deputy(data):
    edit_deck(data, "clockwork-harvest", deputies=["sprocket-gearwright", "iron-maiden-engine"])
    one_clean_error(validate(data), "card 'iron-maiden-engine'", "field 'deputies'", "online Deputy roster")


def test_no_deck_holds_an_item_not_even_a_tabletop_one(data):
    edit_deck(data, "lawmen-posse", cards=swap_card("tin-star-recruit", "lucky-horseshoe"), online=False)
    one_clean_error(validate(data), "lawmen-posse.yaml", "card 'lucky-horseshoe'", "items stay out of live decks")


@pytest.mark.parametrize("deputies,needles", [
    (["deputy-mae-holloway"], ("field 'deputies'", "1 Deputies, a deck brings exactly 2")),
    (["deputy-mae-holloway", "deputy-mae-holloway"], ("field 'deputies'", "the same Deputy twice")),
    (["deputy-mae-holloway", "tin-star-recruit"], ("card 'tin-star-recruit'", "not a Deputy")),
    (["deputy-mae-holloway", "no-such-deputy"], ("card 'no-such-deputy'", "unknown card")),
])
def test_a_deck_brings_two_deputies(data, deputies, needles):
    edit_deck(data, "lawmen-posse", deputies=deputies)
    one_clean_error(validate(data), "lawmen-posse.yaml", *needles)


def test_a_deputy_is_not_one_of_the_52(data):
    edit_deck(data, "lawmen-posse", cards=swap_card("tin-star-recruit", "marshal-quinn"))
    one_clean_error(validate(data), "card 'marshal-quinn'", "outside the deck")


def test_a_deck_names_a_known_sheriff(data):
    edit_deck(data, "lawmen-posse", sheriff="wyatt")
    one_clean_error(validate(data), "lawmen-posse.yaml", "field 'sheriff'")


def test_a_golem_form_is_a_gnome(data):
    path = data / "frontier" / "cards" / "gnomes.yaml"
    cards = yaml.safe_load(path.read_text())
    for card in cards:
        if card["id"] == "brass-golem":
            card["faction"] = "dwarves"
    path.write_text(yaml.safe_dump(cards, sort_keys=False))
    one_clean_error(validate(data), "card 'brass-golem'", "Golem forms count as part of the Gnome faction")


def test_the_pool_covers_every_faction_and_keyword(frontier):
    _eng, _pool, data, ruleset, _decks = frontier
    cards = [c for c in ruleset.cards.values() if c.type in ("creature", "spell") and not c.campaign_only]
    assert len(cards) >= 120
    assert set(Counter(c.faction for c in cards)) == {"humans", "goblins", "desert_devils", "straw_elves",
                                                      "gnomes", "dwarves", "beasts"}
    deputies = [c for c in ruleset.cards.values() if c.type == "deputy"]
    assert len(deputies) >= 12 and sum(d.online_legal for d in deputies) >= 12
    carried = Counter()
    for c in cards:
        carried.update(c.keywords.names())
        for ability in c.abilities:
            carried.update({"cover_tokens" for e in ability.effects() if e.effect == "cover"})
    keywords = set(type(cards[0].keywords).model_fields) | {"cover_tokens"}
    assert len(keywords) == 25
    thin = {k: carried[k] for k in keywords if carried[k] < 3}
    assert not thin, f"keywords on fewer than 3 cards: {thin}"
    assert any(c.golem for c in cards)


def test_six_starter_decks_of_two_races_with_sheriff_and_deputies(frontier):
    _eng, _pool, data, ruleset, _decks = frontier
    starters = [d for d in data.decks.values() if d.starter]
    assert len(starters) == 6
    assert all(len(d.races) == 2 and d.sheriff and len(d.deputies) == 2 and d.online for d in starters)
    # every race is a main race of some starter deck
    assert set(r for d in starters for r in d.races) == {"humans", "goblins", "desert_devils", "straw_elves",
                                                         "gnomes", "dwarves"}
    assert len({d.sheriff for d in starters}) == 6
