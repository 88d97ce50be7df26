"""Wild Frontier ("The Frontier Code") Classic Skirmish duels on the engine contract.

The rules notes are in RULES.md beside this file: every rule implemented, with the guide's
sentence beside it, and every reading that had to be decided."""
from sim.frontier.engine import ENGINE

__all__ = ["ENGINE"]
