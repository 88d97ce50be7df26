"""The what-if loop in headless Chromium, end to end: the dashboard started on a workspace, a card
opened, one number changed, the diff started from the form and followed until it is decided, and
the Version diff it opens naming the change field by field. Random pilots and a small cap keep it
bounded; the screenshots go to artifacts/screenshots/whatif.png and, of the What-if page's job list
after it, whatif-jobs.png."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.test_browser import WAIT_MS, dashboard_in_chromium, no_exception, screenshot, seen_as_drawn

CARD, DECKS = "iron-horse-cavalry", "goblin-gold-gang,lawmen-posse"
ANSWER_MS = 240_000  # the diff's rounds, on a loaded two-core machine


def workspace_store(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace of Frontier's data and a store holding one small run made from it."""
    ws, store = tmp_path / "ws", tmp_path / "store.duckdb"
    assert run_cli("init", str(ws), "--game", "frontier").returncode == 0
    res = run_cli("simulate", "frontier", "--decks", DECKS, "--matches", "20", "--pilots", "random", "--workers", "2",
                  "--db", str(store), "--data", str(ws), "--quiet")
    assert res.returncode == 0, res.stderr
    return ws, store


@pytest.mark.browser
@pytest.mark.slow
def test_whatif_loop_in_chromium(tmp_path):
    from playwright.sync_api import expect

    ws, store = workspace_store(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env.update(WORKBENCH_DB=str(store), WORKBENCH_DATA=str(ws))
    with dashboard_in_chromium(env) as (base, page):
        started = time.monotonic()
        page.goto(f"{base}/cards?card={CARD}", wait_until="domcontentloaded", timeout=WAIT_MS)
        expect(page.get_by_text("Try a change", exact=True)).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("Keywords: ambush, fortify 1, quickdraw")).to_be_visible(timeout=WAIT_MS)
        page.get_by_label("atk", exact=True).fill("3")
        page.get_by_text("How it is measured").click()
        page.get_by_label("Pilots", exact=True).fill("random")
        page.get_by_label("At most, matches per pairing", exact=True).fill("300")
        page.get_by_label("Smallest change worth finding (pts)", exact=True).fill("10")
        page.get_by_role("button", name="Try it: write the version and start the diff").click()
        expect(page.get_by_text("its diff runs in the background")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("matches per version played").first).to_be_visible(timeout=WAIT_MS)
        # decided: the page opens the Version diff on it, which names the change field by field
        expect(page.get_by_role("heading", name="Version diff", exact=True)).to_be_visible(timeout=ANSWER_MS)
        expect(page.get_by_text("You changed Iron Horse Cavalry: atk 4 → 3")).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_text("Sequential diff:").first).to_be_visible(timeout=WAIT_MS)
        seconds = time.monotonic() - started
        assert "diff=" in page.url, page.url
        no_exception(page, "what-if")
        screenshot(page, "whatif")
        print(f"what-if loop (random pilots, cap 300, delta 10): {seconds:.0f} s, load {os.getloadavg()}")
        # the What-if page, opened afresh: the job's answer and the list of the store's what-ifs
        page.goto(f"{base}/whatif", wait_until="domcontentloaded", timeout=WAIT_MS)
        seen_as_drawn(page, expect, "whatif-jobs", "What-if", "Every what-if of this store", 0, 2)  # verdict, jobs
        job = re.compile(r"What-if job 1: .*atk 4 → 3 .*· (decided|undecided at its cap) ·")
        expect(page.get_by_text(job).first).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_role("button", name="Open the Version diff of this change")).to_be_visible(timeout=WAIT_MS)
    versions = [p.name for p in (ws / "frontier" / "rules").glob(f"try-{CARD}-*.yaml")]
    assert len(versions) == 1, versions
