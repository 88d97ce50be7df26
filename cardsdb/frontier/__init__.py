"""Wild Frontier ("The Frontier Code") card data: schema, card files, decks, rules versions,
scenarios."""
from cardsdb.frontier.schema import SCHEMA

# files here read from the package, never from a workspace, so ``workbench init`` does not copy
# them (cardsdb/workspace.py): the sheriff list is schema, and the engine numbers sheriffs by it
PACKAGE_FILES = ("sheriffs.yaml",)

__all__ = ["PACKAGE_FILES", "SCHEMA"]
