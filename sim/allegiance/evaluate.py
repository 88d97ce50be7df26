"""The heuristic value of a position for one seat, used by the greedy pilot.

What it knows, for each side: the Stronghold HP still to tear down (the one standing and those
in the Stronghold deck), each Warrior's worth (HP, damage, shields, weapon and armor), the
Muster Zone and the hand, how close each Warrior stands to a firing position on the enemy
Stronghold, which enemy units it can hit now, whether it stands where an enemy can reach it
next turn (threat ranges: the cells an enemy can hit after one move), formations, and the Blight
on each side (the danger grows as it nears Overrun), a tapped or soul-drained Warrior (it loses its
next turn and can't be answered for; it threatens nothing), a boost still to use this turn, and
keywords (Pierce, Soul Combat bonus). The weights are data: ``weights.yaml`` beside this file,
read once at import into a ``Valuer`` (valuation.py, the algorithm, compiled where the install
built it); the per-card keyword worth is a table built once per rules version. The
battlefield has two halves: a duel only (no multi-seat or team comparison).

A position is valued from per-seat and per-unit terms kept from the last position valued
(``state.memo``, ``SideTerms``), recomputing only what changed: a seat whose units stand as they
were reuses its terms whole, so a position met again (a luck sample's outcome, a move's first
step) costs the per-seat tail of ``valuation._seat_value`` only. (A table of whole positions already valued,
keyed by value, was kept until 2026-12-06: it made greedy, planner and mcts play no faster and a
first evaluation 15% dearer, its key hashing every unit on the board; docs/SPEED.md.)

Threat ranges come from per-card tables built once per rules version (pool.py): for each cell,
the mask of cells the card's attacks reach from there (``hit_masks``), and from anywhere one move
away (``threat_masks``; blockers ignored: a threat estimate, not a path search).
"""
from __future__ import annotations

from sim.core.compiled import is_compiled, load_compiled, source_module
from sim.core.weights import load_weights

valuation = load_compiled("sim.allegiance.valuation")

WEIGHTS = load_weights(__file__)
VALUER = valuation.Valuer(WEIGHTS["weights"])
if is_compiled(valuation):
    # the build's cell masks are 64-bit: a wider board is valued by the source, same weights
    VALUER.wide = source_module("sim.allegiance.valuation", "sim.allegiance.valuation_source").Valuer(
        WEIGHTS["weights"])

# the engine's evaluate and its reference (a weight set's copy of this module has its own Valuer)
evaluate = VALUER.evaluate
evaluate_fresh = VALUER.evaluate_fresh


def forget_card_terms() -> None:
    """Drop the per-card terms kept by rules version, the wide boards' Valuer's too: a test that
    edits a card in place calls it, so the next evaluation reads the card as it now is."""
    VALUER.tables.clear()
    if VALUER.wide is not None:
        VALUER.wide.tables.clear()
