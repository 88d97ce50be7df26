"""Frontier Run: the roguelike campaign around Wild Frontier duels (the guide's "FR Frontier
Run"), Stage I (Ashfall Trail) first. Game rules only: the workbench runs and stores batches
(workbench/campaign/)."""
from sim.frontier.campaign.content import compile_content
from sim.frontier.campaign.policies import POLICIES
from sim.frontier.campaign.run import play_run


class FrontierRun:
    """The campaign contract of sim/core/campaign.py."""
    policies = tuple(POLICIES)

    def compile(self, engine, pool, campaign):
        return compile_content(engine, pool, campaign)

    def play_run(self, content, crew: str, seed: int, policy: str = "greedy", fight_pilot: str = "greedy",
                 log: bool = False, watch=None):
        return play_run(content, crew, seed, policy, fight_pilot, log, watch)


CAMPAIGN = FrontierRun()
