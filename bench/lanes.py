"""An encoder's many passes on lanes (one single-thread onnxruntime session per core) against one
session of every thread (what ran before issue 43), on the same texts, and whether every vector is
the same bits.

    python bench/lanes.py [--source ZIP_OR_DIR] [--texts 320]

The texts are a random sample of the source's non-test chunks as the index embeds them (batches of
32, as an index run calls the encoder); the words are the first three words of each text, in
batches of 256 (the bridge's).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _common import SHARED, print_table

from codelens.ingest.codebase import chunk_source
from codelens.ingest.embed_text import DEFAULT_TEXT_BUDGET, embedding_text
from codelens.models.e5 import E5
from codelens.models.sentence import MiniLM


def rate(encode: Callable[[list[str]], np.ndarray], texts: list[str], batch: int) -> tuple[float, np.ndarray]:
    encode(texts[:8])  # the sessions loaded
    started = time.perf_counter()
    vectors = np.concatenate([encode(texts[i : i + batch]) for i in range(0, len(texts), batch)])
    return len(texts) / (time.perf_counter() - started), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=SHARED / "benchmarks" / "semble_py_dev" / "pydantic.zip")
    parser.add_argument("--texts", type=int, default=320)
    args = parser.parse_args()
    chunks = [c for c in chunk_source(args.source, 1_000_000).chunks if not c.is_test]
    texts = [embedding_text(c, DEFAULT_TEXT_BUDGET) for c in random.Random(1).sample(chunks, args.texts)]
    words = [word for text in texts for word in text.split()[:3]]
    rows = []
    for name, model, data, batch in (("e5 passages, int8", E5(int8=True), texts, 32),
                                     ("MiniLM passages, int8", MiniLM(int8=True), texts, 32),
                                     ("e5 words, fp32", E5(int8=False), words, 256)):
        encode = model.embed_passages if "passages" in name else (lambda b, m=model: m.embed_queries(b, 128))
        on_lanes, lanes_vectors = rate(encode, data, batch)
        model._encoder._threads = 1  # below two threads no lanes: the one session of two threads
        shared, shared_vectors = rate(encode, data, batch)
        rows.append([name, round(on_lanes, 1), round(shared, 1), round(on_lanes / shared, 2),
                     float(np.abs(lanes_vectors - shared_vectors).max())])
    print_table(["encoder", "lanes texts/s", "shared texts/s", "x", "max abs difference"], rows)


if __name__ == "__main__":
    main()
