"""Indexing orchestration: source -> chunks -> vectors -> a new index swapped into place.

A rebuild is written into a sibling folder and renamed over the old index only when
complete, so an interrupted or failed run never leaves a half-written index behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from tqdm import tqdm

from codelens.chunk import KINDS, Chunk
from codelens.chunk_text import embedding_text
from codelens.chunking import chunk_file
from codelens.embedding import Embedder, load_embedder
from codelens.errors import DatabaseError, SourceError
from codelens.index_meta import IndexStats, is_codelens_index, write_stats
from codelens.settings import Settings
from codelens.source import list_python_files, open_codebase, read_source_text
from codelens.store import VectorStore

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class ChunkedCodebase:
    chunks: list[Chunk]
    files: int
    warnings: list[str]


def chunk_codebase(root: Path, max_file_bytes: int) -> ChunkedCodebase:
    """Read and chunk every Python file under root; problems become warnings."""
    chunks: list[Chunk] = []
    warnings: list[str] = []
    files = list_python_files(root)
    for source_file in files:
        text, warning = _read_file(source_file.abs_path, source_file.rel_path, max_file_bytes)
        if warning:
            warnings.append(warning)
        if text is None:
            continue
        result = chunk_file(source_file.rel_path, text)
        if result.warning:
            warnings.append(result.warning)
        chunks.extend(result.chunks)
    return ChunkedCodebase(chunks=chunks, files=len(files), warnings=warnings)


def _read_file(path: Path, rel_path: str, max_bytes: int) -> tuple[str | None, str | None]:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return None, f"{rel_path}: skipped, {size} bytes is over the {max_bytes}-byte limit"
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{rel_path}: unreadable ({exc})"
    text = read_source_text(raw)
    if text is None:
        return None, f"{rel_path}: skipped, binary content (NUL bytes)"
    return text, None


def embed_chunks(
    chunks: Sequence[Chunk], embedder: Embedder, settings: Settings,
    on_progress: ProgressCallback | None = None,
) -> np.ndarray:
    """Embed in batches of similar length (less padding work), with a progress bar."""
    texts = [embedding_text(c, settings.embed_code_chars) for c in chunks]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    with tqdm(total=len(texts), unit="chunk", desc="Embedding", disable=not settings.show_progress) as bar:
        for start in range(0, len(order), settings.batch_size):
            batch = order[start : start + settings.batch_size]
            vectors[batch] = embedder.embed_passages([texts[i] for i in batch])
            bar.update(len(batch))
            if on_progress:
                on_progress(min(start + len(batch), len(order)), len(order))
    return vectors


def build_index(
    source: Path, settings: Settings, embedder: Embedder | None = None,
    on_progress: ProgressCallback | None = None,
) -> IndexStats:
    """Index source into settings.db_path, replacing what is there only on success."""
    started = time.perf_counter()
    db_path = settings.db_path
    _check_db_target(db_path)
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="codelens-src-") as work_dir:
        codebase = open_codebase(source, Path(work_dir))
        chunked = chunk_codebase(codebase.root, settings.max_file_bytes)
        warnings = list(codebase.warnings) + chunked.warnings
    if not chunked.chunks:
        raise SourceError(f"no Python code found in {source} ({chunked.files} .py files)")
    timings["chunking"] = round(time.perf_counter() - started, 2)

    embedder = embedder or load_embedder(settings.model)
    mark = time.perf_counter()
    vectors = embed_chunks(chunked.chunks, embedder, settings, on_progress)
    timings["embedding"] = round(time.perf_counter() - mark, 2)

    mark = time.perf_counter()
    build_dir = _fresh_build_dir(db_path)
    try:
        store = VectorStore(build_dir, settings.collection, create=True)
        store.upsert(chunked.chunks, vectors)
        store.close()
        timings["storing"] = round(time.perf_counter() - mark, 2)
        stats = IndexStats(
            source=str(source), files=chunked.files, total_chunks=len(chunked.chunks),
            chunks_per_kind=_count_kinds(chunked.chunks), model=embedder.model_id,
            indexed_at=datetime.now(UTC).isoformat(timespec="seconds"),
            duration_s=round(time.perf_counter() - started, 2), warnings=warnings,
            collection=settings.collection, text_budget=settings.embed_code_chars,
            timings_s=timings,
        )
        write_stats(build_dir, stats)
        _swap_into_place(build_dir, db_path)
    except BaseException:
        shutil.rmtree(build_dir, ignore_errors=True)
        raise
    return stats


def _count_kinds(chunks: Sequence[Chunk]) -> dict[str, int]:
    counts = Counter(c.kind for c in chunks)
    return {kind: counts.get(kind, 0) for kind in KINDS}


def _check_db_target(db_path: Path) -> None:
    """Refuse a --db we cannot write or that holds something other than a CodeLens index."""
    if db_path.exists() and not db_path.is_dir():
        raise DatabaseError(f"--db {db_path} is a file, not a folder - choose another path")
    if db_path.is_dir() and any(db_path.iterdir()) and not is_codelens_index(db_path):
        raise DatabaseError(
            f"--db {db_path} holds files that are not a CodeLens index - refusing to replace "
            "them; choose an empty or new folder"
        )
    parent = db_path.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseError(f"cannot create {parent} for the index: {exc}") from exc
    if not os.access(parent, os.W_OK):
        raise DatabaseError(f"cannot write the index: {parent} is not writable")


def _fresh_build_dir(db_path: Path) -> Path:
    parent = db_path.resolve().parent
    try:
        return Path(tempfile.mkdtemp(prefix=f".{db_path.name}.building-", dir=parent))
    except OSError as exc:
        raise DatabaseError(f"cannot write the index next to {db_path}: {exc}") from exc


def _swap_into_place(build_dir: Path, db_path: Path) -> None:
    """Two renames: the old index is never deleted before the new one is in place."""
    old_dir = None
    if db_path.exists():
        old_dir = Path(tempfile.mkdtemp(prefix=f".{db_path.name}.old-", dir=build_dir.parent))
        old_dir.rmdir()
        os.replace(db_path, old_dir)
    os.replace(build_dir, db_path)
    if old_dir is not None:
        shutil.rmtree(old_dir, ignore_errors=True)
