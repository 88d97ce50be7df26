"""Where chunks are played: local worker processes (``concurrent.futures``) or a Dask distributed
cluster. Both run the same chunk function, so a run gives the same matches seed for seed on
either; the farm only submits chunks and takes finished ones back.

Cluster addresses: ``tcp://host:8786`` (a running ``dask scheduler``), or ``local`` /
``local:N`` to start a LocalCluster of N single-threaded worker processes here. A command that
plays several runs (``diff``, ``value``, ``batch``) starts its local cluster once and plays every
run on it, as it would on a running scheduler (starting one costs seconds); it is closed when the
process ends, or at once when a run is stopped.

Both say how many chunks they play at once (``slots``: the processes here, the cluster's worker
threads there), which is what the farm sizes its window of chunks in flight by, and hand finished
chunks back one at a time, so the farm can wait for one with a timeout. Neither hangs when a
worker process dies: its chunk is played again elsewhere.
"""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import signal
import threading
import time
from typing import Any

from workbench.chunk import init_worker, play_chunk
from workbench.errors import UserError
from workbench.local_pool import LocalExecutor

SLOTS_REFRESH_SECONDS = 10.0  # how often a cluster is asked again for its worker threads
# how long a scheduler's address is tried before the command gives up on it: a scheduler that is
# up answers within a second; nothing listening there is the usual case of a longer wait
CONNECT_TIMEOUT = "5s"


def scatter_once(client, payload: dict):
    """``payload`` on every worker as one future under a key of its own. Scattered as a dict, its
    keys (spec, ruleset, decks, run_id...) would become cluster-wide names, and a second run on
    the same scheduler would get the first run's values under them."""
    return client.scatter([payload], broadcast=True, hash=False)[0]


def run_chunk(payload: dict, chunk: int, init_fn=init_worker, play_fn=play_chunk):
    """The task a Dask worker runs: set the run up in this process once, then play the chunk."""
    init_fn(payload)
    return play_fn(chunk)


class DaskExecutor:
    """Chunks as tasks on a Dask cluster. A task whose worker dies is rerun elsewhere by the
    scheduler; the writer stores a chunk only once whatever happens."""

    MAX_CANCELLED = 3  # a chunk whose task the scheduler drops this often stops the run

    def __init__(self, address: str, payload: dict, worker=(init_worker, play_chunk)):
        self.init_fn, self.play_fn = worker
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency of the project
            raise UserError("dask distributed is not installed (pip install 'dask[distributed]')") from None
        size = local_cluster_size(address)
        if size is not None:
            self.client = Client(local_cluster(size, LocalCluster))
        else:
            self.client = scheduler_client(address)
        self.raw_payload = payload
        self.payload = scatter_once(self.client, payload)
        self.done: queue.Queue = queue.Queue()
        self._slots, self._slots_at = 1, float("-inf")
        self.chunk_of: dict[str, int] = {}  # a task's key -> its chunk
        self.cancelled: dict[int, int] = {}  # chunk -> how often the scheduler dropped its task
        self.pool_breaks = 0  # tasks dropped and submitted again (a worker's death the scheduler reruns itself)

    def slots(self) -> int:
        """The cluster's worker threads (at least 1), asked again every few seconds: an adaptive
        cluster grows and shrinks."""
        if time.monotonic() - self._slots_at > SLOTS_REFRESH_SECONDS:
            self._slots = max(1, sum(self.client.nthreads().values()))
            self._slots_at = time.monotonic()
        return self._slots

    def submit(self, chunk: int) -> None:
        # a future is done once, when its task finally succeeds or fails: a task whose worker died
        # is rerun by the scheduler before that
        key = f"chunk-{chunk}-{id(self)}-{self.cancelled.get(chunk, 0)}"
        self.chunk_of[key] = chunk
        future = self.client.submit(run_chunk, self.payload, chunk, self.init_fn, self.play_fn, pure=False, key=key)
        future.add_done_callback(self.done.put)

    def next_done(self, timeout: float | None = None):
        """The next finished chunk's result; None if none finished within ``timeout`` seconds
        (or if the scheduler dropped a task, which is then submitted again)."""
        from distributed.client import FutureCancelledError

        try:
            future = self.done.get(timeout=timeout)
        except queue.Empty:
            return None
        chunk = self.chunk_of.pop(future.key)
        try:
            return future.result()
        except FutureCancelledError as exc:
            # seen when a worker is killed: the scheduler may forget a task (or the scattered
            # payload with it) instead of rerunning it; the chunk is played again, the payload
            # scattered anew in case it went with the worker
            self.cancelled[chunk] = self.cancelled.get(chunk, 0) + 1
            if self.cancelled[chunk] >= self.MAX_CANCELLED:
                raise UserError(f"chunk {chunk} was dropped by the Dask scheduler {self.cancelled[chunk]} times "
                                f"({exc}); the run stops (resumable)") from None
            self.pool_breaks += 1
            self.payload = scatter_once(self.client, self.raw_payload)
            self.submit(chunk)
            return None

    def finished_results(self) -> list:
        """The results of tasks that finished and were not handed out (the run stops on an
        error, and the farm stores them before it goes); without waiting."""
        found = []
        while True:
            try:
                future = self.done.get_nowait()
            except queue.Empty:
                return found
            self.chunk_of.pop(future.key, None)
            if future.status == "finished":
                found.append(future.result())

    def close(self, abort: bool = False) -> None:
        self.client.close()
        if abort:  # a stopped run leaves no worker behind
            close_local_clusters()


# no dashboard, and the scheduler's health/metrics HTTP server on a free port rather than 8787:
# two local clusters at once (two runs, a test beside a run) otherwise print a port warning
QUIET_SCHEDULER = {"dashboard_address": ":0"}
_LOCAL_CLUSTERS: dict[int, Any] = {}  # size -> the LocalCluster this process started, for its next run


def local_cluster(size: int, make: Any) -> Any:
    """This process's LocalCluster of ``size`` workers, started on first use (``make``: the
    LocalCluster class, imported by the caller)."""
    from distributed.core import Status
    cluster = _LOCAL_CLUSTERS.get(size)
    if cluster is None or cluster.status != Status.running:  # closed, or failed, since it was made
        from workbench.store import interrupts_deferred

        # SIGTERM held until the cluster is up: stopped half way, it broke in Dask's own exit
        # handler with a traceback. SIGINT ignored: its worker processes inherit that (Ctrl-C is
        # this process's to handle), and a Ctrl-C in these one or two seconds is lost.
        with interrupts_deferred():  # the stop it held comes once the cluster is known, to be closed
            with sigint_ignored():
                cluster = make(n_workers=size, threads_per_worker=1, processes=True, dashboard_address=None,
                               scheduler_kwargs=QUIET_SCHEDULER, silence_logs=logging.CRITICAL)
            _LOCAL_CLUSTERS[size] = cluster
    return cluster


@atexit.register
def close_local_clusters() -> None:
    while _LOCAL_CLUSTERS:
        _, cluster = _LOCAL_CLUSTERS.popitem()
        with contextlib.suppress(Exception):  # already gone with its processes
            cluster.close()



@contextlib.contextmanager
def sigint_ignored():
    """SIGINT ignored meanwhile (in the main thread: signals are set there only). A process
    started meanwhile keeps ignoring it, Python ones included."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def local_cluster_size(address: str) -> int | None:
    """N for ``local:N`` (``local``: this machine's cores); None for a scheduler's address."""
    if address == "local" or address.startswith("local:"):
        return int(address.split(":", 1)[1]) if ":" in address else (os.cpu_count() or 1)
    return None


def scheduler_client(address: str, unreachable: str = "cannot reach the Dask scheduler at {address}: {exc}"):
    """A client of the scheduler at ``address``; a one-line UserError (``unreachable``, with the
    address and the cause) when none answers within CONNECT_TIMEOUT."""
    from distributed import Client

    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError) as exc:  # ValueError: an address scheme Dask does not know
        raise UserError(unreachable.format(address=address, exc=exc)) from None


def check_scheduler(address: str) -> None:
    """A one-line UserError naming ``--cluster`` when no Dask scheduler answers at ``address``,
    asked before the command makes anything: the executor was the first to find out, after the
    run was made (left stopped, in a store the command may have made for it)."""
    if local_cluster_size(address) is not None:
        return
    scheduler_client(address, "--cluster {address}: no Dask scheduler answers there ({exc}); nothing was started").close()


def cluster_threads(address: str) -> int:
    """How many chunks a cluster plays at once: its worker threads (``local:N``: N)."""
    size = local_cluster_size(address)
    if size is not None:
        return size
    with scheduler_client(address) as client:
        return max(1, sum(client.nthreads().values()))


def make_executor(workers: int, payload: dict, cluster: str | None, worker=(init_worker, play_chunk)) -> Any:
    return DaskExecutor(cluster, payload, worker) if cluster else LocalExecutor(workers, payload, worker)
