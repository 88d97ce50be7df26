"""A lookahead value for a table of more than two seats (or of teams), the same in every game:
the seat with its partners against the strongest opposing seat or team still playing. A seat out
is worst, less ``placement`` for each other seat out (it outlived them, or went out with them); a
seat still playing gains ``placement`` per opponent out. Each game says which seats are out and
what a seat still playing is worth; the weights come from the game's weight set (a pilot's copy
of its evaluate module passes its own)."""
from __future__ import annotations

from typing import Callable, NamedTuple


class TableWeights(NamedTuple):
    win: float        # a match won (by the seat or a partner)
    out: float        # a seat gone out
    placement: float  # per other seat out
    out_in_team: float = 0.0  # a seat gone out whose team plays on (taken off its partners' value)


def table_value(state, seat: int, out: list[bool], seat_value: Callable[[int], float], w: TableWeights) -> float:
    teams = getattr(state, "teams", None)
    team = teams[seat] if teams is not None else None

    def partner(s: int) -> bool:
        return s == seat or (team is not None and teams[s] == team)

    n_out = sum(out)
    if state.over:
        if state.winner is not None and partner(state.winner):
            return w.win
        if state.winner is None and not out[seat]:
            return 0.0
        return -w.out + w.placement * (n_out - 1 if out[seat] else n_out)
    if out[seat] and team is None:
        return -w.out + w.placement * (n_out - 1)
    alive = [s for s in range(len(out)) if not out[s]]
    mine = sum(seat_value(s) for s in alive if partner(s))
    if out[seat]:  # its team plays on without it
        mine -= w.out_in_team
    if team is None:
        others = [seat_value(s) for s in alive if s != seat]
    else:
        by_team: dict = {}
        for s in alive:
            if not partner(s):
                by_team[teams[s]] = by_team.get(teams[s], 0.0) + seat_value(s)
        others = list(by_team.values())
    theirs = max(others) if others else 0.0
    foes_out = sum(1 for s in range(len(out)) if out[s] and not partner(s))
    return mine - theirs + w.placement * foes_out
