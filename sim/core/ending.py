"""How a match ends, the one way for every game: the winner and the reason set, nothing left
waiting, and the log's game-over event. The match loop's own endings (a turn or decision limit,
an error) are draws without an event (``end_as_draw``)."""
from __future__ import annotations

from typing import Any

from sim.core.events import NO_ID


def finish(state: Any, winner: int | None, reason: str, game_over: int) -> None:
    """The match is over: ``winner`` a seat or None (a draw), ``reason`` how it ended. The game's
    ``game_over`` event kind is logged with the winner in its seat column (NO_ID for a draw) and
    the reason as its detail."""
    state.over, state.winner, state.reason = True, winner, reason
    state.pending = None
    if state.events is not None:
        state.events.emit(state.turn, NO_ID if winner is None else winner, game_over, detail=reason)


def end_as_draw(state: Any, reason: str) -> None:
    state.over = True
    state.winner = None
    state.reason = reason
