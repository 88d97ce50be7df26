"""Allegiance (Rules 3.2) card data: schema, card files, decks, rules versions, scenarios."""
from cardsdb.allegiance.schema import SCHEMA

# files here read from the package, never from a workspace (cardsdb/workspace.py): none
PACKAGE_FILES: tuple[str, ...] = ()

__all__ = ["PACKAGE_FILES", "SCHEMA"]
