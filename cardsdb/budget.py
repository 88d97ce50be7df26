"""The one rule of when a card is off its game's stat budget, for every place that says so
(``workbench cards validate``, the Cost curves page, the ``cost_curve`` export, the HTML report).

Each game's schema prices a card twice: ``stat_points`` (what it gives, as its RULES.md counts
it) and ``budget_points`` (what its cost allows). Their difference is the card's *surplus*; a card
is off budget when the surplus is beyond ``TOLERANCE`` stat points either way. The rule reads the
game's own budget, not a line fitted to the pool, so a card's verdict does not depend on which
other cards exist or how many share its type (reports/METRICS.md, "Off budget").

This module imports nothing (the dashboard imports it to render)."""
from __future__ import annotations

import math
from typing import Any

TOLERANCE = 1.0  # stat points a card may sit off its budget, either way


def surplus(schema: Any, card: Any, consts: Any) -> float:
    """Stat points minus budget points: above 0 the card gives more than its cost allows."""
    return float(schema.stat_points(card, consts) - schema.budget_points(card, consts))


def is_off_budget(card_surplus: float | None) -> bool:
    """The rule: more than ``TOLERANCE`` stat points off either way (an unknown surplus is not)."""
    return card_surplus is not None and not math.isnan(card_surplus) and abs(card_surplus) > TOLERANCE


def off_budget_cards(schema: Any, ruleset: Any) -> dict[str, float]:
    """Card id -> surplus of the cards of a resolved rules version that are off budget."""
    found = {card.id: surplus(schema, card, ruleset.constants) for card in ruleset.cards.values()}
    return {card: value for card, value in sorted(found.items()) if is_off_budget(value)}
