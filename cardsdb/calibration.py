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
    data = yaml.safe_load((DATA_ROOT / game / "calibration.yaml").read_text(encoding="utf-8"))
    return Planted(game, tuple(data["decks"]), data["card"], dict(data["patch"]), data.get("why", ""))


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
