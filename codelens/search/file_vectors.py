"""What a whole file is about: the mean of its chunks' e5 vectors, one row per file.

A question about how something works is often answered by a file rather than one function:
the `file-meaning` stage (ranking.py) lets a chunk gain when its file as a whole is close to
the question. Built at index time beside the vectors (`build_file_vectors`), loaded with the
index; chunks without a path (snippet corpora) have no file and are left alone.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput, read_rows, write_rows


@dataclass(frozen=True)
class FileVectors:
    paths: tuple[str, ...]
    vectors: np.ndarray  # (files, dim), unit length
    rows: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_chunks(cls, chunks: Mapping[str, Chunk], chunk_vectors: Mapping[str, np.ndarray]) -> FileVectors:
        """Each file's normalised mean over the chunks that have a vector."""
        by_path: dict[str, list[np.ndarray]] = {}
        for chunk_id, vector in chunk_vectors.items():
            chunk = chunks.get(chunk_id)
            if chunk is not None and chunk.path:
                by_path.setdefault(chunk.path, []).append(np.asarray(vector, dtype=np.float32))
        paths = tuple(sorted(by_path))
        if not paths:
            return cls((), np.zeros((0, 0), dtype=np.float32))
        means = np.stack([np.mean(by_path[p], axis=0) for p in paths]).astype(np.float32)
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        return cls(paths, means, {p: i for i, p in enumerate(paths)})

    def similarity(self, query_vector: np.ndarray, paths: Sequence[str]) -> np.ndarray:
        """Cosine of the question and each path's file; NaN for a path with no file vector."""
        rows = [self.rows.get(p, -1) for p in paths]
        known = np.asarray([r >= 0 for r in rows])
        result = np.full(len(paths), np.nan, dtype=np.float32)
        if known.any() and query_vector is not None:
            picked = self.vectors[[r for r in rows if r >= 0]]
            result[known] = picked @ np.asarray(query_vector, dtype=np.float32)
        return result


def save_file_vectors(folder: Path, files: FileVectors) -> None:
    layout = IndexLayout(folder)
    write_rows(layout.file_vector_paths, layout.file_vector_matrix, files.paths, files.vectors)


def build_file_vectors_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: file means of the index model's chunk vectors
    (`SidecarInput.index_vectors`); a chunk none holds is left out of its file's mean."""
    target = IndexLayout(build.build_dir).file_vectors
    shutil.rmtree(target, ignore_errors=True)  # the build folder starts as a copy of the old index
    by_id = {c.chunk_id: c for c in build.chunks}
    files = FileVectors.from_chunks(by_id, build.index_vectors)
    if files.paths:
        save_file_vectors(build.build_dir, files)


def load_file_vectors(folder: Path) -> FileVectors | None:
    """The index's file vectors, or None (an older index, or a partial one: the stage is then off)."""
    layout = IndexLayout(folder)
    rows = read_rows(layout.file_vector_paths, layout.file_vector_matrix)
    if rows is None:
        return None
    paths, vectors = rows
    return FileVectors(paths, vectors, {p: i for i, p in enumerate(paths)})


FILE_VECTORS_SIDECAR = Sidecar("build_file_vectors_sidecar", build_file_vectors_sidecar,
                               lambda layout: (layout.file_vectors,), checks=(load_file_vectors,), chunk_vectors=True,
                               index_vectors=True,
                               cost=WorkCost("file vectors", 0.0002))
