"""The planted truth a game's calibration uses: a moderate buff on one ordinary card.

``cardsdb/<game>/calibration.yaml`` names a pairing of starter decks, an ordinary card of the
first deck and a patch worth one cost step of stats (what the game's budget gives per Mana,
Authority or star: +1/+1 in Wild Frontier). ``workbench bench --stats`` and the planted-truth
tests write it as the rules version ``planted`` (extends base) into a copy of the game's data and
check that a diff points at that card, and that an A/A comparison points at none.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from cardsdb.registry import DATA_ROOT
from cardsdb.workspace import copy_game

PLANTED_VERSION = "planted"


@dataclass(frozen=True)
class Planted:
    game: str
    decks: tuple[str, str]
    card: str
    patch: dict = field(default_factory=dict)
    why: str = ""


def planted(game: str) -> Planted:
    """The game's ``calibration.yaml``; a mistake in it is one DataError naming the file and the
    field (a missing key was a KeyError, and ``decks: a-deck`` was read letter by letter)."""
    from cardsdb.errors import DataError
    from cardsdb.yamlfile import read_yaml

    path = DATA_ROOT / game / "calibration.yaml"
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise DataError(path, "a calibration is a mapping with decks, card and patch")
    decks, card, patch = data.get("decks"), data.get("card"), data.get("patch")
    if not (isinstance(decks, list) and len(decks) == 2 and all(isinstance(d, str) for d in decks)):
        raise DataError(path, f"decks must be a list of two deck ids (the pairing), not {decks!r}", field="decks")
    if not isinstance(card, str) or not card:
        raise DataError(path, f"card must be the id of a card of {decks[0]}, not {card!r}", field="card")
    if not isinstance(patch, dict) or not patch:
        raise DataError(path, f"patch must be a mapping of the card's fields to change, not {patch!r}", field="patch")
    return Planted(game, tuple(decks), card, dict(patch), str(data.get("why", "")))


def planted_data(game: str, target: Path) -> Path:
    """A copy of the game's data under ``target`` with the planted version added; returns the
    data folder to pass as ``WORKBENCH_DATA`` (or ``data_dir``)."""
    plant = planted(game)
    folder = Path(target) / game
    if not folder.exists():
        copy_game(game, folder)
    rules = {"version": PLANTED_VERSION, "extends": "base", "patch": {plant.card: plant.patch}}
    (folder / "rules" / f"{PLANTED_VERSION}.yaml").write_text(yaml.safe_dump(rules, sort_keys=False), encoding="utf-8")
    return Path(target)
