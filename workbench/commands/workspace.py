"""``workbench init DIR``: a designer's own copy of the card data (cardsdb/workspace.py), and the
one guard of every command that writes a rules version into it (tune, cards import)."""
from __future__ import annotations

from pathlib import Path

from rich.console import Console

from cardsdb.workspace import data_root, init_workspace, is_shipped
from workbench.errors import UserError


def init_folder(folder: Path, games: list[str] | None, out: Console) -> list[Path]:
    made = init_workspace(folder, games)
    for path in made:
        out.print(f"copied {path.name} data to {path}")
    out.print(f"edit the YAML there, then pass --data {folder} to any command "
              f"(or set WORKBENCH_DATA={folder}); `workbench cards validate GAME --data {folder}` checks it")
    return made


def writable_data(data_dir, writer: str) -> Path:
    """The data folder a new rules version is written into: a workspace of ``workbench init``,
    never the shipped data (a one-line UserError that names ``writer``)."""
    root = data_root(data_dir)
    if is_shipped(root):
        raise UserError(f"{writer} as a rules version, and the shipped card data is not yours to "
                        "edit: make a workspace with `workbench init DIR`, then pass --data DIR")
    return root
