"""Read a game's YAML: card files, deck files, rules versions; resolve a version into its
effective cards and constants with a content hash. Every problem becomes a DataError that names
the file, the card and the field."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardsdb.bounds import max_number, number_problem
from cardsdb.errors import DataError, DataErrors, from_validation
from cardsdb.models import FactionsFile, RulesFile, ScenarioFile
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
    """A path as a designer would type it: relative to the working folder when inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


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
    for path in sorted((data.root / "cards").glob("*.yaml")):
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
    """(path, shown name, validated model) of each YAML mapping file in a folder; problems go to
    ``data.errors``."""
    for path in sorted((data.root / folder).glob("*.yaml")):
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
    for path, name, deck in _mapping_files(data, "decks", data.schema.Deck, "deck"):
        if deck.id in data.decks:
            data.errors.append(DataError(name, "duplicate deck id", field="id"))
            continue
        data.decks[deck.id] = deck
        data.deck_files[deck.id] = path


def _load_bosses(data: GameData) -> None:
    """``bosses/*.yaml`` of a game whose schema has a ``Boss`` (AlleyWay): one boss a file, its
    id the file's name. An error names the file, the boss and the field."""
    if not hasattr(data.schema, "Boss"):
        return
    for path in sorted((data.root / "bosses").glob("*.yaml")):
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


def check_bosses(data: GameData, cards: dict, consts) -> dict:
    """The game's bosses checked against a version's cards and constants (raises DataErrors)."""
    errors = []
    for boss_id, boss in data.bosses.items():
        name = _rel(data.boss_files[boss_id])
        for card, fld, msg in data.schema.check_boss(boss, cards, consts):
            what = f"{msg} ({card})" if card else msg
            errors.append(DataError(name, what, card=boss_id, field=fld, kind="boss"))
    if errors:
        raise DataErrors(errors)
    return dict(data.bosses)


def _load_rules(data: GameData) -> None:
    for path, name, rules in _mapping_files(data, "rules", RulesFile, "rules"):
        if rules.version != path.stem:
            data.errors.append(DataError(name, f"version {rules.version!r} must match the file name "
                                         f"{path.stem!r}", field="version"))
            continue
        data.rules[rules.version] = rules
        data.rules_files[rules.version] = path


def resolve(data: GameData, version: str) -> Ruleset:
    """The effective cards and constants of a rules version (raises DataError)."""
    chain = _chain(data, version)
    cards: dict[str, dict] = {cid: c.model_dump(by_alias=True, exclude_defaults=True)
                              for cid, c in data.cards.items()}
    constants: dict[str, Any] = {}
    for v in chain:
        rules, name = data.rules[v], _rel(data.rules_files[v])
        # key by key, nested mappings too: `formations: {descendants: {...}}` changes Shield Wall and
        # keeps Blood Crescent, `copy_limits: {1: 4}` the 1-star limit alone (a whole-mapping
        # replace silently dropped the rest)
        constants = _merge(constants, rules.constants)
        for cid in rules.remove:
            if cid not in cards:
                raise DataError(name, "cannot remove a card that is not in the version it extends",
                                card=cid, field="remove")
            del cards[cid]
        for raw in rules.add:
            cid = raw.get("id")
            if cid in cards:
                raise DataError(name, "added card already exists (patch it instead)", card=cid, field="add")
            cards[cid] = dict(raw)
        for cid, changes in rules.patch.items():
            if cid not in cards:
                raise DataError(name, "cannot patch an unknown card", card=cid, field="patch")
            cards[cid] = _merge(cards[cid], changes)
    out = {}
    last = _rel(data.rules_files[chain[-1]])
    for cid in sorted(cards):
        try:
            out[cid] = data.schema.Card.model_validate(cards[cid])
        except ValidationError as exc:
            raise from_validation(last, exc, card=cid, raw=cards[cid])[0] from None
        check_numbers(data.schema, out[cid], last, card=cid)
        unnamed = faction_problem(data, out[cid])  # an added or patched card's faction
        if unnamed:
            raise DataError(last, unnamed, card=cid, field=data.schema.faction_field)
    try:
        consts = data.schema.Constants.model_validate(constants)
    except ValidationError as exc:
        raise from_validation(last, exc, prefix="constants")[0] from None
    check_numbers(data.schema, consts, last, prefix="constants.")
    bosses = check_bosses(data, out, consts) if data.bosses else {}
    return Ruleset(data.game, version, chain, consts, out, _content_hash(consts, out, bosses), data.schema, bosses,
                   dict(data.factions))


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
            raise DataError(where, f"no rules version {v!r} (known: {known})",
                            field="extends" if chain else None)
        if v in chain:
            loop = " -> ".join(chain + [v])
            raise DataError(_rel(data.rules_files[v]), f"extends loop: {loop}", field="extends")
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
    folder = data.root / "campaign"
    return sorted(p.stem for p in folder.glob("*.yaml") if p.stem != "crews") if folder.is_dir() else []


def load_campaign(data: GameData, ruleset: Ruleset, stage_id: str) -> Campaign:
    """A stage and its crews, every reference checked (raises DataError / DataErrors)."""
    sch = data.schema
    if not hasattr(sch, "Stage"):
        raise DataError(data.root, f"{data.game} has no campaign")
    folder = data.root / "campaign"
    stages = campaign_stages(data)
    if stage_id not in stages:
        raise DataError(folder, f"no stage {stage_id!r} (known: {', '.join(stages) or 'none'})")
    crews_path, stage_path = folder / "crews.yaml", folder / f"{stage_id}.yaml"
    doc = read_yaml(crews_path, _rel(crews_path))
    if not isinstance(doc, list):
        raise DataError(_rel(crews_path), "the crews file is a YAML list of crews")
    crews: dict[str, Any] = {}
    errors: list[DataError] = []
    for i, raw in enumerate(doc):
        label = raw.get("id") if isinstance(raw, dict) else f"#{i + 1}"
        try:
            crew = sch.Crew.model_validate(raw)
        except ValidationError as exc:
            errors.extend(from_validation(_rel(crews_path), exc, card=label))
            continue
        crews[crew.id] = crew
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
    for where, card, fld, msg in sch.check_campaign(stage, crews, ruleset.cards, data.decks):
        errors.append(DataError(files[where], msg, card=card, field=fld))
    if errors:
        raise DataErrors(errors)
    named = sorted({c.deck for c in crews.values()} | {e.deck for e in stage.battles + stage.elites + [stage.boss]})
    decks = {d: check_deck(data, ruleset, d) for d in named}
    text = json.dumps([stage.model_dump(), [c.model_dump() for c in crews.values()]], sort_keys=True)
    return Campaign(data.game, stage, crews, decks, hashlib.sha256(text.encode()).hexdigest()[:16])


def validate_all(data: GameData) -> tuple[list[DataError], list[str]]:
    """Every error in the game's data (files, every rules version, every deck against every
    version), and a line for each version checked."""
    if data.errors:  # decks checked against a pool missing a broken file's cards would only echo it
        return list(data.errors), []
    errors: list[DataError] = _missing_parents(data)
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
        bosses = f", {len(ruleset.bosses)} bosses" if ruleset.bosses else ""
        checked.append(f"{version}: {len(ruleset.cards)} cards{bosses}, hash {ruleset.hash}")
    if not data.rules:
        errors.append(DataError(data.root / "rules", "no rules versions (a base.yaml is needed)"))
    if "base" in data.rules and not errors:
        base = resolve(data, "base")
        for stage in campaign_stages(data):
            try:
                campaign = load_campaign(data, base, stage)
                checked.append(f"campaign {stage}: {len(campaign.crews)} crews, hash {campaign.hash}")
            except DataError as err:
                errors.append(err)
            except DataErrors as errs:
                errors.extend(errs.errors)
    return errors, checked


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
