"""Wall time of cold `python -m codelens search` processes, as a user at a shell feels it.

    python bench/cli_latency.py --db PATH [--runs N] [--compare-tree DIR]

For each of a Russian and an English question, N fresh processes each run one search:
first in-process (no server), then with `python -m codelens serve` running on the same index.
`--compare-tree DIR` also times the same searches from another checkout (e.g. the code
before this change) in the same run, interleaved, so machine load hits both alike.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import PROJECT_ROOT, percentile, print_table

QUERIES = {"en": "how is the password hashed", "ru": "как хешируется пароль пользователя"}


def time_search(tree: Path, db: Path, query: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "codelens", "search", query, "--db", str(db)], cwd=tree,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"search failed in {tree}:\n{done.stderr}")
    return elapsed


def start_server(db: Path) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db)], cwd=PROJECT_ROOT,
                              stdout=subprocess.PIPE, text=True)
    line = server.stdout.readline()
    if not line.startswith("serving"):
        server.kill()
        raise SystemExit(f"codelens serve did not start: {line}")
    return server


def measure(trees: dict[str, Path], db: Path, runs: int) -> dict[tuple[str, str], list[float]]:
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(runs):
        for lang, query in QUERIES.items():
            for label, tree in trees.items():  # interleaved: load changes hit every variant alike
                times.setdefault((label, lang), []).append(time_search(tree, db, query))
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare-tree", type=Path, default=None, help="another checkout, timed alongside")
    args = parser.parse_args(argv)
    trees = {"this checkout, no server": PROJECT_ROOT}
    if args.compare_tree:
        trees = {f"{args.compare_tree}, no server": args.compare_tree.resolve(), **trees}
    times = measure(trees, args.db, args.runs)
    server = start_server(args.db)
    try:
        times.update(measure({"this checkout, `codelens serve` running": PROJECT_ROOT}, args.db, args.runs))
    finally:
        server.terminate()
        server.wait(timeout=60)
    rows = [[label, lang, len(values), percentile(values, 50), max(values)]
            for (label, lang), values in times.items()]
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (1 min)")
    print_table(["variant", "lang", "runs", "p50 s", "max s"], rows)


if __name__ == "__main__":
    main()
