"""The records every search leg speaks: a prepared question, candidates, a leg's answer, the
fused list; the `Retriever` and `Stage` interfaces; and `top_n`.

A leg is anything with a `name` and `retrieve(query, n) -> LegResult`: to add one, write a
module beside `dense.py` or `lexical.py` that builds its data at index time (a sidecar
builder) and retrieves from it, then add it to `pipeline.shipped_pipeline`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from codelens.search.terms import analyze


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


def top_n(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n highest scores, best first (ties keep corpus order)."""
    n = min(n, scores.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, n - 1)[:n] if n < scores.shape[0] else np.arange(scores.shape[0])
    return part[np.lexsort((part, -scores[part]))]
