"""A campaign batch: which stage, crews, policies and seeds; how runs are numbered and chunked.

Runs are numbered crew by crew; run ``i`` of every crew uses seed ``base_seed + i``, so each
crew walks the same route maps and meets the same luck (common random numbers)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from workbench.runspec import Chunked

MAX_FIGHTS = 64  # fights per run, for match numbering: match_no = run_no * MAX_FIGHTS + fight


@dataclass
class CampaignSpec(Chunked):
    game: str
    rules: str
    stage: str
    crews: list[str]
    runs: int                    # per crew
    policy: str = "greedy"
    fight_pilot: str = "greedy"
    seed: int = 1
    event_sample: float = 0.0    # share of runs whose fights keep their full event log
    chunk_size: int = 10
    rules_hash: str = ""
    content_hash: str = ""
    kind: str = "campaign"
    weights_hash: str = ""       # the weight files the fight and enemy pilots think with

    @property
    def runs_total(self) -> int:
        return self.runs * len(self.crews)

    @property
    def matches_total(self) -> int:
        """The farm's progress unit: here campaign runs (the runs table's matches_target)."""
        return self.runs_total

    def run(self, run_no: int) -> tuple[int, str, int]:
        """(crew index, crew, seed) of a run number."""
        crew, i = divmod(run_no, self.runs)
        return crew, self.crews[crew], self.seed + i

    def to_json(self) -> dict:
        d = asdict(self)
        # the store's runs table speaks of decks, pilots and matches: crews, policies, runs here
        d.update(decks=self.crews, pilots=[f"{self.policy}/{self.fight_pilot}"], matches_total=self.runs_total)
        return d

    @classmethod
    def from_json(cls, d: dict) -> "CampaignSpec":
        keep = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**keep)

    def result_hash(self) -> str:
        """What decides the runs a batch holds: its spec without how it was cut into chunks or how
        much event log it kept. It names the lock ``simulate-run`` holds while it finds or plays a
        batch, and ``find_batch`` (workbench/commands/simulate_run.py) finds a batch to reuse or
        finish by it."""
        keep = {k: v for k, v in asdict(self).items()
                if k not in ("event_sample", "chunk_size") and (k != "weights_hash" or v)}
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]

    def spec_hash(self) -> str:
        # (a batch without a weights hash, from before it, keeps the hash it always had)
        keep = {k: v for k, v in asdict(self).items() if k != "event_sample" and (k != "weights_hash" or v)}
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]
