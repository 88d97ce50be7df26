"""Every dashboard page timed server side, for ``workbench bench --reports --pages``: each page
rendered by Streamlit's AppTest on its default view, cold (the data cache cleared first) and
warm (rendered again, the store unchanged), in wall and CPU seconds of this process (DuckDB's
and Streamlit's threads included). Issue 18's bars: under 3 s cold and under 1 s warm on a store
of at least 1,000,000 card_games rows."""
from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path

from workbench.bench.cards_page import PAGE_TIMEOUT, Timing, timed

# page (as the navigation names it) -> the script AppTest runs; the replay page is handed the
# simulator's replay function by streamlit_app.py, so its script does the same
PAGES = {
    "Overview": "overview", "Cards": "cards", "Keywords": "keywords", "Cost curves": "costs",
    "Matchups": "matchups", "Version diff": "diff", "What-if": "whatif", "Card value": "value",
    "Match replay": "replay", "Free-for-all": "ffa", "Series": "series", "Turf Defense": "turf",
    "Campaign": "campaign", "Pilots": "pilots", "Rebalancing": "tune", "Card": "card", "Deck": "deck",
}
COLD_BAR, WARM_BAR = 3.0, 1.0


def page_script(module: str) -> str:
    if module == "replay":
        return ("from reports.pages import replay\nfrom workbench.replay import replay_match\n"
                "replay.render(replay_match)")
    return f"from reports.pages import {module}\n{module}.render()"


def available_pages() -> dict[str, str]:
    """The pages of PAGES this checkout has (a page module not there yet is skipped)."""
    import importlib.util

    return {title: m for title, m in PAGES.items() if importlib.util.find_spec(f"reports.pages.{m}") is not None}


@dataclass(frozen=True, slots=True)
class PageTiming:
    page: str
    cold: list[Timing]
    warm: list[Timing]
    error: str | None = None

    def median(self, which: str, field: str) -> float:
        times = self.cold if which == "cold" else self.warm
        return statistics.median(getattr(t, field) for t in times) if times else float("nan")


def time_page(path: Path, title: str, module: str, repeats: int) -> PageTiming:
    """``repeats`` cold renders and as many warm ones, alternating."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    os.environ["WORKBENCH_DB"] = str(path)
    cold, warm = [], []
    params = item_params(path, module)
    for _ in range(repeats):
        app = AppTest.from_string(page_script(module), default_timeout=PAGE_TIMEOUT)
        for key, value in params.items():
            app.query_params[key] = value
        st.cache_data.clear()
        timing, _ = timed(app.run)
        if app.exception:
            return PageTiming(title, cold, warm, str(app.exception[0].value).splitlines()[0])
        cold.append(timing)
        timing, _ = timed(app.run)
        warm.append(timing)
    return PageTiming(title, cold, warm)


def item_params(path: Path, module: str) -> dict[str, str]:
    """The Card and Deck pages show one item: the store's most played card, its first deck."""
    from reports import db

    if module == "card":
        rows = db.query(path, "SELECT card FROM card_games GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1").rows()
        return {"card": rows[0][0]} if rows else {}
    if module == "deck":
        rows = db.query(path, "SELECT deck FROM match_seats GROUP BY 1 ORDER BY 1 LIMIT 1").rows()
        return {"deck": rows[0][0]} if rows else {}
    return {}


def time_pages(path: Path, repeats: int) -> list[PageTiming]:
    import logging

    # AppTest outside a server logs "no runtime" lines on every cached call: not the user's concern
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    return [time_page(path, title, module, repeats) for title, module in available_pages().items()]
