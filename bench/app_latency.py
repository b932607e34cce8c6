"""The app as a user meets it: `streamlit run app.py` driven by headless Chromium.

    python bench/app_latency.py --db PATH [--tree DIR] [--beside-index] [--queries N]

Measures, in one run on one index:
- page load -> page ready (the query box is there: the searcher is open and warm);
- first answer after the page is ready (Enter -> five result cards in the browser);
- per-search latency over sample_queries.txt: the browser's Enter -> cards, and the search
  time the page itself reports;
- the evaluation tab's own results.json (median latency_ms over eval_questions.json) next to
  `python -m codelens eval` on the same index and questions: the library's p50.
`--tree DIR` runs another checkout's app.py (e.g. the code before a change); `--beside-index`
keeps an index run of the demo going in the background, as a user indexing a second codebase.
Needs playwright and Debian's /usr/bin/chromium (as tests/test_browser.py).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, cold_cache_env, percentile, print_table

CHROMIUM = "/usr/bin/chromium"
QUERY_LABEL = "Вопрос или ключевые слова — Enter для поиска"
CAPTION = "[data-testid='stCaptionContainer']:has-text('результатов за')"
# The results as the browser shows them: the caption (with its search time) and the cards.
_SNAPSHOT = """() => [...document.querySelectorAll("[data-testid='stCaptionContainer'], [class*='st-key-hit-']")]
    .map((e) => e.innerText).join("\\n")"""
# True once there are cards and the results differ from what was shown before.
_NEW_RESULTS = f"""(before) => document.querySelectorAll("[class*='st-key-hit-']").length > 0
    && ({_SNAPSHOT})() !== before"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def streamlit_app(tree: Path, db: Path, work: Path):
    port = free_port()
    env = {**os.environ, "CODELENS_DB": str(db), "PYTHONPATH": str(tree)}
    env.pop("CODELENS_MODEL", None)
    with (work / "streamlit.log").open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(tree / "app.py"), "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none"],
            cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


@contextmanager
def index_run_beside(enabled: bool, work: Path):
    """An index run of the demo into a scratch folder, running for as long as the block does."""
    if not enabled:
        yield
        return
    source = SHARED / "codebase_python.zip"
    runner = subprocess.Popen([sys.executable, str(PROJECT_ROOT / "index.py"), "--source", str(source), "--db",
                               str(work / "beside_db"), "--full", "--quiet"], cwd=PROJECT_ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                              env=cold_cache_env(work))
    try:
        yield
    finally:
        os.killpg(runner.pid, signal.SIGTERM)
        runner.wait(timeout=60)


def search_in_page(page, query: str) -> tuple[float, float] | None:
    """(browser seconds from Enter to the new result cards, search ms the page reports); None
    when the page showed nothing new (same hits and the same time as the question before)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = page.evaluate(_SNAPSHOT)
    box = page.get_by_label(QUERY_LABEL)
    box.fill(query)
    started = time.perf_counter()
    box.press("Enter")
    try:
        page.wait_for_function(_NEW_RESULTS, arg=before, timeout=60_000, polling=20)
    except PlaywrightTimeout:
        return None
    page.locator(CAPTION).wait_for(timeout=120_000)
    elapsed = time.perf_counter() - started
    text = page.locator(CAPTION).inner_text()
    reported_ms = float(text.split("за")[1].split("мс")[0].strip())
    return elapsed, reported_ms


def run_evaluation_tab(page, work: Path) -> float:
    """Click the evaluation tab's button; the median latency_ms of the results.json it writes."""
    page.get_by_role("tab", name="Метрики").click()
    page.get_by_role("button", name="Запустить оценку").click()
    page.get_by_text("медианная задержка").wait_for(timeout=600_000)
    results = json.loads((work / "results.json").read_text(encoding="utf-8"))
    return statistics.median(r["latency_ms"] for r in results["results"])


def library_eval_median(tree: Path, db: Path, work: Path) -> float:
    out = work / "library_results.json"
    subprocess.run([sys.executable, "-m", "codelens", "eval", "--questions", str(tree / "eval_questions.json"),
                    "--out", str(out), "--db", str(db)], cwd=tree, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(tree)})
    results = json.loads(out.read_text(encoding="utf-8"))
    return statistics.median(r["latency_ms"] for r in results["results"])


def measure(tree: Path, db: Path, queries: list[str], work: Path) -> dict:
    from playwright.sync_api import sync_playwright

    with streamlit_app(tree, db, work) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        started = time.perf_counter()
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_label(QUERY_LABEL).wait_for(timeout=600_000)
        ready_s = time.perf_counter() - started
        first_s, first_ms = search_in_page(page, queries[0])
        measured = [search_in_page(page, query) for query in queries[1:]]
        per_search = [m for m in measured if m is not None]
        app_eval_ms = run_evaluation_tab(page, work)
        browser.close()
    return {"ready_s": ready_s, "first_s": first_s, "first_ms": first_ms,
            "browser_s": [s for s, _ in per_search], "reported_ms": [ms for _, ms in per_search],
            "app_eval_ms": app_eval_ms}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--tree", type=Path, default=PROJECT_ROOT, help="checkout whose app.py runs")
    parser.add_argument("--beside-index", action="store_true", help="an index run of the demo runs meanwhile")
    parser.add_argument("--queries", type=int, default=20, help="sample queries to ask (after the first)")
    args = parser.parse_args(argv)
    tree = args.tree.resolve()
    lines = (tree / "sample_queries.txt").read_text(encoding="utf-8").splitlines()
    queries = [line.strip() for line in lines if line.strip()][: args.queries + 1]
    with tempfile.TemporaryDirectory(prefix="app_latency_") as scratch:
        work = Path(scratch)
        with index_run_beside(args.beside_index, work):
            app = measure(tree, args.db.resolve(), queries, work)
            library_ms = library_eval_median(tree, args.db.resolve(), work)
    print(f"tree {tree}; beside an index run: {args.beside_index}; "
          f"load average at the end: {os.getloadavg()[0]:.2f} (1 min)")
    browser_ms = [s * 1000 for s in app["browser_s"]]
    print_table(["measure", "value"], [
        ["page load -> ready (query box, warm), s", app["ready_s"]],
        ["first answer after ready (browser), ms", app["first_s"] * 1000],
        ["first answer: search time the page reports, ms", app["first_ms"]],
        [f"per search, browser Enter -> cards, p50 / p95 ms (n={len(browser_ms)})",
         f"{percentile(browser_ms, 50):.0f} / {percentile(browser_ms, 95):.0f}"],
        ["per search, reported by the page, p50 / p95 ms",
         f"{percentile(app['reported_ms'], 50):.0f} / {percentile(app['reported_ms'], 95):.0f}"],
        ["evaluation tab results.json median latency_ms", app["app_eval_ms"]],
        ["library (`codelens eval`, same index) median latency_ms", library_ms],
        ["app eval median / library median", app["app_eval_ms"] / library_ms],
    ])


if __name__ == "__main__":
    main()
