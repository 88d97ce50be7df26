"""Frontier Run's data model: a stage (the route map's shape, its encounters, rewards, Gold,
outposts and shops) and the issued crews (deck, lore cards, unlocks). Files live in
``cardsdb/frontier/campaign/``: ``crews.yaml`` (a list) and one file per stage."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from cardsdb.models import SLUG, Strict

NODE_KINDS = ("battle", "elite", "outpost", "shop")


class Encounter(Strict):
    """An enemy: one of the game's decks (its sheriff and Deputies come with it). It fights at its
    sheriff's normal duel HP (30; Ironhold 35), as the guide has it; ``hp`` overrides that and is
    a variant (sim/frontier/RULES.md, "Frontier Run"): the shipped stage sets none."""
    deck: str
    hp: int | None = Field(None, ge=1)
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
    elites: list[Encounter] = Field([], description="elite fights: a variant (the guide has none); "
                                                    "needed when node_weights gives elite a weight")
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
        if self.node_weights.get("elite", 0) > 0 and not self.elites:
            raise ValueError("node_weights gives elite a weight but the stage lists no elites")
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
    """(where, record, field, message) for each reference a stage or crew gets wrong: ``where`` is
    "stage" (``record`` a card of its rewards, or None) or "crews" (``record`` the crew's id).
    A crew id listed twice is the loader's to find (``crews`` is keyed by id by then)."""
    problems: list[tuple[str, str | None, str, str]] = []
    encounters = ([(f"battles.{i}.deck", e) for i, e in enumerate(stage.battles)]
                  + [(f"elites.{i}.deck", e) for i, e in enumerate(stage.elites)] + [("boss.deck", stage.boss)])
    for fld, enc in encounters:
        if enc.deck not in decks:
            problems.append(("stage", None, fld, f"no deck {enc.deck!r} for an encounter"))
    for card_id in _twice(stage.rewards):  # offered once however often listed: a slip, said so
        problems.append(("stage", card_id, "rewards", "listed twice (a reward card is offered once; "
                                                      "did you mean another card?)"))
    for card_id in dict.fromkeys(stage.rewards):
        problems.extend(_reward(card_id, cards, "stage", "rewards"))
    for crew in crews.values():
        if crew.deck not in decks:
            problems.append(("crews", crew.id, "deck", f"no deck {crew.deck!r}"))
        for card_id in _twice(crew.unlocks):
            problems.append(("crews", crew.id, "unlocks", f"{card_id} listed twice (an unlocked card is "
                                                          "offered once; did you mean another card?)"))
        for fld in ("lore", "unlocks"):  # (lore lists run-deck copies: a card twice is two copies)
            for card_id in dict.fromkeys(getattr(crew, fld)):
                problems.extend(("crews", crew.id, f, f"{msg} ({card})")
                                for _w, card, f, msg in _reward(card_id, cards, "crews", fld))
    return problems


def _twice(ids: list[str]) -> list[str]:
    """The ids a list holds more than once, in order of their first repeat."""
    seen: set[str] = set()
    out: list[str] = []
    for x in ids:
        if x in seen and x not in out:
            out.append(x)
        seen.add(x)
    return out


def _reward(card_id: str, cards: dict, where: str, fld: str) -> list[tuple[str, str | None, str, str]]:
    card = cards.get(card_id)
    if card is None:
        return [(where, card_id, fld, "unknown card in this rules version")]
    if not card.campaign_only:
        return [(where, card_id, fld, "a stage card must be campaign_only (stage-only)")]
    return []
