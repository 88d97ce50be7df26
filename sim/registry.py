"""The games the simulator can play (the one place in sim/ that lists them)."""
from __future__ import annotations

import importlib

ENGINES = {"frontier": "sim.frontier", "alleyway": "sim.alleyway", "allegiance": "sim.allegiance"}
CAMPAIGNS = {"frontier": "sim.frontier.campaign"}  # games with a roguelike campaign (sim/core/campaign.py)


def engine(game: str):
    if game not in ENGINES:
        raise KeyError(game)
    return importlib.import_module(ENGINES[game]).ENGINE


def campaign(game: str):
    if game not in CAMPAIGNS:
        raise KeyError(game)
    return importlib.import_module(CAMPAIGNS[game]).CAMPAIGN
