"""Search an index: typed hits with a relevance that means something for cosine."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codelens.chunk import Chunk
from codelens.embedding import Embedder, load_embedder, normalize_model_id
from codelens.errors import DatabaseError, ModelMismatch
from codelens.index_meta import METADATA_FILE, IndexStats, read_stats
from codelens.settings import Settings
from codelens.store import VectorStore, forget_open_indexes

OVERFETCH = 4


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float  # cosine similarity for dense search; fused score for hybrid
    relevance: float  # 0-100, what the UI shows
    rank: int

    @property
    def chunk_id(self) -> str:
        return self.chunk.chunk_id

    def to_dict(self) -> dict:
        """The hit format of results.json and `search --json` (DESIGN.md)."""
        c = self.chunk
        return {
            "chunk_id": c.chunk_id, "path": c.path, "symbol": c.symbol, "kind": c.kind,
            "start_line": c.start_line, "end_line": c.end_line, "score": round(self.score, 4),
        }


@dataclass(frozen=True)
class SearchFilters:
    kinds: tuple[str, ...] = ()  # empty: every kind
    path_prefix: str = ""
    include_tests: bool = False

    def where(self) -> dict | None:
        clauses = []
        if self.kinds:
            clauses.append({"kind": {"$in": list(self.kinds)}})
        if not self.include_tests:
            clauses.append({"is_test": False})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def accepts(self, chunk: Chunk) -> bool:
        return chunk.path.startswith(self.path_prefix.lstrip("./")) if self.path_prefix else True


def relevance_percent(cosine_similarity: float) -> float:
    """Cosine similarity as a percentage, clamped to 0-100 (never 1 - distance twice)."""
    return round(max(0.0, min(1.0, cosine_similarity)) * 100.0, 1)


def _index_version(db_path: Path) -> tuple[int, int]:
    """Changes whenever an index run swaps a folder in or rewrites the metadata."""
    try:
        stat = (db_path / METADATA_FILE).stat()
    except OSError:
        return (0, 0)
    return (stat.st_ino, stat.st_mtime_ns)


class Searcher:
    """Opens an index once; each `search` embeds the query and asks the store."""

    def __init__(self, settings: Settings, embedder: Embedder | None = None,
                 requested_model: str | None = None) -> None:
        self.settings = settings
        self._requested_model = requested_model
        self._open_index()
        if embedder is not None and embedder.model_id != self.stats.model:
            raise ModelMismatch(self.stats.model, embedder.model_id)
        self.embedder = embedder or load_embedder(self.stats.model)

    def _open_index(self) -> None:
        db_path = Path(self.settings.db_path)
        self.stats: IndexStats = read_stats(db_path)
        if self._requested_model and normalize_model_id(self._requested_model) != self.stats.model:
            raise ModelMismatch(self.stats.model, self._requested_model)
        self._version = _index_version(db_path)
        self.store = VectorStore(db_path, self.stats.collection)

    def refresh(self) -> bool:
        """Reopen the index if a run swapped in a new one since we opened it."""
        if _index_version(Path(self.settings.db_path)) == self._version:
            return False
        forget_open_indexes()
        model = self.stats.model
        self._open_index()
        if self.stats.model != model:
            raise ModelMismatch(self.stats.model, model)
        return True

    @property
    def model(self) -> str:
        return self.stats.model

    def search(self, query: str, k: int = 5, filters: SearchFilters | None = None) -> list[Hit]:
        query = query.strip()
        if not query or k <= 0:
            return []
        filters = filters or SearchFilters()
        self.refresh()
        vector = self.embedder.embed_queries([query])[0]
        # Filtered HNSW search can return fewer than asked for: over-fetch, then cut.
        fetch = k * OVERFETCH
        try:
            stored = self.store.query(vector, fetch, where=filters.where())
        except DatabaseError:  # swapped between refresh() and the query: reopen once
            forget_open_indexes()
            self._open_index()
            stored = self.store.query(vector, fetch, where=filters.where())
        kept = [s for s in stored if filters.accepts(s.chunk)][:k]
        return [
            Hit(chunk=s.chunk, score=s.similarity, relevance=relevance_percent(s.similarity), rank=rank)
            for rank, s in enumerate(kept, start=1)
        ]
