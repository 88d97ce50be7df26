"""Where chunks are played: local worker processes (``multiprocess``) or a Dask distributed
cluster. Both run the same chunk function, so a run gives the same matches seed for seed on
either; the farm only submits chunks and takes finished ones back.

Cluster addresses: ``tcp://host:8786`` (a running ``dask scheduler``), or ``local`` /
``local:N`` to start a LocalCluster of N single-threaded worker processes here.
"""
from __future__ import annotations

import os
import queue
from typing import Any

from workbench.chunk import init_worker, play_chunk
from workbench.errors import UserError


def run_chunk(payload: dict, chunk: int):
    """The task a Dask worker runs: set the run up in this process once, then play the chunk."""
    init_worker(payload)
    return play_chunk(chunk)


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


class LocalExecutor:
    """Worker processes on this machine. The pool is made before any progress thread runs, so a
    fork copies no lock another thread holds."""

    def __init__(self, workers: int, payload: dict):
        import multiprocess

        ctx = multiprocess.get_context("fork" if hasattr(os, "fork") else "spawn")
        self.pool = ctx.Pool(workers, initializer=init_worker, initargs=(payload,))
        self.done: queue.Queue = queue.Queue()

    def submit(self, chunk: int) -> None:
        self.pool.apply_async(play_chunk, (chunk,), callback=self.done.put,
                              error_callback=lambda exc: self.done.put(_Failed(exc)))

    def next_done(self):
        item = self.done.get()
        if isinstance(item, _Failed):
            raise item.exc
        return item

    def close(self, abort: bool = False) -> None:
        if abort:
            self.pool.terminate()
        else:
            self.pool.close()
        self.pool.join()


class DaskExecutor:
    """Chunks as tasks on a Dask cluster. A task whose worker dies is rerun elsewhere by the
    scheduler; the writer stores a chunk only once whatever happens."""

    def __init__(self, address: str, payload: dict):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - a dependency of the project
            raise UserError("dask distributed is not installed (pip install 'dask[distributed]')") from None
        self.cluster = None
        if address == "local" or address.startswith("local:"):
            n = int(address.split(":", 1)[1]) if ":" in address else (os.cpu_count() or 1)
            self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(address, timeout="10s")
            except OSError as exc:
                raise UserError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        from distributed import as_completed

        self.payload = self.client.scatter(payload, broadcast=True)
        self.running = as_completed([], with_results=True)

    def submit(self, chunk: int) -> None:
        self.running.add(self.client.submit(run_chunk, self.payload, chunk, pure=False, key=f"chunk-{chunk}-{id(self)}"))

    def next_done(self):
        _future, result = next(self.running)
        return result

    def close(self, abort: bool = False) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(workers: int, payload: dict, cluster: str | None) -> Any:
    return DaskExecutor(cluster, payload) if cluster else LocalExecutor(workers, payload)
