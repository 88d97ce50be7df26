"""The turn's chance stream, made as ``sim.core.rng.stream(key, "chance", turn)`` makes it, for
less: a greedy pilot scores a Soul Combat over eight reseeded draws of luck, so a lookahead
seeds thousands of fresh streams per match, and ``random.Random(seed)`` runs the Python-level
``__init__`` and ``seed`` around the C seeding that does the work.

Same seed (blake2b of the same text, sim/core/rng.py ``derive_seed``), same C seeding of the
same generator: the very same draws (tests/test_allegiance_speed_equivalence.py holds it to
``stream``)."""
from __future__ import annotations

import _random
import random
from hashlib import blake2b

_seed_mt = _random.Random.seed   # the C seeding Random.seed ends in, for an int
_bare = random.Random.__new__    # an unseeded Random: seeded next, so no OS entropy is drawn


def chance_stream(key: int, turn: int) -> random.Random:
    """``stream(key, "chance", turn)``: the chance stream of turn ``turn`` under ``key``."""
    rng = _bare(random.Random)
    text = repr((key, "chance", turn)).encode()
    _seed_mt(rng, int.from_bytes(blake2b(text, digest_size=8).digest(), "big"))
    rng.gauss_next = None  # as Random.seed leaves it
    return rng
