"""Progressive indexing: searchable in seconds, dense vectors batch by batch, complete at the end.

A cold run over a codebase with no complete index first writes what is cheap (a chunk
catalog, the lexical index with the word bridge, the code graph, metadata with
`dense_coverage` 0) and swaps it in: the index answers from then on. Dense vectors then
arrive in batches, code before tests, each committed to the embedding cache (shared by every
index), with the coverage recorded in the live metadata. A search over such a partial index
uses exact cosine over the vectors the cache holds for its chunks plus the lexical leg (and
the bridge) for all of them. When every chunk has its vector, the normal build runs with
everything cached: ChromaDB, the MiniLM sidecar and the manifest, swapped in as one piece. The
run itself is stages.py's (`searchable_first`); this module holds the catalog and the partial
index a search reads.

A kill at any point after the first swap leaves a searchable index and loses no finished
batch; the next run rebuilds the cheap part (seconds) and embeds only what is missing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import orjson

from codelens.chunk import Chunk, stored_chunk
from codelens.index.embed_cache import CacheChoice, cached_vectors, read_index_vectors
from codelens.index.layout import IndexLayout
from codelens.index.metadata import IndexStats

_CHUNK_FIELDS = tuple(Chunk.__dataclass_fields__)
_FIELD_NAMES = frozenset(_CHUNK_FIELDS)


class CatalogEntry(NamedTuple):  # a tuple: a fresh search makes one per chunk (a frozen dataclass: 24 ms on SymPy)
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
    """The catalog save_catalog wrote into layout's folder (orjson: a fresh search reads every row)."""
    rows = orjson.loads(layout.catalog.read_bytes())
    entries = []
    for row in rows:  # each row becomes its chunk's fields in place
        text_hash = row.pop("text_hash")
        row["decorators"] = tuple(row.get("decorators") or ())
        row["line_spans"] = tuple(map(tuple, row.get("line_spans") or ()))
        row.setdefault("script_language", "")  # a catalog written before scripts were read by their `#!` line
        if row.keys() == _FIELD_NAMES:
            chunk = stored_chunk(row)
        else:  # a catalog of another version: the fields this one knows
            chunk = Chunk(**{key: row[key] for key in _CHUNK_FIELDS if key in row})
        entries.append(CatalogEntry(chunk, text_hash))
    return entries


def catalog_contents(layout: IndexLayout) -> dict[str, tuple[str, str]]:
    """Each chunk id of the catalog in layout's folder with its code and its embedded text's hash
    (only those fields read); empty when there is none or it cannot be read."""
    try:
        rows = json.loads(layout.catalog.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {row["chunk_id"]: (row.get("code"), row.get("text_hash")) for row in rows
            if isinstance(row, dict) and "chunk_id" in row} if isinstance(rows, list) else {}


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


# ---------------------------------------------------------------- the progressive run (stages.searchable_first)


def missing_vectors(cache: CacheChoice, model: str, hashes: Mapping[str, str]) -> int:
    """How many chunks the embedding cache holds no index-model vector for."""
    found = cached_vectors(cache, model, list(hashes.values()))
    return sum(1 for h in hashes.values() if h not in found)
