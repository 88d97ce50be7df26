"""How a match's seats sit beyond "each for itself": its mode, a team per seat, and the mode's own
setup. A duel or a free-for-all needs none (``seating=None``); a team mode gives every seat its
team, and a boss mode names the boss whose seat the engine adds after the players' seats (the
boss's deck, Morale and phases are the game's data, not a deck the run brings)."""
from __future__ import annotations

from typing import NamedTuple


class Seating(NamedTuple):
    mode: str = "duel"                     # workbench/runspec.MODES
    teams: tuple[int, ...] | None = None   # the team of each seat (the boss's seat included); None: each for itself
    boss: str | None = None                # a boss id of the game's data (AlleyWay: cardsdb/alleyway/bosses/ID.yaml)
