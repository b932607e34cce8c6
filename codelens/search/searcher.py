"""The Searcher: opens an index once (chunks, the legs' sidecars, the models) and answers
questions with the shipped pipeline (`pipeline.py`).

Hits are ranked by the fused score; each keeps the e5 cosine of its chunk as its relevance,
so the percentage the UI shows still means "how close in meaning". A chunk with no e5 vector
(a progressive run has not embedded it yet, a test chunk whose vector follows) has no relevance:
None, and `matched` says it was found by its keywords, never "0.0%".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import codelens.search.sidecars  # noqa: F401  (registers the sidecars: a searching process may index or update too)
from codelens.chunk import Chunk
from codelens.errors import ModelMismatch
from codelens.graph.store import call_neighbour_files, stored_file_hubs
from codelens.index.collector import collector_paused
from codelens.index.delta import Delta, load_delta
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest
from codelens.index.metadata import IndexStats, read_stats
from codelens.index.progressive import is_partial, load_catalog, open_partial_index
from codelens.index.store import VectorStore, forget_open_indexes, stored_vectors_version
from codelens.models import Embedder, EnglishModel, load_embedder, normalize_model_id, tune_threads_for_search
from codelens.search.bridge import WordBridge, load_bridge_vectors, load_russian_words
from codelens.search.dense import ChromaDenseRetriever, MatrixDenseRetriever, OverlaidDense
from codelens.search.dense_vectors import DenseVectors, load_dense_vectors
from codelens.search.english import EnglishVectors, load_english_vectors, unreadable_in_english
from codelens.search.file_vectors import FileVectors, load_file_vectors
from codelens.search.filters import ChunkScope, SearchFilters, check_path_prefix, chunk_language, language_filter
from codelens.search.lexical import LexicalIndex, LexicalRetriever, file_words_index, load_file_words
from codelens.search.matched import BOTH, KEYWORDS, MEANING, NAME
from codelens.search.pipeline import HybridPipeline, overfetch_for, shipped_pipeline
from codelens.search.query import Fused, Query, Stage
from codelens.search.ranking import StageContext, stages_by_name
from codelens.search.ranking_order import Copies
from codelens.search.ranking_symbols import RankingIndex
from codelens.search.static_leg import STATIC_WEIGHT, StaticDenseRetriever, load_static_vectors
from codelens.search.ties import PreferRepository
from codelens.settings import DEFAULT_MODEL, Settings
from codelens.workspace import Workspace, named_repositories, repository_packages


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    fused_score: float  # what the ranking used: the fused score of every leg
    relevance: float | None  # the e5 cosine of question and chunk, 0-100: what the UI shows; None: no vector
    rank: int
    file_hash: str = ""  # its file's content hash when indexed (index/freshness.py compares it with the disk)
    repo: str = ""  # the repository of its file (codelens/workspace.py)
    matched: str = MEANING  # how it was found: search/matched.py

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id

    @property
    def language(self) -> str:
        """python, typescript, go...; a document's or configuration's kind (doc, config, text)."""
        return chunk_language(self.chunk)

    def to_dict(self) -> dict:
        """The hit format of results.json and `search --json` (a contract other tools read).
        `score` is the fused score the hits are ranked by: every hit has one (a hit found by its
        keywords alone has its keywords' share), so it stays a number; `relevance` (to_row) is
        what has none without a vector."""
        c = self.chunk
        return {
            "chunk_id": c.chunk_id, "path": c.path, "symbol": c.symbol, "kind": c.kind,
            "start_line": c.start_line, "end_line": c.end_line, "score": round(self.fused_score, 4),
            "repo": self.repo, "language": self.language, "matched": self.matched,
        }

    def to_row(self) -> dict:
        """`to_dict` plus the rank and the relevance shown to people (CLI lines, serve, MCP)."""
        return {**self.to_dict(), "rank": self.rank, "relevance": self.relevance}


def relevance_percent(cosine_similarity: float) -> float:
    """Cosine similarity as a percentage, clamped to 0-100 (never 1 - distance twice)."""
    return round(max(0.0, min(1.0, cosine_similarity)) * 100.0, 1)


SWAP_RETRIES = 3
_SCOPES_KEPT = 16  # filters whose masks a searcher keeps (the app's and a session's few)
QUERY_EMBED_CHARS = 2000
# One English and one Russian question load every model a search can need (e5, MiniLM, the bridge).
WARM_UP_QUERIES = ("where are the database settings stored?", "как создаётся токен доступа?")


def _matched(item: Fused) -> str:
    """How a fused hit was found, from the legs that returned it (neither: a stage pinned it)."""
    dense = ChromaDenseRetriever.name in item.leg_scores or StaticDenseRetriever.name in item.leg_scores
    lexical = LexicalRetriever.name in item.leg_scores
    if dense and lexical:
        return BOTH
    if dense:
        return MEANING
    return KEYWORDS if lexical else NAME


def _complete_chunks(db_path: Path, store: Callable[[], VectorStore]) -> dict[str, Chunk]:
    """Every chunk of a complete index: from its catalog (an incremental update changes it
    without touching ChromaDB), else (an index built before catalogs) from ChromaDB."""
    if IndexLayout(db_path).catalog.is_file():
        try:
            return {e.chunk.chunk_id: e.chunk for e in load_catalog(db_path)}
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return {c.chunk_id: c for c in store().all_chunks()}


def _pending_tests(manifest: Manifest | None, stats: IndexStats, chunks: Mapping[str, Chunk]) -> frozenset[str]:
    """Chunks of a complete index whose vectors follow (index/test_vectors.py): no fingerprint yet."""
    if manifest is None or stats.test_coverage >= 1.0:
        return frozenset()
    return frozenset(chunks.keys() - manifest.chunks.keys())


def _index_version(db_path: Path) -> tuple[int, int]:
    """Changes whenever an index run swaps a folder in or rewrites the metadata."""
    try:
        stat = IndexLayout(db_path).metadata.stat()
    except OSError:
        return (0, 0)
    return (stat.st_ino, stat.st_mtime_ns)


@dataclass(frozen=True)
class _StoredVectors:
    version: tuple  # store.stored_vectors_version of the files they were read from
    chunk_ids: tuple[str, ...]
    vectors: np.ndarray


class Searcher:
    """Opens an index once (chunks, lexical index, sidecar vectors); each `search` embeds the
    question and runs the shipped pipeline (pipeline.py) over its legs."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None) -> None:
        """Opens the index of settings.index_dir; ModelMismatch when settings.model (a model
        asked for explicitly) or the embedder is not the index's model."""
        self.settings = settings
        tune_threads_for_search()
        self._open_index()
        if embedder is not None and embedder.model_id != self.stats.model:
            raise ModelMismatch(self.stats.model, embedder.model_id)
        self.embedder = embedder or load_embedder(self.stats.model)
        self._english_models: dict[str, Any] = {}  # English model name -> loaded on its first question

    def _open_index(self) -> None:
        # Tens of thousands of chunks and their fields, no cycle among them: the collector's passes over them
        # cost a fresh process a tenth of a second (index/collector.py)
        with collector_paused():
            self._read_index()

    def _read_index(self) -> None:
        db_path = self.settings.index_dir
        self.stats: IndexStats = read_stats(db_path)
        self.workspace = Workspace.from_json(self.stats.repositories, self.stats.source)
        if self.settings.model and normalize_model_id(self.settings.model) != self.stats.model:
            raise ModelMismatch(self.stats.model, self.settings.model)
        self._version = _index_version(db_path)
        # A progressive run's partial index has no ChromaDB yet: its catalog and cached vectors.
        self.partial = open_partial_index(db_path, self.stats.model) if is_partial(self.stats) else None
        self._partial_ids: frozenset[str] | None = None  # its vectors' ids, as a set on the first need
        self._rows: dict[str, tuple[Sequence[str], dict[str, int]]] = {}  # _cosines: each held matrix's row of a chunk
        # ChromaDB opened on first need: a search over the dense sidecar never needs it
        self._store: VectorStore | None = None
        self.chunks = self.partial.chunks if self.partial is not None else _complete_chunks(db_path, self._open_store)
        # Chunks an incremental update changed: their e5 vectors beside ChromaDB (index/delta.py).
        self.delta = load_delta(db_path) if self.partial is None else Delta()
        manifest = Manifest.load(db_path)
        self.file_hashes = dict(manifest.files) if manifest is not None else {}
        # test chunks found by keywords only until their vectors are in (index/test_vectors.py)
        self.pending_tests = _pending_tests(manifest, self.stats, self.chunks) if self.partial is None else frozenset()
        self.dense_vectors = self._sidecar_vectors(db_path)
        self._ranking_index: RankingIndex | None = None
        # An index built before the lexical sidecar existed (or by another tokenizer version)
        # still searches in full: the lexical index is rebuilt in memory from the chunks.
        lexical, file_words = LexicalIndex.load(db_path), load_file_words(db_path)
        self.lexical = lexical or LexicalIndex.from_chunks(self.chunks.values())
        self.file_words = file_words or file_words_index(self.chunks.values())
        layout = IndexLayout(db_path)
        self._graph_path = layout.graph
        e5_index = self.stats.model == DEFAULT_MODEL  # both sidecars are tuned with e5 vectors
        self._bridge_vectors = load_bridge_vectors(db_path) if e5_index else None
        self._russian_words = load_russian_words(db_path) if self._bridge_vectors is not None else None
        self._bridge: WordBridge | None = None
        english = load_english_vectors(db_path) if e5_index else None
        # a partial index's fast leg, until e5's vectors replace it (static_leg.py)
        self.static = load_static_vectors(db_path) if e5_index and self.partial is not None else None
        self._english_kind: EnglishModel | None = english[3] if english else None
        unreadable = frozenset(c for c, chunk in self.chunks.items() if unreadable_in_english(chunk))
        self._english = (EnglishVectors(tuple(english[0]), english[2], self._embed_english, english[3].e5_weight,
                                        unreadable) if english else None)
        self._scopes: dict[SearchFilters, ChunkScope] = {}  # one per filter asked: its masks are cached
        # ChromaDB's every vector, once read (the exact fallback of a narrow or mixed scope): kept
        # across a reopen while ChromaDB's files are the same ones (an update swaps in a folder that
        # hard-links them), so a watcher's update does not cost a read of every vector again.
        # (not read beside the dense sidecar: a search then never touches ChromaDB's files, nor waits on their lock)
        local = self.partial is None and self.dense_vectors is None and not (
            self.settings.chroma_url or self.stats.chroma_url)
        version = stored_vectors_version(db_path) if local else ()
        kept: _StoredVectors | None = getattr(self, "_all_vectors", None)
        self._all_vectors = kept if kept is not None and version and kept.version == version else None
        self._vectors_version = version
        self._paths = frozenset(c.path for c in self.chunks.values())
        self._packages = {} if self.workspace.is_single else repository_packages(self.workspace, self._paths)
        if self.partial is not None:  # from the vectors embedded so far
            self.file_vectors = FileVectors.from_chunks(
                self.chunks, dict(zip(self.partial.vector_ids, self.partial.vectors, strict=True)))
        else:
            self.file_vectors = load_file_vectors(db_path)
        # Sidecars that are there but do not load: searches go on without them (or rebuild them in
        # memory), and the edges say so; the next index run rebuilds them (index/health.py).
        loaded = {layout.lexical: lexical, layout.file_words: file_words, layout.bridge: self._bridge_vectors,
                  layout.english: english, layout.file_vectors: self.file_vectors}
        self.damaged = [path.name for path, value in loaded.items() if value is None and path.exists()]

    def _open_store(self) -> VectorStore:
        if self._store is None:
            self._store = VectorStore(self.settings.index_dir, self.stats.collection,
                                      chroma_url=self.settings.chroma_url or self.stats.chroma_url)
        return self._store

    @property
    def store(self) -> VectorStore | None:
        """The index's ChromaDB collection (None for a partial index, which has none yet)."""
        return None if self.partial is not None else self._open_store()

    def _sidecar_vectors(self, db_path: Path) -> DenseVectors | None:
        """The dense sidecar, when it holds every chunk ChromaDB should: then no search opens ChromaDB.
        Never for a partial index or a ChromaDB server."""
        if self.partial is not None or self.settings.chroma_url or self.stats.chroma_url:
            return None
        vectors = load_dense_vectors(db_path)
        if vectors is None or not vectors.covers(self.chunks.keys() - self.pending_tests - set(self.delta.chunk_ids)):
            return None
        return vectors.without(frozenset(self.delta.chunk_ids))

    @property
    def bridge(self) -> WordBridge | None:
        """Russian->English word bridge: its word vectors are e5's, so only for e5 indexes."""
        if self._bridge is None and self._bridge_vectors is not None:
            words, vectors = self._bridge_vectors
            self._bridge = WordBridge(words, vectors, self.embedder.embed_queries, russian=self._russian_words)
        return self._bridge

    def refresh(self) -> bool:
        """Reopen the index if a run swapped in a new one since we opened it."""
        version = _index_version(self.settings.index_dir)
        for _ in range(50):  # a swap without an atomic exchange leaves a moment with no index
            if version != (0, 0):
                break
            time.sleep(0.02)
            version = _index_version(self.settings.index_dir)
        if version == self._version:
            return False
        forget_open_indexes()
        model = self.stats.model
        self._open_index()
        if self.stats.model != model:
            raise ModelMismatch(self.stats.model, model)
        return True

    @property
    def dense_coverage(self) -> float:
        """Share of chunks the dense leg can find (below 1 while a progressive run embeds)."""
        return self.partial.coverage if self.partial is not None else 1.0

    def vector_counts(self) -> dict[str, int | str]:
        """How many chunks each vector leg covers, from what this searcher holds (no disk reads).
        `minilm_vectors` counts the English leg's vectors, whichever model `english_model` names."""
        if self.partial is not None:
            e5 = len(self.partial.vector_ids)
        elif self.delta.chunk_ids or self.delta.removed:  # an update embedded every chunk it changed
            e5 = len(self.chunks) - len(self.pending_tests)
        elif self.dense_vectors is not None:
            e5 = len(self.dense_vectors.chunk_ids)
        else:
            e5 = self.store.count()
        english = len(self.chunks.keys() & set(self._english.chunk_ids)) if self._english else 0
        bridge = len(self._bridge_vectors[0]) if self._bridge_vectors else 0
        tests = sum(1 for c in self.chunks.values() if c.is_test)
        return {"e5_vectors": e5, "minilm_vectors": english, "chunks": len(self.chunks), "bridge_words": bridge,
                "english_model": self._english_kind.name if self._english_kind else "",
                "test_chunks": tests, "test_vectors": tests - len(self.pending_tests)}

    def warm_up(self) -> None:
        """Load every model a question can need now, so the first real question does not wait."""
        for query in WARM_UP_QUERIES:
            self.search(query, k=5)

    @property
    def model(self) -> str:
        return self.stats.model

    def search(self, query: str, k: int = 5, filters: SearchFilters | None = None,
               prefer_repo: str = "", depth: int | None = None) -> list[Hit]:
        """The k best hits under `filters`; `prefer_repo` (the repository the user is in) comes
        first among hits of equal score (search/ties.py; a name the index does not hold: no effect).
        `depth`: candidates per leg (None: the pipeline's choice for the question, whatever k is)."""
        query = query.strip()
        if not query or k <= 0:
            return []
        filters = self.named_scope(query, filters or SearchFilters())
        if filters.languages:  # `TypeScript` is `typescript`; an unknown name says which ones exist
            filters = replace(filters, languages=language_filter(filters.languages))
        self.scope(filters)  # a path prefix that matches nothing says so before any work
        prepared = self.prepare(query)
        for attempt in range(SWAP_RETRIES):
            self.refresh()
            version = self._version
            try:
                fused = self._pipeline(filters, prefer_repo).search(prepared, k, depth)
            except Exception:
                # An index run swapped in a new index while we read the old one: read again.
                if attempt + 1 == SWAP_RETRIES or _index_version(self.settings.index_dir) == version:
                    raise
                continue
            if _index_version(self.settings.index_dir) == version:
                break  # the answer came from one index state, whole
        return self._hits(fused, prepared.vector)

    def named_scope(self, query: str, filters: SearchFilters) -> SearchFilters:
        """In a workspace, a question that names repositories (by name or package: "in flask",
        "httpx's Client") searches those only, unless the search already chose its repositories."""
        if filters.repos or not self._packages:
            return filters
        named = named_repositories(query, self._packages)
        return replace(filters, repos=named) if named else filters

    def scope(self, filters: SearchFilters) -> ChunkScope:
        """The chunks a search under `filters` may return (kept per filter, with its masks, until
        the index is reopened); a path prefix that no indexed file has is UnknownPathPrefix."""
        scope = self._scopes.get(filters)
        if scope is None:
            check_path_prefix(filters.path_prefix, self._paths)
            self.workspace.check_names(filters.repos)
            if len(self._scopes) >= _SCOPES_KEPT:
                self._scopes.clear()
            scope = self._scopes[filters] = ChunkScope(filters, self.chunks, self.workspace.repo_of)
        return scope

    def _collection_vectors(self) -> tuple[tuple[str, ...], np.ndarray]:
        """Every e5 vector of the collection, read on the first search a filter narrows a lot
        (seconds at 100k chunks) and kept while ChromaDB's files stay the same."""
        if self._all_vectors is None:
            ids, vectors = self._open_store().all_vectors()
            self._all_vectors = _StoredVectors(self._vectors_version, tuple(ids), vectors)
        return self._all_vectors.chunk_ids, self._all_vectors.vectors

    def prepare(self, text: str) -> Query:
        """The question as every leg and stage reads it, its e5 vector included."""
        # e5 reads the first QUESTION_TOKENS tokens (models/embedders.py), tokenizing the words that hold them
        # (e5.head), or all of a text with no space early (seconds for a pasted file): the cut bounds that; the
        # legs' terms read all of it
        return Query.from_text(text, self._embed_e5(text))

    def _pipeline(self, filters: SearchFilters, prefer_repo: str = "") -> HybridPipeline:
        accept = self.scope(filters)
        fast = None
        if self.partial is not None:
            dense = MatrixDenseRetriever(self.partial.vector_ids, self.partial.vectors, accept,
                                         weight=self.partial.coverage)
            if self.static is not None:  # fades as e5's coverage rises
                fast = StaticDenseRetriever(self.static, accept, STATIC_WEIGHT * (1.0 - self.partial.coverage),
                                            self.bridge, self._embed_e5)
        elif self.dense_vectors is not None:  # exact cosines over the sidecar: no ChromaDB
            dense = MatrixDenseRetriever(self.dense_vectors.chunk_ids, self.dense_vectors.vectors, accept)
            if self.delta.chunk_ids:
                dense = OverlaidDense(dense, MatrixDenseRetriever(self.delta.chunk_ids, self.delta.vectors, accept))
        elif self.delta.chunk_ids:
            dense = OverlaidDense(
                ChromaDenseRetriever(self._open_store(), accept, self._collection_vectors,
                                     hidden=frozenset(self.delta.chunk_ids)),
                MatrixDenseRetriever(self.delta.chunk_ids, self.delta.vectors, accept))
        else:
            dense = ChromaDenseRetriever(self._open_store(), accept, self._collection_vectors)
        if self._ranking_index is None:
            with collector_paused():
                self._ranking_index = RankingIndex.build(self.chunks)
        context = StageContext(self._ranking_index, accept, self.bridge, self.file_vectors, self.dense_coverage,
                               self.file_words, self._call_files, self.file_hubs,
                               repo_of=None if self.workspace.is_single else self.workspace.repo_of)
        stages = self.ranking(context)
        if not self.workspace.is_single and prefer_repo in self.workspace.names:  # your repository first on a tie
            stages = (*stages, PreferRepository(prefer_repo, self.workspace.repo_of))
        stages = (*stages, Copies(self.chunks))  # then one copy of equal code
        return shipped_pipeline(dense, self.lexical, bridge=self.bridge, accept=accept, english=self._english,
                                stages=stages, overfetch=self.overfetch(filters), fast=fast)

    def overfetch(self, filters: SearchFilters) -> int:
        """Candidates per leg: deeper for each repository of a workspace the search covers."""
        return overfetch_for(len(filters.repos) if filters.repos else len(self.workspace.repositories))

    def ranking(self, context: StageContext) -> tuple[Stage, ...]:
        """The ranking stages after fusion, built for one search: ranking.py's shipped ones. The
        one seam for other rankings: bench/variants.py's VariantSearcher returns the ones it compares."""
        return stages_by_name(context)

    @property
    def file_hubs(self) -> Mapping[str, float]:
        """The code graph's hub score per file (graph/hubs.py); none without a graph that holds them."""
        return stored_file_hubs(self._graph_path)

    def _call_files(self, chunk_ids: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """The code graph's call neighbours of these chunks, by file (read per question, so it
        follows index swaps; an index without a graph gives none)."""
        return call_neighbour_files(self._graph_path, chunk_ids)

    def _embed_e5(self, text: str) -> np.ndarray:
        """e5's query vector of a text: the question's, or the static leg's pseudo-English words."""
        return self.embedder.embed_queries([text[:QUERY_EMBED_CHARS]])[0]

    def _embed_english(self, text: str) -> np.ndarray:
        """The English model's query vector (the model the open index's sidecar was built with);
        it loads on the first English question (onnxruntime, no torch)."""
        kind = self._english_kind
        if kind.name not in self._english_models:
            self._english_models[kind.name] = kind.load()
        return self._english_models[kind.name].embed_queries([text])[0]

    def _hits(self, fused: list[Fused], vector: np.ndarray | None = None) -> list[Hit]:
        """Fused order; relevance is the index model's cosine. A chunk the dense leg did not fetch
        (found by BM25, the word bridge or the fast leg only) has its cosine taken from the vectors
        held in memory (the dense sidecar, an update's delta, a partial index's); where none holds
        it (a ChromaDB leg) it shows the lowest cosine among the hits, an upper bound of its own; a
        chunk with no vector at all has none (None, never a made-up 0.0%)."""
        exact = self._cosines([f.chunk_id for f in fused if f.cosine is None], vector)
        floor = min((f.cosine for f in fused if f.cosine is not None), default=None)
        hits = []
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            if chunk is None:
                continue
            cosine = item.cosine if item.cosine is not None else exact.get(item.chunk_id)
            if cosine is None and self.has_vector(item.chunk_id):
                cosine = floor
            hits.append(Hit(chunk=chunk, fused_score=item.score,
                            relevance=relevance_percent(cosine) if cosine is not None else None,
                            rank=len(hits) + 1, file_hash=self.file_hashes.get(chunk.path, ""),
                            repo=self.workspace.repo_of(chunk.path), matched=_matched(item)))
        return hits

    def _cosines(self, chunk_ids: list[str], vector: np.ndarray | None) -> dict[str, float]:
        """The e5 cosine of the question's vector and each chunk whose vector is held in memory."""
        if not chunk_ids or vector is None:
            return {}
        held = [("delta", self.delta.chunk_ids, self.delta.vectors)]
        if self.partial is not None:
            held.append(("partial", self.partial.vector_ids, self.partial.vectors))
        elif self.dense_vectors is not None:
            held.append(("dense", self.dense_vectors.chunk_ids, self.dense_vectors.vectors))
        found: dict[str, float] = {}
        query = np.asarray(vector, dtype=np.float32)
        for name, ids, vectors in held:
            rows = self._rows.get(name)
            if rows is None or rows[0] is not ids:  # a refresh brought new ids: their rows anew
                rows = self._rows[name] = (ids, {chunk_id: i for i, chunk_id in enumerate(ids)})
            for chunk_id in chunk_ids:
                row = rows[1].get(chunk_id)
                if row is not None and chunk_id not in found:
                    found[chunk_id] = float(vectors[row] @ query)
        return found

    def has_vector(self, chunk_id: str) -> bool:
        """Whether the chunk has its e5 vector in this index (not yet, during a progressive run, or
        for a test chunk whose vector follows the complete index)."""
        if self.partial is not None:
            if self._partial_ids is None:
                self._partial_ids = frozenset(self.partial.vector_ids)
            return chunk_id in self._partial_ids
        return chunk_id not in self.pending_tests
