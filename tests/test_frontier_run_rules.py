"""Frontier Run, Stage I (Ashfall Trail): the guide's rules for the campaign mode (the "FR
Frontier Run" part of the rules guide) checked against the real run, map, shop and outpost code,
where tests/test_campaign.py does not already pin them. Each test quotes the guide sentence it
checks; where sim/frontier/RULES.md decides a reading ("Frontier Run: Stage I, Ashfall Trail"),
the test checks that reading and says so."""
from __future__ import annotations

import copy
import dataclasses
import random

import pytest

from tests.conftest import DATA

TRAIL_HP = 150                       # "Start Stage I with 150 trail HP"
STARTER_DECKS = {"lawmen-posse", "goblin-gold-gang", "ironhold-garrison", "scrapworks-crew",
                 "clockwork-harvest", "deeproot-hollow"}
SEEDS = (0, 1, 2)
POLICIES = ("greedy", "random")


@pytest.fixture(scope="module")
def loaded():
    from cardsdb.loader import load_campaign, load_ruleset
    from sim.registry import campaign, engine

    data, ruleset = load_ruleset("frontier", "base", DATA)
    eng = engine("frontier")
    pool = eng.compile_pool(ruleset)
    content = campaign("frontier").compile(eng, pool, load_campaign(data, ruleset, "ashfall-trail"))
    return data, ruleset, content


@pytest.fixture(scope="module")
def content(loaded):
    return loaded[2]


def _play(content, crew: str, seed: int, policy: str = "greedy"):
    """One real run, with each fight's board as it stood at the fight's first decision (a clone:
    before anything was played or dealt damage)."""
    from sim.frontier.campaign.run import play_run

    openings: dict = {}

    def watch(fight: int):
        def hook(state, _action):
            if fight not in openings:
                openings[fight] = state.clone()
        return hook

    rec = play_run(content, crew, seed, policy, "greedy", False, watch)
    assert rec.error is None, rec.error
    return rec, openings


@pytest.fixture(scope="module")
def runs(content):
    """Every crew, three seeds, both campaign policies: 36 runs (a few seconds)."""
    return {(crew, seed, policy): _play(content, crew, seed, policy)
            for crew in sorted(content.crews) for seed in SEEDS for policy in POLICIES}


def _node(rec, step: int) -> dict:
    return next(n for n in rec.nodes if n["step"] == step)


def _crew_side(openings, fight):
    return openings[fight.fight].sides[fight.player_seat]


# --- trail HP ------------------------------------------------------------------------------------

def test_a_run_starts_with_150_trail_hp(content, runs):
    """Guide: "Start Stage I with 150 trail HP instead of the normal one-duel health flow."
    (the crew's sheriff enters its first fight at 150, not the duel's 30)."""
    assert content.stage.trail_hp == TRAIL_HP
    for rec, openings in runs.values():
        assert rec.hp_max == TRAIL_HP and rec.nodes[0]["hp_before"] == TRAIL_HP
        first = _crew_side(openings, rec.fights[0])
        assert (first.hp, first.max_hp) == (TRAIL_HP, TRAIL_HP)


def test_each_fight_starts_at_the_trail_hp_carried_in(runs):
    """Guide: "You still play by the core TCG rules, but your trail HP, route decisions, and
    rewards carry the run instead of resetting after one fight." (every fight begins at the HP
    the previous nodes left, not at a fresh total)."""
    carried = 0
    for rec, openings in runs.values():
        for fight in rec.fights:
            side = _crew_side(openings, fight)
            assert side.hp == _node(rec, fight.step)["hp_before"], (rec.crew, rec.seed, fight.step)
            assert side.max_hp == TRAIL_HP
            carried += side.hp < TRAIL_HP
    assert carried >= 5   # the rule is seen at work: many fights begin below 150


def test_ironhold_crew_rides_on_trail_hp_and_keeps_its_damage_reduction(content, runs):
    """Guide: "Ashfall Trail keeps the same lane combat, Mana, Gold, Deputies, and Sheriff rules
    as a normal duel" beside "Ironhold starts at 35 HP with damage reduction." RULES.md decides:
    the crew's sheriff starts at its trail HP (Ironhold's 35 does not apply), its other passives do."""
    from sim.frontier.effects import hit_sheriff

    pool = content.pool
    for policy in POLICIES:
        rec, openings = runs[("ironhold-garrison", 0, policy)]
        fight = rec.fights[0]
        state = openings[fight.fight].clone()
        seat = fight.player_seat
        side = state.sides[seat]
        assert pool.sheriffs[side.sheriff].name == "Ironhold"
        assert (side.hp, side.max_hp) == (TRAIL_HP, TRAIL_HP)          # not 35
        hit_sheriff(state, 1 - seat, seat, 5, 0)
        assert state.sides[seat].hp == TRAIL_HP - (5 - pool.consts.ironhold_reduction)
        assert pool.consts.ironhold_reduction > 0


def test_heals_in_a_fight_restore_trail_hp_up_to_150_only(content, runs):
    """Guide: "Add stage-only reward cards during the run and decide how to preserve HP for later
    fights." RULES.md decides: heals in a fight restore trail HP up to 150 (past the duel's 30,
    never past the trail's maximum); the enemy heals only up to its sheriff's duel HP."""
    from sim.frontier.effects import heal_sheriff

    hurt = [(rec, openings, f) for rec, openings in runs.values() for f in rec.fights
            if 30 < _crew_side(openings, f).hp < TRAIL_HP - 10]
    assert hurt
    rec, openings, fight = hurt[0]
    state = openings[fight.fight].clone()
    me, foe = fight.player_seat, 1 - fight.player_seat
    before = state.sides[me].hp
    heal_sheriff(state, me, me, 5, 0)
    assert state.sides[me].hp == before + 5                           # above 30 is fine
    heal_sheriff(state, me, me, 1000, 0)
    assert state.sides[me].hp == TRAIL_HP                             # but never above 150
    enemy_hp = state.sides[foe].hp
    heal_sheriff(state, foe, foe, 1000, 0)
    assert state.sides[foe].hp == enemy_hp == state.sides[foe].max_hp
    assert enemy_hp == content.pool.sheriffs[state.sides[foe].sheriff].start_hp


# --- crews ---------------------------------------------------------------------------------------

def test_each_crew_rides_its_issued_starter_deck_with_its_lore_cards(loaded, runs):
    """Guide: "Choose an issued crew so the campaign can hand out lore-specific cards, starter
    unlocks, and stage rewards cleanly." (RULES.md: a crew rides its issued starter deck, with
    its sheriff and Deputy pair, and adds its lore card(s) to the run deck at the start; six
    crews, one per starter deck)."""
    data, _ruleset, content = loaded
    pool = content.pool
    assert {d.id for d in data.decks.values() if d.starter} == STARTER_DECKS
    assert {kit.deck.id for kit in content.crews.values()} == STARTER_DECKS
    assert len(content.crews) == len(STARTER_DECKS)
    for crew, kit in content.crews.items():
        assert kit.lore and all(pool.cards[c].campaign_only for c in kit.lore)
        for policy in POLICIES:
            rec, openings = runs[(crew, 0, policy)]
            side = _crew_side(openings, rec.fights[0])
            assert tuple(side.decklist) == tuple(sorted(list(kit.deck.cards) + list(kit.lore)))
            assert side.sheriff == kit.deck.sheriff
            assert tuple(side.deputies) == tuple(kit.deck.deputies) and len(side.deputies) == 2


def test_unlocks_are_offered_only_to_their_own_crew(content, runs):
    """Guide: "Choose an issued crew so the campaign can hand out lore-specific cards, starter
    unlocks, and stage rewards cleanly." (a crew's unlock is offered to it, never to another
    crew; everything else offered is a stage reward)."""
    pool = content.pool
    stage_rewards = {pool.cards[c].slug for c in content.rewards}
    unlocks = {crew: {pool.cards[c].slug for c in kit.unlocks} for crew, kit in content.crews.items()}
    seen = {crew: set() for crew in content.crews}
    for (crew, _seed, _policy), (rec, _openings) in runs.items():
        offered = {r["card"] for r in rec.rewards if r["source"] != "lore"}
        assert offered <= stage_rewards | unlocks[crew], (crew, offered - stage_rewards - unlocks[crew])
        seen[crew] |= offered
    for crew in content.crews:
        assert unlocks[crew] <= seen[crew], crew
        others = set().union(*(u for c, u in unlocks.items() if c != crew))
        assert not seen[crew] & others


def test_stage_cards_are_stage_only(loaded):
    """Guide: "Add stage-only reward cards during the run" (every reward, unlock and lore card
    is campaign_only, and a constructed deck may not hold one)."""
    data, ruleset, content = loaded
    pool = content.pool
    stage_cards = set(content.rewards)
    for kit in content.crews.values():
        stage_cards |= set(kit.lore) | set(kit.unlocks)
    assert all(pool.cards[c].campaign_only for c in stage_cards)
    slugs = {pool.cards[c].slug for c in stage_cards}
    for deck in data.decks.values():
        assert not slugs & set(deck.cards), deck.id
    # a starter deck with one card swapped for a stage reward is refused
    deck = data.decks["goblin-gold-gang"]
    cards = dict(deck.cards)
    first = next(iter(cards))
    cards[first] -= 1
    if not cards[first]:
        del cards[first]
    cards["cinder-canyon-dynamite"] = 1
    problems = data.schema.check_deck(deck.model_copy(update={"cards": cards}), ruleset.cards, ruleset.constants)
    assert any(card == "cinder-canyon-dynamite" and "Frontier Run" in msg for card, _f, msg in problems), problems


def test_a_run_deck_is_bound_by_no_copy_limit_and_no_race_rule(loaded):
    """Guide: "Add stage-only reward cards during the run" (the guide gives a run's rewards no
    limits). RULES.md decides: a card may be taken more often than a constructed deck's copy
    limit, and the two-main-races rule is not checked. Grixx's Gold Gang (goblins and desert
    devils) with four Ironbark Guardians (straw elves) and a Gatling Gnome (gnomes), which a
    constructed deck may not hold, starts and plays its fight."""
    from sim.core.campaign import RunRecord
    from sim.frontier.campaign.run import FightOptions, Trail, _fight

    data, ruleset, content = loaded
    pool = content.pool
    kit = content.crews["gold-gang"]
    guardian, gnome = pool.ids["ironbark-guardian"], pool.ids["gatling-gnome"]
    deck = list(kit.deck.cards) + list(kit.lore) + [guardian] * 4 + [gnome]
    # a constructed deck with these cards breaks the copy limit and the two-races rule
    listed = data.decks["goblin-gold-gang"]
    cards = {**listed.cards, "ironbark-guardian": 4, "gatling-gnome": 1}
    problems = data.schema.check_deck(listed.model_copy(update={"cards": cards}), ruleset.cards, ruleset.constants)
    assert any(c == "ironbark-guardian" and "copies, at most 3" in m for c, _f, m in problems), problems
    assert any(c == "gatling-gnome" and "faction gnomes" in m for c, _f, m in problems), problems
    opening = {}

    def watch(_fight_no):
        def hook(state, _action):
            opening.setdefault("state", state.clone())
        return hook

    trail = Trail(TRAIL_HP, TRAIL_HP, 0, deck)
    rec = RunRecord("frontier", "ashfall-trail", "gold-gang", 0, "script")
    outcome = _fight(content, kit, trail, content.battles[0], 1, 0, FightOptions("greedy", watch=watch), rec)
    assert outcome in ("win", "loss", "draw") and rec.fights[0].result.error is None
    side = opening["state"].sides[rec.fights[0].player_seat]
    assert tuple(side.decklist) == tuple(sorted(deck)) and side.decklist.count(guardian) == 4
    assert rec.fights[0].result.decisions > 0


def test_taken_rewards_ride_in_every_later_fight(content, runs):
    """Guide: "your trail HP, route decisions, and rewards carry the run instead of resetting
    after one fight." (every fight's run deck is the issued deck and lore, plus each card taken
    or bought before it, minus each card cut in a shop)."""
    pool = content.pool
    grew = 0
    for (crew, _seed, _policy), (rec, openings) in runs.items():
        kit = content.crews[crew]
        deck = list(kit.deck.cards) + list(kit.lore)
        fights = {f.step: f for f in rec.fights}
        for node in rec.nodes:
            if node["step"] in fights:
                side = _crew_side(openings, fights[node["step"]])
                assert tuple(side.decklist) == tuple(sorted(deck)), (crew, rec.seed, node["step"])
                grew += len(deck) > 52 + len(kit.lore)
            deck += [pool.ids[r["card"]] for r in rec.rewards if r["step"] == node["step"] and r["taken"]]
            for part in node["detail"].split(", "):
                if node["kind"] == "shop" and part.startswith("remove "):
                    deck.remove(pool.ids[part.removeprefix("remove ")])
        assert len(deck) == rec.deck_size
    assert grew


# --- the route ----------------------------------------------------------------------------------

def test_the_walk_follows_the_branching_route(content, runs):
    """Guide: "Move across branching route choices that lead to battles, outposts, shops, and the
    stage clear." (each step's options are exactly the nodes the last one leads to, the choice
    is one of them, and real choices come up)."""
    from sim.core.rng import stream
    from sim.frontier.campaign.trail_map import build_map

    branching = 0
    for rec, _openings in runs.values():
        route = build_map(content.stage, stream(rec.seed, "map"))
        options = route[0]
        for node in rec.nodes:
            assert node["options"] == ",".join(f"{n.id}:{n.kind}" for n in options)
            chosen = next(n for n in options if n.id == node["choice"])
            assert node["node"] == chosen.id and node["kind"] == chosen.kind
            branching += len(options) > 1
            options = [route[node["floor"]][j] for j in chosen.links] if node["floor"] < len(route) else []
    assert branching > len(runs)


def test_the_map_has_seven_floors_of_two_or_three_nodes_then_the_boss(content):
    """Guide: "Move across branching route choices that lead to battles, outposts, shops, and the
    stage clear." RULES.md decides the shape: 7 floors of 2-3 nodes, each node linked to the
    node below it and sometimes a neighbour, then the boss alone."""
    from sim.frontier.campaign.trail_map import build_map

    widths, second_links = set(), 0
    for seed in range(40):
        route = build_map(content.stage, random.Random(seed))
        assert len(route) == 7 + 1 and [n.kind for n in route[-1]] == ["boss"]
        for here, there in zip(route[:-1], route[1:]):
            widths.add(len(here))
            assert 2 <= len(here) <= 3
            assert all(n.kind in ("battle", "outpost", "shop") for n in here)
            for node in here:
                below = round(node.index * (len(there) - 1) / (len(here) - 1))
                assert set(node.links) <= {below - 1, below, below + 1}, (seed, node)
                second_links += len(node.links) > 1
    assert widths == {2, 3} and second_links > 0


def test_the_route_leads_to_battles_outposts_shops_and_the_stage_clear_only(content):
    """Guide: "Move across branching route choices that lead to battles, outposts, shops, and the
    stage clear." (the shipped trail has no elite fights: the guide names none). RULES.md decides:
    the first floor is all battles and the stage clear is a boss fight alone on the last floor."""
    from sim.frontier.campaign.trail_map import build_map

    assert content.stage.node_weights.get("elite", 0) == 0 and content.elites == ()
    kinds = set()
    for seed in range(60):
        route = build_map(content.stage, random.Random(seed))
        assert {n.kind for n in route[0]} == {"battle"}
        assert [n.kind for n in route[-1]] == ["boss"]
        kinds |= {n.kind for row in route[1:-1] for n in row}
    assert kinds == {"battle", "outpost", "shop"}


# --- fights -------------------------------------------------------------------------------------

def _encounter(content, node: dict):
    name = node["detail"].split(";")[0]
    table = {"battle": content.battles, "elite": content.elites, "boss": (content.boss,)}[node["kind"]]
    return next(e for e in table if e.name == name)


def test_enemies_are_normal_decks_with_sheriff_and_deputies_at_their_duel_hp(content, runs):
    """Guide: "Ashfall Trail keeps the same lane combat, Mana, Gold, Deputies, and Sheriff rules
    as a normal duel, then wraps them in a longer solo climb." with "Each player starts with 30
    Hit Points." (one enemy per fight, from the node's table, with its own sheriff and Deputies,
    at its sheriff's normal duel HP: the shipped stage overrides no encounter's HP; the enemy
    plays greedy)."""
    assert all(e.hp is None for e in content.battles + content.elites + (content.boss,))
    kinds = set()
    for rec, openings in runs.values():
        for fight in rec.fights:
            node = _node(rec, fight.step)
            enc = _encounter(content, node)
            kinds.add(node["kind"])
            opening = openings[fight.fight]
            assert len(opening.sides) == 2
            foe = 1 - fight.player_seat
            side = opening.sides[foe]
            assert side.hp == side.max_hp == content.pool.sheriffs[side.sheriff].start_hp == 30
            assert fight.decks[foe] == enc.deck.id and tuple(side.decklist) == tuple(enc.deck.cards)
            assert side.sheriff == enc.deck.sheriff and tuple(side.deputies) == tuple(enc.deck.deputies)
            assert fight.pilots[foe] == "greedy" and fight.pilots[fight.player_seat] == "greedy"
    assert kinds == {"battle", "boss"}


def test_who_acts_first_is_drawn_for_each_fight(runs):
    """Guide: "Ashfall Trail keeps the same lane combat, Mana, Gold, Deputies, and Sheriff rules
    as a normal duel" (the guide names no first seat). RULES.md decides: who acts first is drawn
    for each fight from the stream (seed, "first", step), as the duel's first-seat edge is large."""
    from sim.core.rng import stream

    seats = []
    for rec, _openings in runs.values():
        for fight in rec.fights:
            assert fight.player_seat == (0 if stream(rec.seed, "first", fight.step).random() < 0.5 else 1)
            assert fight.decks[fight.player_seat] == f"crew:{rec.crew}"
            seats.append(fight.player_seat)
    assert 0.3 < sum(seats) / len(seats) < 0.7


def test_the_crews_sheriff_passives_apply_in_run_fights(content, runs):
    """Guide: "Ashfall Trail keeps the same lane combat, Mana, Gold, Deputies, and Sheriff rules
    as a normal duel" with "Zix starts with 8 cards" and "Reedwick starts with Cover"."""
    consts = content.pool.consts
    for policy in POLICIES:
        rec, openings = runs[("clockwork-harvest", 0, policy)]
        for fight in rec.fights:
            assert sum(fight.result.ledger.dealt[fight.player_seat].values()) == 8
        rec, openings = runs[("gold-gang", 0, policy)]
        for fight in rec.fights:
            assert sum(fight.result.ledger.dealt[fight.player_seat].values()) == 7
        rec, openings = runs[("deeproot-hollow", 0, policy)]
        for fight in rec.fights:
            assert sum(_crew_side(openings, fight).cover) == consts.reedwick_start_cover > 0


def test_won_battles_pay_gold_and_offer_three_stage_cards(content, runs):
    """Guide: "Add stage-only reward cards during the run and decide how to preserve HP for later
    fights." RULES.md decides: a won battle pays 20 Gold (an elite 35, in a variant stage that has
    elites) and offers 3 different cards, of which the policy takes one or none; a lost fight pays
    nothing."""
    seen = set()
    for rec, _openings in runs.values():
        for node in rec.nodes:
            if node["kind"] not in ("battle", "elite", "boss"):
                continue
            offers = [r for r in rec.rewards if r["step"] == node["step"]]
            gained = node["gold_after"] - node["gold_before"]
            if node["result"] == "win" and node["kind"] != "boss":
                seen.add(node["kind"])
                assert gained == {"battle": 20, "elite": 35}[node["kind"]]
                assert len(offers) == 3 and len({r["card"] for r in offers}) == 3
                assert sum(r["taken"] for r in offers) <= 1
                assert all(r["source"] == node["kind"] and r["price"] == 0 for r in offers)
            else:
                assert gained == 0 and not offers
    assert seen == {"battle"}


LAST_DECK_OUT_LOSS = ("scrapworks-crew", 24)  # (crew, seed): see the test below


def test_a_lost_fight_ends_the_run_in_defeat_by_hp_or_deck_out(content, runs):
    """Guide: "Reduce your opponent to 0 HP through creature attacks and spell damage." and
    "Deck Out -- if your opponent cannot draw a card during their Draw Phase, they lose." with
    Frontier Run's "You still play by the core TCG rules" (a lost fight ends the run)."""
    losses = 0
    for rec, _openings in runs.values():
        for i, node in enumerate(rec.nodes):
            if node["result"] == "loss":
                losses += 1
                assert i == len(rec.nodes) - 1 and rec.result == "defeated" and not rec.cleared
                assert node["hp_after"] == 0 or rec.fights[-1].result.reason == "deck_out"
    assert losses
    # a run lost to a deck-out: the first of a bounded search over crews and seeds (dust-creek-lawmen
    # seed 18 when written), so an engine change that moves it does not break the test, only one
    # that makes it vanish; a run whose last fight the player won by the enemy's deck-out is cleared
    def lost_to_a_deck_out(rec) -> bool:
        last = rec.fights[-1] if rec.fights else None
        return last is not None and last.result.reason == "deck_out" and last.result.winner != last.player_seat

    # the run the search found last (scrapworks-crew seed 24 on 2026-12-07, the 150th of the search:
    # 20 CPU-seconds) is tried first; the search runs only when the engine moved it
    tries = [LAST_DECK_OUT_LOSS] + [(crew, seed) for seed in range(60) for crew in sorted(content.crews)]
    found = next((rec for crew, seed in tries
                  if lost_to_a_deck_out(rec := _play(content, crew, seed, "greedy")[0])), None)
    if found is None:
        pytest.fail("no run of seeds 0-59 of any crew was lost to a deck-out")
    rec = found
    last = rec.fights[-1]
    assert last.result.reason == "deck_out" and last.result.winner != last.player_seat
    assert rec.nodes[-1]["result"] == "loss" and rec.hp_left > 0 and rec.result == "defeated"


def test_a_double_knock_out_is_a_lost_fight_not_a_draw(content, monkeypatch):
    """Guide: "Reduce your opponent to 0 HP through creature attacks and spell damage." with
    "Start Stage I with 150 trail HP instead of the normal one-duel health flow." When both
    sheriffs fall at once the duel is a draw (winner None, reason hp: RULES.md, Winning), but the
    crew's sheriff is at 0 trail HP: RULES.md decides the fight is lost and the run ends in defeat
    (it went on at 0 HP before). Here the first fight is made into a double knock-out."""
    from sim.frontier.campaign import run as run_module

    real = run_module.play_match

    def double_ko(*args, **kwargs):
        result = real(*args, **kwargs)
        for side in result.state.sides:
            side.hp = 0
        return dataclasses.replace(result, winner=None, reason="hp")

    monkeypatch.setattr(run_module, "play_match", double_ko)
    rec = run_module.play_run(content, "gold-gang", 0, "greedy")
    assert rec.error is None, rec.error
    assert len(rec.fights) == 1 and rec.fights[0].result.winner is None
    assert [n["result"] for n in rec.nodes] == ["loss"] and rec.nodes[0]["hp_after"] == 0
    assert rec.result == "defeated" and not rec.cleared and rec.hp_left == 0
    assert not [r for r in rec.rewards if r["source"] != "lore"]


def test_beating_the_boss_is_the_stage_clear(runs):
    """Guide: "The current browser build ships Stage I with route choices, shops, stage-only
    reward cards, and a proper stage clear." (the run is cleared exactly when it beats the boss,
    the last node)."""
    cleared = 0
    for rec, _openings in runs.values():
        last = rec.nodes[-1]
        beat_boss = last["kind"] == "boss" and last["result"] == "win"
        assert rec.cleared == beat_boss
        assert all(n["kind"] != "boss" for n in rec.nodes[:-1])
        if last["kind"] == "boss":
            assert last["floor"] == 8 == rec.floor_reached
        cleared += rec.cleared
    assert 0 < cleared < len(runs)


def test_a_drawn_fight_is_survived_without_reward_and_a_drawn_boss_is_no_clear(content):
    """Guide: "You still play by the core TCG rules, but your trail HP, route decisions, and
    rewards carry the run instead of resetting after one fight." RULES.md decides: a drawn fight
    (turn or decision limit) is survived with no reward; a drawn boss fight ends the run
    uncleared. (Here the rules version's turn limit is cut to 2 so that every fight is drawn.)"""
    from sim.frontier.campaign.run import play_run

    pool = copy.copy(content.pool)
    pool.consts = content.pool.consts.model_copy(update={"turn_limit": 2})
    short = dataclasses.replace(content, pool=pool)
    rec = play_run(short, "gold-gang", 0, "greedy")
    assert rec.error is None, rec.error
    fights = [n for n in rec.nodes if n["kind"] in ("battle", "elite", "boss")]
    assert fights and all(n["result"] == "draw" for n in fights)
    assert rec.nodes[-1]["kind"] == "boss" and rec.floor_reached == 8
    assert not rec.cleared and rec.result == "defeated"
    assert not [r for r in rec.rewards if r["source"] != "lore"] or \
        all(r["source"] == "shop" for r in rec.rewards if r["source"] != "lore")
    for node in fights:
        assert node["gold_after"] == node["gold_before"] and 0 < node["hp_after"] <= node["hp_before"]


# --- variants a stage file may turn on ---------------------------------------------------------

def _variant(loaded, **changes):
    """The shipped stage with ``changes`` (validated as a stage file would be), compiled."""
    from cardsdb.loader import load_campaign
    from sim.registry import campaign

    data, ruleset, content = loaded
    camp = load_campaign(data, ruleset, "ashfall-trail")
    stage = type(camp.stage).model_validate({**camp.stage.model_dump(), **changes})
    return campaign("frontier").compile(content.engine, content.pool, dataclasses.replace(camp, stage=stage))


def test_an_encounter_hp_set_in_a_stage_file_is_a_variant_that_replaces_the_duel_hp(loaded):
    """Guide: "Ashfall Trail keeps the same lane combat, Mana, Gold, Deputies, and Sheriff rules
    as a normal duel" (so the shipped stage sets no encounter HP: see the test above). RULES.md:
    a stage file may set an encounter's ``hp``, a variant; that enemy then starts (and heals up
    to) that HP, the others at their sheriff's."""
    variant = _variant(loaded, battles=[{"deck": "ashfall-bandits", "hp": 12, "name": "Ashfall Bandits"}])
    rec, openings = _play(variant, "gold-gang", 0)
    assert rec.fights
    for fight in rec.fights:
        side = openings[fight.fight].sides[1 - fight.player_seat]
        want = 12 if _node(rec, fight.step)["kind"] == "battle" else 30
        assert (side.hp, side.max_hp) == (want, want), fight.step


def test_elite_fights_are_a_variant_a_stage_file_may_turn_on(loaded):
    """Guide: "Move across branching route choices that lead to battles, outposts, shops, and the
    stage clear." (no elites: the shipped trail has none). RULES.md: a stage file may turn them
    on, a variant: an ``elite`` weight with an ``elites`` table (a weight without one is refused);
    a won elite pays ``elite_gold`` and offers rewards; an Ironhold enemy starts at its duel 35 HP."""
    from pydantic import ValidationError

    weights = {"battle": 5, "elite": 3, "outpost": 2, "shop": 1.5}
    with pytest.raises(ValidationError, match="lists no elites"):
        _variant(loaded, node_weights=weights)
    variant = _variant(loaded, node_weights=weights, elite_gold=35,
                       elites=[{"deck": "ironhold-garrison", "name": "Iron Warband"}])
    won = 0
    for seed in range(12):
        rec, openings = _play(variant, "ironhold-garrison", seed)
        for fight in rec.fights:
            node = _node(rec, fight.step)
            if node["kind"] != "elite":
                continue
            side = openings[fight.fight].sides[1 - fight.player_seat]
            assert variant.pool.sheriffs[side.sheriff].name == "Ironhold" and (side.hp, side.max_hp) == (35, 35)
            if node["result"] == "win":
                won += 1
                assert node["gold_after"] - node["gold_before"] == 35
                assert [r["source"] for r in rec.rewards if r["step"] == node["step"]] == ["elite"] * 3
        if won >= 2:
            break
    assert won


# --- outposts and shops -------------------------------------------------------------------------

class _Script:
    """A campaign policy that does what the test says (the run code under test is real)."""

    def __init__(self, outpost: str = "rest", shop: list | None = None):
        self._outpost, self._shop = outpost, shop or []

    def outpost(self, trail):
        return self._outpost

    def shop(self, trail, offers):
        return list(self._shop)


def _trail(content, crew: str, hp: int, gold: int):
    from sim.frontier.campaign.run import Trail

    kit = content.crews[crew]
    return Trail(hp, TRAIL_HP, gold, list(kit.deck.cards) + list(kit.lore))


def _line(kind: str) -> dict:
    return {"kind": kind, "detail": ""}


def test_outposts_rest_30_hp_up_to_150_or_scavenge_25_gold(content):
    """Guide: "Move across branching route choices that lead to battles, outposts, shops, and the
    stage clear." with "decide how to preserve HP for later fights" (RULES.md: rest heals 30
    trail HP, never above 150; scavenge finds 25 Gold)."""
    from sim.core.campaign import RunRecord
    from sim.frontier.campaign.run import FightOptions, _visit
    from sim.frontier.campaign.trail_map import Node

    kit = content.crews["gold-gang"]
    node = Node(3, 0, "outpost", (0,))
    for hp, choice, want_hp, want_gold in ((100, "rest", 130, 10), (140, "rest", 150, 10),
                                           (100, "scavenge", 100, 35)):
        trail = _trail(content, "gold-gang", hp, 10)
        rec = RunRecord("frontier", "ashfall-trail", "gold-gang", 0, "script")
        alive = _visit(content, kit, trail, node, 4, 0, _Script(outpost=choice), FightOptions("greedy"),
                       rec, _line("outpost"))
        assert alive and (trail.hp, trail.gold) == (want_hp, want_gold)
        assert not rec.fights and not rec.rewards


def test_shops_sell_three_stage_cards_a_heal_and_a_cut_within_the_gold(content):
    """Guide: "The current browser build ships Stage I with route choices, shops, stage-only
    reward cards, and a proper stage clear." (RULES.md: 3 cards at 35 Gold, a 25 HP heal for 30,
    one card cut for 40; nothing bought past the Gold in hand)."""
    from sim.core.campaign import RunRecord
    from sim.frontier.campaign.run import _shop

    pool = content.pool
    kit = content.crews["gold-gang"]
    trail = _trail(content, "gold-gang", 140, 100)
    cut = kit.lore[0]
    deck_before = list(trail.deck)
    rec = RunRecord("frontier", "ashfall-trail", "gold-gang", 0, "script")
    # 100 Gold: a card (35), the heal (30), a cut (40, more than the 35 left: refused), a card (35)
    script = _Script(shop=[("card", 0), ("heal", -1), ("remove", cut), ("card", 1)])
    line = _line("shop")
    _shop(content, kit, trail, 5, random.Random(3), script, rec, line)
    offers = [r for r in rec.rewards if r["source"] == "shop"]
    allowed = {pool.cards[c].slug for c in set(content.rewards) | set(kit.unlocks)}
    assert len(offers) == 3 and len({r["card"] for r in offers}) == 3
    assert {r["card"] for r in offers} <= allowed and all(r["price"] == 35 for r in offers)
    assert [r["taken"] for r in offers] == [True, True, False]
    assert trail.gold == 0 and trail.hp == TRAIL_HP                   # 140 + 25, capped at 150
    bought = [pool.ids[r["card"]] for r in offers if r["taken"]]
    assert sorted(trail.deck) == sorted(deck_before + bought)         # the cut was refused
    assert line["detail"] == "card, heal, card"
    # with the Gold for it, the cut takes one copy out of the run deck
    trail = _trail(content, "gold-gang", 150, 40)
    _shop(content, kit, trail, 5, random.Random(3), _Script(shop=[("remove", cut)]), rec, _line("shop"))
    assert trail.gold == 0 and cut not in trail.deck and len(trail.deck) == len(deck_before) - 1
