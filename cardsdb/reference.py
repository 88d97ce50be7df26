"""Reference cards: what `workbench value` puts in a measured card's place.

Each game declares, in ``cardsdb/<game>/reference.yaml``, a list of reference cards: vanilla cards
on the game's stat budget (no keywords, no abilities), defined like any other card under
``cards/``. A card's reference is chosen in three steps:

1. the same type: the references of the card's type, when the game declares any (else all);
2. the same faction: of those, the references of the card's faction (the schema's
   ``card_summary(...)["faction"]``), when there are any (else all of step 1);
3. the nearest cost: of those, the one whose budget cost is nearest to the card's; a tie goes to
   the cheaper, then to the first id in sort order.

A game whose references share one faction (or whose engine reads no faction) gets the plain
"same type, nearest cost" rule; a game where a faction changes how a card plays declares a set per
faction, so the reference keeps what the faction gives the card. The game's RULES.md says why its
references are what they are. A designer can name another with ``--reference``.
"""
from __future__ import annotations

from pathlib import Path

from cardsdb.errors import DataError
from cardsdb.workspace import data_root
from cardsdb.yamlfile import read_yaml


def reference_file(game: str, root: Path | None = None) -> Path:
    return data_root(root) / game / "reference.yaml"


def reference_ids(game: str, root: Path | None = None) -> list[str]:
    """The game's declared reference card ids (DataError naming the file when it is malformed)."""
    path = reference_file(game, root)
    if not path.exists():
        raise DataError(path, "the game declares no reference cards (this file is missing)")
    data = read_yaml(path) or {}
    cards = data.get("cards") if isinstance(data, dict) else None
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise DataError(path, "must be a non-empty list of card ids", field="cards")
    return cards


def reference_for(ruleset, card_id: str, references: list[str]) -> str:
    """The reference card standing in for ``card_id`` under this rules version: the same type if
    any, then the same faction if any, then the nearest budget cost (a tie: the cheaper, then the
    first id)."""
    sch, consts = ruleset.schema, ruleset.constants
    known = [r for r in references if r in ruleset.cards]
    if not known:
        raise DataError(None, f"none of the reference cards is in rules version {ruleset.version!r}",
                        card=card_id, field="reference")
    summary = sch.card_summary(ruleset.cards[card_id], consts)
    refs = {r: sch.card_summary(ruleset.cards[r], consts) for r in known}
    candidates = [r for r in known if refs[r]["type"] == summary["type"]] or known
    candidates = [r for r in candidates if refs[r].get("faction") == summary.get("faction")] or candidates
    cost = summary["budget_cost"] or 0.0

    def distance(ref: str) -> tuple:
        ref_cost = refs[ref]["budget_cost"] or 0.0
        return abs(ref_cost - cost), ref_cost, ref

    return min(candidates, key=distance)
