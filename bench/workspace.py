"""Several repositories in one index against each indexed alone (issue: a team's repositories in
one search).

Each repository of semble's benchmark (`--semble DIR`, its `<repo>.zip`) is extracted into
.bench_cache/workspace/src/<repo>/ and marked as a repository of its own (a `.git` folder), and
the folder is indexed as one workspace (`build_index`, like `codelens index ~/work`). Each
repository's English and Russian questions are then asked three ways, k = 10, tests included, and
scored by semble's rules (bench/semble.py):

- alone:     the repository's own index (.bench_cache/semble/<repo>, as bench/semble.py builds it);
- combined:  the workspace index, no filter; a hit counts only when it is in the right repository;
- --repo:    the workspace index with the filter `repos=(repo,)`.

It prints nDCG@10 per repository and language for the three, the differences, and the share of
every combined top 10 that comes from another repository.

    python bench/workspace.py [--semble ../shared/benchmarks/semble_py_dev] [--repos fastapi httpx starlette]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from _common import SHARED, print_table
from corpora import CACHE_DIR
from semble import (
    RUSSIAN_DIR,
    Scored,
    SembleQuery,
    index_repo,
    load_queries,
    ndcg_at_k,
    repositories,
    run_queries,
    target_ranks,
)
from variants import VariantSearcher

from codelens.index.build import build_index
from codelens.search.filters import SearchFilters
from codelens.search.ranking import SHIPPED_RANKING
from codelens.search.searcher import Hit, Searcher
from codelens.settings import Settings

K = 10
WORK = CACHE_DIR / "workspace"


def workspace_folder(directory: Path, repos: Sequence[str]) -> Path:
    """Every repository extracted side by side, each marked as a git repository."""
    root = WORK / "src"
    for repo in repos:
        target = root / repo
        if (target / ".git").is_dir():
            continue
        shutil.rmtree(target, ignore_errors=True)
        with zipfile.ZipFile(directory / f"{repo}.zip") as archive:
            archive.extractall(target)
        (target / ".git").mkdir()
    return root


def queries_of(directory: Path, repo: str) -> list[SembleQuery]:
    found = load_queries(directory / f"{repo}.queries.json", repo, "en")
    russian = RUSSIAN_DIR / f"{repo}.queries.json"
    return found + (load_queries(russian, repo, "ru") if russian.is_file() else [])


def in_workspace(query: SembleQuery) -> SembleQuery:
    """The query with its targets' paths under the repository's folder of the workspace."""
    return replace(query, targets=tuple(replace(t, path=f"{query.repo}/{t.path}") for t in query.targets))


def run_combined(searcher: Searcher, queries: Sequence[SembleQuery],
                 filters: SearchFilters) -> tuple[list[Scored], list[float]]:
    """Scored as semble scores, a hit of another repository never matching; and per query, the
    share of its top k from other repositories."""
    scored, foreign = [], []
    for query in queries:
        started = time.perf_counter()
        hits = searcher.search(query.text, K, filters)
        latency = (time.perf_counter() - started) * 1000.0
        own: list[Hit] = [h for h in hits if h.repo == query.repo]
        # ranks stay those of the full list: another repository's hit takes its place
        ranks = target_ranks(own, in_workspace(query).targets)
        scored.append(Scored(query, ndcg_at_k(ranks, len(query.targets), K), ranks, latency))
        foreign.append(1 - len(own) / max(1, len(hits)))
    return scored, foreign


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


VARIANTS: dict[str, tuple[str, ...] | None] = {
    "shipped": None,
    "vote first": ("repo-vote", *SHIPPED_RANKING),
    "vote soft": ("repo-vote-soft", *SHIPPED_RANKING),
    "vote hard": ("repo-vote-hard", *SHIPPED_RANKING),
    "vote head 10": ("repo-vote-10", *SHIPPED_RANKING),
    "vote last": (*SHIPPED_RANKING, "repo-vote"),
    "repo meaning": ("repo-meaning", *SHIPPED_RANKING),
    "repo meaning 0.5": ("repo-meaning-strong", *SHIPPED_RANKING),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--semble", type=Path, default=SHARED / "benchmarks" / "semble_py_dev")
    parser.add_argument("--repos", nargs="*", default=None, help="a subset of its repositories (default: all)")
    parser.add_argument("--variants", nargs="*", default=None, choices=sorted(VARIANTS),
                        help="rankings of the combined index to compare (default: all)")
    args = parser.parse_args(argv)
    repos = repositories(args.semble, tuple(args.repos or ()))
    if len(repos) < 2:
        print("a workspace needs at least two repositories", file=sys.stderr)
        return 2
    variants = {name: VARIANTS[name] for name in (args.variants or VARIANTS)}
    root = workspace_folder(args.semble, repos)
    settings = Settings(db_path=WORK / "db", show_progress=True)
    started = time.perf_counter()
    stats = build_index(root, settings)
    print(f"workspace: {stats.total_chunks} chunks, {len(stats.repositories)} repositories, run {stats.run} "
          f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    combined = VariantSearcher(settings)
    scores: dict[tuple[str, str], dict[str, float]] = {}
    for repo in repos:
        alone = Searcher(index_repo(args.semble, repo, show_progress=True), embedder=combined.embedder)
        queries = queries_of(args.semble, repo)
        for lang in ("en", "ru"):
            asked = [q for q in queries if q.lang == lang]
            if not asked:
                continue
            row = scores[(repo, lang)] = {"alone": mean([s.ndcg for s in run_queries(alone, asked)])}
            combined.names = None
            scoped, _ = run_combined(combined, asked, SearchFilters(include_tests=True, repos=(repo,)))
            row["--repo"] = mean([s.ndcg for s in scoped])
            for name, ranking in variants.items():
                combined.names = ranking
                mixed, foreign = run_combined(combined, asked, SearchFilters(include_tests=True))
                row[name] = mean([s.ndcg for s in mixed])
                row[f"{name} other"] = mean(foreign)
    columns = ["alone", "--repo", *variants, *(f"{name} other" for name in variants)]
    rows = [[repo, lang, *(round(values[c], 3) for c in columns)] for (repo, lang), values in scores.items()]
    for lang in ("en", "ru"):
        chosen = [values for (_, lng), values in scores.items() if lng == lang]
        rows.append(["mean", lang, *(round(mean([v[c] for v in chosen]), 3) for c in columns)])
    print(print_table(["repository", "lang", *columns], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
