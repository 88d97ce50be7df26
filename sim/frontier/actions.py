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

END, PLAY, ATTACK, CHOOSE, SUMMON, ABILITY, SHERIFF_ACT = 0, 1, 2, 3, 4, 5, 6


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0


END_TURN = Action(END)
