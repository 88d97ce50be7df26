"""Frontier Run's data model: a stage (the route map's shape, its encounters, rewards, Gold,
outposts and shops) and the issued crews (deck, lore cards, unlocks). Files live in
``cardsdb/frontier/campaign/``: ``crews.yaml`` (a list) and one file per stage."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from cardsdb.models import SLUG, Strict

NODE_KINDS = ("battle", "elite", "outpost", "shop")


class Encounter(Strict):
    """An enemy: one of the game's decks (its sheriff and Deputies come with it) at a given HP."""
    deck: str
    hp: int = Field(ge=1)
    name: str = ""


class Shop(Strict):
    cards: int = Field(3, ge=0)          # reward cards on sale
    card_price: int = Field(35, ge=0)
    heal: int = Field(25, ge=0)          # trail HP restored by the heal service
    heal_price: int = Field(30, ge=0)
    remove_price: int = Field(40, ge=0)  # take one card out of the run deck


class Outpost(Strict):
    heal: int = Field(30, ge=0)          # rest: trail HP restored
    gold: int = Field(25, ge=0)          # or scavenge: Gold found


class Stage(Strict):
    id: str = Field(pattern=SLUG)
    name: str
    description: str = ""
    trail_hp: int = Field(150, ge=1)
    start_gold: int = Field(0, ge=0)
    floors: int = Field(7, ge=1, description="route floors before the boss")
    min_width: int = Field(2, ge=1)
    max_width: int = Field(3, ge=1)
    links: float = Field(0.5, ge=0, le=1, description="chance a node gets a second way forward")
    node_weights: dict[Literal["battle", "elite", "outpost", "shop"], float]
    battles: list[Encounter] = Field(min_length=1)
    elites: list[Encounter] = Field(min_length=1)
    boss: Encounter
    battle_gold: int = Field(20, ge=0)
    elite_gold: int = Field(35, ge=0)
    rewards: list[str] = Field(min_length=1, description="stage-only reward cards")
    reward_choices: int = Field(3, ge=1)
    outpost: Outpost = Outpost()
    shop: Shop = Shop()
    enemy_pilot: str = "greedy"

    @model_validator(mode="after")
    def _widths(self) -> "Stage":
        if self.min_width > self.max_width:
            raise ValueError("min_width is above max_width")
        if not any(w > 0 for w in self.node_weights.values()):
            raise ValueError("node_weights gives every kind of node a weight of 0")
        return self


class Crew(Strict):
    id: str = Field(pattern=SLUG)
    name: str
    description: str = ""
    deck: str                                  # the issued deck: its sheriff and Deputy pair come with it
    lore: list[str] = []                       # stage-only cards in the run deck from the start
    unlocks: list[str] = []                    # reward cards only this crew is offered


def check_campaign(stage: Stage, crews: dict[str, Crew], cards: dict,
                   decks: dict) -> list[tuple[str, str | None, str, str]]:
    """(where, card, field, message) for each reference a stage or crew gets wrong."""
    problems: list[tuple[str, str | None, str, str]] = []
    for where, enc in ([("stage", e) for e in stage.battles] + [("stage", e) for e in stage.elites]
                       + [("stage", stage.boss)]):
        if enc.deck not in decks:
            problems.append((where, None, "deck", f"no deck {enc.deck!r} for an encounter"))
    for card_id in stage.rewards:
        problems.extend(_reward(card_id, cards, "stage", "rewards"))
    for crew in crews.values():
        if crew.deck not in decks:
            problems.append(("crews", crew.id, "deck", f"no deck {crew.deck!r}"))
        for fld in ("lore", "unlocks"):
            for card_id in getattr(crew, fld):
                problems.extend(_reward(card_id, cards, "crews", fld))
    return problems


def _reward(card_id: str, cards: dict, where: str, fld: str) -> list[tuple[str, str | None, str, str]]:
    card = cards.get(card_id)
    if card is None:
        return [(where, card_id, fld, "unknown card in this rules version")]
    if not card.campaign_only:
        return [(where, card_id, fld, "a stage card must be campaign_only (stage-only)")]
    return []
