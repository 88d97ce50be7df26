"""Allegiance (Rules 3.2) card data: schema, card files, decks, rules versions, scenarios."""
from cardsdb.allegiance.schema import SCHEMA

__all__ = ["SCHEMA"]
