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
    exported = export_frame(db, "matchups", Filters()).drop("match_pilots", "game", "card_set")
    assert exported.to_dicts() == matchups(db, Filters(runs=[2])).to_dicts()  # run 2 is the duel run
    assert exported["games"].sum() == 2 * 4  # the duel run's 4 matches, seen from each deck
    named = export_frame(db, "matchups", Filters(runs=[1, 2])).drop("match_pilots", "game", "card_set")
    assert named["games"].sum() > exported["games"].sum()  # runs named are read as named


def test_a_run_replaying_anothers_seeds_is_counted_once_and_named_together_they_are_refused(tmp_path):
    """A shorter run on the same decks, pilots, cards and seed plays the longer's first matches
    again (a sequential diff's base run beside the simulate it reused): pooled by default, the
    export counted those matches twice, with an interval too narrow for them. Now the longer run
    is read and the other named; named together they are refused in one line."""
    import pytest

    db = tmp_path / "s.duckdb"
    for matches in ("12", "6"):
        res = run_cli("simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--pilots", "random",
                      "--matches", matches, "--workers", "1", "--db", str(db), "--quiet", "--seed", "5")
        assert res.returncode == 0, res.stderr
    notes: list[str] = []
    exported = export_frame(db, "matchups", Filters(), notes=notes).drop("match_pilots", "game", "card_set")
    assert exported.to_dicts() == matchups(db, Filters(runs=[1])).to_dicts()
    assert exported["games"].sum() == 2 * 12, "run 1's 12 matches from each deck, not 18"
    assert notes == ["left out, as they share matches with a run counted (they would count twice): run 2 (of run 1)"]
    with pytest.raises(LookupError, match="runs 1 and 2 share matches"):
        export_frame(db, "matchups", Filters(runs=[1, 2]))
    res = run_cli("export", "cards", "--run", "1", "--run", "2", "--csv", str(tmp_path / "c.csv"), "--db", str(db))
    assert res.returncode == 2 and "name one of them" in res.stderr and not (tmp_path / "c.csv").exists(), res.stderr


def test_a_table_with_nothing_to_show_exports_no_row(small_store):
    """A table that has nothing to show for a pilot group (no columns at all) was written as one
    row holding the group's label alone ("wrote 1 rows of keywords")."""
    import polars as pl

    from reports.exports import by_pilot

    assert by_pilot(lambda _p, _f: pl.DataFrame(), small_store, Filters(runs=[1])).height == 0


def test_an_export_is_one_block_per_game_and_rules_version(diff_store, tmp_path):
    """A deck under other rules, a keyword of another game, is not the same thing: ``matchups``
    pooled a diff's base and candidate runs into one row per pairing, and ``keywords`` with no
    --game fitted every game's seats in one model. Each block now names its game and card set."""
    import polars as pl

    from reports import db

    versions = dict(db.query(diff_store, "SELECT run_id, rules_version FROM runs").iter_rows())
    table = export_frame(diff_store, "matchups", Filters())
    assert sorted(set(table["card_set"])) == sorted(set(versions.values())) and set(table["game"]) == {"frontier"}
    for run, version in versions.items():
        block = table.filter(pl.col("card_set") == version).drop("match_pilots", "game", "card_set")
        assert block.to_dicts() == matchups(diff_store, Filters(runs=[run])).to_dicts()
    store = tmp_path / "two.duckdb"
    for game, decks in (("frontier", "goblin-gold-gang,lawmen-posse"), ("alleyway", DECKS)):
        res = run_cli("simulate", game, "--decks", decks, "--pilots", "random", "--matches", "6", "--workers", "1",
                      "--db", str(store), "--quiet")
        assert res.returncode == 0, res.stderr
    keywords = export_frame(store, "keywords", Filters())
    assert set(keywords["game"]) == {"frontier", "alleyway"}
    from reports.keywords import keyword_impact

    frontier = keyword_impact(store, Filters(game="frontier"))
    mine = keywords.filter(pl.col("game") == "frontier")
    assert mine["keyword"].to_list() == frontier["keyword"].to_list()
    assert mine["seats_unexposed"].to_list() == frontier["seats_unexposed"].to_list()



def played(db, run_id: int) -> set[tuple]:
    """A run's matches as what was played: seed, the deck in each seat, the winning deck, turns."""
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return set(con.execute("""SELECT m.seed, a.deck, b.deck, w.deck, m.turns FROM matches m
                                  JOIN match_seats a ON a.run_id = m.run_id AND a.match_no = m.match_no AND a.seat = 0
                                  JOIN match_seats b ON b.run_id = m.run_id AND b.match_no = m.match_no AND b.seat = 1
                                  LEFT JOIN match_seats w ON w.run_id = m.run_id AND w.match_no = m.match_no
                                                         AND w.seat = m.winner_seat
                                  WHERE m.run_id = ?""", [run_id]).fetchall())


def test_a_run_holding_some_of_anothers_pairings_is_counted_once(tmp_path):
    """The walk-through audit: a run of two decks beside a run of the whole field (or ``value``'s
    unchanged deck against the field) replays the matches of their pairing, and the exports and
    pages pooled both, 40 matches where 20 were played. The reports now see runs that share
    matches by pairing, in either seat order, and count them once; a run that shares some of its
    matches (run 5) is left out whole, never counted twice."""
    import pytest

    db = tmp_path / "s.duckdb"
    field = "goblin-gold-gang,lawmen-posse,ironhold-garrison"
    for decks, matches in ((field, "8"), ("lawmen-posse,goblin-gold-gang", "8"), ("ironhold-garrison,lawmen-posse", "6"),
                           ("goblin-gold-gang,deeproot-hollow", "8"), ("lawmen-posse,ironhold-garrison,deeproot-hollow", "4")):
        res = run_cli("simulate", "frontier", "--decks", decks, "--pilots", "random", "--matches", matches,
                      "--workers", "1", "--db", str(db), "--quiet", "--seed", "5")
        assert res.returncode == 0, res.stderr
    whole = played(db, 1)
    assert played(db, 2) <= whole and len(played(db, 2)) == 8, "run 2 is the field's goblin/lawmen matches again"
    assert played(db, 3) <= whole and len(played(db, 3)) == 6, "run 3, the other seat order, is too"
    assert not played(db, 4) & whole, "run 4's pairing is not the field's"
    assert len(played(db, 5) & whole) == 4, "run 5 holds 4 of the field's lawmen/ironhold matches, and others"
    notes: list[str] = []
    exported = export_frame(db, "matchups", Filters(), notes=notes).drop("match_pilots", "game", "card_set")
    assert notes == ["left out, as they share matches with a run counted (they would count twice): run 2 (of run 1), "
                     "run 3 (of run 1), run 5 (of run 1)"]
    assert exported["games"].sum() == 2 * (3 * 8 + 8), "the field's 24 matches and run 4's 8, each seen from both decks"
    for named in ([1, 2], [3, 1], [5, 1]):
        with pytest.raises(LookupError, match=f"runs 1 and {max(named)} share matches"):
            export_frame(db, "matchups", Filters(runs=named))
    export_frame(db, "matchups", Filters(runs=[1, 4]))  # no match in common: pooled as named


def test_what_runs_share_is_read_pairing_by_pairing():
    """``covered`` on specs alone: the same table in the same seat order shares its first matches;
    the other seat order shares whole seeds only, and only with seat swapping; a deck edited
    (another content hash), another pilot or a card substituted shares nothing; a campaign batch
    shares only with the same whole spec."""
    import json

    from reports.overview import covered, matches_key

    def key(decks, matches, swap=True, hashes=None, pilots=None, substitute=None, **more):
        spec = {"game": "frontier", "rules": "base", "rules_hash": "r", "decks": decks, "matches": matches,
                "pilots": pilots or ["greedy"] * len(decks), "seed": 1, "swap": swap,
                "deck_hashes": hashes or [f"h-{d}" for d in decks], "deck_hash": "whole-" + "-".join(decks),
                "pairings": [[i, j] for i in range(len(decks)) for j in range(i + 1, len(decks))], **more}
        if substitute:
            spec["substitute"] = substitute
        return json.loads(matches_key(json.dumps(spec)))

    field = key(["a", "b", "c"], 10)
    assert covered(key(["a", "b"], 10), field) == (10, 10)
    assert covered(key(["a", "b"], 12), field) == (10, 12)
    assert covered(key(["b", "a"], 7), field) == (7, 7)          # match j is the field's j XOR 1
    assert covered(key(["b", "a"], 10), key(["a", "b"], 7)) == (6, 10)  # seed 4 played from one seat only
    assert covered(key(["b", "a"], 10, swap=False), key(["a", "b", "c"], 10, swap=False)) == (0, 10)
    assert covered(key(["a", "b"], 10, hashes=["h-a", "edited"]), field) == (0, 10)
    assert covered(key(["a", "b"], 10, pilots=["greedy", "random"]), field) == (0, 10)
    assert covered(key(["a", "b"], 10, substitute={"0": {"x": "y"}}), field) == (0, 10)
    assert covered(key(["a", "b"], 10, seed=2), field) == (0, 10)
    assert covered(key(["a", "d"], 10), field) == (0, 10)
    assert covered(key(["a", "b", "d"], 10), field) == (10, 30)  # some: left out whole when the field is kept
    # which is kept: the broadest, then the longest (value's deck against the field, 1,000 matches a
    # pairing, outnumbers a field of 200, and left it out whole: the pages then showed one deck)
    import polars as pl

    from reports.overview import one_run_per_seeds

    def spec(decks, matches, pairings):
        return json.dumps({"game": "frontier", "rules": "base", "rules_hash": "r", "decks": decks, "matches": matches,
                           "pilots": ["greedy"] * len(decks), "seed": 1, "swap": True,
                           "deck_hashes": [f"h-{d}" for d in decks], "pairings": pairings})

    every = [[i, j] for i in range(4) for j in range(i + 1, 4)]
    runs = pl.DataFrame({"run_id": [1, 2, 3], "matches_done": [600, 2000, 200],
                         "matches_key": [matches_key(spec(["x", "b", "c", "d"], 100, every)),  # the field: 6 pairings
                                         matches_key(spec(["x", "b", "c"], 1000, [[0, 1], [0, 2]])),  # x against b, c
                                         matches_key(spec(["c", "d"], 200, [[0, 1]]))]})  # its c/d pairing, longer
    kept, repeats = one_run_per_seeds(runs)
    assert kept["run_id"].to_list() == [1] and repeats == {2: 1, 3: 1}
    batch = {"game": "frontier", "rules": "base", "stage": "s", "crews": ["x"], "runs": 4, "kind": "campaign"}
    same, other = ({**batch, "chunk_size": c} for c in (2, 5))
    assert covered(json.loads(matches_key(json.dumps(same))), json.loads(matches_key(json.dumps(other)))) == (1, 1)
    assert covered(json.loads(matches_key(json.dumps(same))),
                   json.loads(matches_key(json.dumps({**batch, "runs": 5})))) == (0, 1)
