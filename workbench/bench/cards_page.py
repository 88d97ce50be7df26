"""Timings of the Cards page split by rules version and run, for ``workbench bench --reports``:
the query alone (``reports.cards.card_metrics``) and the page rendered by Streamlit's AppTest
with its cache cleared first, each in wall seconds and in CPU seconds of this process (DuckDB's
and Streamlit's threads included: on a loaded machine the CPU figure is what the work costs)."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

SPLIT = ("rules_version", "run_id")
PAGE_SCRIPT = "from reports.pages import cards\ncards.render()"
PAGE_TIMEOUT = 600  # seconds AppTest waits for one render: a loaded machine is slow, not broken


@dataclass(frozen=True, slots=True)
class Timing:
    wall: float
    cpu: float


def timed(work: Callable[[], object]) -> tuple[Timing, object]:
    """``work()``'s result and what it took, wall and process CPU."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return Timing(time.perf_counter() - wall, time.process_time() - cpu), result


def time_query(path: Path, game: str, run_ids: list[int]) -> Timing:
    """``card_metrics`` split by rules version and run over ``run_ids``; checks every run has rows."""
    from reports.cards import card_metrics
    from reports.filters import Filters

    timing, frame = timed(lambda: card_metrics(path, Filters(game=game, runs=list(run_ids)), SPLIT))
    found = frame["run_id"].n_unique() if frame.height else 0
    if found != len(run_ids):
        raise RuntimeError(f"card_metrics split by run gave rows for {found} of {len(run_ids)} runs")
    return timing


class CardsPage:
    """The Cards page in AppTest, with every run of ``run_ids`` chosen and split by rules version
    and run; each ``render`` clears Streamlit's data cache first, so it queries afresh."""

    def __init__(self, path: Path, run_ids: list[int]):
        from streamlit.testing.v1 import AppTest

        os.environ["WORKBENCH_DB"] = str(path)
        self.run_ids = list(run_ids)
        self.app = AppTest.from_string(PAGE_SCRIPT, default_timeout=PAGE_TIMEOUT)
        self.app.run()  # the first render draws the sidebar; its default view is not timed
        self._check()
        self._sidebar("Runs").set_value(self.run_ids)
        self._sidebar("Split by").set_value(list(SPLIT))

    def _sidebar(self, label: str):
        found = [w for w in self.app.sidebar.multiselect if w.label == label]
        if not found:
            raise RuntimeError(f"the Cards page has no {label!r} filter in its sidebar")
        return found[0]

    def _check(self) -> None:
        if self.app.exception:
            raise RuntimeError(f"the Cards page failed: {self.app.exception[0].value}")

    def render(self) -> Timing:
        import streamlit as st

        st.cache_data.clear()
        timing, _ = timed(self.app.run)
        self._check()
        shown = self.app.dataframe[0].value if self.app.dataframe else None
        if shown is None or "run_id" not in shown.columns or shown["run_id"].nunique() != len(self.run_ids):
            raise RuntimeError("the Cards page did not show a table split by every chosen run")
        return timing
