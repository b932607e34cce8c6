"""Every search entry point timed on a quiet machine and beside CPU hogs (issue 22).

    python bench/contention.py --db PATH [--policy NAME ...] [--entry NAME ...] [--runs N]

The hogs are what a developer's laptop runs beside an agent or the page: an index run of another
codebase (../shared/corpora/gymhero_2026.zip, restarted whenever it ends) and two busy loops, one
per core. Entry points, each in fresh processes so the thread policy applies as it does for a user:
- library: a warm in-process Searcher over the sample queries (bench/query_latency.py --json);
- eval:    `python -m codelens eval` over eval_questions.json (latency_ms per question);
- cli:     fresh `python -m codelens search` processes, wall time (no server);
- serve:   `python -m codelens serve`, its searches through the stdlib client (the CLI's fast path);
- mcp:     `python -m codelens mcp` over stdio, `search` calls through the SDK client;
- app:     the Streamlit page in headless Chromium (bench/app_latency.py), search ms the page shows.
Policies are environment variants of the OpenMP wait policy (codelens/models/threads.py
tune_threads_for_search): `shipped` (nothing set: the product's own choice), `spin` (libgomp's
default spin count, what the CLI did before), `passive`, `short-spin`. The target: busy p50 within
3x of quiet p50 for every entry point, and quiet p95 at most 100 ms for the warm ones.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import PROJECT_ROOT, busy_loops, index_runs_in_a_loop, percentile, print_table

POLICIES = {
    "shipped": {},
    "spin": {"GOMP_SPINCOUNT": "300000"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
    "short-spin": {"GOMP_SPINCOUNT": "10000"},
}
ENTRIES = ("library", "eval", "cli", "serve", "mcp", "app")
CLI_QUERIES = ("how is the password hashed", "как хешируется пароль пользователя")


def policy_env(policy: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    return {**env, **POLICIES[policy], "PYTHONPATH": str(PROJECT_ROOT)}


@contextmanager
def cpu_hogs(enabled: bool, work: Path) -> Iterator[None]:
    """An index run of another codebase, restarted in a loop, and one busy loop per core."""
    if not enabled:
        yield
        return
    index_loop = index_runs_in_a_loop(work)
    try:
        with busy_loops(2):
            time.sleep(8)  # the index run past its start-up, into chunking and embedding
            yield
    finally:
        os.killpg(index_loop.pid, 9)
        index_loop.wait()


def run_library(db: Path, env: dict, runs: int) -> list[float]:
    done = subprocess.run([sys.executable, str(PROJECT_ROOT / "bench" / "query_latency.py"), "--db", str(db),
                           "--rounds", str(max(1, runs // 20)), "--json"], env=env, capture_output=True,
                          text=True, check=True, cwd=PROJECT_ROOT)
    return json.loads(done.stdout)["samples_ms"]


def run_eval(db: Path, env: dict, work: Path) -> list[float]:
    out = work / "eval_results.json"
    subprocess.run([sys.executable, "-m", "codelens", "eval", "--db", str(db), "--questions",
                    str(PROJECT_ROOT / "eval_questions.json"), "--out", str(out)], env=env, check=True,
                   capture_output=True, cwd=PROJECT_ROOT)
    return [r["latency_ms"] for r in json.loads(out.read_text(encoding="utf-8"))["results"]]


def run_cli(db: Path, env: dict, runs: int) -> list[float]:
    times = []
    for index in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "codelens", "search", CLI_QUERIES[index % 2], "--db", str(db)],
                       env=env, check=True, capture_output=True, cwd=PROJECT_ROOT)
        times.append((time.perf_counter() - started) * 1000.0)
    return times


def run_serve(db: Path, env: dict, queries: list[str], runs: int) -> list[float]:
    from codelens.serve.client import find_server, remote_search

    server = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db)], env=env,
                              stdout=subprocess.PIPE, text=True, cwd=PROJECT_ROOT, start_new_session=True)
    try:
        if not server.stdout.readline().startswith("serving"):
            raise SystemExit("codelens serve did not start")
        address = find_server(db)
        times = []
        for index in range(runs):
            started = time.perf_counter()
            if remote_search(address, {"query": queries[index % len(queries)], "k": 5}) is None:
                raise SystemExit("codelens serve did not answer")
            times.append((time.perf_counter() - started) * 1000.0)
        return times
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)


def run_mcp(db: Path, env: dict, queries: list[str], runs: int, work: Path) -> list[float]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def measure() -> list[float]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "codelens", "mcp", "--db", str(db)],
                                       cwd=str(PROJECT_ROOT), env=env)
        with (work / "mcp.log").open("w") as log:
            async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("search", {"query": queries[0], "k": 5})  # waits for the warm-up
                times = []
                for index in range(runs):
                    started = time.perf_counter()
                    result = await session.call_tool("search", {"query": queries[index % len(queries)], "k": 5})
                    times.append((time.perf_counter() - started) * 1000.0)
                    if result.is_error:
                        raise SystemExit(f"mcp search failed: {result.content[0].text}")
                return times

    return anyio.run(measure)


def run_app(db: Path, env: dict, queries: list[str], runs: int, work: Path) -> list[float]:
    import app_latency

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return app_latency.measure(PROJECT_ROOT, db, queries[: runs + 1], work)["reported_ms"]
    finally:
        os.environ.clear()
        os.environ.update(saved)


def measure(entry: str, db: Path, env: dict, queries: list[str], runs: int, work: Path) -> list[float]:
    if entry == "library":
        return run_library(db, env, runs)
    if entry == "eval":
        return run_eval(db, env, work)
    if entry == "cli":
        return run_cli(db, env, max(2, runs // 5))
    if entry == "serve":
        return run_serve(db, env, queries, runs)
    if entry == "mcp":
        return run_mcp(db, env, queries, runs, work)
    return run_app(db, env, queries, min(runs, 10), work)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True, help="an index of the demo codebase")
    parser.add_argument("--policy", action="append", choices=sorted(POLICIES), help="default: shipped")
    parser.add_argument("--entry", action="append", choices=ENTRIES, help="default: all")
    parser.add_argument("--runs", type=int, default=20, help="searches per entry point and load")
    args = parser.parse_args(argv)
    queries = [q.strip() for q in (PROJECT_ROOT / "sample_queries.txt").read_text(encoding="utf-8").splitlines()
               if q.strip()]
    rows = []
    with tempfile.TemporaryDirectory(prefix="codelens-contention-") as tmp:
        work = Path(tmp)
        for policy in args.policy or ["shipped"]:
            for entry in args.entry or ENTRIES:
                figures = {}
                for busy in (False, True):
                    with cpu_hogs(busy, work):
                        load = os.getloadavg()[0]
                        times = measure(entry, db=args.db, env=policy_env(policy), queries=queries,
                                        runs=args.runs, work=work)
                    figures[busy] = (statistics.median(times), percentile(times, 95), load)
                quiet, busy = figures[False], figures[True]
                rows.append([policy, entry, quiet[0], quiet[1], f"{quiet[2]:.1f}", busy[0], busy[1],
                             f"{busy[2]:.1f}", f"{busy[0] / quiet[0]:.1f}x"])
                print(" | ".join(str(c) for c in rows[-1]), file=sys.stderr, flush=True)
    print_table(["policy", "entry point", "quiet p50 ms", "quiet p95 ms", "load", "busy p50 ms", "busy p95 ms",
                 "load", "busy/quiet p50"], rows)


if __name__ == "__main__":
    main()
