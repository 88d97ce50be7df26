"""The Hideout's construction rule, shared by a player's deck (schema.check_deck) and a boss's
(bosses.check_boss): it holds only the higher levels of Strivers whose lower level is in the
deck or the Hideout."""
from __future__ import annotations


def hideout_problems(hideout: dict, deck_cards: dict, cards: dict, known, where: str, problems: list) -> None:
    """Append to ``problems`` a (card, field, message) for each Hideout entry that breaks the
    rule; ``known(card_id, count, where)`` is the caller's check every entry shares (known card,
    copies, clan; it appends to the same list, so each entry's problems stay together), which
    returns the card or None."""
    lower = {c.promotes_to: c.id for c in cards.values() if c.promotes_to}
    for card_id, count in hideout.items():
        card = known(card_id, count, where)
        if card is None:
            continue
        if card.subtype != "striver" or (card.level or 1) < 2:
            problems.append((card_id, where, "the Hideout holds the higher levels of Strivers only"))
            continue
        below = lower.get(card_id)
        if below is None or (below not in deck_cards and below not in hideout):
            problems.append((card_id, where, "its lower level is in neither the deck nor the Hideout"))
