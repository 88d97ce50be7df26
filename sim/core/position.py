"""Reading a scenario's written position field by field, each value checked as it is read.

An engine's ``scenario_state`` turns a mapping a designer wrote (the setup, each seat, each unit
on the board) into a state. Read with ``int()``, ``hp: 10**20`` or ``mana: -5`` became a state no
match can reach, ``hp: lots`` an error naming no field, and ``ready: "no"`` a ready unit. Read
through ``Fields``, every number is a whole number within the range its field can hold (never
above the game's ``most``, itself below the store's 32-bit columns), every flag is true or
false, every word one of its words, every list and mapping what it should be: otherwise one
ValueError naming the field by its path (``setup.seats[1].lanes.m3.def``), the range and the
value, which the scenario runner reports with the file and the scenario's name.
"""
from __future__ import annotations

from typing import Any, Collection

from sim.core.scenario import check_fields


class Fields:
    """One level of a written position, its field names checked against ``keys``."""

    __slots__ = ("spec", "where", "most")

    def __init__(self, spec: Any, where: str, keys: Collection[str], most: int):
        check_fields(spec, sorted(keys), where)
        self.spec: dict = spec
        self.where = where
        self.most = most  # the largest number any field of this game may hold

    def path(self, key: str) -> str:
        return f"{self.where}.{key}"

    def given(self, key: str) -> bool:
        return key in self.spec

    def whole(self, key: str, default: int, least: int = 0, most: int | None = None, why: str = "") -> int:
        """The field as a whole number from ``least`` to ``most`` (default the game's largest);
        ``default`` when it is not written. ``why`` says where a tighter bound comes from."""
        if key not in self.spec:
            return default
        return whole_number(self.spec[key], self.path(key), least, self.most if most is None else most, why)

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.spec.get(key, default)
        if not isinstance(value, bool):
            raise ValueError(f"{self.path(key)}: expected true or false, got {value!r}")
        return value

    def word(self, key: str, words: Collection[str], default: str) -> str:
        value = self.spec.get(key, default)
        if value not in words:
            raise ValueError(f"{self.path(key)}: expected one of {', '.join(words)}, got {value!r}")
        return value

    def mapping(self, key: str, what: str) -> dict:
        """A mapping field (``what`` it maps, for the message); empty when not written."""
        value = self.spec.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"{self.path(key)}: expected a mapping of {what}, got {value!r}")
        return value

    def names(self, key: str, what: str = "card ids", most: int | None = None, why: str = "") -> list[str]:
        """A list of names (card ids, cells), at most ``most`` long; empty when not written."""
        value = self.spec.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{self.path(key)}: expected a list of {what}, got {value!r}")
        if most is not None and len(value) > most:
            raise ValueError(f"{self.path(key)}: {len(value)} {what}, more than {most}{why}")
        return value


def whole_number(value: Any, where: str, least: int, most: int, why: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise ValueError(f"{where}: expected a whole number from {least:,} to {most:,}{why}, got {value!r}")
    return value


def seat_specs(setup: dict, least: int, most: int, game: str) -> list[dict]:
    """The setup's seats (a duel of two unwritten seats when none are written), as many as the
    game is played by; each seat's mapping (an unwritten seat is ``{}``)."""
    seats = setup.get("seats") or [{}, {}]
    if not least <= len(seats) <= most:
        allowed = f"{least}" if least == most else f"{least} to {most}"
        raise ValueError(f"setup.seats: {game} is played by {allowed} seats, not {len(seats)}")
    return [spec or {} for spec in seats]
