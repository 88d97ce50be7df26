"""The decisions a seat can take. Small immutable values: (kind, a, b) with integer fields.

    END              end the Action Phase (the turn passes)
    PLAY   card lane play a card from hand: a creature into an empty lane, a spell with lane -1
    ATTACK lane tgt  the creature in ``lane`` attacks the target code ``tgt`` (state.code)
    CHOOSE tgt       pick the target of an effect being resolved
"""
from __future__ import annotations

from typing import NamedTuple

END, PLAY, ATTACK, CHOOSE = 0, 1, 2, 3


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0


END_TURN = Action(END)
