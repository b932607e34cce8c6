"""Concurrent clients against `codelens serve` and the MCP HTTP transport (issue 22).

    python bench/load.py --db PATH [--clients 1 8 32] [--searches N] [--target serve|mcp ...] [--beside-index]
                         [--edit-every S] [--token-file FILE] [--questions-from DIR] [--repo-every N]

Each client asks the sample queries and the evaluation questions (the demo's; `--questions-from DIR`:
the "query" fields of DIR's `*.queries.json` instead, e.g. ../shared/benchmarks/semble_py_dev, only
the files named after a repository of a workspace index when any is) in its own order, back to back
(no think time), until N searches are done in all. `--repo-every N`: every Nth search of a client
keeps to the repository its question is about (`repos` / MCP `repo`), when its file names one.
`serve` is driven through the stdlib client the CLI uses; MCP through the SDK's streamable-HTTP
client, one session per client. `--beside-index` repeats every run while an index run of another
codebase (../shared/corpora/gymhero_2026.zip) embeds beside the server. `--edit-every S` (an index
of a folder: the servers watch it) edits one of its indexed Python files (in a workspace, one in its
first repository) every S seconds during each run, so the watcher's updates swap indexes under the
load, and restores it afterwards. `--token-file FILE` starts both servers as a team's
(`--require-token --token-file FILE`) and every client sends that token as `Authorization: Bearer`.
Prints throughput, p50/p95/p99 latency, errors (must be 0, each printed with its cause), the watcher's
updates applied during the run and the server's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from _common import PROJECT_ROOT, index_runs_in_a_loop, percentile, print_table

Question = tuple[str, str]  # the question, and the repository it is about ("": none named)


def questions(folder: Path | None = None, repositories: Sequence[str] = ()) -> list[Question]:
    """The demo's sample queries and evaluation questions; or, from `folder`, every `<repo>.queries.json`'s
    queries, only those of `repositories` when any of them has a file there."""
    if folder is None:
        sample = [q.strip() for q in (PROJECT_ROOT / "sample_queries.txt").read_text(encoding="utf-8").splitlines()]
        evaluation = json.loads((PROJECT_ROOT / "eval_questions.json").read_text(encoding="utf-8"))["questions"]
        return [(q, "") for q in sample if q] + [(q["query"], "") for q in evaluation]
    files = {path.name.removesuffix(".queries.json"): path for path in sorted(folder.glob("*.queries.json"))}
    if any(name in files for name in repositories):
        files = {name: path for name, path in files.items() if name in repositories}
    found = [(item["query"], name) for name, path in files.items()
             for item in json.loads(path.read_text(encoding="utf-8"))
             if isinstance(item, dict) and isinstance(item.get("query"), str) and item["query"].strip()]
    if not found:
        raise SystemExit(f"no questions in {folder}/*.queries.json")
    return found


def index_repositories(db: Path) -> tuple[str, ...]:
    """The names of a workspace index's repositories (none for a workspace of one)."""
    from codelens.index.metadata import read_stats

    return tuple(str(repo["name"]) for repo in read_stats(db).repositories if repo.get("label"))


def search_repos(question: Question, number: int, repo_every: int) -> list[str]:
    """The repositories the `number`th search (from 1) of a client keeps to: its question's own every
    `repo_every`th search, else all."""
    return [question[1]] if repo_every and question[1] and number % repo_every == 0 else []


def tell_error(target: str, request: dict, reason: str) -> None:
    """A failed search on stderr, with what was asked: errors must be 0, and each needs its cause."""
    print(f"error ({target}): {reason} - asked {json.dumps(request, ensure_ascii=False)}", file=sys.stderr, flush=True)


def watcher_updates(db: Path) -> int:
    """Updates the server's watcher has applied since it started (0: nobody watches); its last error on stderr."""
    from codelens.index.watch import read_watch_status

    status = read_watch_status(db)
    if status is not None and status.last_error:
        print(f"watcher: last error: {status.last_error}", file=sys.stderr, flush=True)
    return status.updates if status is not None else 0


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def index_run_beside(enabled: bool, work: Path) -> Iterator[None]:
    if not enabled:
        yield
        return
    runner = index_runs_in_a_loop(work)
    time.sleep(8)  # past start-up, into embedding
    try:
        yield
    finally:
        os.killpg(runner.pid, 9)
        runner.wait()


@contextmanager
def edits_beside(db: Path, every_s: float) -> Iterator[None]:
    """Append a function to one file of the indexed folder every `every_s` seconds (0: none)."""
    if not every_s:
        yield
        return
    target = edit_target(db)
    # a run killed before it restored the file left its edit in: that is not the original
    original = re.sub(r"(\n\ndef load_bench_edit_\d+\(\):\n    return \d+\n)+$", "",
                      target.read_text(encoding="utf-8"))
    stop = threading.Event()

    def edit() -> None:
        number = 0
        while not stop.wait(every_s):
            number += 1
            addition = f"\n\ndef load_bench_edit_{number}():\n    return {number}\n"
            target.write_text(original + addition, encoding="utf-8")

    thread = threading.Thread(target=edit, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        target.write_text(original, encoding="utf-8")


def edit_target(db: Path) -> Path:
    """The file `--edit-every` edits: the first indexed Python file (the manifest's) of the index's folder,
    inside its first repository in a workspace, so the update is one repository's."""
    from codelens.index.manifest import Manifest
    from codelens.index.metadata import read_stats
    from codelens.workspace import Workspace

    stats = read_stats(db)
    source = Path(stats.source)
    if not source.is_dir():
        raise SystemExit(f"--edit-every needs an index of a folder; {source} is not one")
    workspace = Workspace.from_json(stats.repositories, stats.source)
    manifest = Manifest.load(db)
    indexed = sorted(path for path in (manifest.files if manifest else ()) if path.endswith(".py"))
    first = workspace.repositories[0]
    for path in indexed:
        if first.holds(path) and (source / path).is_file():
            return source / path
    raise SystemExit(f"--edit-every found no indexed Python file of {first.name} in {source}")


@contextmanager
def server_process(target: str, db: Path, work: Path,
                   token_file: Path | None = None) -> Iterator[tuple[subprocess.Popen, str]]:
    """A started server and how to reach it: serve's announcement, or the MCP URL."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    if target == "serve":
        command = [sys.executable, "-m", "codelens", "serve", "--db", str(db)]
    else:
        port = free_port()
        command = [sys.executable, "-m", "codelens", "mcp", "--db", str(db), "--http", str(port)]
    if token_file is not None:
        command += ["--require-token", "--token-file", str(token_file)]
    log = (work / f"{target}.log").open("w")
    server = subprocess.Popen(command, env=env, cwd=PROJECT_ROOT, stdout=subprocess.PIPE if target == "serve"
                              else log, stderr=log, text=True, start_new_session=True)
    try:
        if target == "serve":
            if not server.stdout.readline().startswith("serving"):
                raise SystemExit("codelens serve did not start")
            yield server, ""
        else:
            while "warm in" not in (work / "mcp.log").read_text():
                if server.poll() is not None:
                    raise SystemExit("codelens mcp did not start")
                time.sleep(0.2)
            yield server, f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=60)
        log.close()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def drive_serve(db: Path, clients: int, searches: int, queries: list[Question],
                token: str | None = None, repo_every: int = 0) -> tuple[list[float], int]:
    from dataclasses import replace

    from codelens.serve.client import find_server, remote_search

    address = find_server(db)
    if token is not None:  # a team member: the team token as the bearer token, not the run's
        address = replace(address, token=token)
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    per_client = max(1, searches // clients)

    def client(seed: int) -> None:
        order = random.Random(seed).sample(queries, len(queries))
        for index in range(per_client):
            question = order[index % len(order)]
            request = {"query": question[0], "k": 5}
            if repos := search_repos(question, index + 1, repo_every):
                request["repos"] = repos
            started = time.perf_counter()
            reason = "unreachable (no answer, or not a search's)"
            try:
                ok = remote_search(address, request) is not None
            except Exception as exc:
                ok, reason = False, f"{type(exc).__name__}: {exc}"
            elapsed = (time.perf_counter() - started) * 1000.0
            with lock:
                latencies.append(elapsed)
                errors[0] += not ok
                if not ok:
                    tell_error("serve", request, reason)

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def drive_mcp(url: str, clients: int, searches: int, queries: list[Question],
              token: str | None = None, repo_every: int = 0) -> tuple[list[float], int]:
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {token}"} if token is not None else None

    latencies: list[float] = []
    errors = [0]
    per_client = max(1, searches // clients)

    async def client(seed: int) -> None:
        order = random.Random(seed).sample(queries, len(queries))
        async with (create_mcp_http_client(headers=headers) as http,
                    streamable_http_client(url, http_client=http) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            for index in range(per_client):
                question = order[index % len(order)]
                arguments = {"query": question[0], "k": 5}
                if repos := search_repos(question, index + 1, repo_every):
                    arguments["repo"] = repos
                started = time.perf_counter()
                try:
                    result = await session.call_tool("search", arguments)
                    ok = not result.is_error
                    reason = " ".join(getattr(part, "text", "") for part in result.content)[:300]
                except Exception as exc:
                    ok, reason = False, f"{type(exc).__name__}: {exc}"
                latencies.append((time.perf_counter() - started) * 1000.0)
                errors[0] += not ok
                if not ok:
                    tell_error("mcp", arguments, reason)

    async def run_all() -> None:
        async with anyio.create_task_group() as group:
            for seed in range(clients):
                group.start_soon(client, seed)

    anyio.run(run_all)
    return latencies, errors[0]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--searches", type=int, default=640, help="searches per run, over all clients")
    parser.add_argument("--target", action="append", choices=("serve", "mcp"), help="default: both")
    parser.add_argument("--beside-index", action="store_true", help="also run every load beside an index run")
    parser.add_argument("--edit-every", type=float, default=0.0, help="edit a watched file every S seconds")
    parser.add_argument("--token-file", type=Path, default=None, help="serve a team: every request sends this token")
    parser.add_argument("--questions-from", type=Path, default=None,
                        help="ask the queries of this folder's *.queries.json (semble's) instead of the demo's")
    parser.add_argument("--repo-every", type=int, default=0,
                        help="every Nth search keeps to its question's repository (0: never)")
    args = parser.parse_args(argv)
    token = None
    if args.token_file is not None:
        from codelens.tokens import load_token

        token = load_token(args.token_file)
    queries = questions(args.questions_from, index_repositories(args.db))
    rows = []
    with tempfile.TemporaryDirectory(prefix="codelens-load-") as tmp:
        work = Path(tmp)
        for target in args.target or ["serve", "mcp"]:
            for beside in (False, True) if args.beside_index else (False,):
                with (server_process(target, args.db, work, args.token_file) as (server, url),
                      index_run_beside(beside, work),
                      edits_beside(args.db, args.edit_every)):
                    for clients in args.clients:
                        started, load = time.perf_counter(), os.getloadavg()[0]
                        updates = watcher_updates(args.db)
                        if target == "serve":
                            latencies, errors = drive_serve(args.db, clients, args.searches, queries, token,
                                                              args.repo_every)
                        else:
                            latencies, errors = drive_mcp(url, clients, args.searches, queries, token, args.repo_every)
                        wall = time.perf_counter() - started
                        updates = watcher_updates(args.db) - updates
                        machine = "index run beside" if beside else "no index run"
                        machine += f", an edit every {args.edit_every:g} s" if args.edit_every else ""
                        machine += ", team token" if token else ""
                        machine += f", repos every {args.repo_every}th" if args.repo_every else ""
                        rows.append([target, machine, clients, len(latencies),
                                     round(len(latencies) / wall, 1), round(percentile(latencies, 50), 1),
                                     round(percentile(latencies, 95), 1), round(percentile(latencies, 99), 1),
                                     errors, updates, round(peak_rss_mb(server.pid)), f"{load:.1f}"])
                        print(" | ".join(str(c) for c in rows[-1]), file=sys.stderr, flush=True)
    print_table(["server", "machine", "clients", "searches", "searches/s", "p50 ms", "p95 ms", "p99 ms", "errors",
                 "index updates", "peak RSS MB", "load"], rows)


if __name__ == "__main__":
    main()
