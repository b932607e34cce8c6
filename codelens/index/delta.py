"""The delta: e5 vectors of chunks an incremental update (update.py) changed, kept beside
ChromaDB instead of written into it, so an update never copies or rewrites ChromaDB's files.

The dense leg searches ChromaDB and the delta together (a delta row replaces ChromaDB's row of
the same chunk id; ChromaDB rows of chunks no longer in the catalog are ignored). The next index
run folds the delta into ChromaDB (`fold_delta`) and drops it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codelens.index.layout import IndexLayout


@dataclass(frozen=True)
class Delta:
    """Chunks whose current e5 vectors are not in ChromaDB (they override its rows), and
    ChromaDB rows of chunks that are gone (the next index run deletes them)."""

    chunk_ids: tuple[str, ...] = ()
    vectors: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    removed: tuple[str, ...] = ()


def load_delta(folder: Path) -> Delta:
    return read_delta(IndexLayout(folder))


def read_delta(layout: IndexLayout) -> Delta:
    """The delta of the index in layout's folder; an empty one when there is none (or it is
    unreadable: then the index run that wrote the folder left none)."""
    try:
        meta = json.loads(layout.delta_ids.read_text(encoding="utf-8"))
        vectors = np.load(layout.delta_vectors)
    except (OSError, ValueError):
        return Delta()
    ids = tuple(meta.get("chunk_ids", ()))
    if vectors.ndim != 2 or vectors.shape[0] != len(ids):
        return Delta()
    return Delta(ids, vectors.astype(np.float32, copy=False), tuple(meta.get("removed", ())))


def save_delta(folder: Path, delta: Delta) -> None:
    layout = IndexLayout(folder)
    shutil.rmtree(layout.delta, ignore_errors=True)
    if not delta.chunk_ids and not delta.removed:
        return
    layout.delta.mkdir()
    layout.delta_ids.write_text(json.dumps({"chunk_ids": list(delta.chunk_ids), "removed": list(delta.removed)}),
                                encoding="utf-8")
    np.save(layout.delta_vectors, delta.vectors)
