"""Hybrid retrieval as plain data: retrievers behind one Protocol, a fusion function, stages.

A search runs every retriever (each over-fetches and says how much it has to say about
this query), fuses their candidate lists, then passes the fused list through stages (a graph
expansion would be one; down-ranking trivial code is one that was measured and not shipped).
Nothing here touches ChromaDB or the disk: the dense leg over an index lives in search.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol

import numpy as np

from codelens.chunk import Chunk
from codelens.lexical import STOP_WORDS, LexicalIndex, analyze, index_term, term_stats, tokenize

RRF_K = 60
# An English question with more distinct terms than this is "long": BM25 gathers evidence
# from every term while one dense vector blurs them, so the lexical leg keeps its full
# weight there (SWE-QA questions); short ones lean on the dense ensemble (CoSQA, demo).
# Any cut from 6 to 10 measured the same (bench/RESULTS.md).
LONG_QUESTION_TERMS = 8
OVERFETCH_MIN = 50  # candidates each leg hands to fusion, at least
# A Russian question's share for MiniLM over its pseudo-English words: 0.1-0.2 measured alike
# (mConala-ru MRR@10 0.728 / 0.723 / 0.712; 0.3 falls back to 0.686; bench/RESULTS.md).
RUSSIAN_E5_WEIGHT = 0.85


@dataclass(frozen=True)
class Query:
    """A question, embedded and tokenized once for every leg."""

    text: str
    vector: np.ndarray | None = None
    terms: tuple[str, ...] = ()  # lexical index terms
    words: tuple[str, ...] = ()  # the same, as written (lowercased): what the word bridge embeds

    @classmethod
    def from_text(cls, text: str, vector: np.ndarray | None = None) -> Query:
        pairs = analyze(text)
        return cls(text=text, vector=vector, terms=tuple(t for _, t in pairs), words=tuple(w for w, _ in pairs))


@dataclass(frozen=True)
class Candidate:
    chunk_id: str
    score: float  # the leg's own score: cosine (or a sum of cosines) for dense, BM25 for lexical
    cosine: float | None = None  # the index model's cosine, when the leg knows it: what the UI shows


@dataclass(frozen=True)
class LegResult:
    """One retriever's answer: candidates best first, and its weight for this query (0-1)."""

    name: str
    candidates: tuple[Candidate, ...]
    weight: float = 1.0


@dataclass(frozen=True)
class Fused:
    chunk_id: str
    score: float
    leg_scores: Mapping[str, float] = field(default_factory=dict)  # leg name -> its own score
    cosine: float | None = None  # the index model's cosine, when a leg reported it


class Retriever(Protocol):
    name: str

    def retrieve(self, query: Query, n: int) -> LegResult: ...


Fusion = Callable[[Sequence[LegResult]], list[Fused]]


class Stage(Protocol):
    """A step after fusion: takes the fused list best first, returns it re-ordered or grown."""

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]: ...


# ---------------------------------------------------------------- retrievers


def top_n(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n highest scores, best first (ties keep corpus order)."""
    n = min(n, scores.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, n - 1)[:n] if n < scores.shape[0] else np.arange(scores.shape[0])
    return part[np.lexsort((part, -scores[part]))]


class MatrixDenseRetriever:
    """Exact cosine over L2-normalised vectors held in memory (benchmarks, small corpora)."""

    name = "dense"

    def __init__(self, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
        self.chunk_ids = tuple(chunk_ids)
        self.vectors = np.asarray(vectors, dtype=np.float32)

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None:
            return LegResult(self.name, (), 0.0)
        similarities = self.vectors @ np.asarray(query.vector, dtype=np.float32)
        best = top_n(similarities, n)
        return LegResult(self.name, tuple(
            Candidate(self.chunk_ids[i], float(similarities[i]), float(similarities[i])) for i in best))


class EnsembleDense:
    """The index model's dense leg plus a second, English-only model (MiniLM): score =
    e5_weight x cosine_e5 + (1 - e5_weight) x cosine_second over the union of both legs'
    candidates (a chunk the first leg did not fetch gets its weakest fetched cosine).
    A question with Cyrillic reaches the second model as its pseudo-English words through the
    word bridge (`pseudo_english`), with the smaller share 1 - russian_e5_weight; without a
    bridge, or when no word crosses, it is the first leg alone."""

    name = "dense"

    def __init__(self, primary: Retriever, chunk_ids: Sequence[str], vectors: np.ndarray,
                 embed_query: Callable[[str], np.ndarray], e5_weight: float = 0.7,
                 accept: Callable[[str], bool] | None = None, bridge: WordBridge | None = None,
                 russian_e5_weight: float = RUSSIAN_E5_WEIGHT, positions: Mapping[str, int] | None = None) -> None:
        self.primary = primary
        self.second = MatrixDenseRetriever(chunk_ids, vectors)
        self.embed_query = embed_query
        self.e5_weight = e5_weight
        self.accept = accept
        self.bridge = bridge
        self.russian_e5_weight = russian_e5_weight
        self.positions = positions if positions is not None else {c: i for i, c in enumerate(chunk_ids)}

    def second_question(self, text: str) -> tuple[str, float] | None:
        """(text for the second model, e5's weight), or None: the first leg alone."""
        if not has_cyrillic(text):
            return text, self.e5_weight
        pseudo = pseudo_english(text, self.bridge) if self.bridge is not None else ""
        return (pseudo, self.russian_e5_weight) if pseudo else None

    def retrieve(self, query: Query, n: int) -> LegResult:
        first = self.primary.retrieve(query, n)
        second_question = self.second_question(query.text) if first.candidates else None
        if second_question is None:
            return first
        text, e5_weight = second_question
        cosines = {c.chunk_id: c.score for c in first.candidates}
        floor = min(cosines.values())
        similarities = self.second.vectors @ self.embed_query(text)
        pool = [c.chunk_id for c in first.candidates]
        extra = [self.second.chunk_ids[i] for i in top_n(similarities, n * 4 if self.accept else n)]
        pool += [c for c in extra if c not in cosines and (self.accept is None or self.accept(c))][:n]
        scored = []
        for chunk_id in pool:
            position = self.positions.get(chunk_id)
            second = float(similarities[position]) if position is not None else 0.0
            cosine = cosines.get(chunk_id, floor)
            score = e5_weight * cosine + (1.0 - e5_weight) * second
            scored.append(Candidate(chunk_id, score, cosine if chunk_id in cosines else None))
        scored.sort(key=lambda c: (-c.score, c.chunk_id))
        return LegResult(self.name, tuple(scored[:n]), first.weight)


class LexicalRetriever:
    """BM25 over identifier-aware terms; its weight is the share of query terms the
    codebase knows, so a question whose words never occur in the code is not trusted."""

    name = "lexical"

    def __init__(self, index: LexicalIndex, bridge: WordBridge | None = None,
                 accept: Callable[[str], bool] | None = None, scale: float = 1.0,
                 english_scale: float = 1.0) -> None:
        self.index = index
        self.bridge = bridge
        self.accept = accept  # chunk filter (kinds, tests, path), applied before cutting to n
        self.scale = scale  # the weight multiplier; for short questions without Cyrillic also english_scale
        self.english_scale = english_scale

    def query_terms(self, query: Query) -> tuple[dict[str, float], float]:
        """Weighted BM25 query terms and the leg weight for this query."""
        stats = term_stats(query.terms, self.index.vocabulary)
        weighted = dict.fromkeys(stats.known, 1.0)
        coverage = stats.coverage
        if self.bridge is not None and query.terms:
            unknown = list(dict.fromkeys(w for w, t in zip(query.words, query.terms, strict=True)
                                         if t not in self.index.vocabulary))
            for term, weight in self.bridge.translate(unknown).items():
                weighted[term] = max(weighted.get(term, 0.0), weight)
            bridged = sum(1 for w in unknown if self.bridge.knows(w))
            coverage += self.bridge.coverage_credit * bridged / len(set(query.terms))
        return weighted, coverage

    def retrieve(self, query: Query, n: int) -> LegResult:
        weighted, coverage = self.query_terms(query)
        if not weighted:
            return LegResult(self.name, (), 0.0)
        scores = self.index.scores(weighted)
        order = top_n(scores, n * 4 if self.accept else n)
        ids = self.index.chunk_ids
        candidates = [Candidate(ids[i], float(scores[i])) for i in order if scores[i] > 0]
        if self.accept:
            candidates = [c for c in candidates if self.accept(c.chunk_id)]
        short_english = not has_cyrillic(query.text) and len(set(query.terms)) <= LONG_QUESTION_TERMS
        scale = self.scale * (self.english_scale if short_english else 1.0)
        return LegResult(self.name, tuple(candidates[:n]), coverage * scale)


# ---------------------------------------------------------------- cross-lingual word bridge


_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def has_cyrillic(text: str) -> bool:
    """A Russian question: it routes around the English-only legs and counts as "ru" in benchmarks."""
    return _CYRILLIC.search(text) is not None
_BRIDGE_CACHE_WORDS = 50_000  # translations kept in memory (a question's new words cost an embedding)


class WordBridge:
    """Maps a query word the code never uses (Russian, mostly) to the nearest words of the
    code's own vocabulary by embedding similarity: «пароль» -> password. Neighbours are kept
    relative to the best match (absolute similarities of single words are all high)."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray, embed_words: Callable[[Sequence[str]], np.ndarray],
                 per_word: int = 2, margin: float = 0.02, floor: float = 0.84, coverage_credit: float = 0.5) -> None:
        self.words = tuple(words)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.embed_words = embed_words
        self.per_word = per_word
        self.margin = margin
        self.floor = floor
        self.coverage_credit = coverage_credit
        self._cache: dict[str, dict[str, float]] = {}

    def knows(self, word: str) -> bool:
        return bool(self._cache.get(word))

    def translate(self, words: Sequence[str]) -> dict[str, float]:
        """Vocabulary words for the given query words, each weighted by its similarity."""
        todo = [w for w in dict.fromkeys(words) if w not in self._cache and has_cyrillic(w)]
        if len(self._cache) > _BRIDGE_CACHE_WORDS:
            self._cache.clear()
        if todo and len(self.words):
            for word, vector in zip(todo, self.embed_words(todo), strict=True):
                self._cache[word] = self._neighbours(vector)
        merged: dict[str, float] = {}
        for word in words:
            for neighbour, weight in self._cache.get(word, {}).items():
                term = index_term(neighbour)
                merged[term] = max(merged.get(term, 0.0), weight)
        return merged

    def nearest(self, word: str) -> str | None:
        """The one code word closest to a Cyrillic word, if any is close enough."""
        self.translate([word])
        neighbours = self._cache.get(word) or {}
        return max(neighbours, key=lambda w: (neighbours[w], w)) if neighbours else None

    def _neighbours(self, vector: np.ndarray) -> dict[str, float]:
        similarities = self.vectors @ vector
        best = top_n(similarities, self.per_word)
        if not len(best) or similarities[best[0]] < self.floor:
            return {}
        cut = similarities[best[0]] - self.margin
        return {self.words[i]: float(similarities[i]) for i in best if similarities[i] >= cut}


_WORD = re.compile(r"\w+")


def pseudo_english(text: str, bridge: WordBridge) -> str:
    """A Russian question as English code words, for a model that knows no Russian: each
    Cyrillic word (question glue dropped) becomes its single nearest code word, Latin words
    and identifiers stay as written. Empty when no Cyrillic word crosses the bridge.
    One word each, unweighted: two near-duplicates per word ("closed closing") measured worse."""
    words, crossed = [], False
    for token in _WORD.findall(text):
        if not has_cyrillic(token):
            words.append(token)
            continue
        word = token.lower()
        nearest = bridge.nearest(word) if word not in STOP_WORDS else None
        if nearest:
            words.append(nearest)
            crossed = True
    return " ".join(words) if crossed else ""


# ---------------------------------------------------------------- fusion


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
    return _ordered(scores, legs, results)


def convex_fusion(results: Sequence[LegResult], lexical_scale: float = 1.0, zscore: bool = False) -> list[Fused]:
    """score(d) = sum over legs of w_leg x norm_leg(d): each leg's scores min-max normalised
    over its own candidates (or z-scored: (s - mean) / std, floored at the list's minimum);
    a candidate a leg did not return gets that leg's floor. Dense keeps w = 1; the lexical
    leg's w is its query weight times lexical_scale."""
    scores: dict[str, float] = {}
    legs: dict[str, dict[str, float]] = {}
    floors: dict[str, float] = {}
    for result in results:
        if not result.candidates:
            continue
        weight = result.weight * (lexical_scale if result.name == "lexical" else 1.0)
        values = np.array([c.score for c in result.candidates], dtype=np.float64)
        normalised = _zscores(values) if zscore else _minmax(values)
        floors[result.name] = weight * float(normalised.min()) if zscore else 0.0
        for candidate, value in zip(result.candidates, normalised, strict=True):
            scores[candidate.chunk_id] = scores.get(candidate.chunk_id, 0.0) + weight * float(value)
            legs.setdefault(candidate.chunk_id, {})[result.name] = candidate.score
    for chunk_id, seen in legs.items():  # absent from a leg: that leg's lowest normalised score
        scores[chunk_id] += sum(floor for name, floor in floors.items() if name not in seen)
    return _ordered(scores, legs, results)


def _minmax(values: np.ndarray) -> np.ndarray:
    span = values.max() - values.min()
    return (values - values.min()) / span if span > 0 else np.ones_like(values)


def _zscores(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


def _ordered(scores: Mapping[str, float], legs: Mapping[str, Mapping[str, float]],
             results: Sequence[LegResult] = ()) -> list[Fused]:
    cosines = {c.chunk_id: c.cosine for r in results for c in r.candidates if c.cosine is not None}
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return [Fused(chunk_id, score, dict(legs.get(chunk_id, {})), cosines.get(chunk_id)) for chunk_id, score in ranked]


def single_leg(name: str) -> Fusion:
    """A 'fusion' that keeps one leg as it ranked: the single-leg baselines."""

    def fuse(results: Sequence[LegResult]) -> list[Fused]:
        chosen = next((r for r in results if r.name == name), LegResult(name, ()))
        return [Fused(c.chunk_id, c.score, {name: c.score}, c.cosine) for c in chosen.candidates]

    return fuse


# ---------------------------------------------------------------- stages


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


# ---------------------------------------------------------------- the pipeline


@dataclass(frozen=True)
class HybridPipeline:
    """Retrievers, one fusion function, then stages: `search(query, k)` -> fused, best first."""

    retrievers: tuple[Retriever, ...]
    fusion: Fusion
    stages: tuple[Stage, ...] = ()
    overfetch: int = OVERFETCH_MIN

    def search(self, query: Query, k: int) -> list[Fused]:
        n = max(self.overfetch, k * 4)
        results = [retriever.retrieve(query, n) for retriever in self.retrievers]
        fused = self.fusion(results)
        for stage in self.stages:
            fused = stage(query, fused)
        return fused[:k]


@dataclass(frozen=True)
class EnglishVectors:
    """The second model's vectors for the ensemble leg, and how to embed a question with it."""

    chunk_ids: Sequence[str]
    vectors: np.ndarray
    embed_query: Callable[[str], np.ndarray]

    @cached_property
    def positions(self) -> dict[str, int]:
        """chunk id -> row, built once per opened index (not once per question)."""
        return {chunk_id: i for i, chunk_id in enumerate(self.chunk_ids)}


def shipped_pipeline(dense: Retriever, lexical: LexicalIndex, chunks: Mapping[str, Chunk],
                     bridge: WordBridge | None = None, accept: Callable[[str], bool] | None = None,
                     english: EnglishVectors | None = None, fusion: str = "convex", lexical_scale: float = 1.0,
                     english_lexical_scale: float = 0.5, downrank: float = 0.0,
                     russian_second_model: bool = True, ranking: Sequence[Stage] = ()) -> HybridPipeline:
    """The pipeline CodeLens ships (measured in bench/RESULTS.md); options exist for the bench.

    Dense (e5, plus MiniLM when its vectors exist: on the question, or on a Russian question's
    pseudo-English words through the bridge) and BM25
    (with the word bridge) are min-max fused; the lexical leg's weight is the share of the
    question's words the code knows, halved for short English questions when the two-model
    dense leg is on (it is the stronger leg there). Stages run after fusion: a graph
    expansion would be one more entry in `stages`; `ranking` (codelens/ranking.py) runs last."""
    fusions: dict[str, Fusion] = {
        "convex": convex_fusion,
        "zscore": lambda results: convex_fusion(results, zscore=True),
        "rrf": rrf_fusion,
        "wrrf": lambda results: rrf_fusion(results, weighted=True),
    }
    if english is not None:
        dense = EnsembleDense(dense, english.chunk_ids, english.vectors, english.embed_query, accept=accept,
                              bridge=bridge if russian_second_model else None, positions=english.positions)
    english_scale = english_lexical_scale if english is not None else 1.0
    lexical_leg = LexicalRetriever(lexical, bridge, accept, scale=lexical_scale, english_scale=english_scale)
    stages: tuple[Stage, ...] = (DownrankTrivial(chunks, downrank),) if downrank > 0 else ()
    stages += tuple(ranking)
    return HybridPipeline((dense, lexical_leg), fusions[fusion], stages)
