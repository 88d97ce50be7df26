"""Allegiance (Rules 3.2): the grid-tactics card game of Black Forge and the Descendants, on the
engine contract.

The rules notes are in RULES.md beside this file: every rule of the guide with the code and the
scenario that carry it out, and every reading that had to be decided."""
from sim.allegiance.engine import ENGINE

__all__ = ["ENGINE"]
