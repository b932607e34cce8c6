"""The dense leg: the index model's (e5's) cosine between the question and each chunk.

`ChromaDenseRetriever` asks the index's ChromaDB collection; `MatrixDenseRetriever` computes
exact cosines over vectors held in memory (a progressive run's partial index, benchmarks, and
the second model of `english.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from codelens.index.store import VectorStore
from codelens.search.filters import Accept, code_first, mixed_scope, split_top_n
from codelens.search.query import Candidate, LegResult, Query


class MatrixDenseRetriever:
    """Exact cosine over L2-normalised vectors held in memory. `accept` filters chunks exactly (a
    mask over the rows before the cut); `weight` is the leg's fusion weight: a partial index gives
    its dense coverage, since at full weight a half-embedded index ranked the chunks that happen
    to have vectors above better ones that have none yet (bench/SCALE.md)."""

    name = "dense"

    def __init__(self, chunk_ids: Sequence[str], vectors: np.ndarray,
                 accept: Accept | None = None, weight: float = 1.0) -> None:
        # kept as given when a tuple: a filter's mask is cached by the sequence's identity
        self.chunk_ids = chunk_ids if isinstance(chunk_ids, tuple) else tuple(chunk_ids)
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.accept = accept
        self.weight = weight

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None or not self.chunk_ids:
            return LegResult(self.name, (), 0.0)
        similarities = self.vectors @ np.asarray(query.vector, dtype=np.float32)
        order = split_top_n(similarities, n, self.accept, self.chunk_ids)
        kept = [Candidate(self.chunk_ids[i], float(similarities[i]), float(similarities[i])) for i in order]
        return code_first(self.name, kept, n, self.accept, self.weight)


# Every vector of the collection, (ids, matrix), loaded when first needed (see ChromaDenseRetriever).
AllVectors = Callable[[], tuple[Sequence[str], np.ndarray]]


class ChromaDenseRetriever:
    """The dense leg over the ChromaDB collection. The nearest 2n ids are fetched without a
    `where` (ChromaDB pre-filters metadata by scanning it, which grows with the index, and knows
    no path prefix) and filtered here: when at least n pass, they are the n nearest inside the
    filter. When fewer pass (a narrow filter: a folder, one kind), the n nearest inside it come
    from an exact cosine over the collection's vectors under the filter's mask (`all_vectors`,
    loaded once per opened index)."""

    name = "dense"

    def __init__(self, store: VectorStore, accept: Accept, all_vectors: AllVectors | None = None,
                 hidden: frozenset[str] = frozenset()) -> None:
        self.store = store
        self.all_vectors = all_vectors or store.all_vectors
        self.hidden = hidden  # ids whose ChromaDB rows are stale (an update's delta holds their vectors)
        self.accept = accept

    def _accepts(self, chunk_id: str) -> bool:
        return chunk_id not in self.hidden and self.accept(chunk_id)

    def retrieve(self, query: Query, n: int) -> LegResult:
        if query.vector is None:
            return LegResult(self.name, ())
        # In a mixed scope the n nearest code chunks decide (the other files above them are among
        # those fetched): documents near the question take places, so more are asked for.
        scope = mixed_scope(self.accept, n)
        asked = n * (2 if scope is None else 4) + len(self.hidden)
        nearest = self.store.nearest(query.vector, asked)
        kept = [Candidate(i, s, s) for i, s in nearest if self._accepts(i)]
        found = sum(map(scope.is_code, (c.chunk_id for c in kept))) if scope is not None else len(kept)
        if found >= n or len(nearest) < asked:  # the n nearest inside the filter, or all there are
            return code_first(self.name, kept, n, self.accept)
        chunk_ids, vectors = self.all_vectors()
        # the hidden rows are dropped after the cut: as many more are asked for
        exact = MatrixDenseRetriever(chunk_ids, vectors, self.accept).retrieve(query, n + len(self.hidden))
        return code_first(self.name, [c for c in exact.candidates if c.chunk_id not in self.hidden], n, self.accept)


class OverlaidDense:
    """ChromaDB's leg (or the dense sidecar's) with an incremental update's delta over it
    (index/delta.py): the delta's chunks by exact cosine, the base's rows of them hidden, the two
    merged by cosine."""

    name = "dense"

    def __init__(self, base: ChromaDenseRetriever | MatrixDenseRetriever, delta: MatrixDenseRetriever) -> None:
        self.base = base
        self.delta = delta

    def retrieve(self, query: Query, n: int) -> LegResult:
        merged = [*self.base.retrieve(query, n).candidates, *self.delta.retrieve(query, n).candidates]
        return code_first(self.name, merged, n, self.base.accept)
