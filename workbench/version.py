"""The code version recorded with every run: package version and git commit when there is one."""
from __future__ import annotations

import subprocess
from pathlib import Path

from workbench import __version__


def code_version() -> str:
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
