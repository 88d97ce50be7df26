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
        and, when given, a per-seat table (``card_games`` or ``match_seats``) as ``seat_alias``."""
        clauses, params = [], []
        if self.game:
            clauses.append(f"{run_alias}.game = ?")
            params.append(self.game)
        for column, values, alias in (("run_id", self.runs, run_alias), ("rules_version", self.versions, run_alias),
                                      ("deck", self.decks, seat_alias), ("pilot", self.pilots, seat_alias)):
            if values and alias:
                clauses.append(f"{alias}.{column} IN ({', '.join('?' for _ in values)})")
                params.extend(values)
        return ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def key(self) -> tuple:
        """Hashable, for caching."""
        return (self.game, tuple(self.runs), tuple(self.versions), tuple(self.decks), tuple(self.pilots))
