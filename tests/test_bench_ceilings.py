"""``workbench bench --ceilings`` (workbench/bench/ceilings.py): one part's answers recorded,
then read back in the same matches, to bound what work on that part alone can buy."""
from __future__ import annotations

import pytest

from tests.conftest import run_cli
from workbench.bench import ceilings
from workbench.errors import UserError


def test_a_recorded_part_answers_as_itself_then_from_the_record_in_order():
    calls = []

    def real(x):
        calls.append(x)
        return x * 10

    part = ceilings.Recorded(real)
    part.start("record")
    assert [part(1), part(2)] == [10, 20] and part.answers == [10, 20]
    part.start("replay")
    assert [part(7), part(8)] == [10, 20] and calls == [1, 2]  # read back, the method not asked
    with pytest.raises(StopIteration):
        part(9)  # a replay asked more than was recorded: it played otherwise
    part.start("plain")
    assert part(3) == 30 and part.answers == [10, 20]


@pytest.mark.parametrize("part, pilot", ceilings.PARTS)
def test_a_replay_plays_the_recorded_matches(part, pilot):
    """The replay ends with the recorded matches' digests (``ceiling`` stops otherwise) and a ratio
    is measured. Not that the replay is cheaper: on one match of 25 ms that is the machine's noise
    as much as the part (CI saw a greedy evaluate ceiling of 0.89x), and speed is measured with
    ``workbench bench --ceilings``, not in a test (docs/SPEED.md)."""
    found = ceilings.ceiling("frontier", part, pilot, 6 if pilot == "random" else 1, 1)
    assert found.calls > 50 and found.plain_cpu > 0 and found.free_cpu > 0
    assert len(found.ratios) == 1 and found.ratios[0] > 0, found


def test_a_replay_that_plays_other_matches_stops_with_one_line(monkeypatch):
    start = ceilings.Recorded.start

    def scrambled(self, mode):
        start(self, mode)
        if mode == "replay":  # the answers of another match: the replay cannot play the recorded ones
            self._next = iter(self.answers[::-1]).__next__

    monkeypatch.setattr(ceilings.Recorded, "start", scrambled)
    with pytest.raises(UserError, match="played other matches than the recorded one"):
        ceilings.ceiling("frontier", "legal_actions", "random", 4, 1)


def test_the_cli_prints_a_row_per_game_and_part():
    res = run_cli("bench", "--ceilings", "--games", "frontier", "--matches", "6", "--greedy-matches", "1",
                  "--blocks", "1")
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if line.startswith("│ frontier")]
    assert len(rows) == 2 and "legal_actions" in rows[0] and "evaluate" in rows[1], res.stdout
