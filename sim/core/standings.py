"""Where each seat finished a match: its placement, and when and by whom it went out.

General to every game with more than two seats (a free-for-all): the last seat standing is
placed first and the rest in the reverse of the order they went out; when the match ends
without a winner (a turn limit), the seats still playing share the best place. A duel keeps
its two-seat meaning: 1 for the winner, 2 for the loser, none in a draw (the store and the
reports read a duel's placement that way).
"""
from __future__ import annotations

from typing import NamedTuple


class Out(NamedTuple):
    """A seat that went out: on which player-turn, knocked out by which seat (-1: nobody, e.g.
    an empty deck or its own cost), and why (the engine's reason, e.g. morale, deck_out)."""
    seat: int
    turn: int
    by: int
    reason: str


class Standing(NamedTuple):
    placement: int | None  # 1 = first; None in a duel's draw
    out_turn: int | None   # None: still playing at the end
    out_by: int | None     # the seat that put it out; None when nobody did or it never went out
    result: str            # win, loss, draw


def standings_from_results(results: list[str]) -> list[Standing]:
    """A game that knows only win, loss and draw (every duel)."""
    return [Standing({"win": 1, "loss": 2}.get(r), None, None, r) for r in results]


def standings_from_outs(n_seats: int, outs: tuple[Out, ...], winner: int | None) -> list[Standing]:
    """Placements from the order seats went out (``outs``, earliest first). The winner, or every
    seat still playing when the match ended without one, is placed first (they share it, and the
    next place is counted after them: three still playing and one out place 1, 1, 1, 4); the last
    seat out comes next, and so on. Seats out lose; seats sharing a draw draw."""
    out_at = {o.seat: o for o in outs}
    playing = [s for s in range(n_seats) if s not in out_at]
    place: dict[int, int] = {s: 1 for s in playing}
    for rank, o in enumerate(reversed(outs)):
        place[o.seat] = len(playing) + rank + 1
    rows = []
    for s in range(n_seats):
        o = out_at.get(s)
        if o is None:
            result = "win" if winner == s else "draw" if winner is None else "loss"
            rows.append(Standing(place[s], None, None, result))
        else:
            rows.append(Standing(place[s], o.turn, o.by if o.by >= 0 else None, "loss"))
    if n_seats == 2 and winner is None:  # a duel's draw: no placement, as the duel always had
        rows = [Standing(None, r.out_turn, r.out_by, "draw") for r in rows]
    return rows


def standings_from_teams(teams: tuple[int, ...], outs: tuple[Out, ...], winner: int | None) -> list[Standing]:
    """Placements of teams (a team per seat: ``teams[seat]``), general to every team mode: a team
    is out when its last seat went out, and teams are placed by when that was, the last team out
    after the teams still playing, as ``standings_from_outs`` places seats. Every seat of a team
    shares its team's placement and result, a seat that went out while its partners fought on
    too: the winner's team (``winner`` is any seat of it) is placed 1 and wins; when the match
    ended without a winner (a turn limit), the teams still playing share first place and draw.
    Each seat keeps its own ``out_turn`` and ``out_by``."""
    n_seats = len(teams)
    out_at = {o.seat: o for o in outs}
    members: dict[int, list[int]] = {}
    for s, t in enumerate(teams):
        members.setdefault(t, []).append(s)
    playing = [t for t, seats in members.items() if any(s not in out_at for s in seats)]
    if winner is not None and teams[winner] not in playing:
        playing.append(teams[winner])  # (a won match always leaves the winner's team playing)
    # teams out, by the order their last seat went out (the index of that seat in ``outs``)
    order = {o.seat: i for i, o in enumerate(outs)}
    gone = sorted((t for t in members if t not in playing), key=lambda t: max(order[s] for s in members[t]))
    # the teams still playing first (the winner's alone at 1, if a team won while another still
    # played, which a team mode's end never leaves), then the teams out, the last out first
    place = {t: 1 if winner is None or t == teams[winner] else 2 for t in playing}
    for rank, t in enumerate(reversed(gone)):
        place[t] = len(playing) + rank + 1
    rows = []
    for s in range(n_seats):
        t = teams[s]
        if winner is not None:
            result = "win" if t == teams[winner] else "loss"
        else:
            result = "draw" if t in playing else "loss"
        o = out_at.get(s)
        rows.append(Standing(place[t], o.turn if o else None, (o.by if o.by >= 0 else None) if o else None, result))
    return rows
