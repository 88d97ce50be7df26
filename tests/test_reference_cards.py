"""The reference cards `workbench value` puts in a measured card's place (cardsdb/reference.py):
each game declares them in cardsdb/<game>/reference.yaml; every one exists in every rules
version, is vanilla (no keywords, no abilities or effects; an Allegiance Warrior: one plain
melee attack), sits exactly on the stat budget, is in no deck and is offered nowhere else; every
card of every shipped deck's main deck finds one within 1 budget cost; the lookup prefers the
card's own faction (an Allegiance Warrior keeps its formation); and the engine plays a starter
deck whose every card was replaced by its reference."""
from __future__ import annotations

import copy
from functools import lru_cache

import pytest

from cardsdb.reference import reference_for, reference_ids
from tests.conftest import DATA, cli_here

GAMES = ("frontier", "alleyway", "allegiance")
# the one type each game declares (RULES.md, "Reference cards (workbench value)"): a vanilla body
BODY_TYPE = {"frontier": "creature", "alleyway": "character/brawler", "allegiance": "warrior"}


@lru_cache(maxsize=None)
def loaded(game: str, version: str = "base"):
    from cardsdb.loader import load_ruleset

    return load_ruleset(game, version, DATA)


def summary(ruleset, card_id: str) -> dict:
    return ruleset.schema.card_summary(ruleset.cards[card_id], ruleset.constants)


def every_deck_slot(game: str, deck) -> set[str]:
    """Every card a deck names anywhere: main deck, Deputies, Hideout, leader, Strongholds."""
    names = set(deck.cards)
    if game == "frontier":
        names |= set(deck.deputies)
    elif game == "alleyway":
        names |= set(deck.hideout) | {deck.leader}
    else:
        names |= set(deck.strongholds) | {deck.bastion}
    return names


@pytest.mark.parametrize("game", GAMES)
def test_the_declared_references_exist_in_every_rules_version(game):
    refs = reference_ids(game)
    assert refs and len(set(refs)) == len(refs), refs
    data, _ruleset = loaded(game)
    for version in data.rules:
        _data, ruleset = loaded(game, version)
        missing = [r for r in refs if r not in ruleset.cards]
        assert not missing, (version, missing)
        for ref in refs:
            assert summary(ruleset, ref)["type"] == BODY_TYPE[game], (version, ref)


@pytest.mark.parametrize("game", GAMES)
def test_every_reference_is_vanilla_and_exactly_on_the_stat_budget(game):
    data, _ruleset = loaded(game)
    for version in data.rules:
        _data, ruleset = loaded(game, version)
        sch, consts = ruleset.schema, ruleset.constants
        for ref in reference_ids(game):
            card = ruleset.cards[ref]
            assert card.keywords.names() == [], (version, ref)
            assert sch.stat_points(card, consts) == sch.budget_points(card, consts), (version, ref)
            if game == "frontier":
                assert card.abilities == [] and card.cost.gold == 0 and not card.golem, (version, ref)
                assert card.faction != "beasts", "a Beast would feed Pack"
            elif game == "alleyway":
                assert card.abilities == [] and card.subtype == "brawler" and not card.token, (version, ref)
                assert (card.equip, card.aura, card.discount, card.continuous) == (None, None, None, False)
                assert card.clan == "neutral", (version, ref)
            else:
                assert card.beast is None and card.supports == [], (version, ref)
                (attack,) = card.abilities
                assert attack.kind == "attack" and attack.span == (1, 1) and attack.ap == 1, (version, ref)
                assert not attack.any_direction and not attack.any_range and attack.do == [], (version, ref)


@pytest.mark.parametrize("game", GAMES)
def test_one_reference_per_budget_cost(game):
    """Per faction (Frontier's and AlleyWay's references share one; Allegiance has a set each)."""
    _data, ruleset = loaded(game)
    by_faction: dict[str, list[float]] = {}
    for r in reference_ids(game):
        by_faction.setdefault(summary(ruleset, r)["faction"], []).append(summary(ruleset, r)["budget_cost"])
    assert len(by_faction) == (2 if game == "allegiance" else 1), by_faction
    for costs in by_faction.values():
        assert len(set(costs)) == len(costs), costs
        assert sorted(costs) == [float(c) for c in range(1, len(costs) + 1)], costs


def test_each_allegiance_faction_has_the_same_reference_lines():
    """A Descendants reference is its Black Forge twin but for the faction: the same stars, HP,
    move and Strike, so the two sets differ only in the formation they stand in."""
    _data, ruleset = loaded("allegiance")
    refs = reference_ids("allegiance")
    by_faction: dict[str, dict[int, object]] = {}
    for r in refs:
        card = ruleset.cards[r]
        by_faction.setdefault(card.faction, {})[card.stars] = card
    assert set(by_faction) == {"black_forge", "descendants"}
    forge, descendants = by_faction["black_forge"], by_faction["descendants"]
    assert set(forge) == set(descendants) == {1, 2, 3, 4, 5}
    for stars in forge:
        a, b = forge[stars], descendants[stars]
        assert (a.hp, a.move, a.abilities, a.keywords) == (b.hp, b.move, b.abilities, b.keywords), stars
        assert b.id == f"reference-warrior-descendants-{stars}" and a.id == f"reference-warrior-{stars}"


def test_every_allegiance_warrior_resolves_to_a_reference_of_its_own_faction():
    """Formations are Allegiance's only faction effect (a run of 4 Warriors of one faction), so a
    Warrior's reference must be of its faction to take its place in a Blood Crescent or a Shield
    Wall: checked on the card data and on the compiled pool the engine's formation test reads.
    A faction card of another type goes to its faction's reference too; a neutral one (there is
    no neutral Warrior) to the Black Forge one of its stars, the first id of the tie."""
    from sim.registry import engine

    data, ruleset = loaded("allegiance")
    refs = reference_ids("allegiance")
    pool = engine("allegiance").compile_pool(ruleset)
    seen = set()
    for deck in data.decks.values():
        for card_id in deck.cards:
            card = ruleset.cards[card_id]
            ref = ruleset.cards[reference_for(ruleset, card_id, refs)]
            assert ref.type == "warrior" and ref.stars == card.stars, (deck.id, card_id, ref.id)
            if card.type == "warrior":
                assert card.faction == deck.faction
                assert ref.faction == deck.faction, (deck.id, card_id, ref.id)
                assert pool.cards[pool.ids[ref.id]].faction == pool.cards[pool.ids[card_id]].faction
                seen.add(deck.faction)
            elif card.faction == "neutral":
                assert ref.faction == "black_forge", (deck.id, card_id, ref.id)
            else:
                assert ref.faction == card.faction, (deck.id, card_id, ref.id)
    assert seen == {"black_forge", "descendants"}
    # the planted calibration's card keeps its reference
    assert reference_for(ruleset, "forge-reaper", refs) == "reference-warrior-2"


def test_the_lookup_prefers_the_same_type_then_the_same_faction_then_the_nearest_cost():
    """cardsdb/reference.py on a tiny fake ruleset (no game's data)."""
    from types import SimpleNamespace

    from cardsdb.errors import DataError

    def card(type_, faction, cost):
        return SimpleNamespace(type=type_, faction=faction, cost=cost)

    cards = {
        "red-1": card("unit", "red", 1.0), "red-3": card("unit", "red", 3.0),
        "blue-1": card("unit", "blue", 1.0), "blue-2": card("unit", "blue", 2.0),
        "blue-spell-2": card("spell", "blue", 2.0),
        "red-unit": card("unit", "red", 2.0), "blue-unit": card("unit", "blue", 3.0),
        "green-unit": card("unit", "green", 2.0), "red-spell": card("spell", "red", 2.0),
        "green-item": card("item", "green", 1.5),
    }
    schema = SimpleNamespace(card_summary=lambda c, _consts: {"type": c.type, "faction": c.faction,
                                                               "budget_cost": c.cost})
    ruleset = SimpleNamespace(schema=schema, constants=None, cards=cards, version="fake")
    refs = ["red-1", "red-3", "blue-1", "blue-2", "blue-spell-2"]
    # same type and faction: the nearest cost; a tie (red-1 and red-3 from 2) goes to the cheaper
    assert reference_for(ruleset, "red-unit", refs) == "red-1"
    # same faction beats a nearer cost of another faction
    assert reference_for(ruleset, "blue-unit", refs) == "blue-2"
    # no reference of the faction: every one of the type, nearest cost, then the cheaper, then the id
    assert reference_for(ruleset, "green-unit", refs) == "blue-2"
    # the same type comes before the faction
    assert reference_for(ruleset, "red-spell", refs) == "blue-spell-2"
    # neither type nor faction: every reference, nearest cost, the cheaper first (blue-1 < red-1)
    assert reference_for(ruleset, "green-item", refs) == "blue-1"
    with pytest.raises(DataError):
        reference_for(ruleset, "red-unit", ["missing"])


@pytest.mark.parametrize("game", GAMES)
def test_no_deck_holds_a_reference_and_nothing_else_offers_one(game):
    data, ruleset = loaded(game)
    refs = set(reference_ids(game))
    for deck in data.decks.values():
        assert not refs & every_deck_slot(game, deck), deck.id
    if game == "frontier":
        from cardsdb.loader import campaign_stages, load_campaign

        for ref in refs:
            card = ruleset.cards[ref]
            # no online deck may list one; and a Frontier Run offers only campaign_only cards
            assert not card.online_legal and not card.campaign_only, ref
        stages = list(campaign_stages(data))
        assert stages
        for stage_id in stages:
            campaign = load_campaign(data, ruleset, stage_id)
            offered = set(campaign.stage.rewards)
            for crew in campaign.crews.values():
                offered |= set(crew.lore) | set(crew.unlocks)
            assert not refs & offered, stage_id


@pytest.mark.parametrize("game", GAMES)
def test_every_card_of_every_shipped_deck_has_a_reference_within_one_cost(game):
    data, ruleset = loaded(game)
    refs = reference_ids(game)
    far = []
    for deck in data.decks.values():
        for card_id in deck.cards:  # the main deck (Deputies, Hideout, Strongholds are not measured)
            ref = reference_for(ruleset, card_id, refs)
            assert ref in refs
            gap = abs(summary(ruleset, ref)["budget_cost"] - summary(ruleset, card_id)["budget_cost"])
            if gap > 1:
                far.append((deck.id, card_id, ref, gap))
    assert not far, far


def test_a_half_cost_card_goes_to_the_cheaper_reference():
    """AlleyWay Heavies cost Authority + 1.5 a sacrifice: 3A + 1S (4.5) is measured against the
    4-Authority Brawler (a tie goes to the cheaper), 7A + 2S (10) against the 10-Authority one."""
    data, ruleset = loaded("alleyway")
    refs = reference_ids("alleyway")
    heavies = {summary(ruleset, c)["budget_cost"]: c for d in data.decks.values() for c in d.cards
               if ruleset.cards[c].subtype == "heavy"}
    assert reference_for(ruleset, heavies[4.5], refs) == "reference-brawler-4"
    assert reference_for(ruleset, heavies[10.0], refs) == "reference-brawler-10"


def test_the_validators_still_pass():
    for game in GAMES:
        res = cli_here("cards", "validate", game)
        assert res.returncode == 0, res.stderr
        assert f"ok: {game}" in res.stdout and "off the stat budget" not in res.stdout, res.stdout


def referenced_deck(eng, pool, ruleset, game, deck):
    """The deck compiled, each card replaced by its reference at the same position."""
    refs = reference_ids(game)
    compiled = eng.compile_deck(pool, deck)
    swap = {pool.ids[c]: pool.ids[reference_for(ruleset, c, refs)] for c in deck.cards}
    out = copy.copy(compiled)
    out.cards = tuple(swap[c] for c in compiled.cards)
    assert len(out.cards) == len(compiled.cards)
    assert {pool.cards[c].slug for c in out.cards} <= set(refs)
    return out, compiled


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_engine_plays_a_starter_deck_made_of_references(game):
    """Each starter deck with every card replaced by its reference (Allegiance: a deck of 40
    Warriors, those of the deck's faction and, for its neutral cards, Black Forge ones) against
    the next starter, from both seats; and a deck holding every reference, so each one is
    played."""
    from sim.core.match import play_match
    from sim.registry import engine
    from workbench import games

    data, ruleset = games.load(game, "base")
    decks = games.decks_for(data, ruleset, None)
    eng = engine(game)
    pool = eng.compile_pool(ruleset)
    refs = [pool.ids[r] for r in reference_ids(game)]
    pairs = []
    for i, deck in enumerate(decks):
        referenced, _ = referenced_deck(eng, pool, ruleset, game, deck)
        opponent = eng.compile_deck(pool, decks[(i + 1) % len(decks)])
        pairs += [[referenced, opponent], [opponent, referenced]]
    every = copy.copy(eng.compile_deck(pool, decks[0]))
    every.cards = tuple(refs[i % len(refs)] for i in range(len(every.cards)))
    pairs.append([every, eng.compile_deck(pool, decks[1])])
    for seed, pair in enumerate(pairs, start=1):
        result = play_match(eng, pool, pair, seed, ["greedy", "greedy"])
        assert result.error is None, (game, seed, [d.id for d in pair], result.error)
