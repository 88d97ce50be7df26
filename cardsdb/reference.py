"""Reference cards: what `workbench value` puts in a measured card's place.

Each game declares, in ``cardsdb/<game>/reference.yaml``, a list of reference cards: vanilla cards
on the game's stat budget (no keywords, no abilities), defined like any other card under
``cards/``. A card's reference is the one of the same type (when the game declares references of
that type) whose budget cost is nearest to the card's; a tie goes to the cheaper. The game's
RULES.md says why its references are what they are. A designer can name another with
``--reference``.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from cardsdb.errors import DataError
from cardsdb.registry import DATA_ROOT


def reference_file(game: str, root: Path | None = None) -> Path:
    return (root or DATA_ROOT) / game / "reference.yaml"


def reference_ids(game: str, root: Path | None = None) -> list[str]:
    """The game's declared reference card ids (DataError naming the file when it is malformed)."""
    path = reference_file(game, root)
    if not path.exists():
        raise DataError(path, "the game declares no reference cards (this file is missing)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise DataError(path, f"not valid YAML: {exc}") from None
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise DataError(path, "must be a non-empty list of card ids", field="cards")
    return cards


def reference_for(ruleset, card_id: str, references: list[str]) -> str:
    """The reference card standing in for ``card_id`` under this rules version."""
    sch, consts = ruleset.schema, ruleset.constants
    known = [r for r in references if r in ruleset.cards]
    if not known:
        raise DataError(None, f"none of the reference cards is in rules version {ruleset.version!r}",
                        card=card_id, field="reference")
    card = ruleset.cards[card_id]
    summary = sch.card_summary(card, consts)
    same_type = [r for r in known if sch.card_summary(ruleset.cards[r], consts)["type"] == summary["type"]]
    candidates = same_type or known
    cost = summary["budget_cost"] or 0.0

    def distance(ref: str) -> tuple:
        ref_cost = sch.card_summary(ruleset.cards[ref], consts)["budget_cost"] or 0.0
        return abs(ref_cost - cost), ref_cost, ref

    return min(candidates, key=distance)
