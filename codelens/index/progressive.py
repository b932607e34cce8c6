"""Progressive indexing: searchable in seconds, dense vectors batch by batch, complete at the end.

A cold run over a codebase with no complete index first writes what is cheap (a chunk
catalog, the lexical index with the word bridge, the code graph, metadata with
`dense_coverage` 0) and swaps it in: the index answers from then on. Dense vectors then
arrive in batches, code before tests, each committed to the embedding cache (shared by every
index), with the coverage recorded in the live metadata. A search over such a partial index
uses exact cosine over the vectors the cache holds for its chunks plus the lexical leg (and
the bridge) for all of them. When every chunk has its vector, the normal build runs with
everything cached: ChromaDB, the MiniLM sidecar and the manifest, swapped in as one piece.

A kill at any point after the first swap leaves a searchable index and loses no finished
batch; the next run rebuilds the cheap part (seconds) and embeds only what is missing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import CacheChoice, cached_vectors, embed_with_cache, open_cache, read_index_vectors
from codelens.index.folder import held_work_dir
from codelens.index.layout import IndexLayout
from codelens.index.metadata import IndexStats, write_metadata
from codelens.index.registry import late_partial_sidecars
from codelens.index.sidecar import SidecarInput
from codelens.models import Embedder

COVERAGE_WRITE_S = 1.0  # the live metadata is rewritten at most this often while embedding
_CHUNK_FIELDS = tuple(Chunk.__dataclass_fields__)


@dataclass(frozen=True)
class CatalogEntry:
    chunk: Chunk
    text_hash: str  # key of the chunk's index-model vector in the embedding cache


def save_catalog(folder: Path, entries: Sequence[CatalogEntry]) -> None:
    """Every chunk with the hash of its embedded text: what a partial index searches over."""
    # vars(), not asdict(): asdict deep-copies every field (3.7 s for pydantic's 2,400 chunks)
    rows = [{**vars(e.chunk), "text_hash": e.text_hash} for e in entries]
    IndexLayout(folder).catalog.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")


def load_catalog(folder: Path) -> list[CatalogEntry]:
    return read_catalog(IndexLayout(folder))


def read_catalog(layout: IndexLayout) -> list[CatalogEntry]:
    """The catalog save_catalog wrote into layout's folder."""
    rows = json.loads(layout.catalog.read_text(encoding="utf-8"))
    entries = []
    for row in rows:
        fields = {key: row[key] for key in _CHUNK_FIELDS if key in row}
        fields["decorators"] = tuple(fields.get("decorators") or ())
        fields["line_spans"] = tuple(tuple(span) for span in fields.get("line_spans") or ())
        entries.append(CatalogEntry(Chunk(**fields), row["text_hash"]))
    return entries


def is_partial(stats: IndexStats) -> bool:
    return stats.dense_coverage < 1.0


def coverage_line(stats: IndexStats) -> str:
    """One line for `stats`, the index summary and the app: how much of the index has vectors."""
    embedded = round(stats.dense_coverage * stats.total_chunks)
    line = f"Dense coverage: {stats.dense_coverage:.0%} ({embedded}/{stats.total_chunks} chunks)"
    if is_partial(stats):
        line += (" - search uses these vectors plus keywords for the rest; "
                 "an index run is adding them (or was stopped: run the index command again to finish)")
    return line


# ---------------------------------------------------------------- search over a partial index


@dataclass(frozen=True)
class PartialIndex:
    chunks: dict[str, Chunk]
    vector_ids: tuple[str, ...]  # chunks that have a dense vector yet
    vectors: np.ndarray

    @property
    def coverage(self) -> float:
        return len(self.vector_ids) / len(self.chunks) if self.chunks else 1.0


def open_partial_index(index_dir: Path, model: str) -> PartialIndex:
    """The catalog's chunks and whatever vectors the embedding cache holds for them now."""
    entries = load_catalog(index_dir)
    found = read_index_vectors(index_dir, model, [e.text_hash for e in entries])
    with_vector = [e for e in entries if e.text_hash in found]
    dim = next(iter(found.values())).shape[0] if found else 0
    vectors = np.stack([found[e.text_hash] for e in with_vector]) if with_vector else np.zeros((0, dim), np.float32)
    return PartialIndex({e.chunk.chunk_id: e.chunk for e in entries},
                        tuple(e.chunk.chunk_id for e in with_vector), vectors)


# ---------------------------------------------------------------- the progressive run


@dataclass(frozen=True)
class PhaseOne:
    """What the indexer hands the progressive phase once its first swap is in (stages.searchable_first)."""

    layout: IndexLayout  # the index folder
    chunks: Sequence[Chunk]
    texts: Mapping[str, str]  # chunk id -> the index model's embedded text
    hashes: Mapping[str, str]  # chunk id -> text hash
    sources: Mapping[str, str]
    stats: IndexStats  # the metadata of the finished index, less what only the end knows
    show_progress: bool = False
    cache: CacheChoice = field(default_factory=lambda: CacheChoice(None))  # the run's (embed_cache.choose_cache)


def missing_vectors(cache: CacheChoice, model: str, hashes: Mapping[str, str]) -> int:
    """How many chunks the embedding cache holds no index-model vector for."""
    found = cached_vectors(cache, model, list(hashes.values()))
    return sum(1 for h in hashes.values() if h not in found)


def embed_progressively(phase: PhaseOne, embedder: Embedder, batch_size: int,
                        on_progress: Callable[[int, int], None] | None = None, tests: bool = True) -> int:
    """Embed every chunk the cache lacks, code before tests, each batch committed to the cache
    and the live index's coverage updated. Returns how many texts were embedded. tests False:
    the test chunks' vectors follow the complete index (test_vectors.py)."""
    cache = open_cache(phase.cache.path, embedder.model_id)
    total = len(phase.chunks)
    covered = total - missing_vectors(phase.cache, embedder.model_id, phase.hashes)
    embedded = 0
    last_write = 0.0

    def record(done: int, _todo: int) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write >= COVERAGE_WRITE_S:
            last_write = now
            _write_coverage(phase, (covered + embedded + done) / total)
        if on_progress:
            on_progress(covered + embedded + done, total)

    try:
        add_late_sidecars(phase)
        for group in (False, True) if tests else (False,):  # non-test code first: it answers most questions
            texts = [phase.texts[c.chunk_id] for c in phase.chunks if c.is_test == group]
            _, count = embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache, batch_size,
                                        desc="Dense vectors" + (" (tests)" if group else ""),
                                        show_progress=phase.show_progress, on_progress=record)
            embedded += count
    finally:
        if cache:
            cache.close()
        _write_coverage(phase, None)  # recounted: exact after an interruption too
    return embedded


def add_late_sidecars(phase: PhaseOne) -> None:
    """Build the `after_partial` sidecars (the word bridge: the code's words embedded for the
    Russian->English bridge, cached, resumable) and put them into the live partial index. Not
    before the first swap: e5 over a large vocabulary takes longer than everything else that
    phase does."""
    for sidecar in late_partial_sidecars():
        # outside the writer's lock: a killed run's leftover is cleaned like a build's, a live one is held
        with held_work_dir(phase.layout, "bridge-") as work:
            sidecar.build(SidecarInput(work, phase.chunks, phase.sources, phase.cache.path, phase.show_progress))
            for made, live in zip(sidecar.paths(IndexLayout(work)), sidecar.paths(phase.layout), strict=True):
                _move_in(made, live)
    _write_coverage(phase, None)  # a new metadata version: searchers reopen with the bridge


def _move_in(made: Path, live: Path) -> None:
    """A built file, or each file of a built folder, renamed over the live one: each rename is
    atomic, and a sidecar missing one of its files reads as absent (the bridge: "no bridge")."""
    if not made.is_dir():
        os.replace(made, live)
        return
    live.mkdir(exist_ok=True)
    for file in sorted(made.iterdir()):
        os.replace(file, live / file.name)


def _write_coverage(phase: PhaseOne, coverage: float | None) -> None:
    """Record coverage in the live (partial) metadata; a partial index stays below 1 until
    the complete build replaces it. None: recount from the cache (after an interruption). The
    live metadata is the phase's: this run wrote it at the first swap and holds the lock since."""
    if coverage is None:
        total = len(phase.chunks)
        coverage = (total - missing_vectors(phase.cache, phase.stats.model, phase.hashes)) / max(1, total)
    write_metadata(phase.layout, replace(phase.stats, dense_coverage=min(round(coverage, 4), 0.999)))
