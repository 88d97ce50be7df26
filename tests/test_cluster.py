"""Scale-out on Dask: the same results seed for seed as local processes, event logs written
through any fsspec location, and a worker that dies has its chunk rerun, never stored twice."""
import os
import signal

import duckdb
import pytest

from reports import db
from tests.conftest import run_cli

DIGEST = """SELECT md5(string_agg(concat_ws(',', match_no, seq, turn, seat, kind, card, target, amount, lane, detail),
                                  ';' ORDER BY match_no, seq)) AS d, count(*) AS n FROM events"""
MATCHES = "SELECT md5(string_agg(concat_ws(',', match_no, seed, winner_seat, reason, turns, decisions), ';' ORDER BY match_no)) AS d FROM matches"


def fingerprint(path):
    with db.connect(path) as con:  # a reading connection: it has the events view
        return con.sql(DIGEST).fetchall()[0], con.sql(MATCHES).fetchall()[0]


def run_here_and_on_a_local_cluster(tmp_path, args):
    """The same command into two stores: local processes, then a LocalCluster of 2 workers whose
    event parts go through a file:// URL. Returns the two store paths."""
    local, dask = tmp_path / "local.duckdb", tmp_path / "dask.duckdb"
    assert run_cli(*args, "--db", str(local)).returncode == 0
    res = run_cli(*args, "--db", str(dask), "--cluster", "local:2", "--parts", f"file://{tmp_path / 'shared'}")
    assert res.returncode == 0, res.stderr
    return local, dask


@pytest.mark.slow
def test_local_cluster_gives_the_same_matches_as_local_processes(tmp_path):
    args = ["simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse", "--matches", "80",
            "--pilots", "greedy,random", "--seed", "9",
            "--chunk-size", "10", "--quiet"]
    local, dask = run_here_and_on_a_local_cluster(tmp_path, args)
    a, b = fingerprint(local), fingerprint(dask)
    assert a == b and a[0][1] > 1000
    assert (tmp_path / "shared" / "run-1").is_dir()  # the workers wrote there; the writer copied in


@pytest.mark.slow
def test_a_dead_worker_has_its_chunk_rerun_and_stored_once(tmp_path):
    from distributed import Client, LocalCluster

    from workbench.commands.simulate import create, new_run
    from workbench.executors import QUIET_SCHEDULER
    from workbench.farm import default_workers, run_chunks
    from workbench.store import Store

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           scheduler_kwargs=QUIET_SCHEDULER)
    killer = Client(cluster)
    try:
        assert default_workers(cluster.scheduler_address) == 2  # chunks and the window sized from the cluster
        store = Store(tmp_path / "dead.duckdb")
        spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["greedy"], 120, 1, True,
                                1.0, 6, 2)
        run_id = create(store, spec, payload)
        killed = []

        def on_chunk(chunk, n):
            if not killed:
                pids = killer.run(os.getpid)
                victim = sorted(pids.values())[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        report = run_chunks(store, run_id, {**payload, "run_id": run_id, "events_dir": str(store.events_dir)},
                            list(range(spec.n_chunks)), 2, on_chunk=on_chunk, cluster=cluster.scheduler_address)
    finally:
        killer.close()
        cluster.close()
    assert killed
    assert report.chunks_stored == spec.n_chunks == 20
    counts = db.query(store.path, "SELECT count(*) AS n, count(DISTINCT chunk) AS d FROM chunks").row(0)
    assert counts == (20, 20)
    assert db.query(store.path, "SELECT count(*) AS n FROM matches")["n"][0] == 120


def set_up_nothing(payload):
    """A worker's setup for the dropped-task test: nothing to set up."""


def play_slowly(chunk):
    """A chunk that takes long enough to be cancelled while it runs."""
    import time

    time.sleep(1.0)
    return chunk


@pytest.mark.slow
def test_a_task_the_scheduler_drops_is_submitted_again():
    """A task the scheduler forgets (seen once when a worker was killed: `cancelled for reason:
    already forgotten`) is played again under a new key, not raised as the run's end."""
    from distributed import Future

    from workbench.executors import DaskExecutor

    executor = DaskExecutor("local:1", {"run_id": 1}, (set_up_nothing, play_slowly))
    try:
        executor.submit(7)
        (key,) = executor.chunk_of
        Future(key, executor.client).cancel()  # what the scheduler's forgetting looks like from here
        results = [executor.next_done(timeout=30) for _ in range(2)]
    finally:
        executor.close()
    assert results == [None, 7]  # the dropped task, then the chunk played again
    assert executor.pool_breaks == 1 and executor.cancelled == {7: 1}


def test_campaign_batches_run_on_a_local_cluster_with_the_same_results(tmp_path):
    """simulate-run takes --cluster and --parts like simulate: the same campaign runs, fights
    and fight event logs as local processes."""
    args = ["simulate-run", "frontier", "--crew", "gold-gang,scrapworks-crew", "--runs", "2", "--policy", "random",
            "--fight-pilot", "random", "--events", "all", "--chunk-size", "1", "--quiet"]
    local, dask = run_here_and_on_a_local_cluster(tmp_path, args)
    a, b = fingerprint(local), fingerprint(dask)
    assert a == b and a[0][1] > 100
    runs = "SELECT crew, seed, result, hp_left, floor_reached FROM campaign_runs ORDER BY run_no"
    with duckdb.connect(str(local), read_only=True) as x, duckdb.connect(str(dask), read_only=True) as y:
        assert x.sql(runs).fetchall() == y.sql(runs).fetchall()
        assert len(x.sql(runs).fetchall()) == 4
    assert (tmp_path / "shared" / "run-1").is_dir()


@pytest.mark.slow
def test_value_on_a_local_cluster_gives_the_same_card_value_as_local_processes(tmp_path):
    args = ["value", "frontier", "--deck", "lawmen-posse", "--cards", "marshal-gunhand", "--against",
            "goblin-gold-gang", "--matches", "40", "--pilots", "random", "--quiet"]
    local, dask = run_here_and_on_a_local_cluster(tmp_path, args)
    q = "SELECT card, reference, twins, wr_with, wr_without, value_points, p_value FROM card_value"
    here, there = db.query(local, q).rows(), db.query(dask, q).rows()
    assert here == there and here[0][2] == 40
    every = ("SELECT md5(string_agg(concat_ws(',', run_id, match_no, seed, winner_seat, reason, turns, decisions), ';' "
             "ORDER BY run_id, match_no)) AS d, count(*) AS n FROM matches")
    assert db.query(local, every).rows() == db.query(dask, every).rows()
