"""Hand-made ``card_value`` rows (what ``workbench value`` stores), for the tests of what reads them.

Measurement 1 values three Lawmen Posse cards (greedy, against the field); measurement 2 measures
one of them again (its newer row replaces the older one); measurement 3 values a Goblin Gold Gang
card; measurement 4 values a Lawmen Posse card with the random pilot; measurement 5 is under
another rules version."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb

COLUMNS = ("value_id", "game", "rules_version", "rules_hash", "deck", "card", "name", "reference", "against",
           "pilots", "base_run", "variant_run", "copies", "twins", "wr_with", "wr_without", "value_points",
           "value_lo", "value_hi", "p_value", "q_value", "significant", "created_at")
# (value_id, rules_version, deck, card, name, pilots, copies, twins, wr_with, wr_without, points, lo, hi, p, q, sig)
MEASURED = (
    (1, "base", "lawmen-posse", "marshal-gunhand", "Marshal Gunhand", "greedy", 3, 2000, .55, .50, 5.0, 2.0, 8.0, .001, .003, True),
    (1, "base", "lawmen-posse", "tin-star-recruit", "Tin Star Recruit", "greedy", 3, 2000, .50, .51, -1.0, -4.0, 2.0, .5, .5, False),
    (1, "base", "lawmen-posse", "deadeye-shot", "Deadeye Shot", "greedy", 3, 2000, .47, .51, -4.0, -7.0, -1.0, .01, .015, True),
    (2, "base", "lawmen-posse", "tin-star-recruit", "Tin Star Recruit", "greedy", 3, 4000, .53, .50, 3.0, 1.0, 5.0, .004, .004, True),
    (3, "base", "goblin-gold-gang", "goblin-cutpurse", "Goblin Cutpurse", "greedy", 2, 1000, .50, .48, 2.0, -1.0, 5.0, .2, .2, False),
    (4, "base", "lawmen-posse", "marshal-gunhand", "Marshal Gunhand", "random", 3, 1000, .51, .50, 1.0, -3.0, 5.0, .6, .6, False),
    (5, "first-player-skips-draw", "lawmen-posse", "marshal-gunhand", "Marshal Gunhand", "greedy", 3, 500,
     .60, .50, 10.0, 4.0, 16.0, .001, .001, True),
)


def value_rows(game: str = "frontier") -> list[dict]:
    rows = []
    for vid, version, deck, card, name, pilots, copies, twins, w, wo, pts, lo, hi, p, q, sig in MEASURED:
        rows.append({"value_id": vid, "game": game, "rules_version": version, "rules_hash": f"hash-{version}",
                     "deck": deck, "card": card, "name": name, "reference": "vanilla-3", "against": "field",
                     "pilots": pilots, "base_run": 2 * vid - 1, "variant_run": 2 * vid, "copies": copies,
                     "twins": twins, "wr_with": w, "wr_without": wo, "value_points": pts, "value_lo": lo,
                     "value_hi": hi, "p_value": p, "q_value": q, "significant": sig,
                     "created_at": datetime(2025, 1, vid, 12, 0)})
    return rows


def add_card_values(path: Path, rows: list[dict]) -> None:
    """Insert rows into a store's ``card_value`` table (the store made by Store.init)."""
    marks = ", ".join("?" for _ in COLUMNS)
    con = duckdb.connect(str(path))
    try:
        con.executemany(f"INSERT INTO card_value ({', '.join(COLUMNS)}) VALUES ({marks})",
                        [[r[c] for c in COLUMNS] for r in rows])
    finally:
        con.close()
