"""The decisions a seat can take. Small immutable values: (kind, a, b, c) with integer fields.

    KEEP / REDRAW          keep or redraw the opening hand
    NEXT                   end the phase: Deployment -> Brawl -> Regroup -> end of the turn
    DEPLOY card pos lane   a Brawler or Striver from hand; pos 1 = ATK, 0 = DEF; the lane is the
                           first empty one (or, with a full row, the character it goes over)
    HEAVY  card pos mask   a Heavy on the characters in the lanes of the bit mask
    SET    card            a Hustle or Ambush face-down into the back row
    PLAY   card            a Hustle from hand
    FLIP   slot            activate a set Hustle, or flip a Continuous Ambush, on your turn
    SWITCH lane            ATK <-> DEF
    ATTACK lane target     target code (state.code): a character, the player (DIRECT), the leader
    ACTIVATE lane          a character's ACTIVATE ability
    GUTTER card            a Gutter ability
    AWAKEN pos lane        the leader takes the field
    PROMOTE lane           a Striver whose PROMOTE costs Authority
    CHOOSE option          answer the pending choice (a target, a card, spring/offer/pass, bet...)
"""
from __future__ import annotations

from typing import NamedTuple

KEEP, REDRAW, NEXT, DEPLOY, HEAVY, SET, PLAY, FLIP, SWITCH, ATTACK, ACTIVATE, GUTTER, AWAKEN, PROMOTE, CHOOSE = \
    range(15)


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0
    c: int = 0


NEXT_PHASE = Action(NEXT)
KEEP_HAND = Action(KEEP)
REDRAW_HAND = Action(REDRAW)
