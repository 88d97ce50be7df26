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
        spec, payload = new_run("frontier", "base", ["goblin-gold-gang", "lawmen-posse"], ["greedy"], matches=120,
                                seed=1, swap=True, events=1.0, chunk_size=6, workers=2)
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


def _spec_of(payload):
    return payload["spec"]


def test_two_runs_on_one_scheduler_keep_their_own_payloads():
    """Two clients of one scheduler each scatter a run's payload: each task reads its own run's,
    never the other's (a payload scattered as a dict made its keys, spec and all, cluster-wide
    names, and the second run played the first one's matches)."""
    from distributed import Client, LocalCluster

    from workbench.executors import QUIET_SCHEDULER, scatter_once

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
                      scheduler_kwargs=QUIET_SCHEDULER) as cluster, \
            Client(cluster) as a, Client(cluster) as b:
        pa, pb = scatter_once(a, {"spec": "run A"}), scatter_once(b, {"spec": "run B"})
        assert a.submit(_spec_of, pa, pure=False).result() == "run A"
        assert b.submit(_spec_of, pb, pure=False).result() == "run B"


def test_each_worker_thread_plays_the_run_it_was_set_up_for():
    """A Dask worker runs tasks of two runs at once on its threads: each thread keeps its own
    run (pool, decks, events folder), and the same spec into another store is set up anew."""
    import threading

    from workbench import chunk
    from workbench.commands.simulate import new_run

    payloads = []
    for game, folder in (("frontier", "/tmp/a.events"), ("allegiance", "/tmp/b.events")):
        _spec, payload = new_run(game, "base", None, ["random"], matches=2, seed=1, swap=True, events=0.0,
                                 chunk_size=None, workers=1)
        payloads.append({**payload, "run_id": 1, "events_dir": folder})
    both_set_up = threading.Barrier(2)
    seen = {}

    def worker(payload):
        chunk.init_worker(payload)
        both_set_up.wait()  # the other thread has set its run up too
        seen[payload["events_dir"]] = (chunk._RUN.ctx["spec"].game, chunk._RUN.ctx["events_dir"])

    threads = [threading.Thread(target=worker, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"/tmp/a.events": ("frontier", "/tmp/a.events"), "/tmp/b.events": ("allegiance", "/tmp/b.events")}
    chunk.init_worker(payloads[0])
    chunk.init_worker({**payloads[0], "events_dir": "/tmp/c.events"})  # same spec, another store
    assert chunk._RUN.ctx["events_dir"] == "/tmp/c.events"
