"""A what-if: one card's fields changed, kept as a new rules version of a designer's workspace.

``write_trial`` turns a few edited fields (dotted names: ``atk``, ``cost.mana``,
``keywords.fortify``) into ``rules/try-<card>-<hash>.yaml``: it extends the version the edits were
made against and patches that card only. The file is written, then read back by the same loader
every command uses (``load_ruleset``) and the decks to be played are checked against it; on any
problem the file is removed again and the DataError (one line naming file, card and field) is
raised. The shipped data is never written to. The name hashes the base version and the patch, so
the same change asked twice is the same file."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cardsdb.errors import DataError, DataErrors
from cardsdb.workspace import data_root, is_shipped

PREFIX = "try-"
SHIPPED = ("the dashboard reads the shipped card data, which is never written to: make a workspace with "
           "`workbench init DIR`, then start the dashboard on it with `workbench dashboard --data DIR`")


@dataclass(frozen=True)
class Trial:
    """A what-if rules version on disk, checked."""
    game: str
    base: str
    version: str
    card: str
    path: Path
    patch: dict          # the card's patch as written
    changes: list[dict]  # field, base, candidate (against the workspace's base version)
    hash: str            # the new version's content hash
    base_hash: str       # the base version's, as the workspace holds it now
    created: bool        # False: the same change had been written before


def trial_name(card: str, base: str, patch: dict) -> str:
    digest = hashlib.sha256(json.dumps({"base": base, "card": card, "patch": patch}, sort_keys=True)
                            .encode()).hexdigest()[:6]
    return f"{PREFIX}{card}-{digest}"


def card_patch(card, edits: dict[str, Any], file: str) -> tuple[dict, list[dict]]:
    """The patch that makes ``card`` (a validated Card) carry ``edits``, and the changes it makes.
    A keyword is written as the card's whole keyword mapping (the loader replaces keywords whole),
    without the defaults; other mappings (a cost) as their changed entries."""
    raw = card.model_dump(by_alias=True, mode="json")
    patch: dict[str, Any] = {}
    changes: list[dict] = []
    keywords = getattr(card, "keywords", None)
    written = keywords.model_dump(by_alias=True, mode="json", exclude_defaults=True) if keywords is not None else {}
    new_keywords = dict(written)
    for path, value in edits.items():
        head, _, sub = path.partition(".")
        if head == "keywords" and keywords is not None and sub:
            fields = {f.alias or name: f for name, f in type(keywords).model_fields.items()}
            if sub not in fields:
                raise DataError(file, f"unknown keyword {sub!r}", card=card.id, field=path)
            old = raw["keywords"].get(sub)
            if value == fields[sub].default:
                new_keywords.pop(sub, None)
            else:
                new_keywords[sub] = value
        else:
            where = raw.get(head) if sub else raw
            key = sub or head
            if not isinstance(where, dict) or key not in where:
                raise DataError(file, "no such field on this card", card=card.id, field=path)
            old = where[key]
            if value != old:
                (patch.setdefault(head, {}) if sub else patch)[key] = value
        if value != old:
            changes.append({"field": sub if head == "keywords" else path, "base": old, "candidate": value})
    if new_keywords != written:
        patch["keywords"] = new_keywords
    return patch, changes


def write_trial(game: str, base: str, card: str, edits: dict[str, Any], decks: list[str] | tuple = (),
                data_dir: str | Path | None = None) -> Trial:
    """Write and check the what-if version (see the module's docstring); raises DataError or
    DataErrors, having removed what it wrote."""
    from cardsdb.loader import check_deck, load_ruleset  # here: the dashboard imports this module to render

    if is_shipped(data_root(data_dir)):
        raise DataError(None, SHIPPED)
    data, ruleset = load_ruleset(game, base, data_dir)
    base_file = str(data.rules_files[base])
    if card not in ruleset.cards:
        raise DataError(base_file, f"rules version {base!r} has no such card", card=card)
    patch, changes = card_patch(ruleset.cards[card], edits, base_file)
    if not patch:
        raise DataError(None, "nothing to try: change a number or a keyword first", card=card)
    name = trial_name(card, base, patch)
    what = ", ".join(f"{c['field']} {c['base']} -> {c['candidate']}" for c in changes)
    doc = {"version": name, "extends": base,
           "description": f"What-if from the dashboard: {card} {what} (against {base})",
           "patch": {card: patch}}
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    target = data.root / "rules" / f"{name}.yaml"
    created = not target.exists()
    if not created and target.read_text(encoding="utf-8") != text:
        raise DataError(target, "already exists with other content (edited by hand?): rename or remove it first")
    if created:
        tmp = target.with_name(f".{target.name}.part")  # not *.yaml: the loader never reads it
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    try:
        trial_data, trial = load_ruleset(game, name, data_dir)
        for deck in decks:
            check_deck(trial_data, trial, deck)
    except (DataError, DataErrors):
        if created:
            target.unlink(missing_ok=True)
        raise
    return Trial(game, base, name, card, target, patch, changes, trial.hash, ruleset.hash, created)


def problem_line(exc: DataError | DataErrors) -> str:
    """One line for the designer: the first problem, and how many more there are."""
    if isinstance(exc, DataErrors):
        more = len(exc.errors) - 1
        return exc.errors[0].line() + (f" (and {more} more)" if more > 0 else "")
    return exc.line()
