"""Embeddings cached by (model, hash of the embedded text) in SQLite.

Unchanged, moved or renamed code is never embedded twice, and an interrupted run
resumes: each batch is committed as soon as it is embedded. The cache may fail
safely: a broken cache file is replaced by an empty one.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

_SCHEMA = """CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, text_hash))"""
_LOOKUP_BATCH = 500


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:32]


def cache_path_for(db_path: Path) -> Path:
    """Beside the index folder, not inside it: it must outlive a swapped or killed build."""
    return db_path.resolve().parent / f".{db_path.name}.embeddings.sqlite"


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
        return db

    def get_many(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), _LOOKUP_BATCH):
            part = unique[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE model = ? AND text_hash IN ({marks})",
                [self.model, *part],
            )
            for key, blob in rows:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO embeddings (model, text_hash, vector) VALUES (?, ?, ?)",
            [(self.model, key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in items],
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()
