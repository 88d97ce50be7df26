"""The code version recorded with every run: the package version and a digest of the files that
decide what a match does.

A finished run is reused, and a stopped one resumed, only by a process of the same code version
(workbench/store.py ``this_code``): matches played by other code are other matches. The version
is a digest of the source, not the git commit, so that
- two different uncommitted edits of an engine are two versions (a commit plus ``-dirty`` could
  not tell them apart, and reused a run the other edit played);
- a commit that touches only what no match reads (docs, tests, reports, the dashboard, the
  scenarios) keeps the version, and with it every stored run's reuse;
- an install without git (a wheel, a copied tree) still has one.
The git commit is recorded beside it for reading (``runs.code_commit``), never compared."""
from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from workbench import __version__

# What a match reads: the engines and pilots (sim/), the card models and shipped data (cardsdb/),
# the farm and the run specs (workbench/). The rules and decks a run plays are hashed again in
# its spec (rules_hash, deck_hash), which also covers a workspace outside the tree.
PLAYED_ROOTS = ("sim", "cardsdb", "workbench")
PLAYED_SUFFIXES = frozenset({".py", ".pxd", ".yaml", ".yml"})
# Read by tests and the calibration only, never by a match.
NOT_PLAYED = frozenset({"scenarios", "__pycache__", "calibration.yaml"})

# A weight set (sim/<game>/weights-NAME.yaml, `fit-weights` writes them) is part of a run's spec
# instead: its ``weights_hash`` fingerprints every weight file its pilots read. In the digest, a
# trial set no pilot of a run reads made every stored run another code's, played afresh.
WEIGHT_SETS = "weights-"

TREE = Path(__file__).resolve().parent.parent


def played_files(tree: Path = TREE) -> list[Path]:
    """The files whose content is the code version, in a fixed order (paths relative to ``tree``,
    so two clones in two folders agree)."""
    found = []
    for root in PLAYED_ROOTS:
        for path in (tree / root).rglob("*"):
            rel = path.relative_to(tree)
            if (path.suffix in PLAYED_SUFFIXES and not NOT_PLAYED.intersection(rel.parts)
                    and not path.name.startswith(WEIGHT_SETS) and path.is_file()):
                found.append(rel)
    return sorted(found, key=lambda p: p.as_posix())


def source_digest(tree: Path = TREE) -> str:
    """12 hex digits of a SHA-256 over each played file's relative path and bytes."""
    h = hashlib.sha256()
    for rel in played_files(tree):
        data = (tree / rel).read_bytes()
        h.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:12]


@functools.cache
def code_version() -> str:
    """Asked once per process: the code a process plays with is what it imported when it started,
    so a file edited (or a commit made) while it runs does not make its later runs another
    version than its first (a diff's two runs would then never pair, nor be reused)."""
    return f"{__version__}+src.{source_digest()}"


@functools.cache
def code_commit() -> str | None:
    """The git commit of the tree, ``-dirty`` with uncommitted changes to tracked files; None
    without git. For reading only: which commit to check out to look at a run's code."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=TREE, capture_output=True,
                             text=True, timeout=5)
        commit = out.stdout.strip() if out.returncode == 0 else ""
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=TREE,
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{commit}{'-dirty' if dirty else ''}" if commit else None
