"""Turf Defense bosses (``cardsdb/alleyway/bosses/<id>.yaml``): a clan boss two partners fight.

A boss file::

    id: cinder-the-furnace-king        # the file's name
    name: The Furnace King
    clan: arsonists                    # its deck's clan (its leader's)
    leader: cinder                     # a leader card of that clan
    deck: {cards: {...}, hideout: {...}}   # like a deck file's; see below for its limits
    morale: 18000                      # its starting Morale, and the most it can hold
    extra_draws: 1                     # cards drawn each turn beyond the rules' draw_per_turn
    extra_authority: 1                 # Authority each turn beyond the usual (past the cap too)
    atk: 400                           # ATK added to every character on the boss's side (optional)
    def: 400                           # DEF likewise (optional)
    phases:                            # the marks on its bar, highest first
      - {at: 0.6, name: Stoked, atk: 200}
      - {at: 0.3, name: Inferno, atk: 400, draws: 1, authority: 1}
    prize: pyra-the-undying-flame      # the card the partners' first win on Street pays

The boss begins in phase 1 with its base numbers (``extra_draws``, ``extra_authority``, ``atk``,
``def``). A phase begins when the boss's Morale falls to its mark ``at`` or below: a share of its
Morale (``0 < at < 1``) or a Morale value (``at >= 1``, a whole number below ``morale``); marks go
strictly down. The phase vocabulary is four numbers, each added to the base numbers while that
phase lasts (a phase's numbers replace the previous phase's, they do not add up across phases):

    atk, def     ATK and DEF added to every character on the boss's side (an aura of the boss),
                 beyond the boss's ``atk`` and ``def``
    draws        cards drawn at the start of its turn beyond ``extra_draws``
    authority    Authority at the start of its turn beyond ``extra_authority``

Phases only go forward: Morale healed back above a mark does not undo a phase.

The deck follows a deck file's rules (the leader's clan and Neutral, no leader or token, no level
2-3 Striver in the deck, the Hideout holds higher Striver levels whose lower level is in the deck
or Hideout), except: a boss deck may hold more than the rules' ``deck_max`` cards (at least
``deck_min``) and up to ``boss_max_copies`` copies of a card (a boss is not a player's deck).
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from cardsdb.alleyway.hideout import hideout_problems
from cardsdb.models import SLUG, Strict

BOSS_MAX_COPIES = 6   # copies of one card a boss deck may hold
BOSS_MAX_CARDS = 120  # cards in a boss deck


class BossDeck(Strict):
    cards: dict[str, int]
    hideout: dict[str, int] = {}


class BossPhase(Strict):
    at: float = Field(gt=0)   # a share of the boss's Morale (< 1) or a Morale value (>= 1)
    name: str = ""
    atk: int = Field(0, ge=0, le=5000)
    def_: int = Field(0, alias="def", ge=0, le=5000)
    draws: int = Field(0, ge=0, le=5)
    authority: int = Field(0, ge=0, le=15)


class Boss(Strict):
    id: str = Field(pattern=SLUG)
    name: str = Field(min_length=1)
    description: str = ""
    clan: Literal["arsonists", "militia", "underworld", "wildcard", "nebula", "pirates"]
    leader: str = Field(pattern=SLUG)
    deck: BossDeck
    morale: int = Field(ge=1, le=1_000_000)
    extra_draws: int = Field(0, ge=0, le=5)
    extra_authority: int = Field(0, ge=0, le=15)
    atk: int = Field(0, ge=0, le=5000)                # ATK and DEF added to the boss's characters
    def_: int = Field(0, alias="def", ge=0, le=5000)  # throughout (its phases add more)
    phases: list[BossPhase] = []
    prize: str = Field(pattern=SLUG)

    @field_validator("phases")
    @classmethod
    def _marks(cls, phases: list[BossPhase], info: ValidationInfo) -> list[BossPhase]:
        morale = info.data.get("morale")
        if morale is None:  # (its own error is reported)
            return phases
        last = morale
        for i, phase in enumerate(phases):
            if phase.at >= 1 and phase.at != int(phase.at):
                raise ValueError(f"phase {i + 1}: a Morale value is a whole number (got {phase.at})")
            value = _mark(phase, morale)
            if value >= last:
                raise ValueError(f"phase {i + 1}: marks go strictly down, below the Morale and the mark "
                                 f"before (got at {phase.at}: Morale {value}, not below {last})")
            last = value
        return phases

    def mark(self, phase: BossPhase) -> int:
        """The Morale at or below which ``phase`` begins."""
        return _mark(phase, self.morale)


def _mark(phase: BossPhase, morale: int) -> int:
    return int(phase.at * morale) if phase.at < 1 else int(phase.at)


def check_boss(boss: Boss, cards: dict, consts) -> list[tuple[str | None, str, str]]:
    """(card, field, message) for each way the boss breaks the rules of a boss (a rules
    version's cards and constants)."""
    problems: list[tuple[str | None, str, str]] = []
    if boss.morale <= consts.starting_morale:
        problems.append((None, "morale", f"{boss.morale} is not above a player's starting_morale "
                                         f"{consts.starting_morale} (a boss has more Morale than a player)"))
    leader = cards.get(boss.leader)
    if leader is None:
        return problems + [(boss.leader, "leader", "unknown card in this rules version")]
    if leader.type != "leader":
        return problems + [(boss.leader, "leader", f"{leader.name} is a {leader.type}, not a leader")]
    if leader.clan != boss.clan:  # (its deck is then checked against neither clan: one line, not one per card)
        return problems + [(boss.leader, "leader", f"a {leader.clan} leader, the boss's clan is {boss.clan}")]
    allowed = (leader.clan, "neutral")

    def known(card_id: str, count: int, where: str):
        card = cards.get(card_id)
        if card is None:
            problems.append((card_id, where, "unknown card in this rules version"))
            return None
        if count < 1 or count > BOSS_MAX_COPIES:
            problems.append((card_id, where, f"{count} copies: 1 to {BOSS_MAX_COPIES} in a boss deck"))
        if card.clan not in allowed:
            problems.append((card_id, where, f"clan {card.clan} is not the leader's ({leader.clan}) or neutral"))
        return card

    total = 0
    for card_id, count in boss.deck.cards.items():
        total += count
        card = known(card_id, count, "deck.cards")
        if card is None:
            continue
        if card.type == "leader" or card.token:
            problems.append((card_id, "deck.cards", f"a {'leader' if card.type == 'leader' else 'token'} "
                                                    "is not a deck card"))
        elif card.subtype == "striver" and (card.level or 1) > 1:
            problems.append((card_id, "deck.cards", f"level {card.level} Strivers wait in the Hideout"))
    if not consts.deck_min <= total <= BOSS_MAX_CARDS:
        problems.append((None, "deck.cards", f"{total} cards, a boss deck has {consts.deck_min} (deck_min) "
                                             f"to {BOSS_MAX_CARDS}"))
    hideout_problems(boss.deck.hideout, boss.deck.cards, cards, known, "deck.hideout", problems)
    prize = cards.get(boss.prize)
    if prize is None:
        problems.append((boss.prize, "prize", "unknown card in this rules version"))
    elif prize.token or prize.type == "leader":
        problems.append((boss.prize, "prize", f"a {'token' if prize.token else 'leader'} is not a prize card"))
    return problems
