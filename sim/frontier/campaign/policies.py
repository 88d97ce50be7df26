"""Who makes a run's choices between fights: the route, the reward, the shop, the outpost.
A policy gets its own random stream and sees the run (trail HP, Gold, deck) and the options.

    random   uniform over the options (a reward may be skipped; each shop offer is bought or
             not at a coin flip while the Gold lasts)
    greedy   plain rules of thumb: rest and heal when trail HP runs low, fight (elites too) when
             it is high, take the best-rated card, buy heal, then the best card, then cut the
             worst card of the deck
"""
from __future__ import annotations

import random


def card_rating(card) -> float:
    """A card's worth to a run deck: its stat points beyond the budget (the designer's own
    measure, computed with the pool), and a little for its cost, since a bigger card does more
    when drawn."""
    return card.surplus + 0.2 * (card.mana + 2 * card.gold)


class RandomPolicy:
    name = "random"

    def __init__(self, rng: random.Random, content):
        self.rng, self.content = rng, content

    def route(self, trail, nodes: list) -> int:
        return self.rng.randrange(len(nodes))

    def reward(self, trail, cards: list[int]) -> int | None:
        pick = self.rng.randrange(len(cards) + 1)
        return None if pick == len(cards) else pick

    def shop(self, trail, offers: list[int]) -> list[tuple[str, int]]:
        shop = self.content.stage.shop
        buys, gold = [], trail.gold
        items = [("card", i) for i in range(len(offers))] + [("heal", -1), ("remove", -1)]
        self.rng.shuffle(items)
        for kind, i in items:
            price = {"card": shop.card_price, "heal": shop.heal_price, "remove": shop.remove_price}[kind]
            if price <= gold and self.rng.random() < 0.5:
                if kind == "remove":
                    i = trail.deck[self.rng.randrange(len(trail.deck))]
                buys.append((kind, i))
                gold -= price
        return buys

    def outpost(self, trail) -> str:
        return self.rng.choice(("rest", "scavenge"))


class GreedyPolicy(RandomPolicy):
    name = "greedy"
    LOW, HIGH = 0.5, 0.75   # shares of the trail's maximum HP

    def route(self, trail, nodes: list) -> int:
        share = trail.hp / trail.max_hp
        shop = self.content.stage.shop
        worth = {"battle": 2.0 if share > self.LOW else 0.5,
                 "elite": 3.0 if share > self.HIGH else -1.0,
                 "outpost": 3.0 if share < self.LOW else 0.3,
                 "shop": 2.5 if trail.gold >= min(shop.card_price, shop.heal_price) else 0.0,
                 "boss": 0.0}
        best = max(worth[n.kind] for n in nodes)
        return self.rng.choice([i for i, n in enumerate(nodes) if worth[n.kind] == best])

    def _rating(self, card_id: int) -> float:
        return card_rating(self.content.pool.cards[card_id])

    def reward(self, trail, cards: list[int]) -> int | None:
        ratings = [self._rating(c) for c in cards]
        best = max(ratings)
        return ratings.index(best) if best >= -1.0 else None

    def shop(self, trail, offers: list[int]) -> list[tuple[str, int]]:
        shop = self.content.stage.shop
        buys, gold = [], trail.gold
        if trail.hp < trail.max_hp * self.HIGH and gold >= shop.heal_price:
            buys.append(("heal", -1))
            gold -= shop.heal_price
        for i in sorted(range(len(offers)), key=lambda i: -self._rating(offers[i])):
            if gold >= shop.card_price and self._rating(offers[i]) >= 0:
                buys.append(("card", i))
                gold -= shop.card_price
        if gold >= shop.remove_price and trail.deck:
            worst = min(trail.deck, key=lambda c: (self._rating(c), c))
            buys.append(("remove", worst))
        return buys

    def outpost(self, trail) -> str:
        return "rest" if trail.max_hp - trail.hp >= self.content.stage.outpost.heal / 2 else "scavenge"


POLICIES = {"random": RandomPolicy, "greedy": GreedyPolicy}
