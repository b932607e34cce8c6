"""The dense leg's sidecar: the e5 vectors of ChromaDB's collection as one matrix beside it.

A search reads this matrix and takes exact cosines over it, so a process that only
searches never imports ChromaDB nor opens its client (1.5 s of a fresh `codelens context`, most of
a fresh `codelens search`). Built at index time from the embedding cache, as the file vectors are
(this run put every vector there), with the chunks ChromaDB holds: every chunk but the test chunks
whose vectors follow the swap (rebuilt once they are in). The searcher checks that it holds every
chunk ChromaDB should; when it does not (a cache deleted since, an index older than this sidecar,
a ChromaDB server) the leg asks ChromaDB as before.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput, read_rows, write_rows


@dataclass(frozen=True)
class DenseVectors:
    chunk_ids: tuple[str, ...]
    vectors: np.ndarray  # (chunks, dim), unit length, as ChromaDB holds them

    def covers(self, wanted: Collection[str]) -> bool:
        """Whether every chunk in `wanted` has its row here."""
        return set(self.chunk_ids).issuperset(wanted)

    def without(self, hidden: Collection[str]) -> DenseVectors:
        """The rows of every chunk but `hidden` (an update's delta holds their new vectors)."""
        if not hidden:
            return self
        keep = [i for i, chunk_id in enumerate(self.chunk_ids) if chunk_id not in hidden]
        return DenseVectors(tuple(self.chunk_ids[i] for i in keep), self.vectors[keep])


def build_dense_sidecar(build: SidecarInput) -> None:
    """Sidecar builder: every chunk's e5 vector (`SidecarInput.index_vectors`), but the chunks whose vectors
    follow the swap. A chunk none holds is left out, and the searcher then asks ChromaDB."""
    target = IndexLayout(build.build_dir).dense
    shutil.rmtree(target, ignore_errors=True)  # the build folder starts as a copy of the old index
    if build.vectors_elsewhere:  # on a ChromaDB server: no copy of them here
        return
    vectors = build.index_vectors
    ids = [chunk_id for chunk_id in build.text_hashes if chunk_id in vectors]
    if not ids:
        return
    save_dense_vectors(build.build_dir, ids, np.stack([vectors[i] for i in ids]))


def save_dense_vectors(folder: Path, chunk_ids: Sequence[str], vectors: np.ndarray) -> None:
    layout = IndexLayout(folder)
    write_rows(layout.dense_ids, layout.dense_vectors, chunk_ids, vectors)


def load_dense_vectors(folder: Path) -> DenseVectors | None:
    """The index's vector matrix, or None: none there, or unreadable. Read whole, not mapped: a file
    rewritten in place under a mapping kills the process (SIGBUS), and reading it takes milliseconds."""
    layout = IndexLayout(folder)
    rows = read_rows(layout.dense_ids, layout.dense_vectors)
    if rows is None or rows[1].dtype != np.float32:
        return None
    return DenseVectors(*rows)


DENSE_SIDECAR = Sidecar("build_dense_sidecar", build_dense_sidecar, lambda layout: (layout.dense,),
                        checks=(load_dense_vectors,), chunk_vectors=True, index_vectors=True,
                        cost=WorkCost("dense vectors", 0.0001))
