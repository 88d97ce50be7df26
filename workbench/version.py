"""The code version recorded with every run: package version and git commit when there is one.

A finished run is reused, and a stopped one resumed, only by a process of the same code version
(workbench/store.py ``this_code``): matches played by other code are other matches."""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from workbench import __version__


@functools.cache
def code_version() -> str:
    """Asked once per process: the code a process plays with is what it imported when it started,
    so a file edited (or a commit made) while it runs does not make its later runs another
    version than its first (a diff's two runs would then never pair, nor be reused)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=5)
        commit = out.stdout.strip() if out.returncode == 0 else ""
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", ""
    if not commit:
        return __version__
    return f"{__version__}+{commit}{'-dirty' if dirty else ''}"
