"""Retrieval ideas that were measured and did not ship, kept for the benchmark to compare
against (bench/retrieval.py --variants, --ranking): RRF, z-score fusion, single-leg baselines,
down-ranking trivial code, code-graph expansion and boosting of the fused list, and the other
settings of the shipped ranking stages. Each one's numbers are in bench/RESULTS.md.

The product's ranking stages (codelens/search/ranking.py) carry only what the Searcher runs. The
knobs measured against them live here, as subclasses that override one method each, and
`BENCH_STAGES` names them beside the shipped ones. The Searcher reaches them through its one
seam, `Searcher.ranking(context)`, which `VariantSearcher` overrides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from codelens.chunk import Chunk
from codelens.graph.model import CodeGraph, Node
from codelens.ingest.embed_text import split_identifier
from codelens.languages.model import Conventions
from codelens.search.bridge import bridged_terms, crossed
from codelens.search.file_vectors import FileVectors
from codelens.search.filters import SearchFilters
from codelens.search.fusion import ordered
from codelens.search.glossary import glossary_words
from codelens.search.query import Fused, Fusion, LegResult, Query, Stage
from codelens.search.ranking import STAGES, StageContext, StageFactory, stages_by_name
from codelens.search.ranking_files import (
    _HOW,
    FileMeaning,
    FileWords,
    HubFiles,
    NamedFile,
    PathSignal,
    path_terms,
    question_words,
    with_gains,
)
from codelens.search.ranking_order import (
    AccessorsBelow,
    CodeBeforeTests,
    DeclarationsBelow,
    FileDiversity,
    KindPrior,
    ObjectMethodsBelow,
    asks_for_setup,
    file_of,
    rescore,
    sink,
)
from codelens.search.ranking_symbols import RankingIndex, SymbolIntent
from codelens.search.searcher import Searcher
from codelens.search.terms import index_term, tokenize

RRF_K = 60


def rrf_fusion(results: Sequence[LegResult], k: int = RRF_K, weighted: bool = False) -> list[Fused]:
    """Reciprocal rank fusion: score(d) = sum over legs of w_leg / (k + rank_leg(d)),
    with w_leg = 1 (plain RRF, Cormack et al. 2009) or the leg's query weight."""
    scores: dict[str, float] = {}
    legs: dict[str, dict[str, float]] = {}
    for result in results:
        weight = result.weight if weighted else 1.0
        for rank, candidate in enumerate(result.candidates, start=1):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + weight / (k + rank)
            legs.setdefault(candidate.chunk_id, {})[result.name] = candidate.score
    return ordered(scores, legs, results)


def zscore_fusion(results: Sequence[LegResult]) -> list[Fused]:
    """convex fusion with z-scores, (s - mean) / std, instead of min-max; a candidate a leg
    did not return gets that leg's lowest z-score (measured equal to min-max)."""
    scores: dict[str, float] = {}
    legs: dict[str, dict[str, float]] = {}
    floors: dict[str, float] = {}
    for result in results:
        if not result.candidates:
            continue
        values = np.array([c.score for c in result.candidates], dtype=np.float64)
        spread = values.std()
        normalised = (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)
        floors[result.name] = result.weight * float(normalised.min())
        for candidate, value in zip(result.candidates, normalised, strict=True):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + result.weight * float(value)
            legs.setdefault(candidate.chunk_id, {})[result.name] = candidate.score
    for chunk_id, seen in legs.items():
        scores[chunk_id] += sum(floor for name, floor in floors.items() if name not in seen)
    return ordered(scores, legs, results)


def single_leg(name: str) -> Fusion:
    """A 'fusion' that keeps one leg as it ranked: the single-leg baselines."""

    def fuse(results: Sequence[LegResult]) -> list[Fused]:
        chosen = next((r for r in results if r.name == name), LegResult(name, ()))
        return [Fused(c.chunk_id, c.score, {name: c.score}, c.cosine) for c in chosen.candidates]

    return fuse


_TRIVIAL_NAMES = frozenset({
    "__repr__", "__str__", "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
    "__len__", "__bool__", "__iter__", "__contains__", "__getitem__", "__format__",
})


def is_trivial(chunk: Chunk) -> bool:
    """A dunder like __repr__, or a body of one statement at most: rarely what a question means."""
    if chunk.name in _TRIVIAL_NAMES:
        return True
    if chunk.kind not in ("function", "method"):
        return False
    body = [line for line in chunk.code.splitlines()[1:] if line.strip() and not line.strip().startswith("#")]
    return len(body) <= 1 and not chunk.docstring


@dataclass(frozen=True)
class DownrankTrivial:
    """Tests and trivial methods sink by `penalty` (a share of the score) unless the question
    names them (`repr`, `test`)."""

    chunks: Mapping[str, Chunk]
    penalty: float = 0.3

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        asks = set(query.terms)
        rescored = []
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            factor = 1.0
            if chunk is not None and ((chunk.is_test and "test" not in asks) or (
                    is_trivial(chunk) and not asks & set(tokenize(chunk.name)))):
                factor = 1.0 - self.penalty
            rescored.append(replace(item, score=item.score * factor) if factor != 1.0 else item)
        return sorted(rescored, key=lambda f: (-f.score, f.chunk_id))


# ------------------------------------------------------------ code graph


def expand_with_graph(
    ranked: list[tuple[str, float]], graph: CodeGraph, decay: float = 0.5, *,
    accept: Callable[[Node], bool] | None = None, max_seeds: int | None = None,
) -> list[tuple[str, float]]:
    """Seed hits pull in their direct callers and callees with a decayed score.

    score(n) = max(own score, decay * max over seeds s calling or called by n of score(s)),
    so a seed never loses rank to its own neighbours when decay < 1. Only the first
    max_seeds hits seed (all by default). accept filters added nodes (default: chunks of
    non-test code, the search's default). Sorted by score; ties keep the input order,
    new nodes after."""
    accept = accept or (lambda node: node.is_chunk and not node.is_test)
    scores = dict(ranked)
    order = {chunk_id: index for index, (chunk_id, _) in enumerate(ranked)}
    seeds = ranked if max_seeds is None else ranked[:max_seeds]
    for seed_id, seed_score in seeds:
        edges = [*graph.out_edges(seed_id, ("calls",)), *graph.in_edges(seed_id, ("calls",))]
        for edge in edges:
            other = edge.target if edge.source == seed_id else edge.source
            node = graph.nodes.get(other)
            if other == seed_id or node is None or not accept(node):
                continue
            scores[other] = max(scores.get(other, float("-inf")), decay * seed_score)
            order.setdefault(other, len(order))
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def boost_with_graph(
    ranked: list[tuple[str, float]], graph: CodeGraph, bonus: float = 0.2, *, max_seeds: int = 1,
) -> list[tuple[str, float]]:
    """Re-rank only: a hit that calls or is called by one of the first max_seeds hits gains
    bonus * that seed's score (summed over seeds); nothing new enters the list.

    Measured in bench/retrieval.py against an early hybrid, one question up on the demo and on
    swe_qa_flask; against the current hybrid (bench/RESULTS.md) it lifts Flask MRR@10 a little
    and drops one English demo question, so search does not use it. Sorted by score; ties keep
    the input order."""
    scores = dict(ranked)
    for seed_id, seed_score in ranked[:max_seeds]:
        neighbours = {e.target for e in graph.out_edges(seed_id, ("calls",))}
        neighbours |= {e.source for e in graph.in_edges(seed_id, ("calls",))}
        for other in (neighbours - {seed_id}) & scores.keys():
            scores[other] += bonus * seed_score
    order = {chunk_id: index for index, (chunk_id, _) in enumerate(ranked)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


# ------------------------------------------------------------ ranking stages (bench/RESULTS.md, issue 14)


@dataclass(frozen=True)
class ClassMethodDedup:
    """A method listed below its own class (whose chunk holds the method's code) sinks by `decay`."""

    chunks: Mapping[str, Chunk]
    decay: float = 0.5

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        listed: set[str] = set()
        scores = {}
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            covered = chunk is not None and chunk.parent and f"{chunk.path}::{chunk.parent}" in listed
            scores[item.chunk_id] = item.score * self.decay if covered else item.score
            listed.add(item.chunk_id)
        return rescore(fused, scores)


@dataclass(frozen=True)
class FileEvidence:
    """A chunk gains weight x (sum of the other top-`window` candidates' scores in its file)."""

    chunks: Mapping[str, Chunk]
    weight: float = 0.1
    window: int = 30

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        totals: dict[str, float] = {}
        for item in fused[: self.window]:
            path = self._path(item)
            if path:
                totals[path] = totals.get(path, 0.0) + max(item.score, 0.0)
        scores = {}
        for position, item in enumerate(fused):
            path = self._path(item)
            others = totals.get(path, 0.0) - (max(item.score, 0.0) if position < self.window else 0.0)
            scores[item.chunk_id] = item.score + self.weight * others if path else item.score
        return rescore(fused, scores)

    def _path(self, item: Fused) -> str:
        chunk = self.chunks.get(item.chunk_id)
        return chunk.path if chunk is not None else ""


# ------------------------------------------------------------ the shipped stages' other settings


@dataclass(frozen=True)
class BareSymbolIntent(SymbolIntent):
    """symbol, for a question that is an identifier only: names inside a longer question pin nothing."""

    def _names(self, query: Query) -> list[tuple[str, bool]]:
        return [(query.identifier, True)] if query.identifier else []


@dataclass(frozen=True)
class FileDiversityVariant(FileDiversity):
    """FileDiversity with three knobs measured against the shipped setting (bench/RESULTS.md)."""

    free: int = 0  # chunks of one file listed before the decay starts
    by_definition: bool = False  # group by top-level definition (a class and its methods), not by file
    keep: int = 0  # the first `keep` results stay as fused
    steps: int = 0  # at most this many decays (0: no cap): a file's third chunk keeps decay^steps

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        bar = self.close * fused[0].score if fused else 0.0
        return self._place(fused[: self.keep], fused[self.keep : self.window], bar) + fused[self.window :]

    def _group(self, item: Fused) -> str:
        path = super()._group(item)
        if not path or not self.by_definition:
            return path
        return f"{path}::{self.chunks[item.chunk_id].symbol.split('.', 1)[0]}"

    def _score(self, item: Fused, per_file: Mapping[str, Sequence[Fused]], spared: float = float("inf")) -> float:
        placed = max(0, len(self._counted(item, per_file.get(self._group(item), ()))) - self.free)
        return item.score * self.decay ** (min(placed, self.steps) if self.steps else placed)


@dataclass(frozen=True)
class KindPriorByDoc(KindPrior):
    """kind-prior with a weight of its own for documents (`doc`), the rest keeping `weight`."""

    doc_weight: float = 0.5

    def _factor(self, chunk: Chunk) -> float:
        return self.doc_weight if chunk.kind == "doc" else self.weight


# Every stage the benchmark can name: the shipped ones (ranking.STAGES) and these.
@dataclass(frozen=True)
class RepositoryVote:
    """Not shipped (bench/workspace.py, bench/RESULTS.md: it lowers the combined score). In a
    workspace of several repositories, a question is about one of them: each repository
    gets the rank-discounted fused scores of its chunks in the head of the list as votes, and
    every chunk's score is scaled by (its repository's votes / the most votes) ** strength, so
    the repository the evidence points to fills the list and another one keeps a place only
    where its chunk beats that repository's clearly. One repository (or none known): untouched."""

    chunks: Mapping[str, Chunk]
    repo_of: Callable[[str], str] | None
    head: int = 20
    strength: float = 1.0

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.repo_of is None or not fused:
            return fused
        repos = {f.chunk_id: self.repo_of(self.chunks[f.chunk_id].path if f.chunk_id in self.chunks else '')
                 for f in fused}
        votes: dict[str, float] = {}
        for rank, item in enumerate(fused[: self.head]):
            votes[repos[item.chunk_id]] = votes.get(repos[item.chunk_id], 0.0) + max(item.score, 0.0) / (rank + 1)
        best = max(votes.values(), default=0.0)
        if best <= 0 or len(votes) < 2:
            return fused
        share = {repo: (value / best) ** self.strength for repo, value in votes.items()}
        return rescore(fused, {f.chunk_id: f.score * share.get(repos[f.chunk_id], 0.0) for f in fused})



@dataclass(frozen=True)
class RepositoryMeaning:
    """Not shipped (measured in bench/workspace.py). In a workspace, each repository's chunks gain
    `weight` x how close the repository as a whole is to the question: the mean of its files'
    e5 vectors against the question's, min-max scaled over the repositories in the head of the
    list (evidence that does not come from the fused list itself)."""

    chunks: Mapping[str, Chunk]
    files: FileVectors | None
    repo_of: Callable[[str], str] | None
    weight: float = 0.2
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.repo_of is None or self.files is None or query.vector is None or not fused:
            return fused
        centroids = _repository_centroids(self.files, self.repo_of)
        repos = {f.chunk_id: self.repo_of(self.chunks[f.chunk_id].path if f.chunk_id in self.chunks else "")
                 for f in fused}
        present = sorted({repos[f.chunk_id] for f in fused[: self.window]} & set(centroids))
        if len(present) < 2:
            return fused
        similarity = np.asarray([float(centroids[r] @ query.vector) for r in present])
        low, high = float(similarity.min()), float(similarity.max())
        scaled = {r: (s - low) / (high - low) if high > low else 0.0 for r, s in zip(present, similarity, strict=True)}
        return rescore(fused, {f.chunk_id: f.score + self.weight * scaled.get(repos[f.chunk_id], 0.0) for f in fused})


_CENTROIDS: dict[int, dict[str, np.ndarray]] = {}


def _repository_centroids(files: FileVectors, repo_of: Callable[[str], str]) -> dict[str, np.ndarray]:
    """Each repository's normalised mean file vector (kept per FileVectors object)."""
    if id(files) not in _CENTROIDS:
        by_repo: dict[str, list[int]] = {}
        for row, path in enumerate(files.paths):
            by_repo.setdefault(repo_of(path), []).append(row)
        centroids = {}
        for repo, rows in by_repo.items():
            mean = files.vectors[rows].mean(axis=0)
            centroids[repo] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        _CENTROIDS[id(files)] = centroids
    return _CENTROIDS[id(files)]


BENCH_STAGES: dict[str, StageFactory] = {**STAGES, **{
    # A workspace's repositories: the head's votes scale each repository's chunks (ranking.RepositoryVote)
    "repo-vote": lambda c: RepositoryVote(c.index.chunks, c.repo_of),
    "repo-vote-soft": lambda c: RepositoryVote(c.index.chunks, c.repo_of, strength=0.5),
    "repo-vote-hard": lambda c: RepositoryVote(c.index.chunks, c.repo_of, strength=2.0),
    "repo-vote-10": lambda c: RepositoryVote(c.index.chunks, c.repo_of, head=10),
    "repo-meaning": lambda c: RepositoryMeaning(c.index.chunks, c.files, c.repo_of),
    "repo-meaning-strong": lambda c: RepositoryMeaning(c.index.chunks, c.files, c.repo_of, weight=0.5),
    "kind-prior.7": lambda c: KindPrior(c.index.chunks, weight=0.7),
    "kind-prior.95": lambda c: KindPrior(c.index.chunks, weight=0.95),
    "kind-prior-doc.6": lambda c: KindPriorByDoc(c.index.chunks, doc_weight=0.6),
    "kind-prior-doc.5": lambda c: KindPriorByDoc(c.index.chunks, doc_weight=0.5),
    "kind-prior-doc.4": lambda c: KindPriorByDoc(c.index.chunks, doc_weight=0.4),
    "kind-prior.7-doc.5": lambda c: KindPriorByDoc(c.index.chunks, weight=0.7, doc_weight=0.5),
    "kind-prior-doc.2": lambda c: KindPriorByDoc(c.index.chunks, doc_weight=0.2),
    "kind-prior0": lambda c: KindPrior(c.index.chunks, weight=0.0),  # every other file after the code
    "symbol-bare": lambda c: BareSymbolIntent(c.index, c.accept),
    "diverse": lambda c: FileDiversity(c.index.chunks),
    "diverse.7": lambda c: FileDiversity(c.index.chunks, decay=0.7),
    "diverse.3": lambda c: FileDiversity(c.index.chunks, decay=0.3),
    "diverse.8": lambda c: FileDiversity(c.index.chunks, decay=0.8),
    "diverse-2free": lambda c: FileDiversityVariant(c.index.chunks, free=1),
    "diverse-3free": lambda c: FileDiversityVariant(c.index.chunks, free=2),
    "diverse-def": lambda c: FileDiversityVariant(c.index.chunks, by_definition=True),
    "diverse-keep3": lambda c: FileDiversityVariant(c.index.chunks, keep=3),
    "diverse-keep5": lambda c: FileDiversityVariant(c.index.chunks, keep=5),  # shipped until session 5
    "diverse-keep4": lambda c: FileDiversityVariant(c.index.chunks, keep=4),
    "diverse-close-1step": lambda c: FileDiversityVariant(c.index.chunks, close=0.7, guarded=4, steps=1),
    "diverse-decay.6": lambda c: FileDiversityVariant(c.index.chunks, close=0.7, guarded=4, decay=0.6),
    "diverse-decay.7": lambda c: FileDiversityVariant(c.index.chunks, close=0.7, guarded=4, decay=0.7),
    "diverse-close-g2": lambda c: FileDiversity(c.index.chunks, close=0.7, guarded=2),
    "diverse-close-g3": lambda c: FileDiversity(c.index.chunks, close=0.7, guarded=3),
    "diverse-close.5": lambda c: FileDiversity(c.index.chunks, close=0.5, guarded=4),
    "diverse-close.6": lambda c: FileDiversity(c.index.chunks, close=0.6, guarded=4),
    "diverse-close.65": lambda c: FileDiversity(c.index.chunks, close=0.65, guarded=4),
    "diverse-close.6-g3": lambda c: FileDiversity(c.index.chunks, close=0.6, guarded=3),
    "diverse-close.8": lambda c: FileDiversity(c.index.chunks, close=0.8, guarded=4),
    "file-words.5": lambda c: FileWords(c.index.chunks, c.file_words, weight=0.5),
    "file-meaning.1": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.1 * c.coverage),
    "file-meaning.4": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.4 * c.coverage),
    "file-meaning.3": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.3 * c.coverage),
    "file-words.4": lambda c: FileWords(c.index.chunks, c.file_words, weight=0.4),
    "file-words.2": lambda c: FileWords(c.index.chunks, c.file_words, weight=0.2),
    "path.1": lambda c: FlatPath(c.index.chunks, bonus=0.1, bridge=c.bridge),
    "path-en": lambda c: FlatPath(c.index.chunks),  # Russian words not bridged
    "tests-below.5": lambda c: CodeBeforeTests(c.index.chunks, factor=0.5),  # shipped until session 29
    "tests-below.2": lambda c: CodeBeforeTests(c.index.chunks, factor=0.2),
    # ideas not shipped
    "dedup": lambda c: ClassMethodDedup(c.index.chunks),
    "files": lambda c: FileEvidence(c.index.chunks),
    "files.05": lambda c: FileEvidence(c.index.chunks, weight=0.05),
    "files.2": lambda c: FileEvidence(c.index.chunks, weight=0.2),
}}


def bench_stages(index: RankingIndex, names: Sequence[str], **context: object) -> tuple[Stage, ...]:
    """ranking.ranking_stages over BENCH_STAGES: the named stages, shipped or not, in order."""
    return stages_by_name(StageContext(index, **context), names, BENCH_STAGES)


class VariantSearcher(Searcher):
    """The real Searcher with another ranking after fusion: `names` (None: the shipped one)."""

    names: tuple[str, ...] | None = None
    depth: int | None = None  # candidates per leg (None: the Searcher's own choice)

    def ranking(self, context: StageContext) -> tuple[Stage, ...]:
        if self.names is None:
            return super().ranking(context)
        return stages_by_name(context, self.names, BENCH_STAGES)

    def overfetch(self, filters: SearchFilters) -> int:
        return self.depth if self.depth is not None else super().overfetch(filters)


# ------------------------------------------------------------------ names spelled in words (issue 44)

_SPELLED_INDEXES: dict[int, tuple[RankingIndex, dict[str, tuple[str, ...]], dict[str, int]]] = {}


def spelled_index(index: RankingIndex) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """Definitions by their name with case and `_` dropped (`JsonTreeWriter`, `json_tree_writer`
    -> `jsontreewriter`), and how many files define each such name (kept per opened index)."""
    kept = _SPELLED_INDEXES.get(id(index))
    if kept is not None and kept[0] is index:
        return kept[1], kept[2]
    by_spelled: dict[str, list[str]] = {}
    files: dict[str, set[str]] = {}
    for name, chunk_ids in index.by_name.items():
        key = name.replace("_", "").lower()
        by_spelled.setdefault(key, []).extend(chunk_ids)
        files.setdefault(key, set()).update(index.chunks[c].path for c in chunk_ids)
    result = ({k: tuple(v) for k, v in by_spelled.items()}, {k: len(v) for k, v in files.items()})
    _SPELLED_INDEXES[id(index)] = (index, *result)
    return result


@dataclass(frozen=True)
class SpelledNames:
    """A definition whose name the question spells in words (`json tree writer` ->
    `JsonTreeWriter`, two to four consecutive content words) gains `weight` x the top score
    (classes most, then functions, then methods), and joins the list if fusion missed it; a
    name defined in more than `common` files (`toString`, `String`, `__repr__`) gains nothing."""

    index: RankingIndex
    accept: Callable[[str], bool] | None = None
    weight: float = 0.3
    common: int = 5
    longest: int = 4

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not fused:
            return fused
        by_spelled, files = spelled_index(self.index)
        words = question_words(query)
        found: dict[str, float] = {}
        for size in range(2, self.longest + 1):
            for start in range(len(words) - size + 1):
                key = "".join(words[start : start + size])
                if key not in by_spelled or files.get(key, 0) > self.common:
                    continue
                for chunk_id in by_spelled[key]:
                    chunk = self.index.chunks[chunk_id]
                    if chunk.is_test or (self.accept is not None and not self.accept(chunk_id)):
                        continue
                    gain = self.weight * _KIND_GAIN.get(chunk.kind, 0.5) * size / self.longest
                    found[chunk_id] = max(found.get(chunk_id, 0.0), gain)
        if not found:
            return fused
        top = fused[0].score
        known = {f.chunk_id for f in fused}
        extra = [Fused(c, 0.0) for c in found if c not in known]
        return rescore([*fused, *extra], {f.chunk_id: f.score + found.get(f.chunk_id, 0.0) * top
                                          for f in [*fused, *extra]})


_KIND_GAIN = {"class": 1.0, "function": 0.8, "method": 0.6}


@dataclass(frozen=True)
class CommonNames:
    """A method whose name is defined in more than `common` files (`toString`, `hashCode`,
    `String`, `Error`, `__repr__`: overrides every class has) keeps `factor` of its score unless
    the question spells that name."""

    index: RankingIndex
    factor: float = 0.7
    common: int = 5

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        _, files = spelled_index(self.index)
        words = question_words(query)
        asked = {"".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)}
        scores = {}
        for item in fused:
            chunk = self.index.chunks.get(item.chunk_id)
            key = chunk.name.split("#", 1)[0].replace("_", "").lower() if chunk is not None else ""
            common = chunk is not None and chunk.kind == "method" and files.get(key, 0) > self.common
            scores[item.chunk_id] = item.score * self.factor if common and key not in asked else item.score
        return rescore(fused, scores)


BENCH_STAGES.update({
    "spelled": lambda c: SpelledNames(c.index, c.accept),
    "spelled.5": lambda c: SpelledNames(c.index, c.accept, weight=0.5),
    "spelled.15": lambda c: SpelledNames(c.index, c.accept, weight=0.15),
    "common-names": lambda c: CommonNames(c.index),
    "common-names.5": lambda c: CommonNames(c.index, factor=0.5),
    # session 21's `tests-below`: example programs keep their score
    "tests-only-below": lambda c: CodeBeforeTests(c.index.chunks, examples=False),
    # a Russian question's Latin names (`Serialize`) not pinned
    "symbol-no-ru-names": lambda c: SymbolIntent(c.index, c.accept, c.repo_of, russian_names=False),
})



# ------------------------------------------------------------------ the settings shipped until session 20 (issue 44)

@dataclass(frozen=True)
class FlatPath(PathSignal):
    """`path` until session 20: any word of the question in the file's name or folder (English
    or bridged) gains `bonus` x the chunk's score, however few of the question's words it holds."""

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        asked = set(query.terms)
        if self.bridge is not None:
            bridged = crossed(query, self.bridge)
            if query.russian or bridged.bridged:
                asked |= set(bridged_terms(bridged, query.words))
        if not asked:
            return fused
        scores = {}
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            hit = chunk is not None and chunk.path and asked & path_terms(chunk.path)
            scores[item.chunk_id] = item.score * (1.0 + self.bonus) if hit else item.score
        return rescore(fused, scores)


@dataclass(frozen=True)
class ShortestPathIndex(RankingIndex):
    """`symbol`'s definitions until session 20: one rank's in shortest-path order, whatever their
    files are named, however deep, however the legs scored them."""

    def definitions(self, identifier: str, exact_case: bool = True,
                    scores: Mapping[str, float] | None = None) -> list[str]:
        found = super().definitions(identifier, exact_case)
        order = {"class": 0, "function": 1, "method": 2}
        return sorted(found, key=lambda c: (self.chunks[c].is_test, order.get(self.chunks[c].kind, 3),
                                            self.chunks[c].symbol.count("."), len(self.chunks[c].path), c))


def _shortest_path_symbol(c: StageContext) -> SymbolIntent:
    index = ShortestPathIndex(c.index.chunks, c.index.by_name, c.index.by_lower)
    return SymbolIntent(index, c.accept, c.repo_of)


BENCH_STAGES.update({
    "path-flat": lambda c: FlatPath(c.index.chunks, bridge=c.bridge),
    "path.25": lambda c: PathSignal(c.index.chunks, bridge=c.bridge, share=0.25),
    "path1": lambda c: PathSignal(c.index.chunks, bridge=c.bridge, share=1.0),
    "symbol-by-path": _shortest_path_symbol,
    "tests-below.3": lambda c: CodeBeforeTests(c.index.chunks, factor=0.3),
    "tests-below.7": lambda c: CodeBeforeTests(c.index.chunks, factor=0.7),
})


# ------------------------------------------------------------------ a file's first chunk leads (session 25)

def _file_stages(lead: float) -> dict[str, StageFactory]:
    return {
        f"file-words-lead{lead:g}": lambda c: FileWords(c.index.chunks, c.file_words, lead=lead),
        f"file-meaning-lead{lead:g}": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.2 * c.coverage,
                                                            lead=lead),
        f"path-lead{lead:g}": lambda c: PathSignal(c.index.chunks, bridge=c.bridge, lead=lead),
    }


for _lead in (1.0, 1.25, 1.75, 2.0, 3.0):  # 1.0: each chunk of a file gains alike (until session 25)
    BENCH_STAGES.update(_file_stages(_lead))


@dataclass(frozen=True)
class FileCoherence:
    """A file's first chunk in the head gains `weight` x the top score x (the sum of its file's
    scores in the head over the largest such sum): a file many candidates point to rises by its
    best chunk (semble's file coherence, measured in session 25)."""

    chunks: Mapping[str, Chunk]
    weight: float = 0.2
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if len(fused) < 2:
            return fused
        head = fused[: self.window]
        sums: dict[str, float] = {}
        for item in head:
            path = file_of(self.chunks, item)
            if path:
                sums[path] = sums.get(path, 0.0) + max(item.score, 0.0)
        if not sums:
            return fused
        most = max(sums.values()) or 1.0
        return lift_first_chunks(fused, self.chunks, self.window, lambda path: self.weight * sums[path] / most)


def lift_first_chunks(fused: list[Fused], chunks: Mapping[str, Chunk], window: int,
                      share: Callable[[str], float]) -> list[Fused]:
    """Each file's first chunk in the head gains share(its file) x the top score."""
    top = fused[0].score
    scores = {f.chunk_id: f.score for f in fused}
    seen: set[str] = set()
    for item in fused[:window]:
        path = file_of(chunks, item)
        if path and path not in seen:
            scores[item.chunk_id] += share(path) * top
        seen.add(path)
    return rescore(fused, scores)


BENCH_STAGES.update({
    "coherence": lambda c: FileCoherence(c.index.chunks),
    "coherence.1": lambda c: FileCoherence(c.index.chunks, weight=0.1),
    "coherence.3": lambda c: FileCoherence(c.index.chunks, weight=0.3),
})


@dataclass(frozen=True)
class FileLead:
    """Wraps a stage that lifts chunks by their file: a file's first chunk in the list takes `first` x the
    gain the stage gives it, its later chunks `rest` x (the shipped file stages' LEAD, for any stage)."""

    inner: Stage
    chunks: Mapping[str, Chunk]
    first: float = 1.5
    rest: float = 1.0

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        after = {f.chunk_id: f.score for f in self.inner(query, fused)}
        seen: set[str] = set()
        scores = {}
        for item in fused:
            path = file_of(self.chunks, item)
            share = self.rest if path and path in seen else self.first
            seen.add(path)
            scores[item.chunk_id] = item.score + share * (after[item.chunk_id] - item.score)
        return rescore(fused, scores)


for _name in ("file-words", "file-meaning", "path"):
    for _rest in (0.0, 0.5):  # with lead 1.0, a file's later chunks gain less instead
        BENCH_STAGES[f"{_name}-rest{_rest:g}"] = (
            lambda c, name=_name, rest=_rest: FileLead(BENCH_STAGES[f"{name}-lead1"](c), c.index.chunks, 1.0, rest))
    # the shipped lead, and later chunks gaining half
    BENCH_STAGES[f"{_name}-lead-rest0.5"] = lambda c, name=_name: FileLead(STAGES[name](c), c.index.chunks, 1.0, 0.5)
BENCH_STAGES.update({
    "graph-files-lead": lambda c: FileLead(STAGES["graph-files"](c), c.index.chunks),
    "graph-files-lead2": lambda c: FileLead(STAGES["graph-files"](c), c.index.chunks, first=2.0),
    "graph-files-first": lambda c: FileLead(STAGES["graph-files"](c), c.index.chunks, first=1.0, rest=0.0),
})


# ------------------------------------------------------------------ kind-prior that listens (session 25)

BENCH_STAGES["kind-prior-deaf"] = lambda c: KindPrior(c.index.chunks, c.index.sql_schemas, listens=False)


@dataclass(frozen=True)
class FileHub:
    """A file's first chunk in the head gains `weight` x the top score x how connected its file is
    (distinct files its chunks call or are called from, log-scaled over the head's files): the files
    a mechanism runs through (a router, a base class) before a leaf (session 25, measured)."""

    chunks: Mapping[str, Chunk]
    call_files: Callable[[Sequence[str]], Mapping[str, frozenset[str]]] | None
    weight: float = 0.1
    window: int = 30
    how_only: bool = False

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.call_files is None or len(fused) < 2:
            return fused
        if self.how_only and not query.text.lower().startswith("how"):
            return fused
        head = fused[: self.window]
        paths = list(dict.fromkeys(p for f in head if (p := file_of(self.chunks, f))))
        members = [c.chunk_id for c in self.chunks.values() if c.path in set(paths) and c.is_code]
        linked = self.call_files(members)
        degree: dict[str, set[str]] = {p: set() for p in paths}
        for chunk_id, files in linked.items():
            path = self.chunks[chunk_id].path
            degree[path] |= set(files) - {path}
        most = max((len(v) for v in degree.values()), default=0)
        if most == 0:
            return fused
        return lift_first_chunks(fused, self.chunks, self.window,
                                 lambda path: self.weight * math.log1p(len(degree[path])) / math.log1p(most))


BENCH_STAGES.update({
    "hub": lambda c: FileHub(c.index.chunks, c.call_files),
    "hub.2": lambda c: FileHub(c.index.chunks, c.call_files, weight=0.2),
    "hub-how": lambda c: FileHub(c.index.chunks, c.call_files, how_only=True),
    "hub-how.2": lambda c: FileHub(c.index.chunks, c.call_files, weight=0.2, how_only=True),
})



# the weight of `named-file` (shipped at 0.3, session 29)
BENCH_STAGES.update({
    "named-file.5": lambda c: NamedFile(c.index, c.accept, weight=0.5),
    "named-file.7": lambda c: NamedFile(c.index, c.accept, weight=0.7),
    "named-file1": lambda c: NamedFile(c.index, c.accept, weight=1.0),
})


# ------------------------------------------------------------------ session 31: a member's borrowed words

@dataclass(frozen=True)
class OwnerWords:
    """A short method none of whose own name's words the question holds, while its class's name
    does (`OrderItem.ToString`, `formPostBinding.Name` for "form binding"), keeps `factor` of
    its score: what matched is its owner's name, which the owner itself answers better."""

    index: RankingIndex
    factor: float = 0.7
    lines: int = 8

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        asked = {index_term(w) for w in question_words(query)}
        if not asked:
            return fused
        scores = {}
        for item in fused:
            chunk = self.index.chunks.get(item.chunk_id)
            scores[item.chunk_id] = item.score * self.factor if self._borrowed(chunk, asked) else item.score
        return rescore(fused, scores)

    def _borrowed(self, chunk: Chunk | None, asked: set[str]) -> bool:
        if chunk is None or chunk.kind != "method" or not chunk.parent:
            return False
        if chunk.end_line - chunk.start_line + 1 > self.lines:
            return False
        own = {index_term(w) for w in split_identifier(chunk.symbol.rsplit(".", 1)[-1].split("#", 1)[0])}
        owner = {index_term(w) for w in split_identifier(chunk.parent.rsplit(".", 1)[-1])}
        return not (own & asked) and bool(owner & asked)


BENCH_STAGES.update({
    "owner-words": lambda c: OwnerWords(c.index),
    "owner-words.5": lambda c: OwnerWords(c.index, factor=0.5),
    "owner-words.l20": lambda c: OwnerWords(c.index, lines=20),
})


_BOILERPLATE = re.compile(r"^\s*(?:$|#|//|/\*|\*|import\b|from\b|using\b|package\b|require\b|use\b|namespace\b"
                          r"|[{}();]+\s*$|extern\s+\"C\"|class\s+\w+;|struct\s+\w+;|'use strict')")


@dataclass(frozen=True)
class ThinModules:
    """A file's leftovers that are only its includes, imports and forward declarations (fewer than
    `lines` other lines) keep `factor` of their score: they name the file's subject and answer nothing."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.5
    lines: int = 4

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        scores = {}
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            thin = chunk is not None and chunk.kind == "module" and chunk.is_code and sum(
                1 for line in chunk.code.splitlines() if not _BOILERPLATE.match(line)) < self.lines
            scores[item.chunk_id] = item.score * self.factor if thin else item.score
        return rescore(fused, scores)


BENCH_STAGES.update({
    "thin-modules": lambda c: ThinModules(c.index.chunks),
    "thin-modules.8": lambda c: ThinModules(c.index.chunks, factor=0.8),
})


# ------------------------------------------------------------------ session 31: `hub-files`' other settings

@dataclass(frozen=True)
class HubFilesAnyQuestion(HubFiles):
    """`hub-files` for every question that is no identifier, not only one asking how something works."""

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not self.hubs or query.identifier:
            return fused
        return rescore(fused, {f.chunk_id: f.score * (1.0 + self.weight * self.hubs.get(file_of(self.chunks, f), 0.0))
                               for f in fused})


BENCH_STAGES.update({
    "hub-files.3": lambda c: HubFiles(c.index.chunks, c.hubs, weight=0.3),
    "hub-files.6": lambda c: HubFiles(c.index.chunks, c.hubs, weight=0.6),
    "hub-files-any": lambda c: HubFilesAnyQuestion(c.index.chunks, c.hubs, weight=0.3),
})


@dataclass(frozen=True)
class GlossaryPath(PathSignal):
    """`path` where a Russian question's words the glossary translates count as an English question's
    terms do (their share of the question in the path), not only as the bridge's loose neighbours."""

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        fused = super().__call__(query, fused)
        if not query.russian or not fused:
            return fused
        translated = [frozenset(index_term(w) for w in glossary_words(word)) for word in query.words]
        translated = [t for t in translated if t]
        if not translated:
            return fused
        paths = [file_of(self.chunks, f) for f in fused]
        held = [sum(1 for t in translated if t & path_terms(p)) if p else 0 for p in paths]
        return with_gains(fused, paths, [self.share * fused[0].score * n / len(translated) for n in held], self.lead)


BENCH_STAGES.update({
    "path-glossary": lambda c: GlossaryPath(c.index.chunks, bridge=c.bridge),
})


# ------------------------------------------------------------------ session 32: `declarations-below`' other settings

_TRAIT_METHODS = Conventions(bodiless=True)  # Rust's, Scala's and Swift's bodiless trait and protocol methods


@dataclass(frozen=True)
class DeclarationsBelowVariant(DeclarationsBelow):
    """`declarations-below` for "how" questions only (`how_only`), or with the trait and protocol methods of
    Rust, Scala and Swift sinking too (`traits_too`: serde's `Visitor`, cats' `Applicative` lost)."""

    how_only: bool = False
    traits_too: bool = False

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.how_only and not _HOW.match(query.text):
            return fused
        fused = super().__call__(query, fused)
        if not self.traits_too or query.identifier or asks_for_setup(query.text):
            return fused
        return sink(fused, {f.chunk_id for f in fused if (c := self.index.chunks.get(f.chunk_id)) is not None
                            and c.language in ("rust", "scala", "swift") and c.kind in ("function", "method")
                            and _TRAIT_METHODS.declares_only(c.kind, c.code)}, self.factor)


BENCH_STAGES.update({
    "declarations-below.5": lambda c: DeclarationsBelow(c.index, factor=0.5),
    "declarations-below.85": lambda c: DeclarationsBelow(c.index, factor=0.85),
    "declarations-below-how": lambda c: DeclarationsBelowVariant(c.index, how_only=True),
    "declarations-below-traits": lambda c: DeclarationsBelowVariant(c.index, traits_too=True),
})


# ------------------------------------------------------------------ session 32: constructors that only store

_CONSTRUCTOR_NAMES = frozenset({"constructor", "__construct", "__init__", "init", "initialize"})
_STORE = re.compile(r"^\s*(?:(?:this|self)\.|\$this->|@)?\w+\s*=\s*[\w.$@>-]+;?\s*$")
_BODY_NOISE = re.compile(r"^\s*(?:$|[{}]+;?\s*$|//|#|/\*|\*|\"\"\"|'''|super\(|base\(|end\s*$)")


def stores_only(chunk: Chunk) -> bool:
    """A constructor whose body only stores its arguments (`Context = context;`, `self.x = x`, `$this->x = $x;`)."""
    if chunk.kind != "method":
        return False
    name = chunk.name.split("#", 1)[0]
    owner = chunk.parent.rsplit(".", 1)[-1]
    if name not in _CONSTRUCTOR_NAMES and name != owner:
        return False
    lines = chunk.code.splitlines()
    opened = next((i for i, line in enumerate(lines) if line.rstrip().endswith(("{", ":"))), None)
    if opened is None:
        return False
    body = [line for line in lines[opened + 1:] if not _BODY_NOISE.match(line)]
    return bool(body) and all(_STORE.match(line) for line in body)


@dataclass(frozen=True)
class StoringConstructorsBelow:
    """A constructor that only stores its arguments keeps `factor`: its doc comment repeats the concept's words
    (Polly's `OnRetryArguments(...)`: "the delay before the next retry") and it does nothing."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.7

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if query.identifier or asks_for_setup(query.text):
            return fused
        return sink(fused, {f.chunk_id for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                            and stores_only(c)}, self.factor)


BENCH_STAGES.update({
    "storing-constructors": lambda c: StoringConstructorsBelow(c.index.chunks),
    "storing-constructors.5": lambda c: StoringConstructorsBelow(c.index.chunks, factor=0.5),
})


# ------------------------------------------------------------------ session 32: `object-methods-below`' other setting

BENCH_STAGES.update({
    "object-methods-below.7": lambda c: ObjectMethodsBelow(c.index.chunks, factor=0.7),
})


# ------------------------------------------------------------------ session 32: `accessors-below` beyond JavaScript

_JAVA_ACCESSOR = re.compile(r"^(?:get|set|is)[A-Z]\w*$")


@dataclass(frozen=True)
class AccessorsEverywhere(AccessorsBelow):
    """`accessors-below`, and Python's `@property` and `@x.setter`, and a Java-style `getX()` / `setX(v)` of three
    lines or fewer (Python ru 0.811 -> 0.804, en 0.857 -> 0.853: Python's properties compute)."""

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        fused = super().__call__(query, fused)
        if query.identifier:
            return fused
        return sink(fused, {f.chunk_id for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                            and c.kind == "method" and _other_accessor(c)}, self.factor)


def _other_accessor(chunk: Chunk) -> bool:
    if any(d == "property" or d.endswith((".setter", ".getter")) for d in chunk.decorators):
        return True
    return bool(_JAVA_ACCESSOR.match(chunk.name.split("#", 1)[0])) and chunk.end_line - chunk.start_line <= 3


BENCH_STAGES.update({
    "accessors-everywhere": lambda c: AccessorsEverywhere(c.index.chunks),
})
