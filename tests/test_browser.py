"""The real dashboard in headless Chromium: the server as a user starts it, the pages as a user sees them.

Uses Debian's chromium (no ``playwright install``). Without it the test is skipped, unless
WORKBENCH_REQUIRE_BROWSER=1 asks for it to be a failure. Screenshots of every page go to
artifacts/screenshots/<page>.png (and the end of the three-click path to three_clicks.png)."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from tests.value_common import add_card_values, value_rows

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHART = '.js-plotly-plot >> visible=true'
TABLE = '[data-testid="stDataFrame"] >> visible=true'
WIDTH = 1400
# how long a page may take to show what is checked: this test checks what renders, not how fast
# (a loaded two-core CI machine running the other tests beside it took over 15 s for one page)
WAIT_MS = 60_000
MIN_PLOT_HEIGHT = 40  # px of a chart's plotting area, inside its margins: room for one row of bars

# (screenshot name, URL path, page title, a text the page must show once its data is in, its charts)
PAGES = (
    ("overview", "/", "Overview", "First-seat win rate", 2),
    ("overview-url", "/overview", "Overview", "First-seat win rate", 2),  # every page answers at its path
    ("cards", "/cards", "Cards", "ranked by shrunken played WR", 1),
    ("keywords", "/keywords", "Keywords", "Keyword price list", 2),
    ("costs", "/costs", "Cost curves", "Win rate when played, by cost", 3),
    ("matchups", "/matchups", "Matchups", "Each deck against the field", 2),
    ("diff", "/diff", "Version diff", "Matches a diff needs", 2),
    ("value", "/value", "Card value", "Every figure below was produced by these pilots", 1),
    ("replay", "/replay?run=1&match=3", "Match replay", "The replay agrees with the stored result", 1),
    ("campaign", "/campaign", "Campaign", "Reward cards: lift when taken", 2),
    ("card", "/card?card=ash-wraith", "Card", "Across runs and rules versions", 3),  # budget, trend, turns
    ("deck", "/deck?deck=lawmen-posse", "Deck", "Its cards, ranked within it", 3),  # curve, opponents, ranking
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, server: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            out, err = server.communicate()
            pytest.fail(f"streamlit exited with {server.returncode} before answering:\n{out}\n{err}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    pytest.fail(f"streamlit did not answer {url} within {timeout:.0f} s")


def stop(server: subprocess.Popen) -> tuple[str, str]:
    server.terminate()
    try:
        return server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        return server.communicate(timeout=10)


def content_height(page) -> int:
    return int(page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " return Math.max(m ? m.scrollHeight : 0, document.body.scrollHeight); }"))


def screenshot(page, name: str) -> Path:
    """The whole page: Streamlit scrolls inside its main section, not the document, so a full-page
    screenshot alone stops at the viewport; grow the viewport to the content (once it stopped
    growing) first."""
    height, previous = content_height(page), -1
    for _ in range(20):
        if height == previous:
            break
        page.wait_for_timeout(250)
        previous, height = height, content_height(page)
    page.set_viewport_size({"width": WIDTH, "height": max(900, min(int(height) + 50, 9000))})
    page.wait_for_timeout(800)  # let plotly redraw at the new size
    shot = SHOTS / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True)
    page.set_viewport_size({"width": WIDTH, "height": 900})
    assert shot.stat().st_size > 10_000, f"{shot} looks empty"
    return shot


def no_exception(page, name: str) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, f"{name}: an exception shows"


def chromium_or_skip() -> str:
    chromium = shutil.which("chromium")
    if chromium is None:
        reason = "Debian's chromium is not on PATH (apt-get install chromium)"
        if os.environ.get("WORKBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{reason}, and WORKBENCH_REQUIRE_BROWSER=1 requires the browser test")
        pytest.skip(reason)
    return chromium


@pytest.fixture
def mixed_store(diff_store, tmp_path):
    """The diff store plus a Frontier Run batch and hand-made card values, so every page has
    something to draw."""
    from tests.conftest import run_cli

    path = tmp_path / "mixed.duckdb"
    shutil.copy(diff_store, path)
    events = diff_store.with_name(diff_store.name + ".events")
    if events.exists():
        shutil.copytree(events, path.with_name(path.name + ".events"))
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang,ironhold-garrison", "--runs", "2",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    add_card_values(path, value_rows())
    return path


@contextmanager
def dashboard_in_chromium(env: dict):
    """The dashboard served as a user starts it (``env``: its environment) and a Chromium page:
    yields (base URL, page). The server's stderr must hold no traceback."""
    chromium = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_healthy(f"{base}/_stcore/health", server, timeout=90)
        SHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                yield base, browser.new_page(viewport={"width": WIDTH, "height": 900})
            finally:
                browser.close()
    finally:
        out, err = stop(server)
    assert "Traceback" not in err, err


@pytest.mark.browser
@pytest.mark.heavy
def test_pages_render_in_chromium(mixed_store):
    from playwright.sync_api import expect

    with dashboard_in_chromium({**os.environ, "WORKBENCH_DB": str(mixed_store)}) as (base, page):
        for name, path, title, text, charts in PAGES:
            page.goto(base + path, wait_until="domcontentloaded", timeout=WAIT_MS)
            seen_as_drawn(page, expect, name, title, text, charts)
        filters_follow(page, base, expect)
        three_clicks(page, base, mixed_store, expect)


def seen_as_drawn(page, expect, name: str, title: str, text: str, charts: int, tables: int | None = None) -> None:
    """The open page as a person sees it: its title, ``text`` (shown once its data is in), exactly
    ``charts`` charts, each with a titled axis, some data (not an empty frame) and room for it, a
    table (with ``tables``: exactly so many in sight), no exception box; then its screenshot,
    ``name``.png."""
    expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text(text).first).to_be_visible(timeout=WAIT_MS)
    if charts:
        expect(page.locator(CHART).first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(CHART)).to_have_count(charts, timeout=WAIT_MS)
    expect(page.locator(TABLE).first).to_be_visible(timeout=WAIT_MS)
    if tables is not None:
        expect(page.locator(TABLE)).to_have_count(tables, timeout=WAIT_MS)
    for plot in page.locator(CHART).all():
        expect(plot.locator(".xtitle").first).to_be_visible(timeout=WAIT_MS)
        assert plot.locator("g.trace, g.hm").count() > 0, f"{name}: a chart without data"
        # room to read it: a chart too short for its margins squeezes its rows into a sliver
        area = plot.locator(".nsewdrag").first.bounding_box()
        assert area["height"] >= MIN_PLOT_HEIGHT, f"{name}: a plot area {area['height']:.0f} px tall"
    no_exception(page, name)
    screenshot(page, name)


def filters_follow(page, base: str, expect) -> None:
    """A filter chosen on one page (here from a copied link) is still chosen on the next page
    and after a reload of that page's URL."""
    page.goto(base + "/cards?decks=lawmen-posse", wait_until="domcontentloaded", timeout=WAIT_MS)
    expect(page.get_by_role("heading", name="Cards", exact=True).first).to_be_visible(timeout=WAIT_MS)
    sidebar = page.locator('[data-testid="stSidebar"]')
    chip = sidebar.get_by_text("lawmen-posse", exact=True).first
    expect(chip).to_be_visible(timeout=WAIT_MS)
    sidebar.get_by_role("link", name="Keywords", exact=True).first.click()
    expect(page.get_by_role("heading", name="Keywords", exact=True).first).to_be_visible(timeout=WAIT_MS)
    expect(sidebar.get_by_text("lawmen-posse", exact=True).first).to_be_visible(timeout=WAIT_MS)
    page.wait_for_function("() => window.location.search.includes('decks=lawmen-posse')", timeout=WAIT_MS)
    assert "/keywords" in page.url, page.url
    page.reload(wait_until="domcontentloaded", timeout=WAIT_MS)
    expect(page.get_by_role("heading", name="Keywords", exact=True).first).to_be_visible(timeout=WAIT_MS)
    expect(sidebar.get_by_text("lawmen-posse", exact=True).first).to_be_visible(timeout=WAIT_MS)
    no_exception(page, "filters follow")


def three_clicks(page, base: str, store: Path, expect) -> None:
    """From the Overview: (1) open Cards, (2) select the top card of the ranking (the table is
    sorted by shrunken played WR), (3) replay an example match; the replay of that card's example
    match shows."""
    page.goto(base + "/", wait_until="domcontentloaded", timeout=WAIT_MS)
    expect(page.get_by_role("heading", name="Overview", exact=True).first).to_be_visible(timeout=WAIT_MS)

    page.get_by_role("link", name="Cards", exact=True).first.click()  # click 1
    expect(page.get_by_role("heading", name="Cards", exact=True).first).to_be_visible(timeout=WAIT_MS)
    table = page.locator(TABLE).first
    expect(table).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("ranked by shrunken played WR").first).to_be_visible(timeout=WAIT_MS)
    page.wait_for_timeout(500)
    box = table.bounding_box()
    # the grid is a canvas: the row's selection box sits at the left of its first row, below the header
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)  # click 2
    button = page.get_by_role("button", name="Replay an example match")
    expect(button).to_be_visible(timeout=WAIT_MS)
    selected = page.get_by_role("heading", level=3).filter(has_not_text="Card table").first.inner_text()
    button.click()  # click 3

    expect(page.get_by_role("heading", name="Match replay", exact=True).first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("The replay agrees with the stored result").first).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("Opened as an example of").first).to_be_visible(timeout=WAIT_MS)
    expect(page.locator(CHART).first).to_be_visible(timeout=WAIT_MS)
    no_exception(page, "three clicks")
    found = re.search(r"[?&]run=(\d+)&match=(\d+)", page.url)
    assert found, f"the replay's URL names its match: {page.url}"
    run_id, match_no = int(found.group(1)), int(found.group(2))

    # the match opened is the top-ranked card's example: that card was played in it, by a seat that won
    con = duckdb.connect(str(store), read_only=True)
    try:
        top = con.execute("SELECT DISTINCT c.name FROM card_games cg JOIN runs r USING (run_id) "
                          "JOIN cards c ON c.rules_hash = r.rules_hash AND c.card = cg.card "
                          "WHERE cg.run_id = ? AND cg.match_no = ? AND cg.played > 0 AND cg.won",
                          [run_id, match_no]).fetchall()
    finally:
        con.close()
    assert any(name in selected for (name,) in top), (selected, top)
    screenshot(page, "three_clicks")
