"""``workbench cards validate | export | import``."""
from __future__ import annotations

from pathlib import Path

import yaml
from rich.console import Console

from cardsdb.errors import DataErrors
from cardsdb.loader import game_root, load_game, resolve, validate_all
from cardsdb.spreadsheet import import_cards_csv, write_cards_csv
from workbench import games
from workbench.errors import UserError
from workbench.outputs import check_file

BUDGET_TOLERANCE = 1.0  # stat points a card may sit off its budget before validate mentions it


def validate(game: str, data_dir, out: Console, err: Console) -> None:
    games.known_game(game)
    data = load_game(game, data_dir)
    errors, lines = validate_all(data)
    if errors:
        raise DataErrors(errors)
    for line in lines:
        out.print(line)
    base = resolve(data, "base") if "base" in data.rules else None
    if base is not None:
        off = []
        for card in base.cards.values():
            delta = data.schema.stat_points(card, base.constants) - data.schema.budget_points(card, base.constants)
            if abs(delta) > BUDGET_TOLERANCE:
                off.append(f"  {card.id}: {delta:+.1f} stat points against its budget")
        if off:
            out.print(f"note: {len(off)} cards sit off the stat budget (RULES.md explains it):")
            for line in off:
                out.print(line)
    out.print(f"ok: {game}: {len(data.cards)} cards, {len(data.decks)} decks, {len(data.rules)} rules versions")


def export_cards(game: str, rules: str, csv: Path, data_dir, err: Console) -> None:
    _data, ruleset = games.load(game, rules, data_dir)
    check_file(csv, "--csv")
    n = write_cards_csv(ruleset, csv)
    err.print(f"wrote {n} cards of {game} rules {rules} (hash {ruleset.hash}) to {csv}")


def import_cards(file: Path, game: str, version: str, base: str, data_dir, err: Console) -> None:
    games.known_game(game)
    check_version_name(version)
    data, base_rules = games.load(game, base, data_dir)
    if version in data.rules:
        raise UserError(f"rules version {version!r} already exists ({data.rules_files[version]}); pick a new name")
    changes = import_cards_csv(file, base_rules)
    doc = {"version": version, "extends": base,
           "description": f"imported from {Path(file).name}, changes against {base}"}
    doc.update({k: v for k, v in changes.items() if v})
    target = game_root(game, data_dir) / "rules" / f"{version}.yaml"
    # the new version must resolve before anything is written
    from cardsdb.models import RulesFile
    data.rules[version] = RulesFile.model_validate(doc)
    data.rules_files[version] = target
    resolved = resolve(data, version)
    check_file(target, "--as")
    text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
    tmp = target.with_name(f".{target.name}.part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    n_patch, n_add, n_remove = (len(changes[k]) for k in ("patch", "add", "remove"))
    err.print(f"wrote {target}: {n_patch} cards changed, {n_add} added, {n_remove} removed "
              f"(hash {resolved.hash})")


def check_version_name(version: str) -> None:
    """A new version's name is its file's name under rules/: no folders, no dots in front."""
    from pydantic import ValidationError

    from cardsdb.models import RulesFile
    try:
        RulesFile.model_validate({"version": version})
    except ValidationError:
        raise UserError(f"--as {version!r}: a rules version name is letters, digits, '.', '_' and '-', "
                        "starting with a letter or digit (it names a file in rules/)") from None
