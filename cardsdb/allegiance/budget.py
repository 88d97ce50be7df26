"""Allegiance's stat budget: what a card gives in stat points, and what it may give at its stars
(sim/allegiance/RULES.md, "The stat budget"). ``workbench cards validate allegiance`` lists the
cards more than a point off it."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cardsdb.allegiance.schema import AttackAbility, Card, Constants, SupportAbility

AREA = {"allies_near": 2.0, "enemies_near": 2.0}  # an effect on every neighbour counts double
EFFECT_POINTS = {"damage": 2.0, "heal": 1.0, "shield": 2.0, "empower": 2.0, "draw": 3.0,
                 "gain_ap": 3.0, "bonus_damage": 2.0, "reduce": 2.0}
FLAT_POINTS = {"strip": 2.0, "blight": 3.0, "purge": 3.0, "pierce": 2.0, "negate": 8.0}
KEYWORD_POINTS = {"absorb": 2.0, "reflect": 2.0, "pierce": 2.0, "soul_bonus": 1.0}
BEAST_POINTS = -4.0          # deploying only once the condition holds
PROTECTS_STRONGHOLD = 2.0
TURN_START_WEIGHT = 2.0      # a Stronghold's effect comes back every turn


def effect_points(effect) -> float:
    kind = effect.effect
    if kind in FLAT_POINTS:
        return FLAT_POINTS[kind]
    points = EFFECT_POINTS[kind] * effect.amount
    if kind == "empower" and effect.until == "permanent":
        points *= 2
    return points * AREA.get(getattr(effect, "to", "target"), 1.0)


ANY_RANGE_POINTS = 7.0  # the whole battlefield: as a range 1-8 line ability would be, plus any direction


def reach_points(ability) -> float:
    if ability.any_range:
        return ANY_RANGE_POINTS
    lo, hi = ability.span
    return (hi - 1) - max(0, lo - 1) / 2 + 2 * ability.any_direction


def attack_points(ability: AttackAbility) -> float:
    return (2 * ability.damage + reach_points(ability) - 2 * (ability.ap - 1)
            + sum(effect_points(e) for e in ability.do))


def support_points(ability: SupportAbility) -> float:
    return sum(effect_points(e) for e in ability.do) + reach_points(ability) / 2 - 2 * (ability.ap - 1)


def stat_points(card: Card, consts: Constants | None = None) -> float:
    """What the card gives, in stat points (RULES.md, "The stat budget")."""
    t = card.type
    if t == "warrior":
        points = card.hp + 2 * (card.move - 1)
        attacks = sorted((attack_points(a) for a in card.attacks), reverse=True)
        points += attacks[0] + sum(attacks[1:]) / 2  # one attack a turn: the others are options
        points += sum(support_points(a) for a in card.supports)
        kw = card.keywords
        points += sum(KEYWORD_POINTS[n] * float(getattr(kw, n)) for n in kw.names())
        if card.beast is not None:
            points += BEAST_POINTS
        return points
    ability_points = sum(effect_points(e) for a in card.abilities for e in a.do)
    if t == "stronghold":
        return card.hp + TURN_START_WEIGHT * ability_points
    points = ability_points + 4 * card.damage + 4 * card.armor
    if t == "tactic" and card.protects_stronghold:
        points += PROTECTS_STRONGHOLD
    return points


def budget_cost(card: Card, consts: Constants) -> float:
    """The one cost number of the cost curve: stars (Strongholds have none: 0)."""
    return float(card.stars)


def budget_points(card: Card, consts: Constants) -> float:
    """What the card may give: warriors 5 + 4 per star; other main-deck cards 4 per star plus 2
    per AP they cost; a Stronghold and a Bastion a fixed budget each."""
    if card.type == "warrior":
        return consts.warrior_budget_base + consts.warrior_budget_per_star * card.stars
    if card.type == "stronghold":
        return consts.bastion_budget if card.bastion else consts.stronghold_budget
    return consts.card_budget_per_star * card.stars + consts.card_budget_per_ap * card.ap


def best_attack(card: Card) -> int | None:
    return max((a.damage for a in card.attacks), default=None)
