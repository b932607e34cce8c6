"""The languages of issue 44's third part on real public repositories: Hit@5 and nDCG@10 per language,
English and Russian, and what an index run costs (time, chunks/s).

    python bench/new_langs.py --source bsl=/tmp/bench/opm --source vue=/tmp/bench/vue

Each `--source NAME=FOLDER` is a checkout of the repository its questions were written for (the
repositories are not kept here: bench/questions/new_langs/README.md names each one and its commit;
fetch it and export it, e.g. `git --git-dir=DIR archive COMMIT | tar -x -C FOLDER`). The folder is
indexed with `build_index` into .bench_cache/new_langs/<NAME> (kept: a re-run is incremental, and
its time is then no index time: `--fresh` starts from an empty index and an empty embedding cache),
then every question of bench/questions/new_langs/<NAME>.en.json and .ru.json (semble's format: `query`, `relevant`
targets with their lines, `category`; a Russian one its `english`) is searched with k = 10, tests
included (semble's protocol) and, in the last two columns, left out (what a search shows by default),
and scored as bench/semble.py scores: a target is found by the first hit in its file whose
lines overlap it; Hit@5 = a target among the first five hits; nDCG@10 with binary gains.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import PROJECT_ROOT, cold_cache_env, print_table
from corpora import CACHE_DIR
from semble import K, Scored, SembleQuery, load_queries, ndcg_at_k, target_ranks

from codelens.index.build import build_index
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.settings import Settings

QUESTIONS_DIR = PROJECT_ROOT / "bench" / "questions" / "new_langs"
HIT_AT = 5


def hit_at(scored: Scored, k: int = HIT_AT) -> float:
    """1.0 when any target of the question is among the first k hits."""
    return 1.0 if any(r is not None and r <= k for r in scored.ranks) else 0.0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _means(scored: Sequence[Scored]) -> tuple[float, float]:
    return round(_mean([hit_at(s) for s in scored]), 3), round(_mean([s.ndcg for s in scored]), 3)


def index(name: str, folder: Path, fresh: bool) -> tuple[Settings, dict[str, object]]:
    settings = Settings(db_path=CACHE_DIR / "new_langs" / name, show_progress=False)
    if fresh and settings.db_path.exists():
        shutil.rmtree(settings.db_path)
    settings.db_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    stats = build_index(folder, settings)
    seconds = time.perf_counter() - started
    return settings, {"chunks": stats.total_chunks, "files": stats.files, "seconds": seconds}


def run_queries(searcher: Searcher, queries: Sequence[SembleQuery], include_tests: bool) -> list[Scored]:
    """semble's scoring, with tests among the hits (its protocol) or left out (what a search shows by default)."""
    scored = []
    for query in queries:
        started = time.perf_counter()
        hits = searcher.search(query.text, K, SearchFilters(include_tests=include_tests))
        ranks = target_ranks(hits, query.targets)
        scored.append(Scored(query, ndcg_at_k(ranks, len(query.targets)), ranks, (time.perf_counter() - started) * 1e3))
    return scored


def per_query_lines(scored: Sequence[Scored]) -> list[str]:
    return [f"{s.query.lang} hit@5={hit_at(s):.0f} ndcg={s.ndcg:.2f} ranks={s.ranks} {s.query.text}" for s in scored]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", action="append", required=True, help="NAME=FOLDER (bsl=/tmp/bench/opm)")
    parser.add_argument("--fresh", action="store_true", help="index from an empty index (an index run's cost)")
    parser.add_argument("--verbose", action="store_true", help="every question's ranks")
    args = parser.parse_args(argv)
    if args.fresh:  # an empty user cache too: no embedding reused, a first run on a new machine
        os.environ.update(cold_cache_env(Path(tempfile.mkdtemp(prefix="codelens-new-langs-"))))
    quality_rows, speed_rows = [], []
    for spec in args.source:
        name, _, folder = spec.partition("=")
        settings, run = index(name, Path(folder), args.fresh)
        speed_rows.append((name, run["files"], run["chunks"], round(float(run["seconds"]), 1),
                           round(int(run["chunks"]) / float(run["seconds"]), 1)))
        searcher = Searcher(settings)
        queries = [q for lang in ("en", "ru") if (QUESTIONS_DIR / f"{name}.{lang}.json").is_file()
                   for q in load_queries(QUESTIONS_DIR / f"{name}.{lang}.json", name, lang)]
        with_tests, default = run_queries(searcher, queries, True), run_queries(searcher, queries, False)
        for lang in ("en", "ru"):
            mine = [s for s in with_tests if s.query.lang == lang]
            shown = [s for s in default if s.query.lang == lang]
            if mine:
                quality_rows.append((name, lang, len(mine), *_means(mine), *_means(shown)))
        if args.verbose:
            print("\n".join(per_query_lines(with_tests)), file=sys.stderr)
    print_table(("language", "lang", "questions", "Hit@5", "nDCG@10", "Hit@5 no tests", "nDCG@10 no tests"),
                quality_rows)
    print()
    print_table(("language", "files", "chunks", "index s", "chunks/s"), speed_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
