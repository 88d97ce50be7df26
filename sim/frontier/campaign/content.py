"""A Frontier Run stage compiled for play: card ids instead of slugs, decks compiled once."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Encounter:
    name: str
    deck: Any            # FrontierDeck: cards, sheriff, Deputies
    hp: int | None       # None: the enemy sheriff's normal duel HP; a number: a data file's override (a variant)


@dataclass(frozen=True)
class CrewKit:
    id: str
    deck: Any            # the issued FrontierDeck: cards, sheriff, Deputies
    lore: tuple          # card ids added to the run deck at the start
    unlocks: tuple       # reward card ids only this crew is offered


@dataclass(frozen=True)
class StageContent:
    """Everything a run needs; shared by every run of a batch."""
    engine: Any
    pool: Any
    stage: Any           # cardsdb Stage model (numbers, weights, shop, outpost)
    battles: tuple
    elites: tuple
    boss: Encounter
    rewards: tuple       # stage reward card ids
    crews: dict


def compile_content(engine, pool, campaign) -> StageContent:
    """``campaign`` is a loaded cardsdb Campaign (stage, crews, the decks they name)."""
    decks = {deck_id: engine.compile_deck(pool, deck) for deck_id, deck in campaign.decks.items()}
    stage = campaign.stage

    def encounter(enc) -> Encounter:
        return Encounter(enc.name or enc.deck, decks[enc.deck], enc.hp)

    crews = {c.id: CrewKit(c.id, decks[c.deck], tuple(pool.ids[x] for x in c.lore),
                           tuple(pool.ids[x] for x in c.unlocks)) for c in campaign.crews.values()}
    return StageContent(engine, pool, stage, tuple(encounter(e) for e in stage.battles),
                        tuple(encounter(e) for e in stage.elites), encounter(stage.boss),
                        tuple(pool.ids[x] for x in stage.rewards), crews)
