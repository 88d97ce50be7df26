"""Where a game's data is read from, and a designer's own copy of it (a *workspace*).

The shipped data lives inside the package (``cardsdb/<game>/``). A designer who wants to edit
cards runs ``workbench init DIR``: the YAML of every game (or of one) is copied to ``DIR/<game>/``,
and every command given ``--data DIR`` (or run with ``WORKBENCH_DATA=DIR`` set) reads from there.
Only data is copied (cards, decks, rules versions, scenarios, bosses, campaign stages, the game's
own YAML files); the Python that validates them stays in the package."""
from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

from cardsdb.errors import DataError
from cardsdb.registry import DATA_ROOT, GAMES

# WORKBENCH_DATA is the documented name; WORKBENCH_DATA_DIR is the older one, still read
ENV_NAMES = ("WORKBENCH_DATA", "WORKBENCH_DATA_DIR")
# what no game's workspace holds: the Python, and calibration.yaml, which cardsdb/calibration.py
# reads from the package for every game (the planted-truth calibration), so a copy would be
# edited in vain; each game adds its own such files (``PACKAGE_FILES`` of cardsdb/<game>/)
NOT_DATA = ("*.py", "__pycache__", "*.pyc", "calibration.yaml")


def package_files(game: str) -> tuple[str, ...]:
    """The files of ``game``'s data folder that are read from the package, never from a
    workspace: its data package's ``PACKAGE_FILES`` (cardsdb/<game>/__init__.py)."""
    return tuple(importlib.import_module(GAMES[game]).PACKAGE_FILES)


def named_data(data_dir: str | Path | None = None) -> str | Path | None:
    """The data folder the user named: ``data_dir`` when given, else the first environment
    variable of ENV_NAMES that is set; None when they named none."""
    return data_dir or next((os.environ[n] for n in ENV_NAMES if os.environ.get(n)), None)


def data_root(data_dir: str | Path | None = None) -> Path:
    """The folder holding one sub-folder per game: the one named (``named_data``), else the
    shipped data."""
    chosen = named_data(data_dir)
    return Path(chosen) if chosen else DATA_ROOT


def is_shipped(root: Path) -> bool:
    """Whether writing under ``root`` could write into the shipped data: the root itself, or a
    game or rules folder in it that is a link to the shipped one (a workspace whose frontier/ was
    a symlink let `cards import` write into cardsdb/frontier/rules)."""
    shipped = DATA_ROOT.resolve()
    root = Path(root)
    places = [root] + [root / game for game in GAMES] + [root / game / "rules" for game in GAMES]
    return any(p.resolve().is_relative_to(shipped) for p in places)


def copy_game(game: str, target: Path) -> Path:
    """The shipped data of ``game`` copied to ``target`` (which must not exist yet)."""
    shutil.copytree(DATA_ROOT / game, target, ignore=shutil.ignore_patterns(*NOT_DATA, *package_files(game)))
    return target


def init_workspace(folder: Path, games: list[str] | None = None) -> list[Path]:
    """Copy the shipped data of ``games`` (default: every game) into ``folder``. A game folder
    already there is refused before anything is copied: a workspace is never overwritten."""
    chosen = list(dict.fromkeys(games or GAMES))  # a game named twice is copied once
    for game in chosen:
        if game not in GAMES:
            raise DataError(None, f"unknown game {game!r} (known: {', '.join(GAMES)})")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise DataError(folder, "exists and is not a folder")
    taken = [g for g in chosen if (folder / g).exists()]
    if taken:
        raise DataError(folder / taken[0], "already exists: a workspace is never overwritten "
                        "(edit it, or choose another folder)")
    existed = folder.exists()
    made: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for game in chosen:
            made.append(copy_game(game, folder / game))
    except OSError as exc:  # a folder that cannot be made or filled: leave nothing half-copied
        _undo(folder, existed, made, chosen)
        raise DataError(folder, f"cannot make the workspace here: {exc.strerror or exc}") from None
    except KeyboardInterrupt:  # Ctrl-C while copying: nothing half-copied either (init again works)
        _undo(folder, existed, made, chosen)
        raise
    return made


def _undo(folder: Path, existed: bool, made: list[Path], chosen: list[str]) -> None:
    """Take away what an interrupted init made: the games copied and the one being copied."""
    for path in made + [folder / g for g in chosen[len(made):len(made) + 1]]:
        shutil.rmtree(path, ignore_errors=True)
    if not existed:
        shutil.rmtree(folder, ignore_errors=True)
