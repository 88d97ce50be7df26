"""Frontier Run's campaign policies (sim/frontier/campaign/policies.py), the choices between
fights: the greedy policy's rules of thumb as its docstring and sim/frontier/RULES.md ("Frontier
Run", the pilots row) state them, and the random policy's bounds. On hand-made trails, nodes,
shops and cards (a card's rating is its ``surplus`` here: no Mana or Gold cost), so each test
shows one rule alone."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from cardsdb.frontier.campaign import Outpost, Shop
from sim.frontier.campaign.policies import POLICIES, GreedyPolicy, RandomPolicy, card_rating
from sim.frontier.campaign.run import Trail
from sim.frontier.campaign.trail_map import Node

MAX_HP = 150
SHOP = Shop()            # 3 cards at 35 Gold, a 25 HP heal for 30, a cut for 40
OUTPOST = Outpost()      # rest 30 HP, or scavenge 25 Gold
# card id -> rating (its stat surplus; no cost)
RATINGS = {1: 3.0, 2: 1.0, 3: 0.5, 4: -0.5, 5: -1.0, 6: -1.5, 7: -4.0, 8: 2.0}


def content(ratings: dict | None = None):
    cards = {i: SimpleNamespace(surplus=r, mana=0, gold=0) for i, r in (ratings or RATINGS).items()}
    return SimpleNamespace(pool=SimpleNamespace(cards=cards),
                           stage=SimpleNamespace(shop=SHOP, outpost=OUTPOST))


def greedy(seed: int = 0) -> GreedyPolicy:
    return GreedyPolicy(random.Random(seed), content())


def trail(hp: int, gold: int = 0, deck: list | None = None) -> Trail:
    return Trail(hp, MAX_HP, gold, list(deck if deck is not None else [1, 2, 3]))


def nodes(*kinds: str) -> list[Node]:
    return [Node(2, i, kind, (0,)) for i, kind in enumerate(kinds)]


def chosen(policy, t: Trail, *kinds: str) -> str:
    return kinds[policy.route(t, nodes(*kinds))]


def test_the_rating_is_the_surplus_and_a_little_for_the_cost():
    assert card_rating(SimpleNamespace(surplus=1.0, mana=3, gold=1)) == pytest.approx(1.0 + 0.2 * 5)
    assert POLICIES == {"random": RandomPolicy, "greedy": GreedyPolicy}


# --- the route -----------------------------------------------------------------------------------

@pytest.mark.parametrize("hp", [10, 50, 74])
def test_greedy_takes_the_outpost_below_half_trail_hp(hp):
    """RULES.md: it prefers an outpost when trail HP is below half (over a battle, and over a shop
    even with the Gold for it)."""
    for seed in range(5):
        assert chosen(greedy(seed), trail(hp), "battle", "outpost") == "outpost"
        assert chosen(greedy(seed), trail(hp, gold=100), "shop", "outpost", "battle") == "outpost"


@pytest.mark.parametrize("hp", [75, 76, 120, 150])
def test_greedy_takes_the_battle_from_half_trail_hp_up_without_gold(hp):
    """RULES.md: at half trail HP or more it takes a battle over an outpost; a shop is worth
    nothing to it without the Gold for the cheaper of a card and the heal (30)."""
    for seed in range(5):
        assert chosen(greedy(seed), trail(hp), "outpost", "battle") == "battle"
        assert chosen(greedy(seed), trail(hp, gold=29), "shop", "battle") == "battle"


@pytest.mark.parametrize("hp", [75, 100, 150])
def test_greedy_takes_a_shop_over_a_battle_whenever_it_has_the_gold(hp):
    """RULES.md: with Gold for the cheaper of a shop card and the heal (30 here) it takes a shop
    over a battle at any trail HP (a shop is worth 2.5, a battle 2.0); below half the outpost
    still comes first (the test above)."""
    for seed in range(5):
        assert chosen(greedy(seed), trail(hp, gold=30), "battle", "shop") == "shop"
        assert chosen(greedy(seed), trail(hp, gold=30), "shop", "outpost") == "shop"
    # below half a battle is worth 0.5 and a shop still 2.5
    assert chosen(greedy(), trail(40, gold=30), "battle", "shop") == "shop"


def test_greedy_takes_an_elite_only_above_three_quarters():
    """RULES.md: elites (a variant: the shipped trail has none) only above three quarters of the
    trail's maximum; below, it avoids them."""
    assert chosen(greedy(), trail(113), "battle", "elite") == "elite"      # 113/150 > 0.75
    assert chosen(greedy(), trail(112), "battle", "elite") == "battle"
    assert chosen(greedy(), trail(40), "elite", "battle") == "battle"


def test_greedy_breaks_a_tie_among_equal_nodes_at_random():
    picks = {greedy(seed).route(trail(150), nodes("battle", "battle", "battle")) for seed in range(40)}
    assert picks == {0, 1, 2}


# --- rewards, outposts, shops --------------------------------------------------------------------

def test_greedy_takes_the_best_rated_reward_and_skips_below_minus_one():
    """Docstring and RULES.md: it takes the best-rated reward; a reward whose best card rates below
    -1 is skipped (at -1 it is still taken)."""
    policy = greedy()
    t = trail(150)
    assert policy.reward(t, [3, 1, 2]) == 1
    assert policy.reward(t, [4, 5, 7]) == 0          # -0.5 is the best
    assert policy.reward(t, [7, 5]) == 1             # -1.0: taken
    assert policy.reward(t, [6, 7]) is None          # -1.5 at best: skipped


@pytest.mark.parametrize(("missing", "choice"), [(0, "scavenge"), (14, "scavenge"), (15, "rest"), (100, "rest")])
def test_greedy_rests_at_an_outpost_when_the_rest_heals_at_least_half_its_worth(missing, choice):
    """RULES.md: it rests whenever the rest would heal at least half its worth (15 HP or more
    missing), else scavenges."""
    assert greedy().outpost(trail(MAX_HP - missing)) == choice


def test_greedy_shops_heal_first_then_the_best_cards_then_cuts_the_worst():
    """Docstring: "buy heal, then the best card, then cut the worst card of the deck"; RULES.md:
    the heal below three quarters, then good cards (rating 0 or more, best first), then the cut,
    each while the Gold lasts."""
    policy = greedy()
    offers = [3, 1, 4]                                # ratings 0.5, 3.0, -0.5
    deck = [2, 7, 8, 3]
    # 30 + 35 + 35 + 40: everything it wants
    buys = policy.shop(trail(100, gold=140, deck=deck), offers)
    assert buys == [("heal", -1), ("card", 1), ("card", 0), ("remove", 7)]
    # at three quarters or more no heal; the card rated below 0 is never bought
    buys = policy.shop(trail(113, gold=500, deck=deck), offers)
    assert buys == [("card", 1), ("card", 0), ("remove", 7)]
    # the Gold runs out in that order: heal, then the best card, nothing for the second or the cut
    assert policy.shop(trail(100, gold=70, deck=deck), offers) == [("heal", -1), ("card", 1)]
    # the heal comes first even when the Gold would buy the best card instead
    assert policy.shop(trail(100, gold=35, deck=deck), offers) == [("heal", -1)]
    assert policy.shop(trail(113, gold=35, deck=deck), offers) == [("card", 1)]
    assert policy.shop(trail(100, gold=29, deck=deck), offers) == []


def test_greedy_cuts_the_lowest_rated_card_and_the_lower_id_on_a_tie():
    policy = GreedyPolicy(random.Random(0), content({1: 1.0, 2: -2.0, 3: -2.0}))
    assert policy.shop(trail(150, gold=40, deck=[1, 3, 2]), []) == [("remove", 2)]


# --- the random policy ---------------------------------------------------------------------------

def test_random_policy_stays_within_the_options_and_the_gold():
    """Docstring: uniform over the options; a reward may be skipped; each shop offer bought or not
    at a coin flip while the Gold lasts; an outpost rest or scavenge."""
    routes, rewards, outposts = set(), set(), set()
    for seed in range(60):
        policy = RandomPolicy(random.Random(seed), content())
        routes.add(policy.route(trail(150), nodes("battle", "shop", "outpost")))
        rewards.add(policy.reward(trail(150), [1, 2, 3]))
        outposts.add(policy.outpost(trail(150)))
        t = trail(100, gold=seed * 3, deck=[1, 2, 3])
        buys = policy.shop(t, [1, 2, 3])
        prices = {"card": SHOP.card_price, "heal": SHOP.heal_price, "remove": SHOP.remove_price}
        assert sum(prices[kind] for kind, _i in buys) <= t.gold
        assert all(i in t.deck for kind, i in buys if kind == "remove")
    assert routes == {0, 1, 2} and rewards == {0, 1, 2, None} and outposts == {"rest", "scavenge"}
