"""What every game's campaign (a roguelike run of fights) hands back, so the application can
store runs, the nodes visited, the rewards offered and the fights (as normal matches) without
knowing the game.

A game's campaign module (listed in sim/registry.py) exposes ``CAMPAIGN`` with:

    policies                     names of the route/shop/reward policies it offers
    compile(engine, pool, campaign)            the loaded stage and crews made ready to play
    play_run(content, crew, seed, policy, fight_pilot, log, watch=None) -> RunRecord

``watch(fight)``, when given, returns the ``on_decision`` hook to pass to ``play_match`` for the
run's fight number ``fight`` (or None): how a replay sees the board of one fight of a run.

Determinism: a run is a function of (content, crew, seed, policy, fight pilot); every random
draw comes from streams derived from the seed (sim/core/rng.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Columns of the per-node and per-reward rows a RunRecord carries (the store's tables).
NODE_FIELDS = ("step", "floor", "node", "kind", "options", "choice", "hp_before", "hp_after",
               "gold_before", "gold_after", "fight", "result", "detail")
REWARD_FIELDS = ("step", "source", "card", "price", "taken")
# A reward's ``source`` is where the run met it, in the game's own words ("battle", "shop"...),
# except the cards a run starts with unlocked: those are STARTING_SOURCE, always taken, at step 0.
# The reports compare taking an offer with skipping it over every other source.
STARTING_SOURCE = "lore"


@dataclass
class FightRecord:
    """One fight of a run: a normal match, with who sat where."""
    step: int                 # the node step it was fought at
    fight: int                # 0, 1, 2 ... within the run
    decks: list[str]          # deck label per seat
    pilots: list[str]         # pilot per seat
    player_seat: int
    result: Any               # sim.core.match.MatchResult


@dataclass
class RunRecord:
    """One run. ``hp_left``, ``gold_left``, ``deck_size`` and ``floor_reached``: at the run's end;
    for a run that raised (``error``), as they were when it raised (0 if it raised before its walk
    began). The store keeps them (its columns are NOT NULL); the reports leave error runs out of
    every average and clear rate."""
    game: str
    stage: str
    crew: str
    seed: int
    policy: str
    cleared: bool = False
    hp_left: int = 0
    hp_max: int = 0
    floor_reached: int = 0
    gold_left: int = 0
    deck_size: int = 0
    nodes: list[dict] = field(default_factory=list)     # NODE_FIELDS
    rewards: list[dict] = field(default_factory=list)   # REWARD_FIELDS
    fights: list[FightRecord] = field(default_factory=list)
    error: str | None = None
    wall_ms: float = 0.0

    @property
    def result(self) -> str:
        return "error" if self.error else "cleared" if self.cleared else "defeated"
