"""AlleyWay Brawlers card data: schema, card files, decks, rules versions, scenarios."""
from cardsdb.alleyway.schema import SCHEMA

# files here read from the package, never from a workspace (cardsdb/workspace.py): none
PACKAGE_FILES: tuple[str, ...] = ()

__all__ = ["PACKAGE_FILES", "SCHEMA"]
