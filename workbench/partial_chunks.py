"""Chunks a long job has finished so far, kept in a JSON-lines file so that a job stopped halfway
(Ctrl-C, a killed process, a closed laptop) picks up where it left off when it is run again.

Used by ``workbench ladder``, whose results are stored only when every match is played: an
mcts ladder runs for hours, and losing it all to one Ctrl-C is not acceptable.

The file's name is a hash of everything the chunks' results depend on (the job's key and the
code version), so a changed request or changed code starts afresh instead of mixing results.
Each finished chunk is one line, appended and flushed; a line torn by a kill is ignored when read
back, and its chunk is played again. The file is removed once the job's results are stored.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path


class PartialChunks:
    """A job's finished chunks, one JSON line each, in ``folder`` under a name hashed from ``key``."""

    __slots__ = ("path", "_out")

    def __init__(self, folder: Path, key: str) -> None:
        digest = hashlib.sha1(key.encode()).hexdigest()[:16]
        self.path = Path(folder) / f"{digest}.jsonl"
        self._out = None

    def load(self, key: str = "match_no") -> dict[int, dict]:
        """The rows finished by earlier tries, by their ``key`` field (empty when there were none).
        Rows, not chunk numbers, so a try with another chunk size still reuses them."""
        done: dict[int, dict] = {}
        try:
            lines = self.path.read_text().splitlines()
        except OSError:
            return done
        for line in lines:
            try:
                rows = json.loads(line)["rows"]
                done.update((int(row[key]), row) for row in rows)
            except (ValueError, KeyError, TypeError):
                continue  # a line torn by a kill mid-write: that chunk is played again
        return done

    def add(self, rows: list[dict]) -> None:
        if self._out is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._out = self.path.open("a")
            self._out.write("\n")  # ends a torn last line of an earlier try, if any
        self._out.write(json.dumps({"rows": rows}, separators=(",", ":")) + "\n")
        self._out.flush()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def discard(self) -> None:
        """The job's results are stored: the partial file has served its purpose."""
        self.close()
        self.path.unlink(missing_ok=True)
        try:
            self.path.parent.rmdir()  # only when no other job's partial file is there
        except OSError:
            pass
