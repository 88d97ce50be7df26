"""A git revision checked out beside the repository for as long as a measurement needs it."""
from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

from workbench.errors import UserError
from workbench.stops import sigterm_as_ctrl_c

REPO = Path(__file__).resolve().parents[2]  # the tree this code runs from: "today"


def git(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise UserError("--against needs git, and git is not installed") from None


def resolve(rev: str) -> str:
    """The full commit id REV names in this repository; a UserError in one line otherwise."""
    if not rev or rev.startswith("-"):
        raise UserError(f"--against takes a git revision (a commit, tag or branch), not {rev!r}")
    if git("rev-parse", "--show-toplevel").returncode != 0:
        raise UserError(f"--against needs a git checkout, and {REPO} is not one")
    found = git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if found.returncode != 0 or not found.stdout.strip():
        raise UserError(f"unknown revision {rev!r}: git knows no commit by that name in {REPO}")
    return found.stdout.strip()


@contextlib.contextmanager
def checked_out(commit: str) -> Iterator[Path]:
    """A detached worktree of ``commit`` in a temporary folder, removed afterwards (also on
    Ctrl-C, SIGTERM or an error)."""
    folder = Path(tempfile.mkdtemp(prefix="workbench-bench-"))
    tree = folder / commit[:12]
    try:
        with sigterm_as_ctrl_c():
            made = git("worktree", "add", "--detach", "--quiet", str(tree), commit)
            if made.returncode != 0:
                raise UserError(f"could not check out {commit[:12]} in a worktree: "
                                f"{(made.stderr.strip().splitlines() or ['git failed'])[-1]}")
            yield tree
    finally:
        removed = tree.exists() and git("worktree", "remove", "--force", str(tree)).returncode == 0
        shutil.rmtree(folder, ignore_errors=True)
        if not removed:  # git may still list a half-made worktree: forget the folder just deleted
            git("worktree", "prune")
