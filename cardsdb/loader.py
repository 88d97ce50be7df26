"""Read a game's YAML: card files, deck files, rules versions; resolve a version into its
effective cards and constants with a content hash. Every problem becomes a DataError that names
the file, the card and the field."""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardsdb.bounds import max_number, number_problem
from cardsdb.errors import DataError, DataErrors, from_validation
from cardsdb.models import FactionsFile, RulesFile, ScenarioFile
from cardsdb.reference import reference_file, reference_ids
from cardsdb.registry import DATA_ROOT, GAMES
from cardsdb.registry import schema as game_schema
from cardsdb.workspace import data_root, is_shipped
from cardsdb.yamlfile import read_yaml


@dataclass
class GameData:
    """Everything on disk for one game, validated file by file (not yet resolved)."""
    game: str
    root: Path
    schema: Any
    cards: dict[str, Any] = field(default_factory=dict)          # id -> Card
    card_files: dict[str, Path] = field(default_factory=dict)    # id -> file
    decks: dict[str, Any] = field(default_factory=dict)          # id -> Deck
    deck_files: dict[str, Path] = field(default_factory=dict)
    rules: dict[str, RulesFile] = field(default_factory=dict)    # version -> file model
    rules_files: dict[str, Path] = field(default_factory=dict)
    bosses: dict[str, Any] = field(default_factory=dict)         # id -> Boss (a game with bosses)
    boss_files: dict[str, Path] = field(default_factory=dict)
    factions: dict[str, str] = field(default_factory=dict)       # faction (or clan) id -> display name
    factions_file: Path | None = None
    errors: list[DataError] = field(default_factory=list)


@dataclass
class Ruleset:
    """A rules version resolved: its constants and effective cards, and their content hash."""
    game: str
    version: str
    chain: list[str]
    constants: Any
    cards: dict[str, Any]  # id -> Card, in id order
    hash: str
    schema: Any = field(repr=False)
    # a game's bosses (AlleyWay's Turf Defense: cardsdb/<game>/bosses/*.yaml), id -> Boss, checked
    # against this version's cards; the hash covers them when there are any
    bosses: dict[str, Any] = field(default_factory=dict)
    # faction (or clan) id -> display name (factions.yaml); for reading only, so not in the hash:
    # renaming a faction must not make a version's stored runs look like another version's
    factions: dict[str, str] = field(default_factory=dict)

    def to_payload(self) -> dict:
        """A plain, picklable form (what worker processes receive)."""
        payload = {"game": self.game, "version": self.version, "chain": self.chain, "hash": self.hash,
                   "constants": self.constants.model_dump(),
                   "cards": [c.model_dump(by_alias=True) for c in self.cards.values()], "factions": self.factions}
        if self.bosses:
            payload["bosses"] = [b.model_dump(by_alias=True) for b in self.bosses.values()]
        return payload

    @classmethod
    def from_payload(cls, payload: dict) -> "Ruleset":
        sch = game_schema(payload["game"])
        cards = {c["id"]: sch.Card.model_validate(c) for c in payload["cards"]}
        bosses = {b["id"]: sch.Boss.model_validate(b) for b in payload.get("bosses", ())}
        return cls(payload["game"], payload["version"], payload["chain"],
                   sch.Constants.model_validate(payload["constants"]), cards, payload["hash"], sch, bosses,
                   dict(payload.get("factions") or {}))


def game_root(game: str, data_dir: str | Path | None = None) -> Path:
    if game not in GAMES:
        raise DataError(None, f"unknown game {game!r} (known: {', '.join(GAMES)})")
    root = data_root(data_dir) / game
    if not root.is_dir() and not is_shipped(root.parent) and root.parent.is_dir():
        raise DataError(root.parent, f"this data folder has no {game} folder (add it with: workbench init "
                        f"{_rel(root.parent)} --game {game})")
    return root


def _rel(path: Path) -> str:
    """A path as a designer would type it: relative to the working folder when inside it. A
    symbolic link is named as itself, not by where it points (an editor's lock link points at
    ``user@host.pid``, which names no file of the data)."""
    path = Path(path)
    try:
        full = path.parent.resolve() / path.name if path.is_symlink() else path.resolve()
        return str(full.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# the names a data file may end with: a designer's new-cards.yml is read like new-cards.yaml (it
# was passed over without a word, and the decks naming its cards said "unknown card")
DATA_SUFFIXES = (".yaml", ".yml")


def data_files(folder: Path) -> list[Path]:
    """The YAML files of a data folder, in name order: ``*.yaml`` and ``*.yml``. A hidden name
    (``.#humans.yaml``, an Emacs lock link; ``.humans.yaml.swp``; a writer's ``.v2.yaml.part``) is
    an editor's or a writer's, not data, and is passed over without a word. A link whose file is
    gone is kept: reading it says so, naming the link (a file of cards that silently vanished
    would show up as "unknown card" in every deck that names one)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if not p.name.startswith(".") and p.suffix in DATA_SUFFIXES and p.stem)


def _named_files(data: GameData, folder: str, what: str) -> list[Path]:
    """``data_files`` of a folder whose files are named by what they hold (a rules version, a
    deck, a boss): of ``x.yaml`` and ``x.yml`` the second is an error (they would name one thing
    twice) and is not read."""
    out: dict[str, Path] = {}
    for path in data_files(data.root / folder):
        if path.stem in out:
            label = "rules version" if what == "rules" else what
            data.errors.append(DataError(_rel(path), f"{_rel(out[path.stem])} has the same name: both would be "
                                         f"{label} {path.stem!r}; keep one of the two"))
            continue
        out[path.stem] = path
    return list(out.values())


def load_game(game: str, data_dir: str | Path | None = None) -> GameData:
    """Read and validate every card, deck and rules file. Problems are collected in
    ``data.errors`` (not raised), so ``cards validate`` can show them all."""
    root = game_root(game, data_dir)
    if not root.is_dir():
        raise DataError(root, "no such game data folder")
    data = GameData(game, root, game_schema(game))
    _load_factions(data)
    _load_cards(data)
    _load_decks(data)
    _load_rules(data)
    _load_bosses(data)
    return data


def _load_cards(data: GameData) -> None:
    for path in data_files(data.root / "cards"):
        name = _rel(path)
        try:
            doc = read_yaml(path, name)
        except DataError as err:
            data.errors.append(err)
            continue
        if doc is None:  # its cards would vanish without a word (decks then name them as unknown)
            data.errors.append(DataError(name, "the file is empty: a card file is a YAML list of cards (write [] "
                                               "for a file that holds none)"))
            continue
        if not isinstance(doc, list):
            data.errors.append(DataError(name, "a card file is a YAML list of cards"))
            continue
        for i, raw in enumerate(doc):
            card_id = raw.get("id") if isinstance(raw, dict) else None
            label = card_id or f"#{i + 1}"
            if not isinstance(raw, dict):
                data.errors.append(DataError(name, "each card is a mapping of fields", card=label))
                continue
            try:
                card = data.schema.Card.model_validate(raw)
                check_numbers(data.schema, card, name, card=card.id)
            except ValidationError as exc:
                data.errors.extend(from_validation(name, exc, card=label, raw=raw))
                continue
            except DataError as err:
                data.errors.append(err)
                continue
            unnamed = faction_problem(data, card)
            if unnamed:
                data.errors.append(DataError(name, unnamed, card=card.id, field=data.schema.faction_field))
                continue
            if card.id in data.cards:
                data.errors.append(DataError(name, f"duplicate card id, first defined in "
                                             f"{_rel(data.card_files[card.id])}", card=card.id, field="id"))
                continue
            data.cards[card.id] = card
            data.card_files[card.id] = path


FACTIONS_FILE = "factions.yaml"


def _load_factions(data: GameData) -> None:
    """``factions.yaml``: the display name of each faction (or clan) id. A workspace made before
    the file existed reads the shipped one (its ids are the schema's, so the names still fit); a
    game with neither has no names, and its pages show the ids."""
    path = data.root / FACTIONS_FILE
    if not path.exists():
        path = DATA_ROOT / data.game / FACTIONS_FILE
    if not path.exists():
        return
    name = _rel(path)
    try:
        doc = read_yaml(path, name)
        if not isinstance(doc, dict):
            raise DataError(name, "a factions file is a YAML mapping: factions: {id: name}")
        data.factions = dict(FactionsFile.model_validate(doc).factions)
        data.factions_file = path
    except DataError as err:
        data.errors.append(err)
    except ValidationError as exc:
        data.errors.extend(from_validation(name, exc))


def faction_problem(data: GameData, card) -> str | None:
    """Why the card's faction (or clan) has no name, or None (also when the game has no table)."""
    faction = getattr(card, data.schema.faction_field)
    if data.factions_file is None or faction in data.factions:
        return None
    return f"{faction!r} is not in {_rel(data.factions_file)} (add it there with its name)"


def check_numbers(schema, model, file, card: str | None = None, prefix: str = "") -> None:
    """DataError when a number of a validated model is past what the game allows."""
    problem = number_problem(model, max_number(schema))
    if problem:
        raise DataError(file, f"{prefix}{problem}", card=card)


def _mapping_files(data: GameData, folder: str, model, what: str):
    """(path, shown name, validated model) of each YAML mapping file in a folder, one file per
    name (``_named_files``); problems go to ``data.errors``."""
    for path in _named_files(data, folder, what):
        name = _rel(path)
        try:
            doc = read_yaml(path, name)
            if not isinstance(doc, dict):
                raise DataError(name, f"a {what} file is a YAML mapping")
            validated = model.model_validate(doc)
            check_numbers(data.schema, validated, name)
            yield path, name, validated
        except DataError as err:
            data.errors.append(err)
        except ValidationError as exc:
            data.errors.extend(from_validation(name, exc))


def _load_decks(data: GameData) -> None:
    """One deck a file, its id the file's name (as a rules version's and a boss's): a deck file
    copied and renamed keeps the id it was copied with, and the copy is the file at fault."""
    stems = {p.stem: p for p in data_files(data.root / "decks")}
    for path, name, deck in _mapping_files(data, "decks", data.schema.Deck, "deck"):
        if deck.id != path.stem:
            owner = stems.get(deck.id)
            if owner is not None:
                message = (f"duplicate deck id: {_rel(owner)} has it (a copied deck file keeps the id it was "
                           f"copied with: give this one its own, {path.stem!r}, its file's name)")
            else:
                message = f"id {deck.id!r} must match the file name {path.stem!r}"
            data.errors.append(DataError(name, message, card=deck.id, field="id", kind="deck"))
            continue
        # one file per name (_named_files) and its name the id: no id comes twice
        data.decks[deck.id] = deck
        data.deck_files[deck.id] = path


def _load_bosses(data: GameData) -> None:
    """``bosses/*.yaml`` of a game whose schema has a ``Boss`` (AlleyWay): one boss a file, its
    id the file's name. An error names the file, the boss and the field."""
    if not hasattr(data.schema, "Boss"):
        return
    for path in _named_files(data, "bosses", "boss"):
        name = _rel(path)
        try:
            doc = read_yaml(path, name)
        except DataError as err:
            data.errors.append(err)
            continue
        if not isinstance(doc, dict):
            data.errors.append(DataError(name, "a boss file is a YAML mapping"))
            continue
        label = doc.get("id") if isinstance(doc.get("id"), str) else path.stem
        try:
            boss = data.schema.Boss.model_validate(doc)
            check_numbers(data.schema, boss, name, card=label)
        except ValidationError as exc:
            data.errors.extend(from_validation(name, exc, card=label, raw=doc, kind="boss"))
            continue
        except DataError as err:
            err.kind = "boss"
            data.errors.append(err)
            continue
        if boss.id != path.stem:
            data.errors.append(DataError(name, f"id {boss.id!r} must match the file name {path.stem!r}",
                                         card=boss.id, field="id", kind="boss"))
            continue
        data.bosses[boss.id] = boss
        data.boss_files[boss.id] = path


def check_bosses(data: GameData, cards: dict, consts, chain: list[str] | None = None) -> dict:
    """The game's bosses checked against a version's cards and constants (raises DataErrors).
    With the version's ``chain`` of rules versions, a problem its root version (base) does not
    have is the doing of a version of the chain, and the line names that version's file and what
    in it the boss runs into: ``rules/hp.yaml (constants.starting_morale 20000) leaves
    bosses/iron-curtain.yaml: boss 'iron-curtain': field 'morale': ...``."""
    problems = _boss_problems(data, cards, consts)
    if not problems:
        return dict(data.bosses)
    causes: dict[tuple, str] = {}
    if chain and len(chain) > 1:
        causes = _boss_causes(data, chain, problems)
    errors = []
    for key in problems:
        boss_id, card, fld, msg = key
        what = f"{msg} ({card})" if card else msg
        errors.append(DataError(_rel(data.boss_files[boss_id]), what, card=boss_id, field=fld, kind="boss",
                                cause=causes.get(key)))
    raise DataErrors(errors)


def _boss_problems(data: GameData, cards: dict, consts) -> list[tuple[str, str | None, str, str]]:
    """(boss, card, field, message) for each way a boss breaks a version's cards and constants."""
    return [(boss_id, card, fld, msg) for boss_id, boss in data.bosses.items()
            for card, fld, msg in data.schema.check_boss(boss, cards, consts)]


def _boss_causes(data: GameData, chain: list[str], problems: list[tuple]) -> dict[tuple, str]:
    """For each boss problem of the last version of ``chain`` that its root version does not have:
    the file of the first version of the chain that has it, and what in that file the boss runs
    into. A problem the root has too is the boss file's own (no cause)."""
    where = {(b, c, f): None for b, c, f, _m in problems}  # (boss, card, field) -> first version having it
    for v in chain[:-1]:
        try:
            _c, cards, consts = _effective(data, v)
        except DataError:  # (a version a later one repairs: it says nothing about the bosses)
            continue
        for b, c, f, _m in _boss_problems(data, cards, consts):
            if (b, c, f) in where and where[(b, c, f)] is None:
                where[(b, c, f)] = v
    causes = {}
    for key in problems:
        boss_id, card, fld, msg = key
        first = where[(boss_id, card, fld)] or chain[-1]
        if first == chain[0]:
            continue  # the root version has it: the boss file is at fault
        causes[key] = _what_in(data, first, data.bosses[boss_id], card, msg)
    return causes


def _what_in(data: GameData, version: str, boss, card: str | None, msg: str) -> str:
    """A rules version's file and, in brackets, its changes a boss problem runs into: the
    constants the problem's words name, and its remove/add/patch of the problem's card (else of
    any card the boss names)."""
    rules = data.rules[version]
    words = set(re.findall(r"[A-Za-z0-9_-]+", msg))
    changes = ([f"constants.{k} {v}" for k, v in rules.constants.items() if str(k) in words])
    ops = ([("remove", c) for c in rules.remove] + [("add", a.get("id")) for a in rules.add]
           + [("patch", c) for c in rules.patch])
    named = {card} | words
    used = {boss.leader, boss.prize} | set(boss.deck.cards) | set(boss.deck.hideout)
    touched = [f"{op} {c}" for op, c in ops if c in named] or [f"{op} {c}" for op, c in ops if c in used]
    changes += touched
    if not changes:
        changes = [f"constants.{k} {v}" for k, v in rules.constants.items()]
    name = _rel(data.rules_files[version])
    return f"{name} ({', '.join(changes)})" if changes else name


def _load_rules(data: GameData) -> None:
    for path, name, rules in _mapping_files(data, "rules", RulesFile, "rules"):
        if rules.version != path.stem:
            data.errors.append(DataError(name, f"version {rules.version!r} must match the file name "
                                         f"{path.stem!r}", field="version"))
            continue
        data.rules[rules.version] = rules
        data.rules_files[rules.version] = path


def resolve(data: GameData, version: str) -> Ruleset:
    """The effective cards and constants of a rules version (raises DataError; DataErrors for the
    game's bosses, ``check_bosses``). A problem of the result is blamed on the file of the chain
    that set what is wrong (a parent's ``starting_hp: 0`` names the parent's file, not the
    child's), saying which version was being resolved."""
    chain, out, consts = _effective(data, version)
    bosses = check_bosses(data, out, consts, chain) if data.bosses else {}
    return Ruleset(data.game, version, chain, consts, out, _content_hash(consts, out, bosses), data.schema, bosses,
                   dict(data.factions))


def _effective(data: GameData, version: str) -> tuple[list[str], dict[str, Any], Any]:
    """A rules version's chain, cards and constants, validated (the bosses are not checked)."""
    chain = _chain(data, version)
    cards: dict[str, dict] = {cid: c.model_dump(by_alias=True, exclude_defaults=True)
                              for cid, c in data.cards.items()}
    constants: dict[str, Any] = {}
    # what each file of the chain set, in chain order: (file, its changes); a card's entries are
    # its add and its patches
    set_constants: list[tuple[str, dict]] = []
    set_cards: dict[str, list[tuple[str, dict]]] = {}
    removed: dict[str, str] = {}  # card id -> the rules file that removed it
    for v in chain:
        rules, name = data.rules[v], _rel(data.rules_files[v])
        via = None if v == version else version  # a parent's mistake names the version resolved too
        # key by key, nested mappings too: `formations: {descendants: {...}}` changes Shield Wall and
        # keeps Blood Crescent, `copy_limits: {1: 4}` the 1-star limit alone (a whole-mapping
        # replace silently dropped the rest)
        constants = _merge(constants, rules.constants)
        if rules.constants:
            set_constants.append((name, rules.constants))
        for cid in rules.remove:
            if cid not in cards:
                raise DataError(name, "cannot remove a card that is not in the version it extends",
                                card=cid, field="remove", via=via)
            del cards[cid]
            set_cards.pop(cid, None)
            removed[cid] = name
        for raw in rules.add:
            cid = raw.get("id")
            if cid in cards:
                raise DataError(name, "added card already exists (patch it instead)", card=cid, field="add",
                                via=via)
            cards[cid] = dict(raw)
            set_cards[cid] = [(name, raw)]
            removed.pop(cid, None)
        for cid, changes in rules.patch.items():
            if cid not in cards:
                raise DataError(name, "cannot patch an unknown card", card=cid, field="patch", via=via)
            cards[cid] = _merge(cards[cid], changes)
            set_cards.setdefault(cid, []).append((name, changes))
    last = _rel(data.rules_files[chain[-1]])

    def blame(err: DataError, setters: list[tuple[str, dict]], path: str | None, fallback: str) -> DataError:
        err.file = _setter(setters, path) or fallback
        if err.file != last:
            err.via = version
        return err

    out = {}
    limit = max_number(data.schema)
    for cid in sorted(cards):
        setters = set_cards.get(cid, [])
        touched = setters[-1][0] if setters else last  # the last file that added or patched the card
        try:
            out[cid] = data.schema.Card.model_validate(cards[cid])
        except ValidationError as exc:
            err = from_validation(last, exc, card=cid, raw=cards[cid])[0]
            raise blame(err, setters, err.field, touched) from None
        problem = number_problem(out[cid], limit)
        if problem:
            raise blame(DataError(last, problem, card=cid), setters, problem.split(" ", 1)[0], touched)
        unnamed = faction_problem(data, out[cid])  # an added or patched card's faction
        if unnamed:
            raise blame(DataError(last, unnamed, card=cid, field=data.schema.faction_field), setters,
                        data.schema.faction_field, touched)
    _check_references(data, out, set_cards, removed, blame, last)
    # a cross-check of constants (no one field) names the last file that set a constant it names,
    # else the last that set any
    some = set_constants[-1][0] if set_constants else last
    try:
        consts = data.schema.Constants.model_validate(constants)
    except ValidationError as exc:
        err = from_validation(last, exc, prefix="constants")[0]
        path = err.field.removeprefix("constants").removeprefix(".") if err.field else ""
        fallback = _setter(set_constants, path or None, mentioned=err.message) or some
        raise blame(err, set_constants, path or None, fallback) from None
    problem = number_problem(consts, limit)
    if problem:
        raise blame(DataError(last, f"constants.{problem}"), set_constants, problem.split(" ", 1)[0], some)
    return chain, out, consts


def _check_references(data: GameData, cards: dict, set_cards: dict, removed: dict, blame, last: str) -> None:
    """Every card a card names (a token, a search's card, a next level: the schema's
    ``card_references``) is in the version; a rules version that removes a card others name is
    refused here too, naming the card that names it."""
    references = getattr(data.schema, "card_references", None)
    if references is None:
        return
    for cid in sorted(cards):
        for path, ref in references(cards[cid]):
            if ref in removed:  # the version took away a card another still names
                raise blame(DataError(last, f"cannot remove a card that {cid!r} names ({path})", card=ref,
                                      field="remove"), [], None, removed[ref])
            if ref not in cards:
                setters = set_cards.get(cid, [])
                # no rules file set the field: the file the card comes from (a card file, or the
                # rules file that added it) wrote it
                added = setters and "id" in setters[0][1]
                origin = setters[0][0] if added else _rel(data.card_files[cid]) if cid in data.card_files else last
                raise blame(DataError(last, f"names card {ref!r}, which is not in this rules version",
                                      card=cid, field=path), setters, path, origin)


def _setter(setters: list[tuple[str, dict]], path: str | None, mentioned: str | None = None) -> str | None:
    """The file of ``setters`` ((file, changes) in chain order) that last set the field at the
    dotted ``path`` (``abilities.0.do.0.amount``: a file that set ``abilities`` set it), or None.
    With ``mentioned`` instead of a path: the last file that set a top-level field whose name
    appears in that text as a word (a cross-check's message)."""
    if path is None:
        if not mentioned:
            return None
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", mentioned))
        return next((f for f, changes in reversed(setters) if words & {str(k) for k in changes}), None)
    parts = path.split(".")
    for file, changes in reversed(setters):
        node: Any = changes
        for part in parts:
            if not isinstance(node, dict):
                break  # this file set the whole of what holds the field (a list, a value)
            key = next((k for k in node if str(k) == part), _NO_KEY)
            if key is _NO_KEY:
                node = _NO_KEY
                break
            node = node[key]
        if node is not _NO_KEY:
            return file
    return None


_NO_KEY = object()


def _missing_root(data: GameData, version: str) -> str | None:
    """The rules version that ``version``'s chain of ``extends`` names and the data lacks, if any."""
    seen: set[str] = set()
    v: str | None = version
    while v is not None and v not in seen:
        if v not in data.rules:
            return v
        seen.add(v)
        v = data.rules[v].extends
    return None


def _missing_parents(data: GameData) -> list[DataError]:
    """One error per rules version that is extended but missing (a deleted base.yaml is one line,
    not one per version built on it)."""
    extenders: dict[str, list[str]] = {}
    for version in sorted(data.rules):
        parent = data.rules[version].extends
        if parent is not None and parent not in data.rules:
            extenders.setdefault(parent, []).append(version)
    known = ", ".join(sorted(data.rules)) or "none"
    errors = []
    for parent, versions in sorted(extenders.items()):
        if len(versions) == 1:
            errors.append(DataError(_rel(data.rules_files[versions[0]]),
                                    f"no rules version {parent!r} (known: {known})", field="extends"))
        else:
            errors.append(DataError(_rel(data.root / "rules"), f"no rules version {parent!r}, which "
                                    f"{len(versions)} versions extend: {', '.join(versions)} (is its {parent}.yaml gone?)"))
    return errors


def _chain(data: GameData, version: str) -> list[str]:
    chain: list[str] = []
    v: str | None = version
    while v is not None:
        if v not in data.rules:
            where = _rel(data.rules_files[chain[-1]]) if chain else _rel(data.root / "rules")
            known = ", ".join(sorted(data.rules)) or "none"
            raise DataError(where, f"no rules version {v!r} (known: {known})", field="extends" if chain else None,
                            via=version if chain and chain[-1] != version else None)  # a parent's extends
        if v in chain:
            loop = " -> ".join(chain + [v])
            raise DataError(_rel(data.rules_files[v]), f"extends loop: {loop}", field="extends",
                            via=None if v == version else version)
        chain.append(v)
        v = data.rules[v].extends
    return list(reversed(chain))


def _merge(base: dict, changes: dict) -> dict:
    """``changes`` over ``base`` key by key, into nested mappings; a card's ``keywords`` are
    replaced whole (a patch lists the keywords the card has, so one can be taken away)."""
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "keywords":
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _content_hash(consts, cards: dict, bosses: dict | None = None) -> str:
    payload = {"constants": consts.model_dump(),
               "cards": [c.model_dump(by_alias=True) for c in cards.values()]}
    if bosses:  # (a game without bosses keeps the hash it always had)
        payload["bosses"] = [b.model_dump(by_alias=True) for b in bosses.values()]
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_ruleset(game: str, version: str, data_dir=None) -> tuple[GameData, Ruleset]:
    """Load a game's data and resolve one version; raises DataErrors when the files are bad."""
    data = load_game(game, data_dir)
    if data.errors:
        raise DataErrors(data.errors)
    return data, resolve(data, version)


def check_deck(data: GameData, ruleset: Ruleset, deck_id: str):
    """The deck, checked against a rules version's cards and construction rules."""
    if deck_id not in data.decks:
        raise DataError(data.root / "decks", f"no deck {deck_id!r} (known: {', '.join(sorted(data.decks))})")
    deck = data.decks[deck_id]
    problems = _first_causes(data.schema.check_deck(deck, ruleset.cards, ruleset.constants))
    if problems:
        name = _rel(data.deck_files[deck_id])
        raise DataErrors([DataError(name, msg, card=card, field=fld) for card, fld, msg in problems])
    return deck


def _first_causes(problems: list[tuple]) -> list[tuple]:
    """A deck's problems without the totals of its card list (its size, its warriors) when a
    card of the list is itself wrong: one misspelt card or one count too many is one mistake,
    and the totals it throws off would bury it (the totals are checked again once it is fixed)."""
    if any(card is not None and field == "cards" for card, field, _msg in problems):
        return [p for p in problems if not (p[0] is None and p[1] == "cards")]
    return problems


@dataclass
class Campaign:
    """A campaign stage of a game, with its crews and every deck it names, checked against a
    rules version (the game's schema defines Stage and Crew: ``cardsdb/<game>/campaign.py``)."""
    game: str
    stage: Any
    crews: dict[str, Any]
    decks: dict[str, Any]  # deck id -> Deck: the crews' and the encounters'
    hash: str

    def to_payload(self) -> dict:
        return {"game": self.game, "stage": self.stage.model_dump(), "hash": self.hash,
                "crews": [c.model_dump() for c in self.crews.values()],
                "decks": [d.model_dump(by_alias=True) for d in self.decks.values()]}

    @classmethod
    def from_payload(cls, payload: dict) -> "Campaign":
        sch = game_schema(payload["game"])
        crews = {c["id"]: sch.Crew.model_validate(c) for c in payload["crews"]}
        decks = {d["id"]: sch.Deck.model_validate(d) for d in payload["decks"]}
        return cls(payload["game"], sch.Stage.model_validate(payload["stage"]), crews, decks, payload["hash"])


def campaign_stages(data: GameData) -> list[str]:
    return sorted({p.stem for p in data_files(data.root / "campaign")} - {"crews"})


def _campaign_file(data: GameData, stem: str) -> Path:
    """``campaign/<stem>.yaml`` (or ``.yml``); DataError when both are there."""
    paths = [p for p in data_files(data.root / "campaign") if p.stem == stem]
    if len(paths) > 1:
        raise DataError(_rel(paths[1]), f"{_rel(paths[0])} has the same name: keep one of the two")
    return paths[0] if paths else data.root / "campaign" / f"{stem}.yaml"


def load_campaign(data: GameData, ruleset: Ruleset, stage_id: str) -> Campaign:
    """A stage and its crews, every reference checked (raises DataError / DataErrors)."""
    sch = data.schema
    if not hasattr(sch, "Stage"):
        raise DataError(data.root, f"{data.game} has no campaign")
    folder = data.root / "campaign"
    stages = campaign_stages(data)
    if stage_id not in stages:
        raise DataError(folder, f"no stage {stage_id!r} (known: {', '.join(stages) or 'none'})")
    crews_path, stage_path = _campaign_file(data, "crews"), _campaign_file(data, stage_id)
    doc = read_yaml(crews_path, _rel(crews_path))
    if not isinstance(doc, list):
        raise DataError(_rel(crews_path), "the crews file is a YAML list of crews")
    crews: dict[str, Any] = {}
    place: dict[str, int] = {}  # crew id -> its place in the file (1, 2, ...)
    errors: list[DataError] = []
    for i, raw in enumerate(doc):
        label = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else f"#{i + 1}"
        try:
            crew = sch.Crew.model_validate(raw)
        except ValidationError as exc:
            errors.extend(from_validation(_rel(crews_path), exc, card=label, raw=raw, kind="crew"))
            continue
        if crew.id in crews:  # the later one would silently take the first one's place
            first = crews[crew.id]
            errors.append(DataError(_rel(crews_path), f"duplicate crew id: crew {i + 1} of the file "
                                    f"({crew.name}) has the id of crew {place[crew.id]} ({first.name}); "
                                    "give it its own", card=crew.id, field="id", kind="crew"))
            continue
        crews[crew.id] = crew
        place[crew.id] = i + 1
    raw_stage = read_yaml(stage_path, _rel(stage_path))
    if not isinstance(raw_stage, dict):
        raise DataError(_rel(stage_path), "a stage file is a YAML mapping")
    try:
        stage = sch.Stage.model_validate(raw_stage)
    except ValidationError as exc:
        raise DataErrors(errors + from_validation(_rel(stage_path), exc)) from None
    if stage.id != stage_id:
        errors.append(DataError(_rel(stage_path), f"id {stage.id!r} must match the file name", field="id"))
    files = {"stage": _rel(stage_path), "crews": _rel(crews_path)}
    for where, record, fld, msg in sch.check_campaign(stage, crews, ruleset.cards, data.decks):
        # a crews-file line names the crew; a stage line names a card of it (or none)
        errors.append(DataError(files[where], msg, card=record, field=fld, kind="crew" if where == "crews" else "card"))
    if errors:
        raise DataErrors(errors)
    named = sorted({c.deck for c in crews.values()} | {e.deck for e in stage.battles + stage.elites + [stage.boss]})
    decks = {d: check_deck(data, ruleset, d) for d in named}
    text = json.dumps([stage.model_dump(), [c.model_dump() for c in crews.values()]], sort_keys=True)
    return Campaign(data.game, stage, crews, decks, hashlib.sha256(text.encode()).hexdigest()[:16])


def validate_all(data: GameData, pilot_problem=None) -> tuple[list[DataError], list[str]]:
    """Every error in the game's data (files, every rules version, every deck and the reference
    cards against every version, the campaign), and a line for each version checked.
    ``pilot_problem(name)``: what is wrong with a pilot a campaign stage names (its
    ``enemy_pilot``), or None; the pilots are sim's to know, which cardsdb never imports, so the
    command passes its check in (none: the pilots are not checked)."""
    if data.errors:  # decks checked against a pool missing a broken file's cards would only echo it
        return list(data.errors), []
    errors: list[DataError] = _missing_parents(data)
    references = _reference_ids(data, errors)
    checked = []
    for version in sorted(data.rules):
        if _missing_root(data, version) is not None:
            continue  # its missing ancestor is already one line above
        try:
            ruleset = resolve(data, version)
        except DataError as err:
            errors.append(err)
            continue
        except DataErrors as errs:  # its bosses (cardsdb/<game>/bosses)
            errors.extend(errs.errors)
            continue
        for deck_id in sorted(data.decks):
            try:
                check_deck(data, ruleset, deck_id)
            except DataErrors as errs:
                if version == _root_version(data, version):
                    errors.extend(errs.errors)
                else:  # a derived version may legitimately drop cards a deck uses: warn only
                    checked.append(f"warning: deck {deck_id} is not legal under {version}: "
                                   f"{errs.errors[0].line()}")
        for ref in references:  # `workbench value` passed over one without a word, using another
            if ref not in ruleset.cards:
                err = DataError(_rel(reference_file(data.game, data.root.parent)),
                                f"not a card of rules version {version!r}", card=ref, field="cards")
                if version == _root_version(data, version):
                    errors.append(err)
                else:  # a derived version may drop a reference (value then uses the nearest other)
                    checked.append(f"warning: {err.line()}")
        bosses = f", {len(ruleset.bosses)} bosses" if ruleset.bosses else ""
        checked.append(f"{version}: {len(ruleset.cards)} cards{bosses}, hash {ruleset.hash}")
    if not data.rules:
        errors.append(DataError(data.root / "rules", "no rules versions (a base.yaml is needed)"))
    # a mistake met again while resolving each version built on its file is one line: the
    # parent's own, met resolving the parent (a boss the data breaks breaks under every version)
    own = {e.key() for e in errors if e.via is None}
    said: set[tuple] = set()
    kept = []
    for err in errors:
        if err.key() in said or (err.via is not None and err.key() in own):
            continue
        said.add(err.key())
        kept.append(err)
    errors = kept
    if "base" in data.rules and not errors:
        for version in ["base", *sorted(v for v in data.rules if v != "base")]:
            _check_campaign(data, version, errors, checked, pilot_problem)
    return errors, checked


def _reference_ids(data: GameData, errors: list[DataError]) -> list[str]:
    """The game's declared reference cards (cardsdb/reference.py), each once; none, and the
    file's mistake in ``errors``, when reference.yaml is missing or malformed."""
    try:
        return list(dict.fromkeys(reference_ids(data.game, data.root.parent)))
    except DataError as err:
        err.file = _rel(Path(err.file)) if err.file else err.file
        errors.append(err)
        return []


def _check_campaign(data: GameData, version: str, errors: list[DataError], checked: list[str],
                    pilot_problem=None) -> None:
    """The campaign under one rules version: under base a problem is an error; under another
    version a warning, as a deck's is (a version may drop cards a crew uses), so `simulate-run
    --rules X` is not the first to say so. The pilots a stage names (``validate_all``'s
    ``pilot_problem``) are the same under every version: checked under base."""
    ruleset = resolve(data, version)
    for stage in campaign_stages(data):
        try:
            campaign = load_campaign(data, ruleset, stage)
            if version == "base":
                wrong = []
                for name, pilot in campaign.stage:  # (Frontier's: enemy_pilot)
                    problem = pilot_problem(pilot) if pilot_problem and name.endswith("_pilot") else None
                    if problem:
                        wrong.append(DataError(_rel(_campaign_file(data, stage)), problem, field=name))
                errors.extend(wrong)
                if not wrong:
                    checked.append(f"campaign {stage}: {len(campaign.crews)} crews, hash {campaign.hash}")
            continue
        except DataError as err:
            found = [err]
        except DataErrors as errs:
            found = list(errs.errors)
        if version == "base":
            errors.extend(found)
        else:
            checked.append(f"warning: campaign {stage} cannot be played under {version}: {found[0].line()}")


def _root_version(data: GameData, version: str) -> str:
    while data.rules[version].extends in data.rules:
        version = data.rules[version].extends
    return version


def load_scenario(path: str | Path) -> ScenarioFile:
    path = Path(path)
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataError(path, "a scenario file is a YAML mapping (name, game, setup, steps)")
    try:
        return ScenarioFile.model_validate(doc)
    except ValidationError as exc:
        raise from_validation(path, exc)[0] from None
