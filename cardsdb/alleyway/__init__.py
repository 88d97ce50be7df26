"""AlleyWay Brawlers card data: schema, card files, decks, rules versions, scenarios."""
from cardsdb.alleyway.schema import SCHEMA

__all__ = ["SCHEMA"]
