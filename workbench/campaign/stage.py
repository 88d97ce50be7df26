"""Load a game's campaign stage under a rules version, with one-line errors for what a user can
get wrong (a game with no campaign, no stages, an unknown stage)."""
from __future__ import annotations

from cardsdb.loader import campaign_stages, load_campaign
from workbench import games
from workbench.errors import UserError


def load_stage(game: str, rules: str, stage: str | None, data_dir=None):
    """(data, ruleset, campaign) of ``stage`` (the first stage when None)."""
    from sim.registry import CAMPAIGNS

    games.known_game(game)
    if game not in CAMPAIGNS:
        raise UserError(f"{game} has no campaign to run")
    data, ruleset = games.load(game, rules, data_dir)
    stages = campaign_stages(data)
    if not stages:
        raise UserError(f"{game} has no campaign stages in {data.root / 'campaign'}")
    return data, ruleset, load_campaign(data, ruleset, stage or stages[0])
