"""The reference cards `workbench value` puts in a measured card's place (cardsdb/reference.py):
each game declares them in cardsdb/<game>/reference.yaml; every one exists in every rules
version, is vanilla (no keywords, no abilities or effects; an Allegiance Warrior: one plain
melee attack), sits exactly on the stat budget, is in no deck and is offered nowhere else; every
card of every shipped deck's main deck finds one within 1 budget cost; and the engine plays a
starter deck whose every card was replaced by its reference."""
from __future__ import annotations

import copy
from functools import lru_cache

import pytest

from cardsdb.reference import reference_for, reference_ids
from tests.conftest import DATA, run_cli

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
    _data, ruleset = loaded(game)
    costs = [summary(ruleset, r)["budget_cost"] for r in reference_ids(game)]
    assert len(set(costs)) == len(costs), costs
    assert sorted(costs) == [float(c) for c in range(1, len(costs) + 1)], costs


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
        res = run_cli("cards", "validate", game)
        assert res.returncode == 0, res.stderr
        assert f"ok: {game}" in res.stdout and "off the stat budget" not in res.stdout, res.stdout


def referenced_deck(eng, pool, ruleset, game, deck):
    """The deck compiled, each card replaced by its reference at the same position."""
    refs = reference_ids(game)
    compiled = eng.compile_deck(pool, deck)
    swap = {pool.ids[c]: pool.ids[reference_for(ruleset, c, refs)] for c in deck.cards}
    out = copy.copy(compiled)
    setattr(out, "cards", tuple(swap[c] for c in compiled.cards))
    assert len(out.cards) == len(compiled.cards)
    assert {pool.cards[c].slug for c in out.cards} <= set(refs)
    return out, compiled


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_the_engine_plays_a_starter_deck_made_of_references(game):
    """Each starter deck with every card replaced by its reference (Allegiance: a deck of 40
    Black Forge Warriors, in a Descendants deck too) against the next starter, from both seats;
    and a deck holding every reference, so each one is played."""
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
    setattr(every, "cards", tuple(refs[i % len(refs)] for i in range(len(every.cards))))
    pairs.append([every, eng.compile_deck(pool, decks[1])])
    for seed, pair in enumerate(pairs, start=1):
        result = play_match(eng, pool, pair, seed, ["greedy", "greedy"])
        assert result.error is None, (game, seed, [d.id for d in pair], result.error)
