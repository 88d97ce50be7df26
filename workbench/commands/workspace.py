"""``workbench init DIR``: a designer's own copy of the card data (cardsdb/workspace.py)."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from cardsdb.workspace import init_workspace


def init_folder(folder: Path, games: list[str] | None, out: Console) -> list[Path]:
    made = init_workspace(folder, games)
    for path in made:
        out.print(f"copied {path.name} data to {path}")
    out.print(f"edit the YAML there, then pass --data {folder} to any command "
              f"(or set WORKBENCH_DATA={folder}); `workbench cards validate GAME --data {folder}` checks it")
    return made
