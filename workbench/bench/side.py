"""One measuring process (driver.py) kept running in a source tree, asked one request at a time."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from workbench.errors import UserError

DRIVER = Path(__file__).with_name("driver.py")


class Side:
    """``label`` (today, or the revision) and its driver process, started in ``root``. Its
    stderr goes to a scratch file, so a long measurement never blocks on a full pipe, and a
    failure can quote the last line."""

    def __init__(self, label: str, root: Path, settings: dict | None = None):
        """``settings``: environment variables of this side only (e.g. the pure-Python switch)."""
        self.label = label
        self.root = Path(root)
        self._log = tempfile.TemporaryFile(mode="w+")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
        env["PYTHONHASHSEED"] = "0"  # both sides hash alike, run after run
        env.update(settings or {})
        self._proc = subprocess.Popen([sys.executable, str(DRIVER), str(self.root)], cwd=self.root, env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                      text=True, bufsize=1)
        try:
            self.hello = self.ask("hello")
            expected = (self.root / "sim").resolve()
            if Path(self.hello["sim"]).resolve() != expected:
                raise UserError(f"{label}: the measuring process imported sim from {self.hello['sim']}, "
                                f"not {expected}")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "Side":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def ask(self, op: str, **request) -> dict:
        """Send one request, wait for its answer; a UserError naming the side if it failed."""
        try:
            self._proc.stdin.write(json.dumps({"op": op, **request}) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            raise UserError(f"{self.label}: the measuring process stopped ({self._last_words()})")
        reply = json.loads(line)
        if "error" in reply:
            raise UserError(f"{self.label}: {op} failed: {reply['error']}")
        return reply

    def knows_pilot(self, name: str) -> bool:
        known = self.hello.get("pilots")
        return known is None or name.partition(":")[0] in known

    def _last_words(self) -> str:
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._log.seek(0)
        lines = [line for line in self._log.read().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit code {self._proc.returncode}"

    def close(self) -> None:
        """An idle process ends on its closed input; one still measuring (an interrupt) is killed."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.close()
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._log.close()
