"""The index an index run builds on, read once (`read_previous`) at the start of the run.

Its metadata, its manifest, the delta updates left beside ChromaDB, the English model its
vectors were made with and its sidecars found unlike their record: the run's plan and stages
(plan.py, stages.py) read this record as data and never open those files again. The run holds
the writer's lock from before this read to its swap, so nothing else changes them meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codelens.errors import DatabaseError
from codelens.index.delta import Delta, read_delta
from codelens.index.health import short_of_vectors, sidecars_unlike_written, vectors_damaged
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest
from codelens.index.metadata import IndexStats, read_metadata
from codelens.index.progressive import is_partial
from codelens.index.sidecar import Sidecar, recorded_english_key
from codelens.ingest.redaction import REDACTION_VERSION


@dataclass(frozen=True)
class Previous:
    """The index in the folder before the run (every field empty: none there)."""

    stats: IndexStats | None = None  # None: no index, or metadata that cannot be read
    held: Manifest | None = None  # the manifest the folder holds, whatever built it
    builds_on: Manifest | None = None  # the manifest this run builds on (None: a full build)
    updates: Delta = field(default_factory=Delta)  # what updates left beside ChromaDB (empty: a full build)
    english_key: str | None = None  # the English model its vectors were made with (None: the default)
    has_catalog: bool = False
    # of the index it builds on: the sidecars not as the last run wrote them (they are rebuilt)
    unlike_written: tuple[Sidecar, ...] = ()


def read_previous(layout: IndexLayout, model_id: str, full: bool, chroma_url: str) -> Previous:
    """The index in layout's folder, and its manifest when this run may build on it (same model,
    same masking rules, same place for the vectors, vectors that open); else a full build."""
    english_key = recorded_english_key(layout)
    if not layout.is_index():
        return Previous(english_key=english_key)
    held = Manifest.read(layout)
    try:
        stats = read_metadata(layout)
    except DatabaseError:
        return Previous(held=held, english_key=english_key)
    builds_on = held if not full and _may_build_on(stats, held, model_id, chroma_url, layout) else None
    updates = read_delta(layout) if builds_on is not None and not chroma_url else Delta()
    unlike = sidecars_unlike_written(layout, builds_on.sidecar_files) if builds_on is not None else ()
    if builds_on is not None and not chroma_url:
        unlike += tuple(s for s in short_of_vectors(layout, len(builds_on.chunks)) if s not in unlike)
    return Previous(stats, held, builds_on, updates, english_key, layout.catalog.is_file(), unlike)


def _may_build_on(stats: IndexStats, manifest: Manifest | None, model_id: str, chroma_url: str,
               layout: IndexLayout) -> bool:
    if manifest is None or manifest.model != model_id or stats.model != model_id:
        return False
    if not chroma_url and not is_partial(stats) and vectors_damaged(layout.root):
        return False  # the vectors cannot be copied forward: rebuild them (from the embedding cache)
    if stats.redaction_version != REDACTION_VERSION:
        return False  # stored under older masking rules: rebuild in full so no old text survives
    return stats.chroma_url == chroma_url
