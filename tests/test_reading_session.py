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


def opens_counted(monkeypatch) -> list:
    """Every DuckDB connection opened from now on, in this process."""
    opened, real = [], duckdb.connect
    monkeypatch.setattr(duckdb, "connect", lambda *a, **k: opened.append(a) or real(*a, **k))
    return opened


def test_a_lazy_session_opens_the_store_at_its_first_read_only(store, monkeypatch):
    opened = opens_counted(monkeypatch)
    with db.reading(store, lazily=True):
        assert opened == []
        with db.connect(store) as first:
            pass
        assert db.query(store, "SELECT count(*) AS n FROM runs")["n"][0] == 0
        with db.connect(store) as second:
            assert second is first
    assert len(opened) == 1
    with pytest.raises(Exception, match="closed"):
        first.sql("SELECT 1").fetchall()


def writable_from_another_process(path) -> bool:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import duckdb, sys; duckdb.connect(sys.argv[1]).close()", str(path)],
                          capture_output=True, text=True)
    return done.returncode == 0


def test_a_page_render_opens_the_store_once_cold_never_warm_and_holds_nothing_after(small_store, monkeypatch,
                                                                                    fresh_cache):
    """The Overview asks several queries; its render reads them through one connection, a render
    answered from the cache opens none, and after a render another process can write."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("WORKBENCH_DB", str(small_store))
    opened = opens_counted(monkeypatch)
    app = AppTest.from_string("from reports.pages import overview\noverview.render()", default_timeout=120)
    app.run()
    assert not app.exception and len(opened) == 1 and app.dataframe, "one connection for the cold render's reads"
    app.run()
    assert not app.exception and len(opened) == 1, "a warm render is answered from the cache"
    assert writable_from_another_process(small_store), "nothing held after the render"
