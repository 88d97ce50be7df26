"""A reading session (reports/db.py ``reading``): the reads inside it share one connection, which
is closed when it ends, and what they return is what separate connections return."""
from __future__ import annotations

import duckdb
import pytest

from reports import db


@pytest.fixture
def store(tmp_path):
    from workbench.store import Store

    store = Store(tmp_path / "s.duckdb")
    store.init()
    return store.path


def test_reads_inside_a_session_share_one_connection_and_it_closes_after(store):
    with db.reading(store):
        with db.connect(store) as first, db.connect(store) as second:
            assert first is second
            assert first.sql("SELECT count(*) FROM events").fetchall() == [(0,)]  # the events view is there
        assert db.query(store, "SELECT count(*) AS n FROM runs")["n"][0] == 0
        held = first
    with pytest.raises(Exception, match="closed"):
        held.sql("SELECT 1").fetchall()
    with db.connect(store) as after:
        assert after is not held


def test_a_connection_asked_without_the_events_view_is_its_own(store):
    with db.reading(store):
        with db.connect(store, read_only=True, events=False) as plain, db.connect(store) as shared:
            assert plain is not shared


def test_a_failing_query_inside_a_session_leaves_the_session_usable(store):
    with db.reading(store):
        with pytest.raises(duckdb.BinderException, match="no_such_column"):
            db.query(store, "SELECT no_such_column FROM runs")
        assert db.query(store, "SELECT count(*) AS n FROM runs")["n"][0] == 0
