"""The batch file: which suites to run and what counts as news."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator

from cardsdb.errors import DataError, from_validation
from cardsdb.loader import read_yaml
from cardsdb.models import Strict
from workbench.limits import MAX_MATCHES, SEED_MAX, SEED_MIN


class Suite(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    game: str
    rules: str = "base"
    baseline: str | None = None            # a pinned rules version to compare against every night
    decks: list[str] | Literal["starters"] = "starters"
    pilots: list[str] = ["greedy"]
    matches: int = Field(400, ge=2, le=MAX_MATCHES)  # per pairing (table; series), each seed from both seats
    mode: Literal["duel", "ffa", "series", "turf"] = "duel"  # workbench/runspec.MODES
    seats: int | None = Field(None, ge=2)             # a free-for-all's table (default 4)
    bosses: list[str] | None = None                   # turf: the bosses to face (default: every boss)
    boss_pilot: str | None = None                     # turf: who plays the boss (default: the first pilot)
    # fixed: nights are paired; daily: a new seed each day
    seed: Annotated[int, Field(ge=SEED_MIN, le=SEED_MAX)] | Literal["daily"] = 1

    @field_validator("pilots")
    @classmethod
    def _some(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("name at least one pilot")
        return value


class BatchFile(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    description: str = ""
    threshold_points: float = Field(3.0, gt=0, le=100, description="alert when something moves at least this many points")
    fdr: float = Field(0.05, gt=0, lt=1, description="false discovery rate for card alerts")
    suites: list[Suite] = Field(min_length=1)

    @field_validator("suites")
    @classmethod
    def _unique(cls, suites: list[Suite]) -> list[Suite]:
        names = [s.name for s in suites]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"suite names must be unique: {', '.join(dupes)}")
        return suites


def load_batch(path: str | Path) -> tuple[BatchFile, str]:
    """The batch file and its content hash (one-line errors naming the file and field)."""
    path = Path(path)
    if not path.exists():
        raise DataError(path, "no such batch file")
    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise DataError(path, "a batch file is a YAML mapping (name, suites, ...)")
    try:
        batch = BatchFile.model_validate(doc)
    except ValidationError as exc:
        raise from_validation(path, exc)[0] from None
    for suite in batch.suites:
        if suite.baseline is not None and suite.baseline == suite.rules:
            rules = f"rules: {suite.rules}" + ("" if "rules" in suite.model_fields_set else ", the default")
            raise DataError(path, f"{suite.baseline!r} is the suite's own rules version ({rules}): nothing to "
                            "compare with; leave baseline out, or name another version",
                            card=suite.name, field="baseline", kind="suite")
    return batch, hashlib.sha256(path.read_bytes()).hexdigest()[:16]
