"""Checks on the files and folders a command will write, made before it plays or writes anything:
a folder to create (``--csv``, ``--out``) must have a folder as its nearest existing ancestor and be
writable; a file to write (``--html``, an export's ``--csv``) must not be a folder and its folder
must exist. Each ends by trying: a scratch file is made where the output will go and removed
again (a folder made for it too), since a folder the permission bits call writable may still
refuse files (``/proc`` as root)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from workbench.errors import UserError


def check_folder(path: str | Path | None, option: str) -> None:
    """A folder the command creates (with its parents) or writes into."""
    if path is None:
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError(f"{option} {path}: is a file, not a folder")
    ancestor = path
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UserError(f"{option} {path}: {ancestor} is a file, so the folder cannot be made")
    if not os.access(ancestor, os.W_OK):
        raise UserError(f"{option} {path}: {ancestor} is not writable")
    _try_writing(path, option, "cannot make the folder or write into it")


def _try_writing(folder: Path, option: str, what: str, shown: Path | None = None) -> None:
    """Make ``folder`` (and its missing parents) and a scratch file in it, then remove them all:
    a one-line UserError if the system refuses."""
    missing = []
    probe = folder
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UserError(f"{option} {shown or folder}: {what} ({exc.strerror or exc})") from None
    finally:
        for made in missing:  # deepest first
            try:
                made.rmdir()
            except OSError:
                pass


def check_file(path: str | Path | None, option: str) -> None:
    """A file the command writes (replacing it if it exists)."""
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise UserError(f"{option} {path}: is a folder; name a file")
    parent = path.resolve().parent
    if not parent.is_dir():
        raise UserError(f"{option} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"{option} {path}: not writable")
    _try_writing(parent, option, "cannot write a file there", shown=path)
