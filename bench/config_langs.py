"""Questions about a repository's configuration (issue 44): Hit@5 and nDCG@10 in English and Russian, and
what a cold index run of that repository costs.

    python bench/config_langs.py --source /tmp/petclinic --questions bench/questions/petclinic_config.json

The source is indexed by `python index.py --full` in a child process with an empty user cache (no embedding
reused: its wall time, peak RSS, chunks and chunks/s), then every question is searched through the real
Searcher on that index (k = 10, tests included) and scored against its gold chunk ids:

- Hit@5 = 1 when any gold chunk id is among the first 5 hits;
- nDCG@10 with binary gains: DCG = sum over the hits at ranks r <= 10 that are gold of 1 / log2(r + 1),
  ideal = the DCG of min(10, number of gold ids) hits at ranks 1...

Run from another checkout (the same script and questions copied there) to measure that checkout's code:
the child index run and the Searcher import the checkout the script sits in.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from _common import PROJECT_ROOT, cold_cache_env, print_table, read_metadata, run_measured

from codelens.evaluation import hit_at_k, load_questions, mean
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.settings import Settings

K = 10


def ndcg_at_k(predicted: Sequence[str], relevant: Sequence[str], k: int = K) -> float:
    """DCG / ideal DCG with binary gains over chunk ids (formula in the module's docstring)."""
    gold = set(relevant)
    dcg = sum(1.0 / math.log2(rank + 1) for rank, chunk_id in enumerate(predicted[:k], 1) if chunk_id in gold)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(k, len(gold)) + 1))
    return dcg / ideal if ideal else 0.0


def index_cold(source: Path, db: Path, work: Path) -> list[list[object]]:
    command = [sys.executable, str(PROJECT_ROOT / "index.py"), "--source", str(source), "--db", str(db), "--full",
               "--quiet"]
    wall, peak_mb, _ = run_measured(command, env=cold_cache_env(work))
    metadata = read_metadata(db)
    chunks, duration = metadata["total_chunks"], metadata["duration_s"]
    kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(metadata["chunks_per_kind"].items()))
    return [["files", metadata["files"]], ["chunks", chunks], ["chunks per kind", kinds],
            ["index run wall s (child process)", round(wall, 1)], ["duration_s (index_metadata)", duration],
            ["chunks/s (chunks / duration_s)", round(chunks / duration, 2) if duration else float("nan")],
            ["peak RSS MB", round(peak_mb)]]


def score(db: Path, questions_path: Path, show: bool) -> list[list[object]]:
    questions = load_questions(questions_path)
    searcher = Searcher(Settings(db_path=db, show_progress=False))
    filters = SearchFilters(include_tests=True)
    rows: dict[str, list[tuple[float, float]]] = {}
    for question in questions:
        predicted = [hit.chunk.chunk_id for hit in searcher.search(question.query, K, filters)]
        hit, ndcg = hit_at_k(predicted, question.relevant, 5), ndcg_at_k(predicted, question.relevant)
        rows.setdefault(question.lang, []).append((hit, ndcg))
        if show:
            print(f"{question.qid:8} hit@5 {hit:.0f} nDCG@10 {ndcg:.3f}  {question.query}")
            if not hit:
                print("         top 5:", ", ".join(predicted[:5]))
    return [[lang, len(values), mean([v[0] for v in values]), mean([v[1] for v in values])]
            for lang, values in sorted(rows.items())]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="the repository (a folder or zip)")
    parser.add_argument("--questions", type=Path, required=True, help="a questions file (DESIGN.md's format)")
    parser.add_argument("--per-question", action="store_true", help="a line per question, the misses' top 5")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="codelens-config-bench-") as work:
        db = Path(work) / "chroma_db"
        cost = index_cold(args.source, db, Path(work))
        quality = score(db, args.questions, args.per_question)
    print_table(["index run", "value"], cost)
    print_table(["lang", "questions", "Hit@5", "nDCG@10"], quality)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
