"""A run spec: what to simulate, and how its matches are numbered, seeded and cut into chunks.

Matches are numbered pairing by pairing. Within a pairing, with seat swapping on, matches 2i and
2i+1 share the i-th seed derived from the base seed (``match_seed``): the first with the
pairing's first deck in seat 0, the second with the decks swapped, so each seed is played from
both seats.

A run's *mode* says how many seats a match has and what they play for (MODES). A free-for-all
(``ffa``) seats ``seats`` decks round one table: its "pairings" are tables, every combination of
``seats`` decks of the field, and seat swapping becomes rotation: with it on, each seed is played
``seats`` times, the table turned one seat further each time, so every deck sits in every seat
equally often (for two seats that is exactly the duel's swap).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from itertools import combinations

from sim.core.rng import derive_seed

# mode -> what it is, for messages and docs; which games have which is the engine's (sim/registry)
MODES = {
    "duel": "two seats, one winner",
    "ffa": "free-for-all: several seats, each for itself, placed in the order they went out",
    "series": "best-of-N series of duels (sim/core/series.py): a run's units are series, not matches",
    "turf": "two partners against a boss of the game's data: every pair of the field against every boss",
}


def tables(n_decks: int, seats: int) -> list[tuple[int, ...]]:
    """Every table of ``seats`` distinct decks of the field, in order (a duel's pairings; one deck
    plays its mirror)."""
    if n_decks == 1:
        return [(0,) * seats]
    return list(combinations(range(n_decks), seats))


class Chunked:
    """What the farm asks of any batch spec: ``matches_total`` units (matches, or campaign
    runs) cut into chunks of ``chunk_size``, and which seeds keep their event logs."""
    matches_total: int
    chunk_size: int
    event_sample: float

    @property
    def n_chunks(self) -> int:
        return math.ceil(self.matches_total / self.chunk_size)

    def chunk_range(self, chunk: int) -> range:
        start = chunk * self.chunk_size
        return range(start, min(self.matches_total, start + self.chunk_size))

    def logs_events(self, seed: int) -> bool:
        if self.event_sample >= 1.0:
            return True
        if self.event_sample <= 0.0:
            return False
        return derive_seed(seed, "log") / 2.0**64 < self.event_sample


@dataclass
class RunSpec(Chunked):
    game: str
    rules: str
    decks: list[str]
    pilots: list[str]
    matches: int                 # per pairing
    seed: int = 1
    swap: bool = True
    event_sample: float = 1.0    # share of seeds whose full event log is stored
    chunk_size: int = 50
    rules_hash: str = ""
    deck_hash: str = ""
    # each deck's own content hash, by slot: the reports tell from it which runs share matches (a run
    # of two decks replays their pairing in a run of the whole field); empty in runs made before it
    deck_hashes: list[str] = field(default_factory=list)
    pilot_salt: int = 0          # non-zero: other pilot choices on the same seeds (A/A calibration)
    weights_hash: str = ""       # the weight files its pilots think with (pilots.weights_fingerprint)
    pairings: list[tuple[int, ...]] = field(default_factory=list)  # tables, in a free-for-all
    mode: str = "duel"
    seats: int = 2               # the players' seats (turf: the two partners; the boss's seat is added)
    bosses: list[str] = field(default_factory=list)  # turf: the bosses faced, each by every partner pair
    boss_pilot: str = ""         # turf: who plays the boss
    # an intervention (workbench value): deck slot -> {card id: replacement id}; the replacement
    # takes the card's places in the shuffled deck, so the run is a twin of the unreplaced one
    substitute: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self):
        if not self.pairings:
            self.pairings = tables(len(self.decks), self.seats)
            if self.mode == "turf":  # every partner pair against each boss in turn (boss_of)
                self.pairings = self.pairings * len(self.bosses)
        if len(self.pilots) == 1:
            self.pilots = self.pilots * len(self.decks)

    @property
    def matches_total(self) -> int:
        return self.matches * len(self.pairings)

    def match(self, match_no: int) -> tuple[int, int, int]:
        """(seed, pairing, rotation) of a match number: rotation 0 seats the pairing (table) in
        its order; in a duel rotation 1 is the swapped match."""
        pairing, j = divmod(match_no, self.matches)
        if self.swap:
            seed_index, rotation = divmod(j, self.seats)
        else:
            seed_index, rotation = j, 0
        return match_seed(self.seed, seed_index), pairing, rotation

    def seat_slots(self, pairing: int, rotation: int) -> list[int]:
        """The deck slot (index into ``decks``) sitting in each seat: the table turned
        ``rotation`` seats (seat 0 takes the deck ``rotation`` places round)."""
        table = self.pairings[pairing]
        k = rotation % len(table)
        return list(table[k:] + table[:k])

    def boss_of(self, pairing: int) -> str:
        """Turf Defense: the boss a pairing's partners face (pairings go pair by pair, boss by boss)."""
        return self.bosses[pairing // (len(self.pairings) // len(self.bosses))]

    @property
    def kind(self) -> str:
        """How the store files the run: an intervention's twin is kept out of the default views."""
        if self.mode != "duel":
            return self.mode  # kept out of the duel views, which read two seats
        return "value" if self.substitute else "duel"

    def to_json(self) -> dict:
        d = asdict(self)
        d["pairings"] = [list(p) for p in self.pairings]
        d["matches_total"] = self.matches_total
        if self.substitute:
            d["kind"] = self.kind
        else:
            del d["substitute"]  # runs without one keep the spec hash they always had
        if not self.weights_hash:
            del d["weights_hash"]  # random play (and runs from before it) keep theirs too
        if not self.deck_hashes:
            del d["deck_hashes"]  # and runs from before per-deck hashes
        if self.mode == "duel":
            del d["mode"], d["seats"]  # so do duels
        else:
            d["kind"] = self.kind
        if self.mode != "turf":
            del d["bosses"], d["boss_pilot"]
        return d

    @classmethod
    def from_json(cls, d: dict) -> "RunSpec":
        d = dict(d)
        d.pop("matches_total", None)
        d.pop("kind", None)
        d["pairings"] = [tuple(p) for p in d["pairings"]]
        return cls(**d)

    def result_hash(self) -> str:
        """What decides the matches a run holds: its spec without how it was cut into chunks or
        how much event log it kept. Two finished runs with the same result hash hold the same
        matches, so either answers a diff or a value measurement."""
        keep = {k: v for k, v in self.to_json().items() if k not in ("event_sample", "chunk_size")}
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]

    def spec_hash(self) -> str:
        """What must not change for a stopped run to be resumed."""
        keep = {k: v for k, v in self.to_json().items() if k != "event_sample"}
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:16]


def match_seed(base_seed: int, index: int) -> int:
    """The seed of a run's ``index``-th seed slot: hashed from the base seed, so runs with
    different base seeds share no seeds (base seeds 1 and 2 do not overlap), and a rules diff on
    the same base seed gets the very same ones. 63 bits, to fit a signed BIGINT."""
    return derive_seed(base_seed, "match", index) & ((1 << 63) - 1)


def deck_hash(decks: list) -> str:
    text = json.dumps([d.model_dump(by_alias=True) for d in decks], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
