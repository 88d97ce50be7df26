"""The decisions a seat can take. Small immutable values: (kind, a, b) with integer fields.

    END              end the Action Phase (the turn passes)
    PLAY   card lane play a card from hand: a creature into an empty lane, a spell with lane -1
    ATTACK lane tgt  the creature in ``lane`` attacks the target code ``tgt`` (state.code)
    CHOOSE option    pick the option of a choice being resolved: a target code, or one of the
                     option codes in state.py (pass, overdrive, a mode)
    SUMMON slot lane summon the Deputy in Deputy slot ``slot`` (0 or 1) into an empty lane
    ABILITY slot     use the off-board ability of the Deputy in ``slot``
    SHERIFF card     the sheriff's own action (Zix: discard ``card`` from hand to draw 2)
"""
from __future__ import annotations

from typing import NamedTuple

from sim.frontier.state import MAX_SEATS

END, PLAY, ATTACK, CHOOSE, SUMMON, ABILITY, SHERIFF_ACT = 0, 1, 2, 3, 4, 5, 6


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0


END_TURN = Action(END)


class ActionTable:
    """Every action of a pool made once: legal_actions hands out these shared immutable values
    instead of building new ones at every decision, and keeps the rows it hands out (a card's
    plays into the lanes open to it, an option list's choices) by what they depend on, so a
    decision mostly extends its list with ready tuples."""

    def __init__(self, pool):
        lanes = range(pool.n_lanes)
        # play[card][lane] (a creature), play[card][-1] (a spell: lane -1)
        self.play = [tuple(Action(PLAY, c.id, lane) for lane in lanes) + (Action(PLAY, c.id, -1),)
                     for c in pool.cards]
        self.summon = [tuple(Action(SUMMON, slot, lane) for lane in lanes) for slot in range(4)]
        self.ability = [Action(ABILITY, slot) for slot in range(4)]
        # attack[lane][target code]: target codes run up to 16 x seats (state.MAX_SEATS)
        self.attack = [[Action(ATTACK, lane, target) for target in range(16 * MAX_SEATS)] for lane in lanes]
        self.sheriff = [Action(SHERIFF_ACT, c.id) for c in pool.cards]
        self._plays: list[dict] = [{} for _ in pool.cards]   # per card: lanes -> its plays there
        self._summons: list[dict] = [{} for _ in range(4)]   # per Deputy slot: lanes -> summons
        self._choices: dict = {}                             # options -> their CHOOSE actions

    def plays(self, card_id: int, lanes: tuple) -> tuple:
        """The creature's PLAY actions into ``lanes``, in lane order."""
        return _into(self._plays[card_id], self.play[card_id], lanes)

    def summons(self, slot: int, lanes: tuple) -> tuple:
        """The Deputy slot's SUMMON actions into ``lanes``, in lane order."""
        return _into(self._summons[slot], self.summon[slot], lanes)

    def choices(self, options: tuple) -> tuple:
        """A pending choice's CHOOSE actions, one per option, in the options' order."""
        got = self._choices.get(options)
        if got is None:
            got = self._choices[options] = tuple(Action(CHOOSE, option) for option in options)
        return got


def _into(memo: dict, row: tuple, lanes: tuple) -> tuple:
    """``row``'s actions (one per lane) for ``lanes``, kept in ``memo`` by the lane set."""
    got = memo.get(lanes)
    if got is None:
        got = memo[lanes] = tuple(row[lane] for lane in lanes)
    return got
