"""``workbench cards validate | export | import``."""
from __future__ import annotations

from pathlib import Path

import yaml
from rich.console import Console

from cardsdb.budget import TOLERANCE, off_budget_cards
from cardsdb.errors import DataErrors
from cardsdb.loader import game_root, load_game, resolve, validate_all
from cardsdb.spreadsheet import import_cards_csv, write_cards_csv
from workbench import games
from workbench.errors import UserError
from workbench.outputs import check_file


def validate(game: str, data_dir, out: Console, err: Console) -> None:
    games.known_game(game)
    data = load_game(game, data_dir)
    errors, lines = validate_all(data, _pilot_problem(game))
    if errors:
        raise DataErrors(errors)
    for line in lines:
        out.print(line)
    for version, off in budget_notes(data).items():
        out.print(f"note: {version}: {len(off)} card{'s sit' if len(off) != 1 else ' sits'} off the stat budget by "
                  f"more than {TOLERANCE:g} stat point (RULES.md explains it):")
        for card, value in off.items():
            out.print(f"  {card}: {value:+.1f} stat points against its budget")
    out.print(f"ok: {game}: {len(data.cards)} cards, {len(data.decks)} decks, {len(data.rules)} rules versions")


def _pilot_problem(game: str):
    """validate's check of a pilot the game's campaign names (a stage's ``enemy_pilot``): what
    is wrong with it, in sim's words (an unknown pilot, a weight set the game lacks), or None;
    simulate-run was the first to say so."""
    def problem(pilot: str) -> str | None:
        from sim.core.pilots import check_pilot
        from sim.registry import engine

        try:
            check_pilot(pilot, engine(game))
        except ValueError as exc:
            return str(exc)
        return None

    return problem


def budget_notes(data) -> dict[str, dict[str, float]]:
    """Per rules version, the cards off the stat budget (cardsdb/budget.py, the rule the Cost curves
    page uses), each named where it goes off: a version that extends another lists only the cards
    whose surplus it changes, so base's cards are not named again under every version."""
    off = {version: off_budget_cards(data.schema, resolve(data, version)) for version in sorted(data.rules)}
    notes = {}
    for version, cards in off.items():
        parent = off.get(data.rules[version].extends or "", {})
        new = {card: value for card, value in cards.items() if parent.get(card) != value}
        if new:
            notes[version] = new
    return notes


def export_cards(game: str, rules: str, csv: Path, data_dir, err: Console) -> None:
    _data, ruleset = games.load(game, rules, data_dir)
    check_file(csv, "--csv")
    n = write_cards_csv(ruleset, csv)
    err.print(f"wrote {n} cards of {game} rules {rules} (hash {ruleset.hash}) to {csv}")


def import_cards(file: Path, game: str, version: str, base: str, data_dir, err: Console) -> None:
    from workbench.commands.workspace import writable_data

    games.known_game(game)
    check_version_name(version)
    writable_data(data_dir, "cards import writes the sheet")  # never into the shipped data
    data, base_rules = games.load(game, base, data_dir)
    if version in data.rules:
        raise UserError(f"rules version {version!r} already exists ({data.rules_files[version]}); pick a new name")
    notes: list[str] = []
    changes = import_cards_csv(file, base_rules, notes)
    if not any(changes.values()):  # a version equal to its base: every diff against it is refused
        raise UserError(f"{file}: the sheet's cards are {base}'s as they are: no rules version written "
                        "(were the sheet's edits saved as CSV?)")
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
              f"(hash {resolved.hash})", markup=False, highlight=False)
    for note in notes + _decks_it_breaks(data, resolved):
        err.print(f"note: {note}", markup=False, highlight=False)


def _decks_it_breaks(data, ruleset) -> list[str]:
    """A line per deck the new version leaves illegal (a card removed that the deck holds), as
    ``cards validate`` warns: `simulate` would be the first to refuse it."""
    from cardsdb.errors import DataErrors
    from cardsdb.loader import check_deck

    out = []
    for deck_id in sorted(data.decks):
        try:
            check_deck(data, ruleset, deck_id)
        except DataErrors as errs:
            out.append(f"deck {deck_id} is not legal under {ruleset.version}: {errs.errors[0].line()}")
    return out


def check_version_name(version: str) -> None:
    """A new version's name is its file's name under rules/: no folders, no dots in front."""
    from pydantic import ValidationError

    from cardsdb.models import RulesFile
    try:
        RulesFile.model_validate({"version": version})
    except ValidationError:
        raise UserError(f"--as {version!r}: a rules version name is letters, digits, '.', '_' and '-', "
                        "starting with a letter or digit (it names a file in rules/)") from None
