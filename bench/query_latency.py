"""Warm query latency of the shipped searcher: p50/p95 over sample_queries.txt.

    python bench/query_latency.py [--db PATH] [--queries FILE] [--rounds N] [--json]
Builds the demo index in a temporary folder when --db has no index. Runs as its own process,
as a search process does (the searcher sets its thread policy before models load).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, percentile, print_table

from codelens.index.build import build_index
from codelens.index.metadata import is_codelens_index
from codelens.search.searcher import Searcher
from codelens.settings import Settings

BUILT_IN_QUERIES = [
    "how is the JWT access token created", "как создаётся токен доступа",
    "where are the database settings", "где настраивается подключение к базе данных",
    "password hashing", "проверка пароля пользователя",
]


def load_queries(path: Path) -> list[str]:
    if path.is_file():
        return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return BUILT_IN_QUERIES


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--queries", type=Path, default=PROJECT_ROOT / "sample_queries.txt")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print {p50_ms, p95_ms, max_ms, searches, samples_ms} only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="codelens-latency-") as tmp:
        db = args.db or Path(tmp) / "chroma_db"
        settings = Settings(db_path=db, show_progress=False)
        if not is_codelens_index(db):
            print(f"building the demo index in {db} ...", file=sys.stderr)
            build_index(SHARED / "codebase_python.zip", settings)
        searcher = Searcher(settings)
        queries = load_queries(args.queries)
        for query in queries:  # warm-up: model, index and caches loaded
            searcher.search(query, args.k)
        latencies = []
        for _ in range(args.rounds):
            for query in queries:
                started = time.perf_counter()
                searcher.search(query, args.k)
                latencies.append((time.perf_counter() - started) * 1000.0)
    if args.json:
        print(json.dumps({"p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
                          "max_ms": max(latencies), "searches": len(latencies),
                          "samples_ms": latencies}))
        return
    print_table(["queries", "searches", "p50 ms", "p95 ms", "max ms"],
                [[len(queries), len(latencies), round(percentile(latencies, 50), 1),
                  round(percentile(latencies, 95), 1), round(max(latencies), 1)]])


if __name__ == "__main__":
    main()
