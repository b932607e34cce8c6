"""The dense leg: the index model's (e5's) cosine between the question and each chunk.

`ChromaDenseRetriever` asks the index's ChromaDB collection; `MatrixDenseRetriever` computes
exact cosines over vectors held in memory (a progressive run's partial index, benchmarks, and
the second model of `english.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from codelens.chunk import Chunk
from codelens.index.store import VectorStore
from codelens.search.filters import SearchFilters
from codelens.search.query import Candidate, LegResult, Query, top_n


class MatrixDenseRetriever:
    """Exact cosine over L2-normalised vectors held in memory. `accept` filters chunks before the
    cut (over-fetching, like the ChromaDB leg); `weight` is the leg's fusion weight: a partial
    index gives its dense coverage, since at full weight a half-embedded index ranked the chunks
    that happen to have vectors above better ones that have none yet (bench/SCALE.md)."""

    name = "dense"

    def __init__(self, chunk_ids: Sequence[str], vectors: np.ndarray,
                 accept: Callable[[str], bool] | None = None, weight: float = 1.0) -> None:
        self.chunk_ids = tuple(chunk_ids)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.accept = accept
        self.weight = weight

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None or not self.chunk_ids:
            return LegResult(self.name, (), 0.0)
        similarities = self.vectors @ np.asarray(query.vector, dtype=np.float32)
        kept: list[Candidate] = []
        for fetch in (n * 4 if self.accept else n, len(self.chunk_ids)):  # the filter rarely needs a second pass
            kept = [Candidate(self.chunk_ids[i], float(similarities[i]), float(similarities[i]))
                    for i in top_n(similarities, fetch) if self.accept is None or self.accept(self.chunk_ids[i])]
            if len(kept) >= n or self.accept is None:
                break
        return LegResult(self.name, tuple(kept[:n]), self.weight)


class ChromaDenseRetriever:
    """The dense leg over the ChromaDB collection. The searcher holds every chunk, so the
    nearest ids are fetched without a `where` (ChromaDB pre-filters metadata by scanning it,
    which grows with the index) and filtered here; only when too few pass is the filter handed
    to ChromaDB. Either way callers over-fetch."""

    name = "dense"

    def __init__(self, store: VectorStore, filters: SearchFilters, chunks: Mapping[str, Chunk],
                 hidden: frozenset[str] = frozenset()) -> None:
        self.store = store
        self.filters = filters
        self.chunks = chunks
        self.hidden = hidden  # ids whose ChromaDB rows are stale (an update's delta holds their vectors)

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None:
            return LegResult(self.name, ())
        asked = n * 2 + len(self.hidden)
        nearest = self.store.nearest(query.vector, asked)
        kept = [(i, s) for i, s in nearest if self._accepts(i)]
        narrowing = bool(self.filters.kinds) or not self.filters.include_tests
        if len(kept) < n and len(nearest) == asked and narrowing:
            nearest = self.store.nearest(query.vector, n, kinds=self.filters.kinds,
                                         include_tests=self.filters.include_tests)
            kept = [(i, s) for i, s in nearest if self._accepts(i)]
        return LegResult(self.name, tuple(Candidate(i, s, s) for i, s in kept[:n]))

    def _accepts(self, chunk_id: str) -> bool:
        chunk = self.chunks.get(chunk_id)
        return chunk is not None and chunk_id not in self.hidden and self.filters.accepts(chunk)


class OverlaidDense:
    """ChromaDB's leg with an incremental update's delta over it (index/delta.py): the delta's
    chunks by exact cosine, ChromaDB's rows of them hidden, the two merged by cosine."""

    name = "dense"

    def __init__(self, base: ChromaDenseRetriever, delta: MatrixDenseRetriever) -> None:
        self.base = base
        self.delta = delta

    def retrieve(self, query: Query, n: int) -> LegResult:
        merged = [*self.base.retrieve(query, n).candidates, *self.delta.retrieve(query, n).candidates]
        merged.sort(key=lambda c: c.score, reverse=True)
        return LegResult(self.name, tuple(merged[:n]))
