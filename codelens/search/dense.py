"""The dense leg: the index model's (e5's) cosine between the question and each chunk.

`ChromaDenseRetriever` asks the index's ChromaDB collection; `MatrixDenseRetriever` computes
exact cosines over vectors held in memory (benchmarks, small corpora, and the second model of
`english.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from codelens.chunk import Chunk
from codelens.index.store import VectorStore
from codelens.search.filters import SearchFilters
from codelens.search.query import Candidate, LegResult, Query, top_n


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


class ChromaDenseRetriever:
    """The dense leg over the ChromaDB collection. The searcher holds every chunk, so the
    nearest ids are fetched without a `where` (ChromaDB pre-filters metadata by scanning it,
    which grows with the index) and filtered here; only when too few pass is the filter handed
    to ChromaDB. Either way callers over-fetch."""

    name = "dense"

    def __init__(self, store: VectorStore, filters: SearchFilters, chunks: Mapping[str, Chunk]) -> None:
        self.store = store
        self.filters = filters
        self.chunks = chunks

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None:
            return LegResult(self.name, ())
        asked = n * 2
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
        return chunk is not None and self.filters.accepts(chunk)
