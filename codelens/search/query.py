"""The records every search leg speaks: a prepared question, candidates, a leg's answer, the
fused list; the `Retriever` and `Stage` interfaces; and `top_n`.

A leg is anything with a `name` and `retrieve(query, n) -> LegResult`: to add one, write a
module beside `dense.py` or `lexical.py` that builds its data at index time (a sidecar
builder) and retrieves from it, then add it to `pipeline.shipped_pipeline`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np

from codelens.search.terms import analyze, bare_identifier, code_identifiers, has_cyrillic, written_names


@dataclass(frozen=True)
class Query:
    """A question as every leg and stage reads it, each fact computed once: its e5 vector, terms,
    language and identifiers, and (once the word bridge has crossed it: `bridge.crossed`) the code
    words of its Russian words."""

    text: str
    vector: np.ndarray | None = None
    terms: tuple[str, ...] = ()  # lexical index terms
    words: tuple[str, ...] = ()  # the same, as written (lowercased): what the word bridge embeds
    crossed: bool = False  # the word bridge has filled `bridged` and `pseudo_english`
    bridged: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # Russian word -> code words, weights
    pseudo_english: str = ""  # the question in code words, for an English-only model ("": no word crossed)

    @classmethod
    def from_text(cls, text: str, vector: np.ndarray | None = None) -> Query:
        pairs = analyze(text)
        return cls(text=text, vector=vector, terms=tuple(t for _, t in pairs), words=tuple(w for w, _ in pairs))

    @cached_property
    def russian(self) -> bool:
        """Cyrillic in the question: it goes around the English-only legs and stages."""
        return has_cyrillic(self.text)

    @property
    def language(self) -> str:
        return "ru" if self.russian else "en"

    @cached_property
    def identifier(self) -> str | None:
        """The identifier the question is made of (`Response`, `Session.send`), or None."""
        return bare_identifier(self.text)

    @cached_property
    def code_identifiers(self) -> tuple[str, ...]:
        """Code-shaped identifiers inside the question (`ClientSession`, `model_post_init`)."""
        return tuple(code_identifiers(self.text))

    @cached_property
    def written_names(self) -> tuple[str, ...]:
        """A Russian question's Latin words written as names (`Serialize`, `Visitor`)."""
        return tuple(written_names(self.text))


@dataclass(frozen=True)
class Candidate:
    chunk_id: str
    score: float  # the leg's own score: cosine (or a sum of cosines) for dense, BM25 for lexical
    cosine: float | None = None  # the index model's cosine, when the leg knows it: what the UI shows


@dataclass(frozen=True)
class LegResult:
    """One retriever's answer: candidates best first, and its weight for this query (0-1).
    `scale`: the (low, high) scores fusion normalises by (None: the candidates' own range)."""

    name: str
    candidates: tuple[Candidate, ...]
    weight: float = 1.0
    scale: tuple[float, float] | None = None


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


def top_n(scores: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Indices of the n highest scores, best first (ties keep corpus order); with a mask, of
    the n highest among the rows it keeps (a filter applied before the cut, so it is exact)."""
    if mask is not None:
        rows = np.flatnonzero(mask)
        return rows[top_n(scores[rows], n)]
    n = min(n, scores.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, n - 1)[:n] if n < scores.shape[0] else np.arange(scores.shape[0])
    return part[np.lexsort((part, -scores[part]))]
