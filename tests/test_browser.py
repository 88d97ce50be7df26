"""The real dashboard in headless Chromium: the server as a user starts it, the pages as a user sees them.

Uses Debian's chromium (no ``playwright install``). Without it the test is skipped, unless
WORKBENCH_REQUIRE_BROWSER=1 asks for it to be a failure. Screenshots go to artifacts/screenshots/."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHART = '.js-plotly-plot, [data-testid="stPlotlyChart"]'
TABLE = '[data-testid="stDataFrame"]'


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


@pytest.fixture
def mixed_store(small_store, tmp_path):
    """The small store plus a Frontier Run batch, so every page has something to draw."""
    from tests.conftest import run_cli

    path = tmp_path / "mixed.duckdb"
    shutil.copy(small_store, path)
    events = small_store.with_name(small_store.name + ".events")
    if events.exists():
        shutil.copytree(events, path.with_name(path.name + ".events"))
    res = run_cli("simulate-run", "frontier", "--crew", "gold-gang,ironhold-garrison", "--runs", "2",
                  "--workers", "1", "--db", str(path), "--quiet")
    assert res.returncode == 0, res.stderr
    return path


@pytest.mark.browser
def test_pages_render_in_chromium(mixed_store):
    chromium = shutil.which("chromium")
    if chromium is None:
        reason = "Debian's chromium is not on PATH (apt-get install chromium)"
        if os.environ.get("WORKBENCH_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{reason}, and WORKBENCH_REQUIRE_BROWSER=1 requires the browser test")
        pytest.skip(reason)
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "WORKBENCH_DB": str(mixed_store)}
    cmd = [sys.executable, "-m", "streamlit", "run", "streamlit_app.py", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_healthy(f"{base}/_stcore/health", server, timeout=30)
        SHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                for name, path, title in (("overview", "/", "Overview"), ("cards", "/cards", "Cards"),
                                          ("campaign", "/campaign", "Campaign")):
                    page.goto(base + path, wait_until="domcontentloaded", timeout=15_000)
                    expect(page.locator(CHART).first).to_be_visible(timeout=15_000)
                    expect(page.locator(TABLE).first).to_be_visible(timeout=15_000)
                    expect(page.get_by_role("heading", name=title, exact=True).first).to_be_visible(timeout=5_000)
                    assert page.locator('[data-testid="stException"]').count() == 0, f"{name}: an exception shows"
                    if name == "overview":
                        expect(page.locator('[data-testid="stMetric"]').first).to_be_visible()
                    # Streamlit scrolls inside its main section, not the document, so a full-page
                    # screenshot alone stops at the viewport: grow the viewport to the content first.
                    height = page.evaluate(
                        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                        " return Math.max(m ? m.scrollHeight : 0, document.body.scrollHeight); }")
                    page.set_viewport_size({"width": 1400, "height": max(900, min(int(height) + 50, 8000))})
                    page.wait_for_timeout(800)  # let plotly redraw at the new size
                    shot = SHOTS / f"{name}.png"
                    page.screenshot(path=str(shot), full_page=True)
                    page.set_viewport_size({"width": 1400, "height": 900})
                    assert shot.stat().st_size > 10_000, f"{shot} looks empty"
            finally:
                browser.close()
    finally:
        out, err = stop(server)
    assert "Traceback" not in err, err
