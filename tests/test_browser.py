"""A real browser: Debian's headless Chromium (driven by Playwright) against `streamlit run`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from codelens.search.searcher import Searcher
from tests.conftest import PROJECT_ROOT, free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
QUERY_LABEL = "Вопрос или ключевые слова — Enter для поиска"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.is_file(),
                       reason=f"{CHROMIUM} not found: install Debian's chromium (make browser-deps)"),
]


def wait_until_healthy(url: str, server: subprocess.Popen, log: Path, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"streamlit exited with {server.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"streamlit did not answer on {url} within {timeout_s:.0f} s:\n{log.read_text()}")


@pytest.fixture()
def app_url(demo_index, tmp_path: Path) -> Iterator[str]:
    """`streamlit run app.py` on a free loopback port, on the demo index; stopped afterwards."""
    port = free_port()
    env = {**os.environ, "CODELENS_DB": str(demo_index.db_path), "PYTHONPATH": str(PROJECT_ROOT)}
    env.pop("CODELENS_MODEL", None)
    log = tmp_path / "streamlit.log"
    with log.open("w") as log_file:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(PROJECT_ROOT / "app.py"),
             "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=tmp_path, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, server, log)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_search_in_a_real_browser(app_url: str, tmp_path: Path, demo_index, embedder) -> None:
    from playwright.sync_api import expect, sync_playwright

    query = "как создаётся JWT-токен?"
    top_hit = Searcher(demo_index, embedder=embedder).search(query, k=1)[0].chunk  # what the page must show first
    screenshot = tmp_path / "search.png"
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000}, locale="ru-RU",
        )
        try:
            page = context.new_page()
            page.goto(app_url, wait_until="domcontentloaded")
            query_box = page.get_by_label(QUERY_LABEL)
            query_box.wait_for(timeout=180_000)  # the page shows it once the searcher is open and warm
            query_box.fill(query)
            query_box.press("Enter")

            cards = page.locator("[class*='st-key-hit-']")
            expect(cards).to_have_count(5, timeout=90_000)
            top = page.locator(".st-key-hit-1")
            expect(top).to_contain_text(f"{top_hit.path}:{top_hit.start_line}-{top_hit.end_line}")
            expect(top).to_contain_text(top_hit.symbol)
            expect(top.locator(".codelens-code").first).to_contain_text(f"{top_hit.start_line}")
            expect(cards.filter(has_text="gymhero/security.py:12-35")).to_have_count(1)  # the token factory is there
            for rank in range(1, 6):
                expect(page.locator(f".st-key-hit-{rank} .codelens-code").first).to_be_visible()
            expect(page.get_by_text("результатов за")).to_be_visible()
            page.screenshot(path=str(screenshot), full_page=True)
        finally:
            context.close()
    assert screenshot.stat().st_size > 10_000
    print(f"screenshot: {screenshot}")
