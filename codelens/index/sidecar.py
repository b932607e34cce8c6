"""A sidecar, declared once by the leg that owns it, and what the indexer hands its builder.

Each leg declares its sidecar as a `Sidecar` (its builder, its files under `IndexLayout`, how
each loads, whether a progressive run's partial index has it); `codelens/search/sidecars.py`
lists them and hands the list to `index/registry.py`, which the index run, the progressive run,
the incremental update and the health checks read: index/ never imports a leg.
A sidecar lives inside the index folder being built. Builders that embed text (the word
bridge, the English vectors) go through the same embedding cache as the index model (the one
shared by every index, embed_cache.py), so a killed run resumes them too and a text seen by
any index is never embedded twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import embed_with_cache, open_cache, read_cached_vectors
from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import UNWEIGHED, WorkCost
from codelens.models import ENGLISH_MODEL_KEYS, english_model


@dataclass(frozen=True)
class SidecarInput:
    build_dir: Path  # the index folder being built (a copy of the previous index, or empty)
    chunks: Sequence[Chunk]  # every chunk of the codebase, not only the changed ones
    sources: Mapping[str, str]  # rel_path -> file text (secrets masked)
    cache_path: Path | None = None  # the run's embedding cache (embed_cache.choose_cache); None: no cache
    show_progress: bool = False
    index_model: str = ""  # the index model's cache key, for builders that read its vectors
    text_hashes: Mapping[str, str] = field(default_factory=dict)  # chunk id -> hash of its index-model text
    english_model: str = ENGLISH_MODEL_KEYS[0]  # the English leg's model (search/english.py ENGLISH_MODELS)
    # An incremental update's changed files (rel paths; None: every file may have changed):
    # a builder may then reuse what the build folder (a copy of the index) holds for the rest.
    changed_paths: frozenset[str] | None = None
    # Chunks whose vectors follow the swap (index/test_vectors.py): the sidecars of per-chunk
    # vectors (English vectors, file means) leave them out until they are in.
    without_vectors: frozenset[str] = frozenset()
    # The path labels of a workspace's repositories (workspace.Repository.label; empty: one repository):
    # the code graph resolves each repository's imports inside it first.
    repository_labels: tuple[str, ...] = ()
    # The index's vectors live on a ChromaDB server (`--chroma-url`): no builder keeps a copy of them here.
    vectors_elsewhere: bool = False
    # Where the index model's vectors the cache lacks are read, by chunk id (`index_vectors`): an index run's
    # build folder's ChromaDB (it has just stored them), an update's live dense sidecar (`held_vectors`)
    stored: Callable[[Sequence[str]], Mapping[str, np.ndarray]] | None = None

    def embed(self, texts: Sequence[str], model: str, embed: Callable[[list[str]], np.ndarray], dim: int,
              batch_size: int, desc: str, unit: str = "chunk") -> np.ndarray:
        """Vectors of texts under a cache key `model`, embedding only what the cache lacks."""
        cache = open_cache(self.cache_path, model)
        try:
            vectors, _ = embed_with_cache(texts, embed, dim, cache, batch_size, desc=desc,
                                          show_progress=self.show_progress, unit=unit)
        finally:
            if cache:
                cache.close()
        return vectors

    @cached_property
    def index_vectors(self) -> dict[str, np.ndarray]:
        """Each chunk's index-model vector, but those that follow the swap (`without_vectors`): from the embedding
        cache, and what it lacks from `stored`. A chunk whose text did not change is not embedded again, and the
        machine's cache may have evicted its vector since it was (its least recently used go first): trpc's file
        means came from 6 of its 574 chunks after a run that re-chunked it, its semble nDCG@10 0.864 -> 0.813.
        {} without a cache."""
        if self.cache_path is None or not self.index_model:
            return {}
        wanted = {chunk_id: text_hash for chunk_id, text_hash in self.text_hashes.items()
                  if chunk_id not in self.without_vectors}
        cached = read_cached_vectors(self.cache_path, self.index_model, list(set(wanted.values())))
        vectors = {chunk_id: cached[text_hash] for chunk_id, text_hash in wanted.items() if text_hash in cached}
        missing = [chunk_id for chunk_id in wanted if chunk_id not in vectors]
        if missing and self.stored is not None:
            vectors.update(self.stored(missing))
        return vectors


def held_vectors(layout: IndexLayout, changed_paths: frozenset[str], chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors an index's dense sidecar holds of these chunks, but those of the changed files (their
    text may be new): what an incremental update reads where the cache lacks a vector (it never opens
    ChromaDB, whose files it shares with the live index)."""
    rows = read_rows(layout.dense_ids, layout.dense_vectors)
    if rows is None:
        return {}
    row_of = {chunk_id: i for i, chunk_id in enumerate(rows[0])}
    return {chunk_id: rows[1][row_of[chunk_id]] for chunk_id in chunk_ids
            if chunk_id in row_of and chunk_id.split("::", 1)[0] not in changed_paths}


SidecarBuilder = Callable[[SidecarInput], None]


@dataclass(frozen=True)
class Sidecar:
    """One leg's structure beside the vectors, declared once (listed by codelens/search/sidecars.py)."""

    name: str  # recorded in the manifest: a change of the list rebuilds the sidecars
    build: SidecarBuilder
    paths: Callable[[IndexLayout], tuple[Path, ...]]  # its files and folders inside an index folder
    in_partial: bool = False  # built into a progressive run's first, searchable swap
    # An incremental update swaps the searchable state in first and rebuilds this one in a
    # second swap right after (index/update.py: `refresh_deferred`): it is slow and no search
    # result depends on it being current to the second.
    after_update: bool = False
    # Fills what its builder remembers per chunk (a long-lived watcher calls it once at start).
    prewarm: Callable[[Sequence[Chunk]], None] | None = None
    # Loads each of `paths` from an index folder, in the same order (health.damaged_sidecars: a
    # path that exists is damaged when its loader raises or returns None).
    checks: tuple[Callable[[Path], object], ...] = ()
    # Holds a vector per chunk (English vectors, file means): rebuilt once the test chunks'
    # vectors are in (index/test_vectors.py).
    chunk_vectors: bool = False
    # Built from the index model's vectors (`SidecarInput.index_vectors`: the dense matrix, the file means):
    # rebuilt when the dense matrix holds fewer rows than the index has chunks with vectors (health.py)
    index_vectors: bool = False
    # Built into the live partial index right after a progressive run's first swap, before the
    # e5 vectors (stages.add_late_sidecars): too slow for that first swap, wanted long before the end.
    after_partial: bool = False
    # What building it costs, for the index run's one progress (index/progress_stages.py): its step's name,
    # seconds per chunk (or per word), and whether only the chunks whose text is new this run count.
    cost: WorkCost = UNWEIGHED


def write_rows(names_path: Path, matrix_path: Path, names: Sequence[str], vectors: np.ndarray) -> None:
    """A sidecar of one vector per name: the names as a JSON list, the vectors as a float32 matrix."""
    names_path.parent.mkdir(parents=True, exist_ok=True)
    names_path.write_text(json.dumps(list(names)), encoding="utf-8")
    np.save(matrix_path, np.asarray(vectors, dtype=np.float32))


def read_rows(names_path: Path, matrix_path: Path) -> tuple[tuple[str, ...], np.ndarray] | None:
    """What write_rows wrote, read whole, or None: missing, unreadable, or the rows not the names'."""
    try:
        names = tuple(json.loads(names_path.read_text(encoding="utf-8")))
        vectors = np.load(matrix_path)
    except (OSError, ValueError, TypeError):
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(names):
        return None
    return names, vectors


def recorded_english_key(layout: IndexLayout) -> str | None:
    """The `--english-model` key of the English vectors an index holds (the ids file
    search/english.py writes beside them), or None: what a run without the flag keeps."""
    try:
        meta = json.loads(layout.english_ids.read_text(encoding="utf-8"))
        return english_model(str(meta.get("model"))).key
    except (OSError, ValueError, AttributeError):
        return None
