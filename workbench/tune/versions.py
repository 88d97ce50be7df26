"""The starting version of a tune, the candidate versions it tries, and the proposal's file.

A candidate is a rules version that ``extends`` the starting one with a ``patch`` of card numbers
(cardsdb/tune.py). It is resolved by the same loader as a file (``cardsdb.loader.resolve``: every
card validated, every number bounded) but lives only in memory, under a name hashed from its
content (``tune-<hash>``), so the same candidate always gets the same runs and a finished one is
reused. Only the proposal is written, and only after it resolved to exactly what was measured."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from cardsdb.budget import surplus
from cardsdb.errors import DataError, DataErrors
from cardsdb.loader import GameData, Ruleset, check_deck, load_ruleset, resolve
from cardsdb.models import RulesFile
from cardsdb.tune import PREFIX as TUNE_PREFIX
from cardsdb.tune import Knob, Step, knobs_of, patch, raw_card
from cardsdb.yamlfile import read_yaml
from workbench import games
from workbench.errors import UserError


@dataclass
class Start:
    """The starting version and what the search needs to know about it."""
    game: str
    version: str
    data: GameData
    ruleset: Ruleset
    deck_ids: list[str]
    knobs: dict[str, Knob]
    raw: dict[str, dict] = field(default_factory=dict)        # card id -> data as a file writes it
    holds: dict[str, set[str]] = field(default_factory=dict)  # deck id -> every card it can bring into play

    def holders(self, card: str) -> list[str]:
        return [d for d in self.deck_ids if card in self.holds[d]]

    def base_value(self, card: str, knob: str) -> int:
        return self.knobs[knob].value(self.raw[card])


def start(game: str, version: str, deck_ids: list[str] | None, data_dir) -> Start:
    """The starting version, its decks (checked) and the game's knobs; one-line errors."""
    data, ruleset = games.load(game, version, data_dir)
    knobs = knobs_of(data.schema)
    if not knobs:
        raise UserError(f"{game} names no numbers tune may change (its schema has no tune_knobs)")
    decks = games.decks_for(data, ruleset, deck_ids)
    ids = [d.id for d in decks]
    if len(set(ids)) < 2:
        raise UserError("tune balances decks against each other: name at least two different decks")
    if len(set(ids)) != len(ids):
        raise UserError(f"--decks names a deck twice ({', '.join(ids)})")
    raw = {cid: raw_card(c) for cid, c in ruleset.cards.items()}
    return Start(game, version, data, ruleset, ids, knobs, raw, {d.id: reachable(d, raw) for d in decks})


def reachable(deck, raw: dict[str, dict]) -> set[str]:
    """The cards a deck can bring into play: its list, the cards beside it (``side_cards``: a
    game's Deputies, leader, strongholds), and every card those name (a promotion, a token),
    followed to the end."""
    found = set(deck.cards) | set(deck.side_cards())
    todo = list(found)
    while todo:
        for text in _strings(raw.get(todo.pop(), {})):
            if text in raw and text not in found:
                found.add(text)
                todo.append(text)
    return found


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def normal(steps) -> tuple[Step, ...]:
    """A change set in its one order (card, knob)."""
    return tuple(sorted(steps))


def name_of(s: Start, steps) -> str:
    """A candidate's version name: hashed from the starting version's content and the patch."""
    text = json.dumps([s.ruleset.hash, [list(x) for x in normal(steps)]], sort_keys=True)
    return TUNE_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:12]


def document(s: Start, steps, name: str, description: str = "") -> dict:
    """The rules file of a change set, as a mapping."""
    doc = {"version": name, "extends": s.version}
    if description:
        doc["description"] = description
    doc["patch"] = patch(s.raw, s.knobs, normal(steps))
    return doc


def resolved(s: Start, steps, name: str | None = None, description: str = "") -> tuple[GameData, Ruleset]:
    """The candidate version resolved by the loader (in memory; nothing is written)."""
    name = name or name_of(s, steps)
    rules = RulesFile.model_validate(document(s, steps, name, description))
    data = replace(s.data, rules={**s.data.rules, name: rules},
                   rules_files={**s.data.rules_files, name: s.data.root / "rules" / f"{name}.yaml"})
    try:
        ruleset = resolve(data, name)
        for deck in s.deck_ids:
            check_deck(data, ruleset, deck)
    except (DataError, DataErrors) as exc:  # a knob's bounds keep this from happening; say so if it does
        raise UserError(f"candidate {describe(s, steps)} is not a valid version: {exc}") from None
    return data, ruleset


def describe(s: Start, steps) -> str:
    return ", ".join(f"{x.card} {x.knob} {s.base_value(x.card, x.knob)} -> {x.value}" for x in normal(steps)) or "no change"


def card_surplus(s: Start, ruleset: Ruleset, card: str) -> float:
    return surplus(s.data.schema, ruleset.cards[card], ruleset.constants)


def check_new_name(s: Start, name: str, option: str = "--as") -> Path:
    """Where the proposal will go, checked before anything is played: a valid name, not taken."""
    from workbench.commands.cards import check_version_name

    check_version_name(name)
    target = s.data.root / "rules" / f"{name}.yaml"
    if name in s.data.rules or target.exists():
        raise UserError(f"{option} {name}: rules version {name!r} already exists ({target}); choose another name")
    return target


def write(s: Start, steps, name: str, description: str, measured_hash: str) -> Path:
    """Write the proposal as ``rules/<name>.yaml``: the text is read back through the safe YAML
    reader and resolved by the loader first, and must come to the content hash that was measured;
    then it is put in place in one rename, and the game's data is loaded once more from disk."""
    target = check_new_name(s, name)
    text = yaml.safe_dump(document(s, steps, name, description), sort_keys=False, allow_unicode=True, width=100)
    tmp = target.with_name(f".{target.name}.part")
    try:
        tmp.write_text(text, encoding="utf-8")
        doc = read_yaml(tmp, str(tmp))
        if doc != document(s, steps, name, description):
            raise UserError(f"{target}: the written text does not read back as the proposal")
        _data, ruleset = resolved(s, steps, name, description)
        if ruleset.hash != measured_hash:
            raise UserError(f"{target}: the proposal resolves to hash {ruleset.hash}, not the {measured_hash} measured")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    try:
        _data, again = load_ruleset(s.game, name, s.data.root.parent)
    except (DataError, DataErrors):
        target.unlink(missing_ok=True)
        raise
    if again.hash != measured_hash:
        target.unlink(missing_ok=True)
        raise UserError(f"{target}: read back with hash {again.hash}, not the {measured_hash} measured; removed")
    return target


def pilots_text(pilots: list[str], decks: list[str] | None = None) -> str:
    """``pilots greedy`` (one per deck: ``pilots greedy,random,...``, as the store names them; given
    the ``decks`` they play, each pilot beside its deck: ``pilots greedy (lawmen-posse), random
    (goblin-gold-gang)``)."""
    if decks and len(set(pilots)) > 1 and len(pilots) == len(decks):
        return "pilots " + ", ".join(f"{p} ({d})" for p, d in zip(pilots, decks))
    return f"pilots {','.join(pilots)}"
