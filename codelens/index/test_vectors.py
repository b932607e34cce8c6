"""Test chunks' vectors off the critical path: a complete index first, its test vectors after.

Every search leaves test code out by default (`SearchFilters.include_tests`), yet the test
chunks' e5 and English-model vectors were about 30% of a first index's embedding (issue 31). An
index run with many test vectors to embed (`deferred_tests`) stores the other chunks' vectors and
swaps in a complete index whose metadata says `test_coverage` < 1: a default search over it is
the search over the full index. `finish_test_vectors` then embeds the test chunks (each batch
committed to the embedding cache), upserts them into a copy of the folder with the vector
sidecars (English vectors, file means) rebuilt, and swaps that in with `test_coverage` 1.

Nothing is lost on a kill: the manifest records a fingerprint only for chunks whose vectors the
index holds, so a run stopped before its test vectors are in leaves a complete index whose
manifest lacks the test chunks. The next index run sees them as changed and embeds them (what
was embedded before is in the cache), and never calls that index unchanged. The finisher needs
only the index folder (catalog, manifest, metadata): the index run calls it right after its
swap, and an `--include-tests` search over an index whose test vectors are missing calls it first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.errors import CodeLensError
from codelens.index.embed_cache import CacheChoice, cached_vectors, choose_cache, read_index_vectors, text_hash
from codelens.index.embedding import embed_through_cache
from codelens.index.folder import held_work_dir, index_lock, writing
from codelens.index.health import sidecar_checksums
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, chunk_fingerprint
from codelens.index.metadata import IndexStats, read_metadata
from codelens.index.progress import step_begins
from codelens.index.progress_stages import TESTS_SWAP
from codelens.index.progressive import CatalogEntry, load_catalog, read_catalog
from codelens.index.registry import chunk_vector_sidecars
from codelens.index.sidecar import SidecarInput, held_vectors, recorded_english_key
from codelens.index.steps import build_sidecars, building, publish
from codelens.index.store import VectorStore
from codelens.ingest.embed_text import embedding_text
from codelens.models import ENGLISH_MODEL_KEYS, Embedder
from codelens.settings import Settings
from codelens.workspace import repository_labels

FINISH_LOCK_WAIT_S = 600.0  # an index run waits this long for a watcher's update before swapping its tests in


def deferred_tests(chunks: Sequence[Chunk], texts: Mapping[str, str], cache: CacheChoice, model: str,
                   settings: Settings) -> frozenset[str]:
    """The test chunks among those an index run is about to store whose vectors should follow
    the swap: those the cache has no vector for, when at least `progressive_min_chunks` of them
    (fewer embed in seconds: one swap), and other chunks to store besides. Empty for a
    server-side build (built in one piece) or with CODELENS_PROGRESSIVE=0."""
    if not settings.progressive or settings.chroma_url:
        return frozenset()
    tests = [c for c in chunks if c.is_test]
    # nothing else to store (the run after one stopped before its tests): one swap
    if len(tests) < max(1, settings.progressive_min_chunks) or len(tests) == len(chunks):
        return frozenset()
    hashes = {c.chunk_id: text_hash(texts[c.chunk_id]) for c in tests}
    cached = cached_vectors(cache, model, list(set(hashes.values())))
    missing = frozenset(chunk_id for chunk_id, h in hashes.items() if h not in cached)
    return missing if len(missing) >= max(1, settings.progressive_min_chunks) else frozenset()


def tests_share_with_vectors(chunks: Iterable[Chunk], with_vectors: Collection[str]) -> float:
    """Share of the test chunks whose vectors the index holds (1.0 with no test chunk); below 1
    whenever one is missing, however many there are."""
    tests = [c.chunk_id for c in chunks if c.is_test]
    if not tests:
        return 1.0
    covered = sum(1 for chunk_id in tests if chunk_id in with_vectors)
    return 1.0 if covered == len(tests) else min(round(covered / len(tests), 4), 0.9999)


@dataclass(frozen=True)
class TestsDue:
    """An index whose test chunks' vectors are missing, as `tests_due` reads it from its folder."""

    stats: IndexStats
    catalog: list[CatalogEntry]
    pending: list[CatalogEntry]  # the catalog's chunks the manifest has no fingerprint for
    english_key: str  # the English model of its vectors (sidecar.recorded_english_key)
    manifest: Manifest | None = None


def tests_due(layout: IndexLayout) -> TestsDue | None:
    """The index's pending test chunks, read at once; None when its metadata says none are
    missing, or it is no index to finish."""
    try:
        stats = read_metadata(layout)
        if stats.test_coverage >= 1.0:
            return None
        manifest = Manifest.read(layout)
        catalog = read_catalog(layout)
    except (CodeLensError, OSError, ValueError, KeyError, TypeError):  # no index, or not one to finish
        return None
    if manifest is None:
        return None
    pending = [e for e in catalog if e.chunk.chunk_id not in manifest.chunks]
    if not pending:
        return None
    return TestsDue(stats, catalog, pending, recorded_english_key(layout) or ENGLISH_MODEL_KEYS[0], manifest)


def pending_tests(index_dir: Path) -> list[CatalogEntry]:
    """The catalog's chunks whose vectors the complete index in index_dir lacks (those the
    manifest has no fingerprint for); empty when its metadata says none are missing."""
    due = tests_due(IndexLayout(index_dir))
    return due.pending if due is not None else []


def pending_tests_line(stats: IndexStats, index_dir: Path | None = None) -> str:
    """One line for `stats` and the index summary while test vectors are missing ("" when none
    are): the share the index holds and, given its folder, how many the cache holds already
    (an index run embedding them now: its progress; stopped: what the next run need not embed)."""
    if stats.test_coverage >= 1.0:
        return ""
    counts = ""
    if index_dir is not None:
        pending, tests = pending_tests(index_dir), _test_chunks(index_dir)
        cached = read_index_vectors(index_dir, stats.model, [e.text_hash for e in pending])
        ready = sum(1 for e in pending if e.text_hash in cached)
        counts = f" ({tests - len(pending)}/{tests} test chunks" + (f", {ready} more embedded" if ready else "") + ")"
    return (f"Test vectors: {stats.test_coverage:.0%}{counts} - default searches leave tests out and are "
            "complete; test chunks are found by keywords until their vectors are in (an index run, a "
            "watcher or `search --include-tests` adds them)")


def _test_chunks(index_dir: Path) -> int:
    try:
        return sum(1 for e in load_catalog(index_dir) if e.chunk.is_test)
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def finish_test_vectors(index_dir: Path, settings: Settings, embedder: Embedder | None = None,
                        on_progress: Callable[[int, int], None] | None = None,
                        lock_wait_s: float = 0.0) -> IndexStats | None:
    """Embed the test chunks the index in index_dir has no vectors for and swap in the index
    with them (see the module's docstring). None when none were missing."""
    layout = IndexLayout(index_dir)  # the folder, from here on
    due = tests_due(layout)
    if due is None:
        return None
    return add_test_vectors(layout, due, choose_cache(layout, settings.embed_cache_mb), settings, embedder,
                            on_progress, lock_wait_s=lock_wait_s)


def add_test_vectors(layout: IndexLayout, due: TestsDue, cache: CacheChoice, settings: Settings,
                     embedder: Embedder | None = None, on_progress: Callable[[int, int], None] | None = None,
                     started: float | None = None, lock_wait_s: float = 0.0) -> IndexStats | None:
    """The vectors of `due`'s pending test chunks embedded, and the index with them swapped in
    (None: none were missing by then). The embedding needs no lock (the cache takes concurrent
    writers), so a watcher's update is not held up by it; the writer's lock is taken for the
    swap only (waiting up to lock_wait_s for another writer), and the swap reads the folder again.
    `started`: the index run's clock, for its duration. The index run hands its own `due`."""
    mark = time.perf_counter()
    with held_work_dir(layout, "tests-") as scratch:  # held: a writer's clean-up leaves it alone
        # every vector into the cache now, outside the lock: the swap does the same work from the cache
        _, embedded, embedder = _vectors_and_sidecars(scratch, layout, due, _texts(due.pending, due.stats), cache.path,
                                                      settings, embedder, on_progress)
    step_begins(TESTS_SWAP)  # an index run's progress (index/progress.py)
    with writing(layout, wait_s=lock_wait_s):
        return _swap_in(layout, settings, embedder, cache.path, embedded, mark, started)


def _swap_in(layout: IndexLayout, settings: Settings, embedder: Embedder, cache_path: Path | None, embedded: int,
             mark: float, started: float | None) -> IndexStats | None:
    """Under the writer's lock: the index with every pending test vector, swapped in."""
    due = tests_due(layout)  # again: an update may have changed some meanwhile
    if due is None:
        return None
    stats, manifest, pending = due.stats, due.manifest, due.pending
    texts = _texts(pending, stats)
    with building(layout, copy_from=layout) as build_dir:
        vectors, more, _ = _vectors_and_sidecars(build_dir, layout, due, texts, cache_path, settings, embedder)
        store = VectorStore(build_dir, stats.collection, create=True)
        store.upsert([e.chunk for e in pending], vectors)
        store.close()
        chunks = {**manifest.chunks, **{e.chunk.chunk_id: chunk_fingerprint(e.chunk, text_hash(text))
                                        for e, text in zip(pending, texts, strict=True)}}
        # the rebuilt vector sidecars' files as now written (the unchanged check compares them by stat)
        replace(manifest, chunks=chunks, sidecar_files=sidecar_checksums(build_dir)).save(build_dir)
        timings = {**stats.timings_s, "test_vectors": round(time.perf_counter() - mark, 2)}
        run = {**stats.run, "embedded": stats.run.get("embedded", 0) + embedded + more}
        finished = replace(stats, test_coverage=tests_share_with_vectors((e.chunk for e in due.catalog), chunks),
                           run=run, timings_s=timings,
                           duration_s=round(time.perf_counter() - started, 2) if started else stats.duration_s)
        publish(build_dir, finished, layout)
    return finished


def _texts(pending: Sequence[CatalogEntry], stats: IndexStats) -> list[str]:
    """The pending chunks' embedded texts, as the index run made them (workspace.repository_path)."""
    labels = repository_labels(stats.repositories)
    return [embedding_text(e.chunk, stats.text_budget, labels) for e in pending]


def _vectors_and_sidecars(folder: Path, live: IndexLayout, due: TestsDue, texts: Sequence[str],
                          cache_path: Path | None, settings: Settings, embedder: Embedder | None,
                          on_progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, int, Embedder]:
    """The index model's vectors of the pending test chunks' texts (through the cache), and the
    vector sidecars (English vectors, file means) rebuilt in folder with every chunk's vector:
    each reuses what the folder holds (or the cache has) and embeds only the test chunks' text.
    Done twice: outside the lock into a scratch folder (the embedding), then under it into the
    build folder (from the cache). Neither sidecar reads ChromaDB: the upsert may follow."""
    vectors, embedded, embedder = embed_through_cache(texts, embedder, due.stats.model, cache_path, settings,
                                                      on_progress)
    catalog = due.catalog
    build_sidecars(chunk_vector_sidecars(), SidecarInput(
        folder, [e.chunk for e in catalog], {}, cache_path, settings.show_progress, index_model=due.stats.model,
        text_hashes={e.chunk.chunk_id: e.text_hash for e in catalog}, english_model=due.english_key,
        repository_labels=repository_labels(due.stats.repositories), vectors_elsewhere=bool(due.stats.chroma_url),
        stored=partial(held_vectors, live, frozenset())))  # the other chunks' vectors, where the cache lacks them
    return vectors, embedded, embedder


def finish_before_search(settings: Settings, say: Callable[[str], None]) -> None:
    """Before an --include-tests search: the test vectors the index lacks, embedded now (saying
    so); when another writer holds the index (an index run, which adds them itself), the search
    goes on at once and finds those chunks by keywords, and says that instead."""
    from codelens.index.folder import IndexBusy

    pending = pending_tests(settings.index_dir)
    if not pending:
        return
    try:
        with index_lock(IndexLayout(settings.index_dir)):  # free now? (an index run holding it adds them itself)
            pass
        say(f"codelens: finishing the vectors of {len(pending)} test chunks…")
        finish_test_vectors(settings.index_dir, settings.with_overrides(show_progress=False))
    except IndexBusy:
        say(f"codelens: an index run is writing {settings.index_dir} and adds them: this search finds "
            f"those {len(pending)} test chunks by keywords only")
