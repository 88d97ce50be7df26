"""``workbench bench --reports``: the scratch store of runs that differ (one played run, copies
with a fifth of their results flipped) is checked for consistency; the command's output for
its structure only (its figures are timings)."""
from __future__ import annotations

import re

import duckdb
import pytest

from tests.conftest import run_cli
from workbench.bench.split_store import build_split_store

RUNS = 3


@pytest.fixture(scope="module")
def split_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "split.duckdb"
    return build_split_store(path, "frontier", RUNS, 9_000, 2)


def sql(path, query: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute(query, params or []).fetchall()
    finally:
        con.close()


def test_every_run_is_the_played_run_s_size(split_store):
    path = split_store.path
    assert split_store.run_ids == list(range(1, RUNS + 1))
    assert split_store.card_rows >= 9_000
    assert split_store.card_rows == sql(path, "SELECT count(*) FROM card_games")[0][0]
    for table in ("matches", "match_seats", "card_games"):
        sizes = dict(sql(path, f"SELECT run_id, count(*) FROM {table} GROUP BY run_id"))
        assert set(sizes) == set(split_store.run_ids), table
        assert len(set(sizes.values())) == 1, (table, sizes)
    assert sizes[1] == split_store.card_rows // RUNS
    assert dict(sql(path, "SELECT run_id, count(*) FROM matches GROUP BY run_id"))[1] == split_store.matches_per_run


def flipped(path, run_id: int) -> set[int]:
    """The matches whose winner differs from the played run's."""
    return {m for (m,) in sql(path, "SELECT c.match_no FROM matches c JOIN matches b ON b.run_id = 1 AND "
                                    "b.match_no = c.match_no WHERE c.run_id = ? AND c.winner_seat "
                                    "IS DISTINCT FROM b.winner_seat", [run_id])}


def test_each_copy_flips_about_a_fifth_of_its_matches_and_not_the_same_ones(split_store):
    n = split_store.matches_per_run
    sets = [flipped(split_store.path, r) for r in split_store.run_ids]
    assert sets[0] == set()
    for chosen in sets[1:]:
        assert 0.1 * n < len(chosen) < 0.3 * n, (len(chosen), n)
    assert sets[1] != sets[2]
    # outside the flipped matches a copy's card rows are the played run's
    for run_id, chosen in zip(split_store.run_ids[1:], sets[1:]):
        marks = ", ".join(str(m) for m in chosen)
        differing = sql(split_store.path, f"""
            SELECT count(*) FROM (
                SELECT * EXCLUDE (run_id) FROM card_games WHERE run_id = ? AND match_no NOT IN ({marks})
                EXCEPT ALL
                SELECT * EXCLUDE (run_id) FROM card_games WHERE run_id = 1 AND match_no NOT IN ({marks}))""",
                        [run_id])[0][0]
        assert differing == 0


def test_a_flipped_match_swaps_winner_and_loser_everywhere(split_store):
    path = split_store.path
    # every decided match has one winning and one losing seat, the winner where matches says
    bad_seats = sql(path, """
        SELECT m.run_id, m.match_no FROM matches m JOIN match_seats s USING (run_id, match_no)
        WHERE m.winner_seat IS NOT NULL
        GROUP BY m.run_id, m.match_no, m.winner_seat, m.winner_deck
        HAVING count(*) FILTER (WHERE s.result = 'win' AND s.placement = 1 AND s.seat = m.winner_seat
                                AND s.deck = m.winner_deck) <> 1
            OR count(*) FILTER (WHERE s.result = 'loss' AND s.placement = 2 AND s.seat <> m.winner_seat) <> 1""")
    assert bad_seats == []
    # every card row agrees with its seat's result
    bad_cards = sql(path, """
        SELECT count(*) FROM card_games c JOIN match_seats s USING (run_id, match_no, seat)
        WHERE c.won <> (s.result = 'win') OR c.result <> s.result""")[0][0]
    assert bad_cards == 0
    # and a flipped match's rows are the played run's with who won swapped
    run_id = split_store.run_ids[1]
    match_no = min(flipped(path, run_id))
    kept = [name for (name, *_) in sql(path, "DESCRIBE card_games") if name not in ("run_id", "won", "result")]
    same = " AND ".join(f"b.{name} IS NOT DISTINCT FROM c.{name}" for name in kept)
    pairs = sql(path, f"""
        SELECT b.won, c.won, {same}
        FROM card_games b JOIN card_games c ON c.match_no = b.match_no AND c.seat = b.seat AND c.card = b.card
        WHERE b.run_id = 1 AND c.run_id = ? AND b.match_no = ?""", [run_id, match_no])
    base_rows = sql(path, "SELECT count(*) FROM card_games WHERE run_id = 1 AND match_no = ?", [match_no])[0][0]
    assert len(pairs) == base_rows > 0
    assert all(was != now and same for was, now, same in pairs)


def test_the_runs_give_different_card_figures(split_store):
    from reports.cards import card_metrics
    from reports.filters import Filters

    frame = card_metrics(split_store.path, Filters(game="frontier", runs=split_store.run_ids),
                         ("rules_version", "run_id"))
    assert set(frame["run_id"]) == set(split_store.run_ids)
    per_run = {r: frame.filter(frame["run_id"] == r).sort("card")["games_won"].to_list() for r in split_store.run_ids}
    assert per_run[1] != per_run[2] and per_run[2] != per_run[3]
    games = {r: frame.filter(frame["run_id"] == r).sort("card")["games"].to_list() for r in split_store.run_ids}
    assert games[1] == games[2] == games[3], "a flip changes who won, not who played what"


def table_rows(stdout: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")[1:-1]] for line in stdout.splitlines() if line.startswith("│")]


@pytest.mark.slow
def test_bench_reports_prints_the_query_and_the_page_with_the_verdict():
    res = run_cli("bench", "--reports", "--runs", str(RUNS), "--rows", "20000", "--repeats", "2")
    assert res.returncode == 0, res.stderr
    store = re.search(r"store: (\d+) runs of ([\d,]+) random-pilot frontier matches .* ([\d,]+) card_games rows",
                      res.stdout)
    assert store, res.stdout
    assert int(store.group(1)) == RUNS and int(store.group(3).replace(",", "")) >= 20_000
    rows = table_rows(res.stdout)
    assert [r[0] for r in rows] == ["card_metrics split by rules version + run",
                                    "Cards page split by rules version + run (AppTest, cache cleared)"], res.stdout
    for name, wall, cpu, walls, cpus, verdict in rows:
        assert float(wall) > 0 and float(cpu) > 0, name
        each_wall, each_cpu = ([float(x) for x in cell.split()] for cell in (walls, cpus))
        assert len(each_wall) == len(each_cpu) == 2, name  # one figure per repeat
        # the median of two, from figures rounded to 0.01
        assert float(wall) == pytest.approx(sum(each_wall) / 2, abs=0.011), name
        assert float(cpu) == pytest.approx(sum(each_cpu) / 2, abs=0.011), name
        assert verdict == ("yes" if float(wall) < 3 else "no"), name
    bar = re.search(r"bar \(issue 13\): the Cards page split by rules version \+ run over (\d+) runs .* under 3 s "
                    r"wall: (yes|no) \(median ([\d.]+) s wall; ([\d.]+) CPU-s", res.stdout)
    assert bar, res.stdout
    assert int(bar.group(1)) == RUNS and bar.group(2) == rows[1][5] and bar.group(3) == rows[1][1]


def test_every_page_is_timed_cold_and_warm(split_store):
    """bench --reports --pages's measurement on a small store: every page of the navigation
    renders without an exception, cold and warm."""
    from workbench.bench.pages import PAGES, available_pages, time_page

    assert set(available_pages()) <= set(PAGES)
    for title, module in available_pages().items():
        t = time_page(split_store.path, title, module, 1)
        assert t.error is None, (title, t.error)
        assert len(t.cold) == len(t.warm) == 1 and t.cold[0].wall > 0


def test_the_page_cache_asks_the_store_again_only_when_it_changed(tmp_path, fresh_cache):
    """Queries are cached per store state: a second ask is answered from the cache; a write
    to the store (a stored chunk) makes the next ask query again."""
    from reports.pages import common
    from workbench.store import Store

    path = tmp_path / "s.duckdb"
    Store(path).init()
    calls = []
    common.QUERIES["_count_runs"] = lambda p: calls.append(p) or len(calls)
    try:
        assert common.cached("_count_runs", str(path)) == 1
        assert common.cached("_count_runs", str(path)) == 1 and len(calls) == 1
        Store(path).record_diff("frontier", 1, 2, "base", "base")  # a committed write
        assert common.cached("_count_runs", str(path)) == 2
    finally:
        del common.QUERIES["_count_runs"]
