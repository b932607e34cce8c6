"""Embeddings cached by (model, hash of the embedded text) in SQLite.

Unchanged, moved or renamed code is never embedded twice, and an interrupted run
resumes: each batch is committed as soon as it is embedded. The cache may fail
safely: a broken cache file is replaced by an empty one. Each model's rows carry the version of
the package its weights come from: vectors of another version are dropped, never reused.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

from codelens.models import release_freed_memory, weights_fingerprint

_SCHEMA = """CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash))"""
_VERSIONS = """CREATE TABLE IF NOT EXISTS model_versions (model TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)"""
_LOOKUP_BATCH = 500


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:32]


class EmbeddingCache:
    def __init__(self, path: Path, model: str) -> None:
        self.path = path
        self.model = model
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError:
            path.unlink(missing_ok=True)
            self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(_SCHEMA)
        db.execute(_VERSIONS)
        self._forget_other_versions(db)
        return db

    def _forget_other_versions(self, db: sqlite3.Connection) -> None:
        """Drop this model's vectors when another version of its weights wrote them."""
        fingerprint = weights_fingerprint(self.model)
        row = db.execute("SELECT fingerprint FROM model_versions WHERE model = ?", (self.model,)).fetchone()
        if row is not None and row[0] == fingerprint:
            return
        if row is not None:
            db.execute("DELETE FROM embeddings WHERE model = ?", (self.model,))
        db.execute("INSERT OR REPLACE INTO model_versions VALUES (?, ?)", (self.model, fingerprint))
        db.commit()

    def get_many(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        return _lookup(self._db, self.model, hashes)

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        try:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, text_hash, vector) VALUES (?, ?, ?)",
                [(self.model, key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in items],
            )
            self._db.commit()
        except sqlite3.OperationalError as exc:  # SQLite's word for a full disk: "disk I/O error"
            from codelens.errors import DatabaseError

            raise DatabaseError(f"cannot write the embedding cache {self.path} ({exc}): is the disk full? The index "
                                "is as it was and every batch before this one is kept; free some space and run "
                                "again") from exc

    def close(self) -> None:
        self._db.close()


def _lookup(db: sqlite3.Connection, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    unique = list(dict.fromkeys(hashes))
    for start in range(0, len(unique), _LOOKUP_BATCH):
        part = unique[start : start + _LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        rows = db.execute(
            f"SELECT text_hash, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})",
            [model, *part],
        )
        for key, blob in rows:
            found[key] = np.frombuffer(blob, dtype=np.float32)
    return found


def read_cached_vectors(path: Path, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """Read-only lookup for a process that searches while another one writes the cache:
    never creates or repairs the file; a missing or unreadable cache holds nothing."""
    if not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return {}
    try:
        row = db.execute("SELECT fingerprint FROM model_versions WHERE model = ?", (model,)).fetchone()
        if row is not None and row[0] != weights_fingerprint(model):
            return {}  # written by another version of the model: its writer drops them
        return _lookup(db, model, hashes)
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def embed_with_cache(
    texts: Sequence[str], embed: Callable[[list[str]], np.ndarray], dim: int, cache: EmbeddingCache | None,
    batch_size: int, *, desc: str = "Embedding", show_progress: bool = False, unit: str = "chunk",
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors (len(texts) x dim) for texts: from the cache where possible, else embedded in
    length-sorted batches (less padding work), each batch committed to the cache as soon as it
    is done, so a killed run resumes there. Returns (vectors, number of texts newly embedded)."""
    hashes = [text_hash(t) for t in texts]
    cached = cache.get_many(hashes) if cache else {}
    vectors = np.zeros((len(texts), dim), dtype=np.float32)
    missing: dict[str, int] = {}
    for i, key in enumerate(hashes):
        if key in cached and cached[key].shape[0] == dim:
            vectors[i] = cached[key]
        else:
            missing.setdefault(key, i)
    order = sorted(missing.values(), key=lambda i: len(texts[i]))
    with tqdm(total=len(order), unit=unit, desc=desc, disable=not show_progress or not order) as bar:
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            batch_vectors = embed([texts[i] for i in batch])
            release_freed_memory()
            if cache:
                cache.put_many((hashes[i], v) for i, v in zip(batch, batch_vectors, strict=True))
            vectors[batch] = batch_vectors
            bar.update(len(batch))
            if on_progress:
                on_progress(min(start + len(batch), len(order)), len(order))
    for i, key in enumerate(hashes):  # duplicates of a text embedded in this run
        if key in missing and missing[key] != i:
            vectors[i] = vectors[missing[key]]
    return vectors, len(order)


def lazy_encoder(load: Callable[[], Callable[[list[str]], np.ndarray]]) -> Callable[[list[str]], np.ndarray]:
    """An encode function whose model loads on the first call: a run that finds every
    vector in the cache never loads it (seconds, and torch's memory)."""
    loaded: list[Callable[[list[str]], np.ndarray]] = []

    def encode(texts: list[str]) -> np.ndarray:
        if not loaded:
            loaded.append(load())
        return loaded[0](texts)

    return encode
