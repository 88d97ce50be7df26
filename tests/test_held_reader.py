"""Readers cannot kill a run: a DuckDB connection left open on the store (a CLI, a notebook)
makes the writer wait, as long as it takes, with one line naming who holds the file and one when
it is free again; a reader keeps its limit."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import duckdb
import pytest

from reports import db
from tests.cli_server import user_env
from tests.conftest import ROOT

HOLD = ("import duckdb, sys, time; con = duckdb.connect(sys.argv[1], read_only=True); "
        "print('held', flush=True); time.sleep(float(sys.argv[2]))")


def hold(path, seconds: float) -> subprocess.Popen:
    """Another process holding the file read-only for ``seconds``, once it says so."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_writer_waits_for_a_held_file_and_says_who_holds_it(tmp_path, monkeypatch, capsys):
    from workbench.store import Store

    monkeypatch.setattr(db, "NOTICE_SECONDS", 0.5)
    store = Store(tmp_path / "w.duckdb")
    store.init()
    holder = hold(store.path, 3.0)
    try:
        started = time.monotonic()
        store.open_batch("nightly", "2026-01-01", "hash")  # a write: waits for the holder to go
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert waited > 1.0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{store.path}: held by process {holder.pid} (") and "-c import duckdb" in lines[0]
    assert lines[1].startswith(f"{store.path}: free again after")
    assert db.query(store.path, "SELECT name FROM batches").rows() == [("nightly",)]


def test_the_batch_writer_waits_without_a_limit_and_stores_the_batch(tmp_path, monkeypatch, capsys):
    from tests.test_writer import played, small_run
    from workbench.writer import BatchWriter

    monkeypatch.setattr(db, "NOTICE_SECONDS", 0.2)
    store, _spec, payload, run_id = small_run(tmp_path, matches=4, chunk_size=2)
    chunks = played(payload, [0, 1])
    capsys.readouterr()
    holder = hold(store.path, 1.5)
    try:
        with BatchWriter(store.path) as writer:  # no limit by default
            assert [a.chunk for a in writer.store(run_id, chunks)] == [0, 1]
    finally:
        holder.kill()
        holder.wait()
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 2 and f"held by process {holder.pid}" in lines[0] and "free again" in lines[1], lines
    assert db.query(store.path, "SELECT count(*) FROM matches").rows() == [(4,)]


def test_a_reader_keeps_its_limit(tmp_path):
    from workbench.store import Store

    store = Store(tmp_path / "w.duckdb")
    store.init()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
                               "print('held', flush=True); time.sleep(5)", str(store.path)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(db.StoreError, match="held the database for over 0 s") as info:
            with db.connect(store.path, wait=0.3):
                pass
        assert f"process {holder.pid} (" in str(info.value), info.value  # who holds it, as a writer's wait says
    finally:
        holder.kill()
        holder.wait()


def test_marking_a_run_stopped_waits_only_briefly(tmp_path, monkeypatch):
    """After the user's stop the run is marked stopped if the file is free soon; else it stays
    `running` (resumable: its writer is gone) and the stop is not held up by the reader."""
    from workbench import store as store_module

    monkeypatch.setattr(store_module, "STOP_WAIT_SECONDS", 0.3)
    store = store_module.Store(tmp_path / "w.duckdb")
    store.init()
    holder = hold(store.path, 5.0)
    try:
        with pytest.raises(db.StoreError, match="held the database"):
            store.set_status(1, "stopped", note="interrupted")
    finally:
        holder.kill()
        holder.wait()


def test_the_holder_is_named_from_duckdbs_lock_error():
    exc = duckdb.IOException('IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in '
                             f'/usr/bin/python3 (PID {os.getpid()}). However, you would be able to ...')
    assert db.lock_holder(exc).startswith(f"process {os.getpid()} (") and "python" in db.lock_holder(exc)
    gone = duckdb.IOException("Conflicting lock is held in /usr/local/bin/duckdb (PID 999999999). ...")
    assert db.lock_holder(gone) == "process 999999999 (/usr/local/bin/duckdb)"
    assert db.lock_holder(duckdb.IOException("Could not set lock on file")) == "another process"


@pytest.mark.slow
def test_a_reader_holding_the_store_longer_than_the_old_limit_does_not_fail_the_run(tmp_path):
    """A `workbench simulate` started while a read-only connection holds the store for 65 s (the
    writer used to give up after 60): the run waits as long as it takes, then ends done with every
    match. The hold starts before the run, so a fast machine cannot finish the run before the hold
    (the batch writer's own wait is tested above, in-process)."""
    path = tmp_path / "held.duckdb"
    env = user_env()
    command = [sys.executable, "-m", "workbench.cli", "simulate", "frontier", "--decks", "goblin-gold-gang,lawmen-posse",
               "--chunk-size", "2", "--workers", "1", "--db", str(path), "--quiet"]
    subprocess.run([*command, "--matches", "2"], cwd=ROOT, env=env, check=True, capture_output=True)  # the store exists
    holder = hold(path, 65.0)
    held_from = time.monotonic()
    run = subprocess.Popen([*command, "--matches", "60", "--seed", "7"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        while holder.poll() is None:
            assert run.poll() is None, ("the run ended while the file was held", run.communicate())
            time.sleep(1.0)
        out, err = run.communicate(timeout=300)
    finally:
        for process in (run, holder):
            if process.poll() is None:
                process.kill()
    assert run.returncode == 0, err
    assert time.monotonic() - held_from > 65
    assert f"held by process {holder.pid}" in err and "free again after" in err, err
    assert db.query(path, "SELECT status, matches_done, matches_target FROM runs ORDER BY run_id").rows() == [
        ("done", 2, 2), ("done", 60, 60)]
    assert db.query(path, "SELECT count(*), count(DISTINCT match_no) FROM matches WHERE run_id = 2").rows() == [(60, 60)]


def test_a_stop_while_a_reader_holds_the_file_still_prints_the_stopped_line(tmp_path, monkeypatch):
    """Marking the run stopped gives up after a short wait; the user still gets the run's one
    line (saying why it reads 'running'), not the store's complaint in its place."""
    from workbench.commands import simulate
    from workbench.store import Store

    def held(*_a, **_k):
        raise db.StoreError(f"{tmp_path / 's.duckdb'}: another process has held the database for over 10 s")

    monkeypatch.setattr(Store, "set_status", held)
    assert "still reads 'running'" in simulate._mark_ended(Store(tmp_path / "s.duckdb"), 1, "stopped", "interrupted")
    monkeypatch.setattr(Store, "set_status", lambda *_a, **_k: None)
    assert simulate._mark_ended(Store(tmp_path / "s.duckdb"), 1, "stopped", "interrupted") == ""
