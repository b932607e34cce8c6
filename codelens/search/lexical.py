"""The lexical leg: BM25 (bm25s) over identifier-aware terms (`terms.py`), persisted in the
index folder at index time; at search time a question's known terms, plus the words the
Russian -> English bridge finds for its unknown ones, score every chunk.

Its weight in fusion is the share of the question's terms the code knows, so a question whose
words never occur in the code cannot drag the dense leg down.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.index.layout import LEXICAL_IDS_FILE, IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.search.abbreviations import with_other_forms
from codelens.search.bridge import WordBridge, bridged_terms, crossed
from codelens.search.filters import code_first, split_top_n
from codelens.search.query import Candidate, LegResult, Query
from codelens.search.terms import term_stats, tokenize, without_code_suffix

# Bump when tokenization or the indexed fields change: older sidecars are then rebuilt.
TOKENIZER_VERSION = 1
BM25_K1 = 1.2
BM25_B = 0.75
# An English question with more distinct terms than this is "long": BM25 gathers evidence
# from every term while one dense vector blurs them, so the lexical leg keeps its full
# weight there (SWE-QA questions); short ones lean on the dense ensemble (CoSQA, demo).
# Any cut from 6 to 10 measured the same (bench/RESULTS.md).
LONG_QUESTION_TERMS = 8


def chunk_terms(chunk: Chunk) -> list[str]:
    """What the lexical leg indexes for a chunk: path segments, the qualified name (twice:
    a name is the strongest evidence of what code does), then signature, docstring and code.
    The code contains the signature and docstring already, so those count double."""
    return list(_terms(chunk.path, chunk.symbol, chunk.code))


@lru_cache(maxsize=200_000)
def _terms(path: str, symbol: str, code: str) -> tuple[str, ...]:
    """Remembered per chunk text: a watcher's update re-tokenizes only the chunks that changed
    (tokenizing every chunk of pydantic took seconds, and an update is meant to take one)."""
    name = "" if symbol == MODULE_SYMBOL else symbol
    return tuple(tokenize("\n".join([without_code_suffix(path), name, name, code])))


class LexicalIndex:
    """BM25 (Lucene variant, bm25s) over chunk terms; scores come back per chunk id."""

    def __init__(self, chunk_ids: Sequence[str], bm25: object) -> None:
        self.chunk_ids = tuple(chunk_ids)
        self._bm25 = bm25
        self.vocabulary: frozenset[str] = frozenset(t for t in bm25.vocab_dict if t)

    @classmethod
    def build(cls, chunk_ids: Sequence[str], documents: Sequence[Sequence[str]],
              k1: float = BM25_K1, b: float = BM25_B) -> LexicalIndex:
        import bm25s

        bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        # bm25s cannot index an empty corpus or empty documents: give each a neutral token.
        bm25.index([list(doc) or [""] for doc in documents] or [[""]], show_progress=False)
        return cls(chunk_ids, bm25)

    @classmethod
    def from_chunks(cls, chunks: Iterable[Chunk]) -> LexicalIndex:
        chunks = lexical_chunks(chunks)
        return cls.build([c.chunk_id for c in chunks], [chunk_terms(c) for c in chunks])

    def document_frequency(self, term: str) -> int:
        """Documents containing term (0 when it is not in the vocabulary)."""
        token_id = self._bm25.vocab_dict.get(term)
        if token_id is None:
            return 0
        indptr = self._bm25.scores["indptr"]
        return int(indptr[token_id + 1] - indptr[token_id])

    def scores(self, weighted_terms: Mapping[str, float]) -> np.ndarray:
        """BM25 score of every chunk: sum over query terms of weight x per-term BM25."""
        total = np.zeros(len(self.chunk_ids), dtype=np.float32)
        for term, weight in weighted_terms.items():
            token_id = self._bm25.vocab_dict.get(term)
            if token_id is None or not term or weight <= 0:
                continue
            total += weight * self._bm25.get_scores_from_ids([token_id])[: len(self.chunk_ids)]
        return total

    def save(self, folder: Path) -> None:
        """Write into folder/lexical (replacing what was there)."""
        self.save_to(IndexLayout(folder).lexical)

    def save_to(self, target: Path) -> None:
        """Write into the folder `target` (replacing what was there)."""
        if target.exists():
            shutil.rmtree(target)
        self._bm25.save(str(target), show_progress=False)
        meta = {"tokenizer_version": TOKENIZER_VERSION, "chunk_ids": list(self.chunk_ids)}
        (target / LEXICAL_IDS_FILE).write_text(json.dumps(meta), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex | None:
        """The index saved in folder/lexical (see `load_from`)."""
        return cls.load_from(IndexLayout(folder).lexical)

    @classmethod
    def load_from(cls, target: Path) -> LexicalIndex | None:
        """The index saved in the folder `target`, or None when it is missing, unreadable or
        from another tokenizer (the caller rebuilds it from the chunks: a lexical sidecar may
        fail safely)."""
        try:
            meta = json.loads((target / LEXICAL_IDS_FILE).read_text(encoding="utf-8"))
            if meta.get("tokenizer_version") != TOKENIZER_VERSION:
                return None
            import bm25s

            bm25 = bm25s.BM25.load(str(target), show_progress=False, verbosity=0)
            return cls(meta["chunk_ids"], bm25)
        except (OSError, ValueError, KeyError, TypeError):
            return None


def file_words_index(chunks: Iterable[Chunk], terms: Sequence[Sequence[str]] | None = None) -> LexicalIndex:
    """BM25 over whole files: one document per path (its chunks' terms together), ids are the
    paths. Chunks without a path (snippet corpora) have no file. `terms`: each chunk's
    `chunk_terms`, when the caller has them already."""
    chunks = list(chunks)
    if terms is None:
        chunks = lexical_chunks(chunks)
    by_path: dict[str, list[str]] = {}
    for chunk, words in zip(chunks, terms if terms is not None else map(chunk_terms, chunks), strict=True):
        if chunk.path:
            by_path.setdefault(chunk.path, []).extend(words)
    paths = sorted(by_path)
    return LexicalIndex.build(paths, [by_path[p] for p in paths])


def lexical_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """The chunks BM25 holds: all but documentation prose. A document describes the code in the
    words questions use, so in BM25 it outranks the code on almost any question (measured on
    Flask's 770 reST pieces: BM25 alone Hit@5 0.854 -> 0.625); the dense leg still finds it."""
    return [chunk for chunk in chunks if chunk.kind != "doc"]


def load_file_words(folder: Path) -> LexicalIndex | None:
    return LexicalIndex.load_from(IndexLayout(folder).file_words)


class LexicalRetriever:
    """BM25 over identifier-aware terms; its weight is the share of query terms the
    codebase knows, so a question whose words never occur in the code is not trusted."""

    name = "lexical"

    def __init__(self, index: LexicalIndex, bridge: WordBridge | None = None,
                 accept: Callable[[str], bool] | None = None, english_scale: float = 1.0) -> None:
        self.index = index
        self.bridge = bridge
        self.accept = accept  # chunk filter (kinds, tests, path), applied before cutting to n
        self.english_scale = english_scale  # the weight multiplier for short questions without Cyrillic

    def query_terms(self, query: Query) -> tuple[dict[str, float], float]:
        """Weighted BM25 query terms and the leg weight for this query."""
        stats = term_stats(query.terms, self.index.vocabulary)
        weighted = dict.fromkeys(stats.known, 1.0)
        coverage = stats.coverage
        if self.bridge is not None and query.terms:
            query = crossed(query, self.bridge)
            unknown = list(dict.fromkeys(w for w, t in zip(query.words, query.terms, strict=True)
                                         if t not in self.index.vocabulary))
            if not query.russian:  # English words crossed to Russian-named code: known in English or not
                unknown = [w for w in dict.fromkeys(query.words) if query.bridged.get(w)]
            for term, weight in bridged_terms(query, unknown).items():
                weighted[term] = max(weighted.get(term, 0.0), weight)
            bridged = sum(1 for w in unknown if query.bridged.get(w))
            coverage += self.bridge.coverage_credit * bridged / len(set(query.terms))
        return with_other_forms(weighted, query.terms, self.index.vocabulary), coverage

    def retrieve(self, query: Query, n: int) -> LegResult:
        weighted, coverage = self.query_terms(query)
        if not weighted:
            return LegResult(self.name, (), 0.0)
        scores = self.index.scores(weighted)
        ids = self.index.chunk_ids
        order = split_top_n(scores, n, self.accept, ids)
        candidates = [Candidate(ids[i], float(scores[i])) for i in order if scores[i] > 0]
        short_english = not query.russian and len(set(query.terms)) <= LONG_QUESTION_TERMS
        scale = self.english_scale if short_english else 1.0
        return code_first(self.name, candidates, n, self.accept, coverage * scale)


def build_lexical_sidecars(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: the BM25 index of every chunk, and of every file
    (the `file-words` ranking stage), inside the index folder; each chunk is tokenized once."""
    chunks = lexical_chunks(build.chunks)
    terms = [chunk_terms(c) for c in chunks]
    LexicalIndex.build([c.chunk_id for c in chunks], terms).save(build.build_dir)
    file_words_index(chunks, terms).save_to(IndexLayout(build.build_dir).file_words)


# its name carries the tokenizer's version: an index written by an older one is built again by the next run, though
# no file changed (its keywords would load as None, and every search rebuild them in memory)
LEXICAL_SIDECAR = Sidecar(f"build_lexical_sidecars_v{TOKENIZER_VERSION}", build_lexical_sidecars,
                          lambda layout: (layout.lexical, layout.file_words), in_partial=True,
                          prewarm=lambda chunks: [*map(chunk_terms, chunks)].clear(),
                          checks=(LexicalIndex.load, load_file_words),
                          cost=WorkCost("keywords", 0.001))  # bm25s and the terms: ~1 s per 1,000 chunks
