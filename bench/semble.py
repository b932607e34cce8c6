"""semble's code-search benchmark through the real indexer and Searcher (bench/retrieval.py --semble DIR).

Each `<repo>.zip` of DIR is indexed with `codelens.index.build.build_index` into
.bench_cache/semble/<repo> (kept: re-runs are incremental and only new text is embedded),
then each query of `<repo>.queries.json` (and its Russian versions in bench/semble_ru/) is
searched with k = 10, tests included, and scored as DIR/README.md says:

- a target's rank is the rank of the first hit whose file matches the target's path (one a
  suffix of the other) and, for a target with a line span, whose lines overlap it;
- nDCG@10 with binary gains, ideal = DCG of min(10, number of targets) ones;
- a repository's score is its queries' mean, overall the mean over repositories, a category
  the mean over repositories of their category means.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from _common import PROJECT_ROOT
from corpora import CACHE_DIR
from variants import VariantSearcher

from codelens.models import ENGLISH_MODEL_KEYS
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Hit, Searcher
from codelens.settings import Settings

RUSSIAN_DIR = PROJECT_ROOT / "bench" / "semble_ru"
K = 10
CATEGORIES = ("symbol", "semantic", "architecture")


@dataclass(frozen=True)
class Target:
    path: str
    start_line: int = 0  # 0: the whole file
    end_line: int = 0


@dataclass(frozen=True)
class SembleQuery:
    repo: str
    text: str
    category: str
    lang: str  # "en" or "ru"
    targets: tuple[Target, ...]
    english: str = ""  # for a Russian query: the English query it rephrases


@dataclass(frozen=True)
class Scored:
    query: SembleQuery
    ndcg: float
    ranks: tuple[int | None, ...]  # per target: 1-based rank of its first matching hit, or None
    latency_ms: float


def _target(raw: str | dict) -> Target:
    if isinstance(raw, str):
        return Target(raw)
    return Target(str(raw["path"]), int(raw.get("start_line") or 0), int(raw.get("end_line") or 0))


def load_queries(path: Path, repo: str, lang: str) -> list[SembleQuery]:
    """semble's format: a list of {"query", "relevant", "secondary", "category"}; a Russian file
    may add "english" (the query it rephrases)."""
    items = json.loads(path.read_text(encoding="utf-8"))
    return [SembleQuery(repo, item["query"], item["category"], lang,
                        tuple(_target(t) for t in [*item.get("relevant", []), *item.get("secondary", [])]),
                        item.get("english", ""))
            for item in items]


def repositories(directory: Path, only: Sequence[str] = ()) -> list[str]:
    """The repositories of a benchmark directory (a zip and its queries), or the named subset."""
    found = sorted(p.stem for p in directory.glob("*.zip") if (directory / f"{p.stem}.queries.json").is_file())
    return [repo for repo in found if not only or repo in only]


def index_repo(directory: Path, repo: str, show_progress: bool = True,
               english_model: str = ENGLISH_MODEL_KEYS[0]) -> Settings:
    """The repository's index in .bench_cache/semble/<repo>, built or brought up to date."""
    settings = Settings(db_path=CACHE_DIR / "semble" / repo, show_progress=show_progress, english_model=english_model)
    settings.db_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    from codelens.index.build import build_index

    stats = build_index(directory / f"{repo}.zip", settings)
    print(f"{repo}: {stats.total_chunks} chunks, {stats.files} files, run {stats.run} "
          f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return settings


# ---------------------------------------------------------------- scoring (pure)


def _paths_match(hit_path: str, target_path: str) -> bool:
    return hit_path == target_path or hit_path.endswith("/" + target_path) or target_path.endswith("/" + hit_path)


def _lines_overlap(hit: Hit, target: Target) -> bool:
    if not target.start_line:
        return True
    return hit.chunk.start_line <= target.end_line and target.start_line <= hit.chunk.end_line


def target_ranks(hits: Sequence[Hit], targets: Sequence[Target]) -> tuple[int | None, ...]:
    """Per target, the 1-based rank of the first hit that matches it (file, then lines)."""
    ranks = []
    for target in targets:
        rank = next((h.rank for h in hits if _paths_match(h.chunk.path, target.path) and _lines_overlap(h, target)),
                    None)
        ranks.append(rank)
    return tuple(ranks)


def ndcg_at_k(ranks: Sequence[int | None], targets: int, k: int = K) -> float:
    """DCG / ideal DCG, binary gains: DCG = sum over distinct ranks r <= k of 1 / log2(r + 1)
    (a rank position gains once, however many targets it matches); ideal = the DCG of
    min(k, targets) hits at ranks 1.."""
    found = {r for r in ranks if r is not None and r <= k}
    dcg = sum(1.0 / math.log2(r + 1) for r in found)
    ideal = sum(1.0 / math.log2(r + 1) for r in range(1, min(k, targets) + 1))
    return dcg / ideal if ideal else 0.0


def run_queries(searcher: Searcher, queries: Sequence[SembleQuery], k: int = K) -> list[Scored]:
    filters = SearchFilters(include_tests=True)
    scored = []
    for query in queries:
        started = time.perf_counter()
        hits = searcher.search(query.text, k, filters)
        latency = (time.perf_counter() - started) * 1000.0
        ranks = target_ranks(hits, query.targets)
        scored.append(Scored(query, ndcg_at_k(ranks, len(query.targets), k), ranks, latency))
    return scored


# ---------------------------------------------------------------- aggregation


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def repo_means(scored: Sequence[Scored], keep: Callable[[Scored], bool]) -> dict[str, float]:
    """Per repository, the mean nDCG of its queries that `keep` selects (repos with none left out)."""
    by_repo: dict[str, list[float]] = {}
    for item in scored:
        if keep(item):
            by_repo.setdefault(item.query.repo, []).append(item.ndcg)
    return {repo: _mean(values) for repo, values in by_repo.items()}


def macro(scored: Sequence[Scored], keep: Callable[[Scored], bool]) -> float:
    """The mean over repositories of each repository's mean (semble's overall and per-category)."""
    return _mean(list(repo_means(scored, keep).values()))


# ---------------------------------------------------------------- the report

# semble's published nDCG@10 on these repositories (DIR/README.md).
PUBLISHED = {"aiohttp": 0.852, "fastapi": 0.787, "httpx": 0.860, "pydantic": 0.792, "starlette": 0.945}


def _english(item: Scored) -> bool:
    return item.query.lang == "en"


def _russian(item: Scored) -> bool:
    return item.query.lang == "ru"


def _paired(russian_texts: set[tuple[str, str]]) -> Callable[[Scored], bool]:
    """English queries that have a Russian version: the fair comparison for Russian."""
    return lambda item: item.query.lang == "en" and (item.query.repo, item.query.text) in russian_texts


def run_variant(directories: Sequence[Path], ranking: Sequence[str] | None,
                searchers: dict[str, VariantSearcher]) -> list[Scored]:
    """Every repository's English and Russian queries through its Searcher with this ranking."""
    scored: list[Scored] = []
    for directory in directories:
        for repo in repositories(directory, tuple(searchers)):
            queries = load_queries(directory / f"{repo}.queries.json", repo, "en")
            russian = RUSSIAN_DIR / f"{repo}.queries.json"
            if russian.is_file():
                queries += load_queries(russian, repo, "ru")
            searcher = searchers[repo]
            searcher.names = tuple(ranking) if ranking is not None else None
            scored += run_queries(searcher, queries)
    return scored


def open_searchers(directories: Sequence[Path], only: Sequence[str] = (),
                   english_model: str = ENGLISH_MODEL_KEYS[0]) -> dict[str, VariantSearcher]:
    """One VariantSearcher per repository (one e5 embedder shared); its ranking is set per variant."""
    searchers: dict[str, VariantSearcher] = {}
    embedder = None
    for directory in directories:
        for repo in repositories(directory, only):
            searcher = VariantSearcher(index_repo(directory, repo, english_model=english_model), embedder)
            embedder = searcher.embedder
            searchers[repo] = searcher
    return searchers


def report_rows(scored: Sequence[Scored]) -> list[tuple[str, float]]:
    """(label, nDCG@10) rows: overall, per language, per category, per repository."""
    russian_texts = {(s.query.repo, s.query.english) for s in scored if _russian(s)}
    rows = [("overall en", macro(scored, _english))]
    for category in CATEGORIES:
        rows.append((f"en {category}", macro(scored, lambda s, c=category: _english(s) and s.query.category == c)))
    if russian_texts:
        rows.append(("ru (semantic + architecture)", macro(scored, _russian)))
        rows.append(("en, the same questions", macro(scored, _paired(russian_texts))))
        for category in CATEGORIES[1:]:
            rows.append((f"ru {category}", macro(scored, lambda s, c=category: _russian(s) and s.query.category == c)))
    for repo, value in sorted(repo_means(scored, _english).items()):
        rows.append((f"{repo} en (semble {PUBLISHED.get(repo, float('nan')):.3f})", value))
    for repo, value in sorted(repo_means(scored, _russian).items()):
        rows.append((f"{repo} ru", value))
    latencies = sorted(s.latency_ms for s in scored)
    rows.append(("search ms p50", latencies[len(latencies) // 2] if latencies else float("nan")))
    return rows


def semble_table(directories: Sequence[Path], variants: dict[str, Sequence[str] | None],
                 only: Sequence[str] = (), english_model: str = ENGLISH_MODEL_KEYS[0]) -> list[list[object]]:
    """One column per ranking variant (None: the Searcher's default), rows as report_rows;
    `only` limits it to the named repositories."""
    searchers = open_searchers(directories, only, english_model)
    columns = {name: report_rows(run_variant(directories, ranking, searchers)) for name, ranking in variants.items()}
    labels = [label for label, _ in next(iter(columns.values()))]
    return [[f"semble nDCG@10 {label}"] + [round(dict(rows)[label], 3) for rows in columns.values()]
            for label in labels]


def per_query_lines(scored: Sequence[Scored]) -> list[str]:
    """One line per query (nDCG, target ranks, text): for reading failures, not for tuning."""
    return [f"{s.query.repo:10} {s.query.lang} {s.query.category[:4]} {s.ndcg:.3f} {s.ranks} {s.query.text}"
            for s in scored]
