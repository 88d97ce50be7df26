"""The drawn replay board in headless Chromium, one screenshot per game: the board of a stored
match as a person sees it, at artifacts/screenshots/board-<game>.png (and the side-by-side twins
of a diff at board-twins.png). Skipped without Debian's chromium, as tests/test_browser.py is."""
from __future__ import annotations

import os

import pytest

from tests.conftest import run_cli
from tests.test_browser import WAIT_MS, dashboard_in_chromium, no_exception, screenshot
from tests.test_replay_board import GAMES, three_games  # noqa: F401 (the store fixture)

BOARD = "svg.drawn-board >> visible=true"


@pytest.mark.browser
@pytest.mark.heavy
def test_each_games_board_is_drawn_in_chromium(three_games):  # noqa: F811
    from playwright.sync_api import expect

    with dashboard_in_chromium({**os.environ, "WORKBENCH_DB": str(three_games)}) as (base, page):
        for game, (run_id, _decks) in GAMES.items():
            page.goto(f"{base}/replay?run={run_id}&match=0", wait_until="domcontentloaded", timeout=WAIT_MS)
            expect(page.get_by_role("heading", name="Match replay", exact=True).first).to_be_visible(timeout=WAIT_MS)
            expect(page.locator(BOARD).first).to_be_visible(timeout=WAIT_MS)
            # a turn in the middle of the match: the turn slider's right arrow walks it on
            turn = page.get_by_role("slider").first
            turn.focus()
            for _ in range(6):
                turn.press("ArrowRight")
            page.wait_for_timeout(1500)
            expect(page.locator(BOARD).first).to_be_visible(timeout=WAIT_MS)
            assert page.locator("svg.drawn-board g.card").count() > 0, f"{game}: no card drawn"
            box = page.locator(BOARD).first.bounding_box()
            assert box["width"] > 300 and box["height"] > 200, (game, box)
            expect(page.get_by_text("Step within the turn").first).to_be_visible(timeout=WAIT_MS)
            no_exception(page, game)
            screenshot(page, f"board-{game}")
        twins(page, base, three_games, expect)


def twins(page, base: str, store, expect) -> None:
    """A small diff added to the store: the candidate's match beside its base twin."""
    res = run_cli("diff", "frontier", "--base", "base", "--candidate", "first-player-skips-draw", "--matches", "2",
                  "--decks", GAMES["frontier"][1], "--workers", "1", "--db", str(store), "--quiet")
    assert res.returncode == 0, res.stderr
    from reports import db

    [(candidate,)] = db.query(store, "SELECT candidate_run FROM diffs").rows()
    page.goto(f"{base}/replay?run={candidate}&match=1", wait_until="domcontentloaded", timeout=WAIT_MS)
    expect(page.locator(BOARD).first).to_be_visible(timeout=WAIT_MS)
    page.get_by_text("Side by side with its twin under base").first.click()
    expect(page.locator(BOARD)).to_have_count(2, timeout=WAIT_MS)
    no_exception(page, "twins")
    screenshot(page, "board-twins")
