"""Seat-wide keywords (MARKED, LOADED DICE): whether a seat has a working source of one.

A module of its own because hidden.py (what MARKED lets a seat see) and field.py (which
imports hidden.py) both need it.
"""
from __future__ import annotations

from sim.alleyway.state import AlleyState


def has_keyword_source(state: AlleyState, seat: int, bit: int) -> bool:
    """A seat-wide keyword (MARKED, LOADED DICE) from a working character (its own or an Equip's
    keyword) or a face-up Continuous card."""
    cards = state.pool.cards
    side = state.sides[seat]
    for u in side.lanes:
        if u is not None and u.active and u.kw & bit:
            return True
    for b in side.back:
        if b is not None and b.face_up and cards[b.card].kw & bit:
            return True
    return False
