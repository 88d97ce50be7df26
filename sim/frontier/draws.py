"""``shuffle``: ``random.Random.shuffle``'s exact draws, cheaper.

determinize reshuffles every hidden card at each lookahead decision, and most of what the
standard shuffle costs there is its per-card call of ``_randbelow``. This is the same loop with
that call written inline: the same ``getrandbits`` requests in the same order, so the stream and
the resulting order are the standard shuffle's (tests/test_frontier_speed_equivalence.py checks
both against ``random.Random.shuffle``). Any other kind of stream is shuffled the standard way.
"""
from __future__ import annotations

import random


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` would."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in reversed(range(1, len(items))):
        n = i + 1  # CPython's _randbelow_with_getrandbits(n): rejection sampling on n.bit_length() bits
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]
