"""The pages tests/test_browser.py does not open, in headless Chromium as a person sees them: AlleyWay's
Free-for-all, Series and Turf Defense (small random runs of each mode), Pilots (a tiny ladder) and
Rebalancing (two proposals recorded by hand: a real tune costs tens of seconds). Screenshots go to
artifacts/screenshots/<page>.png. Skipped without Debian's chromium, as tests/test_browser.py is."""
from __future__ import annotations

import os

import pytest

from tests.conftest import run_cli
from tests.test_browser import CHART, WAIT_MS, dashboard_in_chromium, seen_as_drawn
from tests.test_reports_cli import modes_store  # noqa: F401 (the store fixture: one small run of each mode)
from tests.test_tune import CARD_KEPT, hand_made_proposals

# (screenshot name, URL path, page title, a text the page shows once its data is in, its charts, its tables)
PAGES = (
    ("ffa", "/ffa", "Free-for-all", "a fair deck wins 25%", 2, 5),  # placement, outs; decks, cards, outs, targets x2
    ("series", "/series", "Series", "How each deck's series ended", 1, 2),
    ("turf", "/turf", "Turf Defense", "Which partner falls first", 1, 3),
    ("pilots", "/pilots", "Pilots", "Cost of each rung", 1, 4),  # ratings, pairs, win matrix, cost
    ("tune-card", "/tune", "Rebalancing proposals", f"{CARD_KEPT} atk: keep 3", 1, 1),  # the newest: one card
)


@pytest.fixture(scope="module")
def more_pages_store(modes_store):  # noqa: F811
    """The modes store, plus a tiny ladder and the hand-made proposals."""
    res = run_cli("ladder", "frontier", "--pilots", "random,greedy", "--matches", "8", "--workers", "1",
                  "--db", str(modes_store), "--quiet")
    assert res.returncode == 0, res.stderr
    hand_made_proposals(modes_store)
    return modes_store


@pytest.mark.browser
@pytest.mark.heavy
def test_mode_pilot_and_tune_pages_render_in_chromium(more_pages_store):
    from playwright.sync_api import expect

    with dashboard_in_chromium({**os.environ, "WORKBENCH_DB": str(more_pages_store)}) as (base, page):
        for name, path, title, text, charts, tables in PAGES:
            page.goto(base + path, wait_until="domcontentloaded", timeout=WAIT_MS)
            seen_as_drawn(page, expect, name, title, text, charts, tables)
            if name == "pilots":
                assert row_labels(page) == ["greedy", "random"]
        # the other proposal, picked in the sidebar: the field's, its decks before and after
        page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
        page.get_by_role("option", name="tune 1:").click()
        seen_as_drawn(page, expect, "tune", "Rebalancing proposals",
                      "every deck inside 45%-55% on fresh seeds with 1 change", 1, 2)  # changes, decks
        assert row_labels(page) == ["goblin-gold-gang", "lawmen-posse"]
        # the pick lives in the URL: a reload (a new session, as a copied link opens) shows that proposal
        page.wait_for_function("() => window.location.search.includes('proposal=1')", timeout=WAIT_MS)
        page.reload(wait_until="domcontentloaded", timeout=WAIT_MS)
        expect(page.get_by_text("every deck inside 45%-55% on fresh seeds with 1 change").first).to_be_visible(
            timeout=WAIT_MS)


def row_labels(page) -> list[str]:
    """The row names a chart of one row per pilot or deck writes beside its rows: each one, none
    dropped for want of room."""
    return sorted(page.locator(CHART).locator(".ytick text").all_text_contents())
