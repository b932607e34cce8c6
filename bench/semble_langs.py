"""semble's benchmark in every language: nDCG@10 per repository and per language beside the published
figures, Russian beside the same English questions, and what an index run costs per language.

    python bench/semble_langs.py                       # quality: ../shared/benchmarks/semble_langs_dev
    python bench/semble_langs.py --speed               # + a cold index run of each zip (fresh caches)
    python bench/semble_langs.py --speed --python-dir ../shared/benchmarks/semble_py_dev   # the Python rate beside

Quality runs through bench/semble.py (the real indexer and Searcher, indexes kept in .bench_cache/semble/);
the Russian questions are bench/semble_ru/<repo>.queries.json (translated by hand). Speed: each zip is indexed
by `python index.py` in a child process with an empty user cache (no embedding reused), its wall time and peak
RSS read from the child; chunking alone is timed in this process (`ingest.codebase.chunk_source`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from _common import SHARED, cold_cache_env, print_table, read_metadata, run_measured
from semble import RUSSIAN_DIR, Scored, load_queries, macro, open_searchers, repo_means, repositories, run_queries

from codelens.ingest.codebase import chunk_source
from codelens.settings import Settings

LANGS_DIR = SHARED / "benchmarks" / "semble_langs_dev"
# Published nDCG@10 (LANGS_DIR/README.md): language, semble, the best other tool on that repository
# (CodeRankEmbed-hybrid, CodeRankEmbed or ColGREP).
PUBLISHED: dict[str, tuple[str, float, float]] = {
    "zod": ("typescript", 0.615, 0.519), "trpc": ("typescript", 0.811, 0.880),
    "express": ("javascript", 0.964, 0.956), "gin": ("go", 0.860, 0.839), "chi": ("go", 0.867, 0.834),
    "gson": ("java", 0.917, 0.907), "axum": ("rust", 0.801, 0.780), "serde": ("rust", 0.815, 0.740),
    "dapper": ("csharp", 0.881, 0.848), "fmtlib": ("cpp", 0.935, 0.895), "libuv": ("c", 0.615, 0.720),
    "ktor": ("kotlin", 0.843, 0.869), "exposed": ("kotlin", 0.712, 0.708), "sinatra": ("ruby", 0.953, 0.953),
    "monolog": ("php", 0.901, 0.878), "alamofire": ("swift", 0.964, 0.974), "cats": ("scala", 0.911, 0.911),
}
SEMBLE_MEAN, BEST_OTHER_MEAN = 0.845, 0.834


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def quality(directory: Path, only: Sequence[str]) -> list[Scored]:
    searchers = open_searchers([directory], only)
    scored: list[Scored] = []
    for repo, searcher in searchers.items():
        queries = load_queries(directory / f"{repo}.queries.json", repo, "en")
        russian = RUSSIAN_DIR / f"{repo}.queries.json"
        if russian.is_file():
            queries += load_queries(russian, repo, "ru")
        scored += run_queries(searcher, queries)
    return scored


def quality_tables(scored: Sequence[Scored]) -> None:
    english = repo_means(scored, lambda s: s.query.lang == "en")
    russian = repo_means(scored, lambda s: s.query.lang == "ru")
    paired_texts = {(s.query.repo, s.query.english) for s in scored if s.query.lang == "ru"}
    paired = repo_means(scored, lambda s: s.query.lang == "en" and (s.query.repo, s.query.text) in paired_texts)
    rows = []
    for repo in sorted(english, key=lambda r: (PUBLISHED.get(r, ("?",))[0], r)):
        language, semble, other = PUBLISHED.get(repo, ("?", float("nan"), float("nan")))
        rows.append([repo, language, english[repo], semble, other, english[repo] - semble,
                     paired.get(repo, float("nan")), russian.get(repo, float("nan"))])
    rows.append(["mean over repos", "", _mean(list(english.values())), SEMBLE_MEAN, BEST_OTHER_MEAN,
                 _mean(list(english.values())) - SEMBLE_MEAN, _mean(list(paired.values())),
                 _mean(list(russian.values()))])
    print_table(["repo", "language", "CodeLens en", "semble", "best other", "vs semble", "en (RU's questions)",
                 "CodeLens ru"], rows)
    by_language: dict[str, list[str]] = defaultdict(list)
    for repo in english:
        by_language[PUBLISHED.get(repo, ("?",))[0]].append(repo)
    language_rows = []
    for language, repos in sorted(by_language.items()):
        ours = _mean([english[r] for r in repos])
        semble = _mean([PUBLISHED[r][1] for r in repos if r in PUBLISHED])
        language_rows.append([language, len(repos), ours, semble, ours - semble,
                              _mean([russian[r] for r in repos if r in russian])])
    print()
    print_table(["language", "repos", "CodeLens en", "semble (same repos)", "vs semble", "CodeLens ru"],
                language_rows)
    print()
    category_rows = [[category, macro(scored, lambda s, c=category: s.query.lang == "en" and s.query.category == c)]
                     for category in ("symbol", "semantic", "architecture")]
    category_rows.append(["ru (all)", macro(scored, lambda s: s.query.lang == "ru")])
    category_rows.append(["en, the same questions", macro(scored, lambda s: s.query.lang == "en" and
                                                         (s.query.repo, s.query.text) in paired_texts)])
    print_table(["nDCG@10", "CodeLens"], category_rows)


def speed(directory: Path, only: Sequence[str], label_of: dict[str, str]) -> None:
    """A cold `index.py` per zip (empty user cache), chunking alone, peak RSS."""
    rows = []
    for repo in only or repositories(directory):
        source = directory / f"{repo}.zip"
        started = time.perf_counter()
        chunked = chunk_source(source, Settings().max_file_bytes)
        chunk_s = time.perf_counter() - started
        with tempfile.TemporaryDirectory(prefix="codelens-langs-") as work:
            db = Path(work) / "db"
            wall, peak_mb, _ = run_measured([sys.executable, "index.py", "--source", str(source), "--db", str(db),
                                             "--full", "--quiet"], env=cold_cache_env(Path(work)))
            chunks = read_metadata(db)["total_chunks"]
        rows.append([repo, label_of.get(repo, "python"), len(chunked.sources), chunks, round(wall, 1),
                     chunks / wall, round(chunk_s, 2), chunk_s / wall, round(peak_mb)])
        print(f"{repo}: {chunks} chunks in {wall:.1f} s", file=sys.stderr)
    print_table(["repo", "language", "files", "chunks", "index s", "chunks/s", "chunking s", "chunking share",
                 "peak RSS MB (max so far)"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=LANGS_DIR, help="the semble_langs_dev directory")
    parser.add_argument("--repos", default="", help="comma-separated subset")
    parser.add_argument("--speed", action="store_true", help="also time a cold index run of each zip")
    parser.add_argument("--speed-only", action="store_true")
    parser.add_argument("--python-dir", type=Path, help="semble_py_dev: its zips timed too, for the Python rate")
    args = parser.parse_args(argv)
    only = tuple(r for r in args.repos.split(",") if r)
    if not args.speed_only:
        quality_tables(quality(args.dir, only))
    if args.speed or args.speed_only:
        labels = {repo: language for repo, (language, _, _) in PUBLISHED.items()}
        speed(args.dir, only, labels)
        if args.python_dir:
            speed(args.python_dir, (), labels)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
