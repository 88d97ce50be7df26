"""The numbers ``workbench tune`` may turn on a card, and rules patches made of them.

A game lists its *knobs* on its schema (``Schema.tune_knobs``): each names one number of a card
(``atk``, ``def``, a cost...), where it lives in the card's data, the size of one step and its
bounds, and whether raising it makes the card stronger (a stat) or weaker (a cost). What a step
is worth on the stat budget is not declared: ``cardsdb.budget.surplus`` asks the game's own ``stat_points`` and
``budget_points``, so a Mana of cost and a point of attack are priced as the budget prices them.

A *change set* is a tuple of ``Step`` (card, knob, new value), at most one per card and knob, in
a fixed order; ``patch`` turns it into the ``patch:`` of a rules version, holding only the
fields that changed (a cost's mapping or an ability list is written whole, as the loader merges
mappings and replaces lists)."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, NamedTuple

# the names of the rules versions `tune` plays its candidates under (workbench/tune/versions.name_of);
# the pages keep such trial runs out of their default choice
PREFIX = "tune-"

@dataclass(frozen=True)
class Knob:
    """One tunable number of a card. ``path``: keys into the card's data as written (its alias
    ``def``, not ``def_``); a mapping in it picks the first item of a list that matches it (the
    ability ``{"when": "off_board"}``)."""
    name: str
    path: tuple
    step: int = 1
    low: int = 0
    high: int | None = None
    stronger: int = 1          # +1: a higher number is a stronger card (stats); -1: a weaker one (costs)
    kinds: tuple[str, ...] = ()  # card types it applies to (empty: every card that has the number)

    def value(self, raw: dict) -> int | None:
        """The number in a card's data (``card.model_dump(by_alias=True)``), or None without it."""
        node: Any = raw
        for key in self.path:
            node = _child(node, key)
            if node is None:
                return None
        return node if isinstance(node, int) and not isinstance(node, bool) else None

    def applies(self, raw: dict) -> bool:
        return (not self.kinds or raw.get("type") in self.kinds) and self.value(raw) is not None

    def allowed(self, value: int) -> bool:
        return value >= self.low and (self.high is None or value <= self.high)

    def set(self, raw: dict, value: int) -> dict:
        """A copy of the card's data with this number set to ``value``."""
        out = copy.deepcopy(raw)
        node: Any = out
        for key in self.path[:-1]:
            node = _child(node, key)
        node[self.path[-1]] = value
        return out

    def step_towards(self, raw: dict, direction: int) -> int | None:
        """The number one step towards a stronger (``direction`` +1) or weaker (-1) card, or None
        when that passes the knob's bounds or the card lacks the number."""
        now = self.value(raw)
        if now is None or not self.applies(raw):
            return None
        new = now + direction * self.stronger * self.step
        return new if self.allowed(new) else None


def _child(node: Any, key: Any) -> Any:
    if isinstance(key, dict):
        if not isinstance(node, list):
            return None
        return next((item for item in node if isinstance(item, dict)
                     and all(item.get(k) == v for k, v in key.items())), None)
    return node.get(key) if isinstance(node, dict) else None


class Step(NamedTuple):
    """One change of a change set: a card's knob set to ``value`` (from the base version's number)."""
    card: str
    knob: str
    value: int


def knobs_of(schema) -> dict[str, Knob]:
    """The game's knobs by name; an empty mapping when the game names none."""
    return {k.name: k for k in getattr(schema, "tune_knobs", ())}


def raw_card(card) -> dict:
    """A card's data as its file would write it (aliases, defaults left out), the loader's form."""
    return card.model_dump(by_alias=True, exclude_defaults=True)


def apply(raw_cards: dict[str, dict], knobs: dict[str, Knob], steps) -> dict[str, dict]:
    """Each changed card's data after the steps (``raw_cards``: card id -> data, unchanged)."""
    out: dict[str, dict] = {}
    for s in steps:
        out[s.card] = knobs[s.knob].set(out.get(s.card, raw_cards[s.card]), s.value)
    return out


def patch(raw_cards: dict[str, dict], knobs: dict[str, Knob], steps) -> dict[str, dict]:
    """The rules version's ``patch:`` for the steps: per card, the top-level fields that differ
    from its data (a mapping or list whole), cards and fields in order."""
    changed = apply(raw_cards, knobs, steps)
    return {card: {key: new[key] for key in sorted(new) if new[key] != raw_cards[card].get(key)}
            for card, new in sorted(changed.items())}
