"""The decisions a seat can take. Small immutable values: (kind, a, b, c, d) with integer fields.

Moving and deploying are split in two steps, so the first step's action set stays small and a
lookahead pays for the cells only of the step it tries: ``move p0.A3`` then ``to p1.A3``.

    END                       end the turn (then discard down to the hand limit, if over it)
    MUSTER  card              a Warrior from hand into the Muster Zone (free)
    DEPLOY  card source       a Warrior onto the battlefield, from hand (source 0) or the Muster
                              Zone (source 1); the cell is the next step
    MOVE    cell              move the Warrior on ``cell``; the destination is the next step
    CELL    cell              the cell chosen for the deploy or move under way
    ATTACK  cell ability target cry
                              the Warrior on ``cell`` attacks the unit on ``target`` with its
                              attack ability number ``ability``, with Battle Cry ``cry`` (or -1)
    SOUL    cell blight       Soul Combat: the Warrior on ``cell`` challenges the Blight on ``blight``
    SUPPORT cell ability target   a support ability on the unit, cell or Blight on ``target``
    SUPPLY  card target       a War Supply from hand onto ``target`` (a cell)
    TACTIC  card              the defender answers the attack under way with a Tactic
    DECLINE                   the defender lets the attack land
    DISCARD card              discard a card at the end of the turn (over the hand limit)
"""
from __future__ import annotations

from typing import NamedTuple

END, MUSTER, DEPLOY, MOVE, CELL, ATTACK, SOUL, SUPPORT, SUPPLY, TACTIC, DECLINE, DISCARD = range(12)
FROM_HAND, FROM_MUSTER = 0, 1

# state.pending: the step a seat must finish, one of the records below; its ``step`` says which
P_DEPLOY, P_MOVE, P_DEFEND, P_DISCARD = range(4)


class Deploying(NamedTuple):
    """A deploy waiting for its cell: the Warrior ``card`` from ``source`` (FROM_HAND, FROM_MUSTER)."""
    step: int  # P_DEPLOY
    card: int
    source: int


class Moving(NamedTuple):
    """A move waiting for its destination: the Warrior on ``cell``."""
    step: int  # P_MOVE
    cell: int


class Defending(NamedTuple):
    """An attack waiting for the defender's answer (a Tactic or none): the Warrior on ``cell``
    attacks with its ability number ``ability`` the unit on ``target``, ``dealt`` damage so far
    (Battle Cry included), ``pierce`` if a cry gave it Pierce."""
    step: int  # P_DEFEND
    cell: int
    ability: int
    target: int
    dealt: int
    pierce: bool


class Discarding(NamedTuple):
    """The end of the turn waiting for the active seat to discard down to the hand limit."""
    step: int  # P_DISCARD


DISCARDING = Discarding(P_DISCARD)


class Mustered(NamedTuple):
    """A Warrior in the Muster Zone: its ``card`` and the seat's own ``turn`` it came there (it may
    deploy from a later turn on)."""
    card: int
    turn: int


class Action(NamedTuple):
    kind: int
    a: int = 0
    b: int = 0
    c: int = 0
    d: int = -1


END_TURN = Action(END)
DECLINE_TACTIC = Action(DECLINE)
