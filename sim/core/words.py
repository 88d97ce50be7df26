"""Events in plain words (``engine.event_words``): what a replay says beside the drawn board.

The event log keeps small integers; a game's words table turns one event into a sentence a
designer reads ("Iron Horse Cavalry (p1) attacks Dust Sprite: 3 damage"). A table maps a kind's
name to a format string over the fields of ``Said`` or to a function of a ``Said``; a kind the
table leaves out gets ``plain``'s generic sentence, so a new kind is never lost."""
from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

from sim.core.events import NO_ID


class Said(NamedTuple):
    """One event, its numbers turned into names: ``card`` and ``target`` are card names (or the
    game's word for a pseudo id: "sheriff", "leader"), "" when the column is empty."""
    kind: str
    seat: int
    who: str      # "p1", or "" when the seat column is empty
    card: str
    target: str
    amount: int
    n: int        # abs(amount)
    lane: str     # the lane or cell's name, "" when none
    detail: str


Words = dict[str, "str | Callable[[Said], str]"]
SEAT_WORD = re.compile(r"^p(\d+)\b\s*(.*)$")


def said(engine: Any, pool: Any, name_of: Callable[[int], str], seat: int, kind: int, card: int, target: int,
         amount: int, lane: int, detail: str | None) -> Said:
    return Said(engine.kinds.name(kind), seat, f"p{seat}" if seat >= 0 else "",
                name_of(card) if card != NO_ID else "", name_of(target) if target != NO_ID else "",
                amount, abs(amount), engine.lane_name(pool, lane) if lane >= 0 else "", detail or "")


def say_event(words: Words, engine: Any, pool: Any, seat: int, kind: int, card: int, target: int, amount: int,
              lane: int, detail: str | None) -> str:
    """A game's ``drawn.event_words`` (``partial(say_event, WORDS)``): one logged event in the
    game's ``words``, cards by their names in ``pool``, a pseudo id by what the store calls it
    (``engine.pseudo_cards``: "sheriff", "leader"), any other pseudo id ""."""
    pseudo = engine.pseudo_cards

    def name_of(c: int) -> str:
        return pool.cards[c].name if c >= 0 else pseudo.get(c, "")

    return say(words, said(engine, pool, name_of, seat, kind, card, target, amount, lane, detail))


def say(words: Words, e: Said) -> str:
    how = words.get(e.kind)
    if how is None:
        return plain(e)
    text = how(e) if callable(how) else how.format(**e._asdict())
    return " ".join(text.split())


def plain(e: Said) -> str:
    """Any event, in a generic sentence: who, what kind, which card, at whom, how much, where."""
    head = f"{e.card} ({e.who})" if e.card and e.who else e.card or e.who or "the match"
    text = f"{head}: {e.kind.replace('_', ' ')}"
    if e.target:
        text += f" {e.target}"
    if e.amount:
        text += f", {e.amount}"
    if e.lane:
        text += f" in {e.lane}"
    if e.detail:
        text += f" ({e.detail.replace('_', ' ')})"
    return text


def owner(detail: str) -> tuple[str, str]:
    """A detail that starts with a seat ("p0 burn") as ("p0", "burn"); ("", detail) otherwise."""
    m = SEAT_WORD.match(detail)
    return (f"p{m.group(1)}", m.group(2)) if m else ("", detail)


def game_over(e: Said) -> str:
    """The shared game-over event: the winner in the seat column (none: a draw), the reason."""
    reason = e.detail.replace("_", " ")
    return f"The match ends: {e.who} wins ({reason})" if e.who else f"The match ends in a draw ({reason})"


def actor(e: Said) -> str:
    """"Card (p1)", or the seat alone when the event names no card."""
    return f"{e.card} ({e.who})" if e.card else e.who or "the match"
