"""Independent random streams derived from (seed, purpose).

Every match has one integer seed. Each purpose (a seat's shuffle, the chance stream of a turn, a
seat's pilot) gets its own ``random.Random`` seeded from a hash of the seed and the purpose, so
the streams never share draws: a pilot that thinks longer does not change the next shuffle, and two
rules versions played on one seed share their shuffles and, turn by turn, their luck.

The hash is blake2b over a canonical text, not Python's ``hash()``, which is salted per process.
"""
from __future__ import annotations

import _random
import hashlib
import random

_seed_mt = _random.Random.seed   # the C seeding that Random.seed ends in, for an int
_bare = random.Random.__new__    # a Random not yet seeded by its Python-level __init__


def derive_seed(seed: int, *purpose: object) -> int:
    """A 64-bit integer determined only by the seed and the purpose parts."""
    text = repr((int(seed),) + tuple(purpose)).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big")


def stream(seed: int, *purpose: object) -> random.Random:
    """``random.Random(derive_seed(seed, *purpose))``, for less: lookahead seeds a fresh chance
    stream for every determinized position and every luck sample (thousands a match), and
    ``random.Random(n)`` runs the Python-level ``__init__`` and ``seed`` around the C seeding
    that does the work. The same C seeding of the same generator: the very same draws
    (tests/test_rng.py holds it to ``random.Random``)."""
    rng = _bare(random.Random)
    _seed_mt(rng, derive_seed(seed, *purpose))
    rng.gauss_next = None  # as Random.seed leaves it
    return rng


def copy_stream(rng: random.Random | None) -> random.Random | None:
    """An independent copy of a stream at its current position (clones carry their own)."""
    if rng is None:
        return None
    # not random.Random(): that seeds the new stream from the OS first, a cost lookahead pays
    # on every clone; setstate overwrites the whole state anyway
    copy = random.Random.__new__(random.Random)
    copy.setstate(rng.getstate())
    return copy


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` would: the same order from the
    same draws, leaving the stream where ``random.shuffle`` leaves it.

    Why: a lookahead pilot determinizes at every decision, reshuffling every hidden card, and
    the standard shuffle makes two Python-level calls per card. This is CPython's algorithm
    (Fisher-Yates, each index drawn by rejection sampling on ``getrandbits``) with those calls
    inlined. Only for a plain ``random.Random``: a subclass may draw differently, so it
    shuffles itself (tests/test_rng.py holds this to ``random.shuffle``)."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


class Streams:
    """The named streams of one match."""

    __slots__ = ("seed",)

    def __init__(self, seed: int):
        self.seed = int(seed)

    def shuffle(self, seat: int) -> random.Random:
        return stream(self.seed, "shuffle", seat)

    def chance(self, turn: int) -> random.Random:
        """Coins, dice and random targets of one turn; reseeded each turn so two games that
        diverge still share their luck turn by turn (common random numbers)."""
        return stream(self.seed, "chance", turn)

    def pilot(self, seat: int, salt: int = 0) -> random.Random:
        """A seat's pilot stream. A non-zero ``salt`` gives the pilots other (equally fair) choices
        on the same seed: used to calibrate version diffs with null changes that still diverge."""
        return stream(self.seed, "pilot", seat) if not salt else stream(self.seed, "pilot", seat, salt)

    def setup(self) -> random.Random:
        """Setup choices such as who goes first when the rules draw it."""
        return stream(self.seed, "setup")
