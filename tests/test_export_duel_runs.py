"""An export of a duel table with no run named reads the duel runs, as the pages do by default: a
series' games (game 1 is its duel twin's match again), a value twin's (a deck with a card swapped
out) or a free-for-all table's are not a duel field's matches. Before, ``export matchups`` pooled a
series run's 54 games with a duel run's 20 on the same seeds."""
from __future__ import annotations

from reports.exports import export_frame
from reports.filters import Filters
from reports.matchups import matchups
from tests.conftest import run_cli

DECKS = "cinder-wildfire,marlows-crew"


def test_a_duel_export_reads_the_duel_runs_unless_runs_are_named(tmp_path):
    db = tmp_path / "s.duckdb"
    for mode in ("series", "duel"):
        res = run_cli("simulate", "alleyway", "--mode", mode, "--decks", DECKS, "--pilots", "random", "--matches", "4",
                      "--workers", "1", "--db", str(db), "--quiet", "--seed", "3")
        assert res.returncode == 0, res.stderr
    exported = export_frame(db, "matchups", Filters()).drop("pilot")
    assert exported.to_dicts() == matchups(db, Filters(runs=[2])).to_dicts()  # run 2 is the duel run
    assert exported["games"].sum() == 2 * 4  # the duel run's 4 matches, seen from each deck
    named = export_frame(db, "matchups", Filters(runs=[1, 2])).drop("pilot")
    assert named["games"].sum() > exported["games"].sum()  # runs named are read as named
