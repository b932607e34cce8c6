"""Tool latency of the MCP server (`python -m codelens mcp`) as an agent sees it: the real
server over stdio, driven by the SDK's client; the same queries searched in-process after it.

    python bench/mcp_latency.py [--db PATH] [--queries FILE] [--rounds N] [-k K]

Prints the time from start to the first answer, the first call after the warm-up, p50/p95 of
`search` over --rounds rounds of the queries (target: p95 <= 100 ms; round 1 asks each question
for the first time, later rounds repeat them), `get_chunk` on the top hits and `callers` on the
top code hits (a document or configuration piece has no call graph), and an in-process search of
each query right after the server's (the MCP overhead, both under the same load).
Builds the demo index in a temporary folder when --db has no index.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio
from _common import PROJECT_ROOT, SHARED, percentile, print_table
from mcp import ClientSession, StdioServerParameters, stdio_client

from codelens.chunk import CODE_KINDS
from codelens.index.build import build_index
from codelens.index.metadata import is_codelens_index
from codelens.search.searcher import WARM_UP_QUERIES
from codelens.settings import Settings

WARM_MARK = "codelens mcp: warm in"


async def measure(db: Path, queries: list[str], rounds: int, k: int, errlog: Path) -> dict:
    """The server's search and the in-process searcher's, query by query in turn, so both see the
    same machine load (one of them is idle while the other searches)."""
    from codelens.search.searcher import Searcher

    params = StdioServerParameters(command=sys.executable, args=["-m", "codelens", "mcp", "--db", str(db)],
                                   cwd=str(PROJECT_ROOT))
    started = time.perf_counter()
    with errlog.open("w", encoding="utf-8") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result: dict = {"initialize_s": time.perf_counter() - started}
            await _call(session, "search", {"query": queries[0], "k": k})
            result["first_answer_s"] = time.perf_counter() - started
            await _wait_for(errlog, WARM_MARK)
            result["first_warm_call_ms"] = (await _call(session, "search", {"query": queries[1], "k": k}))[0]
            searcher = Searcher(Settings(db_path=db, show_progress=False))
            for query in WARM_UP_QUERIES:  # the server's warm-up, no more: round 1 is new to both
                searcher.search(query, k)
            result["search_ms"], result["direct_ms"], hit_ids, code_ids = [], [], [], []
            for _ in range(rounds):
                for query in queries:
                    elapsed, data = await _call(session, "search", {"query": query, "k": k})
                    result["search_ms"].append(elapsed)
                    hit_ids.append(data["hits"][0]["chunk_id"])
                    code_ids.append(graph_target(data["hits"]))
                    mark = time.perf_counter()
                    searcher.search(query, k)
                    result["direct_ms"].append((time.perf_counter() - mark) * 1000.0)
            unique = list(dict.fromkeys(hit_ids))
            result["get_chunk_ms"] = [(await _call(session, "get_chunk", {"chunk_id": i}))[0] for i in unique]
            code = [i for i in dict.fromkeys(code_ids) if i is not None]
            result["callers_ms"] = [(await _call(session, "callers", {"target": i}))[0] for i in code]
    return result


def graph_target(hits: list[dict]) -> str | None:
    """The best code hit of a search, for `callers`: a document or configuration piece (a hit
    like `alembic.ini::alembic (2)`) has no call graph, and the tool says so as an error."""
    return next((hit["chunk_id"] for hit in hits if hit.get("kind") in CODE_KINDS), None)


async def _call(session: ClientSession, tool: str, arguments: dict) -> tuple[float, dict]:
    started = time.perf_counter()
    result = await session.call_tool(tool, arguments)
    elapsed = (time.perf_counter() - started) * 1000.0
    if result.is_error:
        raise SystemExit(f"{tool} {arguments} failed: {result.content[0].text}")
    return elapsed, result.structured_content or {}


async def _wait_for(errlog: Path, mark: str) -> None:
    while mark not in errlog.read_text(encoding="utf-8"):
        await anyio.sleep(0.05)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=None)
    parser.add_argument("--queries", type=Path, default=PROJECT_ROOT / "sample_queries.txt")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-k", type=int, default=5)
    args = parser.parse_args(argv)
    queries = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
    with tempfile.TemporaryDirectory(prefix="codelens-mcp-bench-") as tmp:
        db = args.db or Path(tmp) / "chroma_db"
        if not is_codelens_index(db):
            print(f"building the demo index in {db} ...", file=sys.stderr)
            build_index(SHARED / "codebase_python.zip", Settings(db_path=db, show_progress=False))
        load_before = os.getloadavg()[0]
        server = anyio.run(measure, db, queries, args.rounds, args.k, Path(tmp) / "server.log")
        load_after = os.getloadavg()[0]
    print(f"{len(queries)} queries x {args.rounds} rounds, k={args.k}, index {db}; "
          f"load average {load_before:.2f} before, {load_after:.2f} after")
    print(f"start -> initialize {server['initialize_s']:.2f} s; start -> first search answered "
          f"{server['first_answer_s']:.2f} s (models load meanwhile); first call after the warm-up "
          f"{server['first_warm_call_ms']:.1f} ms")
    first = len(queries)  # round 1: each question asked for the first time (the word bridge's cache is cold)
    rows = [(name, len(values), percentile(values, 50), percentile(values, 95), max(values))
            for name, values in (("search over MCP, all rounds", server["search_ms"]),
                                 ("search over MCP, round 1", server["search_ms"][:first]),
                                 ("search over MCP, rounds 2+", server["search_ms"][first:]),
                                 ("search in-process, all rounds", server["direct_ms"]),
                                 ("search in-process, round 1", server["direct_ms"][:first]),
                                 ("search in-process, rounds 2+", server["direct_ms"][first:]),
                                 ("get_chunk over MCP", server["get_chunk_ms"]),
                                 ("callers over MCP", server["callers_ms"])) if values]
    print_table(["call", "n", "p50 ms", "p95 ms", "max ms"], rows)
    verdict = "meets" if percentile(server["search_ms"], 95) <= 100 else "MISSES"
    print(f"search p95 over MCP {verdict} the 100 ms target")


if __name__ == "__main__":
    main()
