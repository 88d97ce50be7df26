"""Wild Frontier ("The Frontier Code") card data: schema, card files, decks, rules versions,
scenarios."""
from cardsdb.frontier.schema import SCHEMA

__all__ = ["SCHEMA"]
