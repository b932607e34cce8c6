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

`--extra NAME=ZIP[:QUESTIONS,...]` adds a repository of another source to the workspace (its
alone index in .bench_cache/alone/NAME), with questions files in CodeLens's format (gold chunk
ids, each scored as a target with its lines); `--issue-workspace` adds the issue's three: the demo
(its eval_questions.json and bench/questions/demo_files.json), gymhero_2026 (no questions: the
demo's later version, a near-duplicate) and httpx_full (bench/questions/httpx_files.json; the
semble httpx's whole repository, another near-duplicate).

    python bench/workspace.py [--semble ../shared/benchmarks/semble_py_dev] [--repos fastapi httpx starlette]
                              [--issue-workspace] [--dump per_query.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, print_table
from corpora import CACHE_DIR
from semble import (
    RUSSIAN_DIR,
    Scored,
    SembleQuery,
    Target,
    index_repo,
    load_queries,
    ndcg_at_k,
    repositories,
    run_queries,
    target_ranks,
)
from variants import VariantSearcher

from codelens.evaluation import load_questions
from codelens.index.build import build_index
from codelens.search.filters import SearchFilters
from codelens.search.ranking import SHIPPED_RANKING
from codelens.search.searcher import Hit, Searcher
from codelens.settings import Settings

K = 10
WORK = CACHE_DIR / "workspace"


@dataclass(frozen=True)
class Extra:
    """A repository from another source than semble's directory, with its own questions files."""

    name: str
    zip_path: Path
    questions: tuple[Path, ...] = ()


ISSUE_EXTRAS = (
    Extra("demo", SHARED / "codebase_python.zip",
          (PROJECT_ROOT / "eval_questions.json", PROJECT_ROOT / "bench" / "questions" / "demo_files.json")),
    Extra("gymhero_2026", SHARED / "corpora" / "gymhero_2026.zip"),
    Extra("httpx_full", SHARED / "corpora" / "httpx_full.zip",
          (PROJECT_ROOT / "bench" / "questions" / "httpx_files.json",)),
)


def parse_extra(text: str) -> Extra:
    name, _, rest = text.partition("=")
    zip_path, _, questions = rest.partition(":")
    return Extra(name, Path(zip_path), tuple(Path(q) for q in questions.split(",") if q))


def workspace_folder(zips: dict[str, Path]) -> Path:
    """Every repository extracted side by side, each marked as a git repository."""
    root = WORK / "src"
    for repo, zip_path in zips.items():
        target = root / repo
        if (target / ".git").is_dir():
            continue
        shutil.rmtree(target, ignore_errors=True)
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(target)
        (target / ".git").mkdir()
    return root


def alone_index(extra: Extra) -> Settings:
    settings = Settings(db_path=CACHE_DIR / "alone" / extra.name, show_progress=True)
    build_index(extra.zip_path, settings)
    return settings


def extra_queries(extra: Extra, alone: Searcher) -> list[SembleQuery]:
    """CodeLens questions (gold chunk ids) as semble queries: each gold chunk a target with its lines."""
    found = []
    for path in extra.questions:
        for question in load_questions(path):
            chunks = [alone.chunks[c] for c in question.relevant if c in alone.chunks]
            targets = tuple(Target(c.path, c.start_line, c.end_line) for c in chunks)
            if targets:
                found.append(SembleQuery(extra.name, question.query, path.stem, question.lang, targets))
    return found


def queries_of(directory: Path, repo: str) -> list[SembleQuery]:
    found = load_queries(directory / f"{repo}.queries.json", repo, "en")
    russian = RUSSIAN_DIR / f"{repo}.queries.json"
    return found + (load_queries(russian, repo, "ru") if russian.is_file() else [])


def in_workspace(query: SembleQuery) -> SembleQuery:
    """The query with its targets' paths under the repository's folder of the workspace."""
    return replace(query, targets=tuple(replace(t, path=f"{query.repo}/{t.path}") for t in query.targets))


def run_combined(searcher: Searcher, queries: Sequence[SembleQuery],
                 filters: SearchFilters, own_only: bool = False) -> tuple[list[Scored], list[float]]:
    """Scored as semble scores, a hit of another repository never matching; and per query, the
    share of its top k from other repositories. `own_only`: the other repositories' hits taken
    out of a longer list and the rest ranked again (how well the combined index orders the right
    repository's own chunks, whatever the other repositories do)."""
    scored, foreign = [], []
    for query in queries:
        started = time.perf_counter()
        hits = searcher.search(query.text, K * 8 if own_only else K, filters)
        latency = (time.perf_counter() - started) * 1000.0
        own: list[Hit] = [h for h in hits if h.repo == query.repo]
        if own_only:
            own = [replace(h, rank=i + 1) for i, h in enumerate(own[:K])]
        # ranks stay those of the full list: another repository's hit takes its place
        ranks = target_ranks(own, in_workspace(query).targets)
        scored.append(Scored(query, ndcg_at_k(ranks, len(query.targets), K), ranks, latency))
        foreign.append(1 - len(own) / max(1, len(hits)))
    return scored, foreign


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


# name -> (ranking stages, None: the shipped ones; candidates per leg, None: the Searcher's choice)
VARIANTS: dict[str, tuple[tuple[str, ...] | None, int | None]] = {
    "shipped": (None, None),
    "depth 50": (None, 50),  # before issue 30's depth per repository: 50 candidates per leg in any workspace
    "depth 250": (None, 250),
    "copies twice": ((*SHIPPED_RANKING, "copies"), None),  # the Searcher lists one copy last anyway
    "vote first": (("repo-vote", *SHIPPED_RANKING), None),
    "vote soft": (("repo-vote-soft", *SHIPPED_RANKING), None),
    "vote head 10": (("repo-vote-10", *SHIPPED_RANKING), None),
    "repo meaning": (("repo-meaning", *SHIPPED_RANKING), None),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--semble", type=Path, default=SHARED / "benchmarks" / "semble_py_dev")
    parser.add_argument("--repos", nargs="*", default=None, help="a subset of its repositories (default: all)")
    parser.add_argument("--extra", action="append", type=parse_extra, default=[],
                        help="NAME=ZIP[:QUESTIONS,...]: another repository of the workspace")
    parser.add_argument("--issue-workspace", action="store_true",
                        help="add the demo, gymhero_2026 and httpx_full (the issue's workspace)")
    parser.add_argument("--variants", nargs="*", default=None, choices=sorted(VARIANTS),
                        help="rankings of the combined index to compare (default: all)")
    parser.add_argument("--dump", type=Path, default=None, help="write every query's nDCG per variant here (JSON)")
    args = parser.parse_args(argv)
    repos = repositories(args.semble, tuple(args.repos or ()))
    extras = [*args.extra, *(ISSUE_EXTRAS if args.issue_workspace else ())]
    if len(repos) + len(extras) < 2:
        print("a workspace needs at least two repositories", file=sys.stderr)
        return 2
    variants = {name: VARIANTS[name] for name in (args.variants or VARIANTS)}
    zips = {repo: args.semble / f"{repo}.zip" for repo in repos} | {e.name: e.zip_path for e in extras}
    root = workspace_folder(zips)
    settings = Settings(db_path=WORK / ("db" if not extras else "db-" + "-".join(sorted(zips))[:80]),
                        show_progress=True)
    started = time.perf_counter()
    stats = build_index(root, settings)
    print(f"workspace: {stats.total_chunks} chunks, {len(stats.repositories)} repositories, run {stats.run} "
          f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    combined = VariantSearcher(settings)
    alone_settings = {repo: index_repo(args.semble, repo, show_progress=True) for repo in repos}
    alone_settings |= {e.name: alone_index(e) for e in extras}
    scores: dict[tuple[str, str], dict[str, float]] = {}
    dump: list[dict] = []
    for repo, own in alone_settings.items():
        alone = Searcher(own, embedder=combined.embedder)
        extra = next((e for e in extras if e.name == repo), None)
        queries = extra_queries(extra, alone) if extra else queries_of(args.semble, repo)
        for lang in ("en", "ru"):
            asked = [q for q in queries if q.lang == lang]
            if not asked:
                continue
            per_query: dict[str, list[float]] = {}
            alone_scored = run_queries(alone, asked)
            row = scores[(repo, lang)] = {"alone": mean([s.ndcg for s in alone_scored])}
            per_query["alone"] = [s.ndcg for s in alone_scored]
            combined.names, combined.depth = None, None
            scoped, _ = run_combined(combined, asked, SearchFilters(include_tests=True, repos=(repo,)))
            row["--repo"] = mean([s.ndcg for s in scoped])
            per_query["--repo"] = [s.ndcg for s in scoped]
            own, _ = run_combined(combined, asked, SearchFilters(include_tests=True), own_only=True)
            row["own only"] = mean([s.ndcg for s in own])
            per_query["own only"] = [s.ndcg for s in own]
            for name, (ranking, depth) in variants.items():
                combined.names, combined.depth = ranking, depth
                mixed, foreign = run_combined(combined, asked, SearchFilters(include_tests=True))
                row[name] = mean([s.ndcg for s in mixed])
                row[f"{name} other"] = mean(foreign)
                per_query[name] = [s.ndcg for s in mixed]
            dump += [{"repo": repo, "lang": lang, "query": q.text, **{k: v[i] for k, v in per_query.items()}}
                     for i, q in enumerate(asked)]
    columns = ["alone", "--repo", "own only", *variants, *(f"{name} other" for name in variants)]
    rows = [[repo, lang, *(round(values[c], 3) for c in columns)] for (repo, lang), values in scores.items()]
    for lang in ("en", "ru"):
        chosen = [values for (_, lng), values in scores.items() if lng == lang]
        rows.append(["mean", lang, *(round(mean([v[c] for v in chosen]), 3) for c in columns)])
    print(print_table(["repository", "lang", *columns], rows))
    if args.dump:
        args.dump.write_text(json.dumps(dump, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
