"""AlleyWay Brawlers: the duel on the engine contract (see RULES.md)."""
from sim.alleyway.engine import ENGINE

__all__ = ["ENGINE"]
