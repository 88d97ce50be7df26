"""Decisions by the non-active seat (springing an Ambush, a Continuous Ambush offered on the
opponent's turn, the targets of its own Ambush's effects) are decision points like any other: the
deciding seat is ``state.to_act``, its pilot is asked, and declining is one of its choices."""
from collections import Counter

from sim.core.match import play_match
from tests.alleyway_common import alleyway


def test_the_defender_decides_in_real_matches():
    eng, pool, _data, _rules, decks = alleyway()
    seen: Counter = Counter()

    def watch(state, action):
        if state.to_act != state.active:
            what = state.pending.what if state.pending is not None else state.phase  # "mulligan"
            seen[what] += 1
            names = [eng.describe(state, a) for a in eng.legal_actions(state)]
            if what in ("spring", "offer"):
                assert names[-1] == "pass" and len(names) >= 2
            assert action in eng.legal_actions(state)

    for seed in range(40):
        pair = [decks["graves-garrison"], decks["vales-high-rollers"]] if seed % 2 else \
            [decks["archon-star-fleet"], decks["veyr-bone-court"]]
        result = play_match(eng, pool, pair, seed, ["random", "random"], on_decision=watch)
        assert result.error is None
    assert seen["spring"] > 20 and seen["offer"] > 0 and seen["mulligan"] == 40, seen
