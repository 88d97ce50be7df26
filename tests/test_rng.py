"""RNG streams: derived from (seed, purpose), independent, stable across processes."""
import random
import subprocess
import sys

from sim.core.rng import Streams, derive_seed, stream


def test_same_seed_and_purpose_give_the_same_stream():
    a, b = Streams(42), Streams(42)
    assert [a.shuffle(0).random() for _ in range(3)] == [b.shuffle(0).random() for _ in range(3)]
    assert a.chance(5).random() == b.chance(5).random()


def test_purposes_do_not_share_draws():
    s = Streams(42)
    values = {s.shuffle(0).random(), s.shuffle(1).random(), s.chance(1).random(), s.chance(2).random(),
              s.pilot(0).random(), s.pilot(1).random(), s.setup().random()}
    assert len(values) == 7


def test_derivation_does_not_depend_on_the_process_hash_salt():
    code = "from sim.core.rng import derive_seed; print(derive_seed(7, 'chance', 3))"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={"PYTHONHASHSEED": salt}).stdout.strip() for salt in ("1", "2")}
    assert outs == {str(derive_seed(7, "chance", 3))}


def test_shuffle_is_random_shuffle():
    """sim.core.rng.shuffle deals the order random.shuffle deals from the same stream, for every
    length (0 and 1 included), and leaves the stream where random.shuffle leaves it; a stream of
    another type is shuffled by its own method."""
    import random

    from sim.core.rng import shuffle
    for seed in range(200):
        for n in (0, 1, 2, 7, 40, 61):
            ours, theirs = random.Random(seed), random.Random(seed)
            mine, reference = list(range(n)), list(range(n))
            shuffle(ours, mine)
            theirs.shuffle(reference)
            assert mine == reference
            assert ours.getstate() == theirs.getstate()

    class Reversing(random.Random):
        def shuffle(self, x):
            x.reverse()
    items = [1, 2, 3]
    shuffle(Reversing(1), items)
    assert items == [3, 2, 1]


def test_a_stream_draws_what_random_Random_of_its_seed_draws():
    """``stream`` seeds the generator without ``random.Random``'s Python-level ``__init__``: the
    same state, the same draws of every kind, gauss's cached second value included."""
    keys = random.Random(11)
    for _ in range(200):
        key, turn = keys.getrandbits(64), keys.randrange(400)
        ours, plain = stream(key, "chance", turn), random.Random(derive_seed(key, "chance", turn))
        assert ours.getstate() == plain.getstate()
        assert [ours.randint(1, 12) for _ in range(5)] == [plain.randint(1, 12) for _ in range(5)]
        assert [ours.gauss(0, 1) for _ in range(3)] == [plain.gauss(0, 1) for _ in range(3)]
        mine, theirs = list(range(20)), list(range(20))
        ours.shuffle(mine)
        plain.shuffle(theirs)
        assert mine == theirs and ours.random() == plain.random()
