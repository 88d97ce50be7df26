"""Filters every report takes: which runs, rules versions, decks, pilots; turned into SQL once."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Filters:
    """Empty lists mean "all". ``game`` narrows to one game's runs."""
    game: str | None = None
    runs: list[int] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    decks: list[str] = field(default_factory=list)
    pilots: list[str] = field(default_factory=list)

    def where(self, run_alias: str = "r", seat_alias: str | None = None) -> tuple[str, list]:
        """A WHERE clause (with its parameters) over a query that joins ``runs`` as ``run_alias``
        and, when given, a per-seat table (``card_games`` or ``match_seats``) as ``seat_alias``.

        The pilot filter holds for every seat of a match, not only the row's: a run is chosen only
        when each of its deck slots was played by a chosen pilot. "Greedy" then means greedy
        against greedy; a row's seat filtered alone let a greedy seat's figures pool its games
        against random opponents with those against greedy ones (a run of greedy against random
        reads as a deck gap that is the pilots'). A campaign run (its ``pilots`` is "policy/fight
        pilot") is chosen by no pilot filter: its fights seat the crew's pilot against the enemies',
        and the Campaign page splits them by both."""
        clauses, params = [], []
        if self.game:
            clauses.append(f"{run_alias}.game = ?")
            params.append(self.game)
        if self.pilots and run_alias:
            clauses.append(f"list_has_all([{', '.join('?' for _ in self.pilots)}], string_split({run_alias}.pilots, ','))")
            params.extend(self.pilots)
        for column, values, alias in (("run_id", self.runs, run_alias), ("rules_version", self.versions, run_alias),
                                      ("deck", self.decks, seat_alias), ("pilot", self.pilots, seat_alias)):
            if values and alias:
                clauses.append(f"{alias}.{column} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def key(self) -> tuple:
        """Hashable, for caching."""
        return (self.game, tuple(self.runs), tuple(self.versions), tuple(self.decks), tuple(self.pilots))
