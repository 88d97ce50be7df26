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


class ActionTable:
    """Every action value a rules version can offer, made once per pool, so ``legal_actions`` hands
    out the same tuples at every decision instead of building new ones (building a named tuple is
    a Python-level call: it was a large part of a random pilot's decision). Equal values, so
    comparing, hashing and printing actions are unchanged. Attacks and Heavies, whose second field
    ranges widely, are made when first asked for."""
    __slots__ = ("deploy", "set", "play", "gutter", "flip", "switch", "activate", "promote", "awaken", "_attack",
                 "_heavy", "_choose")

    def __init__(self, n_cards: int, n_lanes: int, n_back: int):
        # deploy[card][pos][lane]; awaken[pos][lane]; pos 1 = ATK, 0 = DEF
        self.deploy = [[[Action(DEPLOY, card, pos, lane) for lane in range(n_lanes)] for pos in (0, 1)]
                       for card in range(n_cards)]
        self.set = [Action(SET, card) for card in range(n_cards)]
        self.play = [Action(PLAY, card) for card in range(n_cards)]
        self.gutter = [Action(GUTTER, card) for card in range(n_cards)]
        self.flip = [Action(FLIP, slot) for slot in range(n_back)]
        self.switch = [Action(SWITCH, lane) for lane in range(n_lanes)]
        self.activate = [Action(ACTIVATE, lane) for lane in range(n_lanes)]
        self.promote = [Action(PROMOTE, lane) for lane in range(n_lanes)]
        self.awaken = [[Action(AWAKEN, pos, lane) for lane in range(n_lanes)] for pos in (0, 1)]
        self._attack: list[dict[int, Action]] = [{} for _ in range(n_lanes)]  # by lane, then target code
        self._heavy: dict[tuple[int, int, int], Action] = {}
        self._choose: dict[int, Action] = {}

    def attack(self, lane: int, target: int) -> Action:
        by_target = self._attack[lane]
        action = by_target.get(target)
        if action is None:
            action = by_target[target] = Action(ATTACK, lane, target)
        return action

    def heavy(self, card: int, pos: int, mask: int) -> Action:
        key = (card, pos, mask)
        action = self._heavy.get(key)
        if action is None:
            action = self._heavy[key] = Action(HEAVY, card, pos, mask)
        return action

    def choose(self, option: int) -> Action:
        action = self._choose.get(option)
        if action is None:
            action = self._choose[option] = Action(CHOOSE, option)
        return action
