"""The stages of an index run after its plan (plan.py): each takes the run record and returns the
next. build.py calls them in order; none decides anything the plan decided.

chunk -> (searchable first) -> embed -> [build folder: store -> sidecars -> publish] -> tests follow
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from tqdm import tqdm

from codelens.chunk import CODE_KINDS, FILE_KINDS, Chunk
from codelens.index.collector import collector_paused
from codelens.index.embed_cache import embed_with_cache, finish_run, open_cache
from codelens.index.embedding import embed_through_cache
from codelens.index.folder import held_work_dir
from codelens.index.health import layout_checksums, sidecar_checksums
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest
from codelens.index.metadata import IndexStats, write_metadata
from codelens.index.plan import Chunked, Run, chunked_run
from codelens.index.progress import stage_begins, stage_count, step_begins
from codelens.index.progress_stages import EMBEDDING
from codelens.index.progressive import CatalogEntry, missing_vectors, save_catalog
from codelens.index.registry import SIDECARS, late_partial_sidecars, partial_sidecars
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.index.steps import build_sidecars, building
from codelens.index.steps import publish as publish_build
from codelens.index.store import VectorStore, drop_collections, stored_vectors
from codelens.index.test_vectors import FINISH_LOCK_WAIT_S, TestsDue, add_test_vectors, tests_share_with_vectors
from codelens.ingest.codebase import chunk_source
from codelens.ingest.redaction import REDACTION_VERSION
from codelens.models import load_embedder
from codelens.settings import COLLECTION_NAME
from codelens.workspace import stamp_updates

STORE_BATCH = 1000  # chunks per ChromaDB write (and progress step)
COVERAGE_WRITE_S = 1.0  # a progressive run rewrites the live metadata at most this often while embedding


def chunk(run: Run) -> Run:
    mark = time.perf_counter()
    with collector_paused():  # every file's tree and chunks kept to the end (collector.py)
        codebase = chunk_source(run.source, run.settings.max_file_bytes, on_file=stage_count)  # the run's one bar
    run.timings["chunking"] = round(time.perf_counter() - mark, 2)
    return chunked_run(run, codebase)


def searchable_first(run: Run) -> Run:
    """A cold build with vectors to embed: swap in a searchable partial index at once (the
    stages of every run: build aside, its cheap part, publish), then embed batch by batch into
    the cache (see progressive.py); the normal build then finds every vector cached. The run
    goes on with the embedder it loaded (its stats, the partial index's, until `sidecars`)."""
    chunked = run.chunked
    missing = missing_vectors(run.cache, run.model_id, chunked.hashes)
    if missing < max(1, run.settings.progressive_min_chunks):
        return run
    run = replace(run, stats=run_stats(run, dense_coverage=0.0))
    # the dense coverage it starts with: vectors already in the cache count
    covered = min(1.0 - missing / max(1, len(chunked.codebase.chunks)), 0.999)
    with build_aside(replace(run, stats=replace(run.stats, dense_coverage=covered))) as built:
        publish(searchable(built))
    run.timings["searchable"] = round(time.perf_counter() - run.started, 2)
    if run.settings.show_progress:
        tqdm.write(f"Searchable now (keywords, code graph); dense vectors follow: {run.layout.root}")
    mark = time.perf_counter()
    run = replace(run, embedder=run.embedder or load_embedder(run.model_id),
                  built_live=frozenset(s.name for s in (*partial_sidecars(), *late_partial_sidecars())))
    run.counts["embedded"] += embed_progressively(run)
    run.timings["dense_batches"] = round(time.perf_counter() - mark, 2)
    return run


def embed_progressively(run: Run) -> int:
    """Embed every chunk the cache lacks, code before tests, each batch committed to the cache
    and the live index's coverage updated. Returns how many texts were embedded. The test
    chunks' vectors wait when the plan defers them: they follow the complete index (test_vectors.py)."""
    embedder, chunks = run.embedder, run.chunked.codebase.chunks
    cache = open_cache(run.cache.path, embedder.model_id)
    total = len(chunks)
    covered = total - missing_vectors(run.cache, embedder.model_id, run.chunked.hashes)
    embedded = 0
    last_write = 0.0

    def record(done: int, _todo: int) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write >= COVERAGE_WRITE_S:
            last_write = now
            _write_coverage(run, (covered + embedded + done) / total)
        if run.on_progress:
            run.on_progress(covered + embedded + done, total)

    try:
        add_late_sidecars(run)
        stage_begins(EMBEDDING)
        for group in (False,) if run.plan.deferred else (False, True):  # non-test code first: it answers most
            texts = [run.chunked.texts[c.chunk_id] for c in chunks if c.is_test == group]
            _, count = embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache, run.settings.batch_size,
                                        desc="Dense vectors" + (" (tests)" if group else ""),
                                        show_progress=run.settings.show_progress, on_progress=record)
            embedded += count
    finally:
        if cache:
            cache.close()
        _write_coverage(run, None)  # recounted: exact after an interruption too
    return embedded


def add_late_sidecars(run: Run) -> None:
    """Build the sidecars a partial index gets after its first swap (registry.late_partial_sidecars:
    the static leg, the code graph, the word bridge), each put into the live index as soon as it is
    built, each a new metadata version that searchers reopen with. Not before the first swap:
    keywords answer within seconds, these take longer."""
    codebase = run.chunked.codebase
    for sidecar in late_partial_sidecars():
        step_begins(sidecar.name)
        # outside the writer's lock: a killed run's leftover is cleaned like a build's, a live one is held
        with held_work_dir(run.layout, "late-") as work:
            sidecar.build(SidecarInput(work, codebase.chunks, codebase.sources, run.cache.path,
                                       run.settings.show_progress, repository_labels=run.chunked.labels))
            for made, live in zip(sidecar.paths(IndexLayout(work)), sidecar.paths(run.layout), strict=True):
                _move_in(made, live)
        run.timings[f"live:{sidecar.name}"] = round(time.perf_counter() - run.started, 2)
        _write_coverage(run, None)  # a new metadata version: searchers reopen with it


def _move_in(made: Path, live: Path) -> None:
    """A built file, or each file of a built folder, renamed over the live one: each rename is
    atomic, and a sidecar missing one of its files reads as absent (the bridge: "no bridge")."""
    if not made.is_dir():
        os.replace(made, live)
        return
    live.mkdir(exist_ok=True)
    for file in sorted(made.iterdir()):
        os.replace(file, live / file.name)


def _write_coverage(run: Run, coverage: float | None) -> None:
    """Record coverage in the live (partial) metadata (run.stats); a partial index stays below 1
    until the complete build replaces it. None: recount from the cache (after an interruption).
    The live metadata is the run's: it wrote it at the first swap and holds the lock since."""
    if coverage is None:
        total = len(run.chunked.codebase.chunks)
        coverage = (total - missing_vectors(run.cache, run.model_id, run.chunked.hashes)) / max(1, total)
    write_metadata(run.layout, replace(run.stats, dense_coverage=min(round(coverage, 4), 0.999)))


def embed(run: Run) -> Run:
    """The vectors of the chunks to store, through the embedding cache (run.vectors)."""
    mark = time.perf_counter()
    texts = [run.chunked.texts[c.chunk_id] for c in run.plan.to_store]
    vectors, embedded, embedder = embed_through_cache(texts, run.embedder, run.model_id, run.cache.path,
                                                      run.settings, run.on_progress)
    run.counts["embedded"] += embedded
    run.timings["embedding"] = round(time.perf_counter() - mark, 2)
    return replace(run, embedder=embedder, vectors=vectors)


@contextmanager
def build_aside(run: Run) -> Iterator[Run]:
    """The folder the run writes in (a copy of the index it builds on, or empty), removed with
    a server-side collection if anything fails before the swap."""
    storing_since = time.perf_counter()
    old = run.previous.stats
    uid = old.index_uid if old and old.index_uid else uuid.uuid4().hex[:12]
    chroma_url = run.settings.chroma_url
    collection = f"{server_prefix(uid)}{uuid.uuid4().hex[:8]}" if chroma_url else COLLECTION_NAME
    copy_from = run.layout if run.previous.builds_on is not None and not chroma_url else None
    try:
        with building(run.layout, copy_from) as build_dir:
            yield replace(run, build_dir=build_dir, collection=collection, index_uid=uid,
                          storing_since=storing_since)
    except BaseException:
        if chroma_url:
            drop_collections(chroma_url, collection)
        raise


def store(run: Run) -> Run:
    """The vectors into ChromaDB (a deferred test chunk's old vector goes too: it is not current)."""
    plan, chroma_url = run.plan, run.settings.chroma_url
    to_store, vectors = plan.to_store, run.vectors
    vector_store = VectorStore(run.build_dir, run.collection, create=True, chroma_url=chroma_url)
    if not chroma_url:
        changes = plan.changes
        vector_store.delete(sorted({*changes.delete, *plan.deferred}) if run.previous.builds_on is not None
                            else changes.delete)
    for begin in range(0, len(to_store), STORE_BATCH):
        vector_store.upsert(to_store[begin : begin + STORE_BATCH], vectors[begin : begin + STORE_BATCH])
        stage_count(min(begin + STORE_BATCH, len(to_store)), len(to_store))
    vector_store.relabel(plan.relabel)
    vector_store.close()
    built = IndexLayout(run.build_dir)
    shutil.rmtree(built.delta, ignore_errors=True)  # folded into ChromaDB just now
    save_catalog(built.root, _catalog(run.chunked))
    return run


def searchable(run: Run) -> Run:
    """A progressive run's first swap: the cheap part of the index (catalog, lexical, code graph)
    into the build folder; the word bridge follows it (add_late_sidecars)."""
    codebase = run.chunked.codebase
    save_catalog(run.build_dir, _catalog(run.chunked))
    build_sidecars(partial_sidecars(), SidecarInput(run.build_dir, codebase.chunks, codebase.sources, run.cache.path,
                                                    run.settings.show_progress,
                                                    repository_labels=run.chunked.labels))
    return run


def sidecars(run: Run) -> Run:
    """The sidecars the plan rebuilds (every one, but for a run that only repairs), then the manifest."""
    chunked, plan = run.chunked, run.plan
    codebase = chunked.codebase
    # what the cache lacks comes from the build folder's ChromaDB, which has just stored it (a server's: not here)
    stored = None if run.settings.chroma_url else partial(stored_vectors, run.build_dir, run.collection)
    sidecar_input = SidecarInput(run.build_dir, codebase.chunks, codebase.sources, run.cache.path,
                                 run.settings.show_progress, index_model=run.model_id, text_hashes=chunked.hashes,
                                 english_model=run.english_key, without_vectors=plan.deferred,
                                 repository_labels=chunked.labels, vectors_elsewhere=bool(run.settings.chroma_url),
                                 stored=stored)
    # a run that only repairs builds the damaged ones: the copy holds the others as the last run wrote them
    due = [s for s in SIDECARS if plan.rebuild is None or s.name in plan.rebuild]
    copied = {s.name for s in due if s.name in run.built_live and _copy_live(s, run.layout, IndexLayout(run.build_dir))}
    build_sidecars([s for s in due if s.name not in copied], sidecar_input, run.timings)
    with_vectors = {k: v for k, v in chunked.fingerprints.items() if k not in plan.deferred}
    Manifest(model=run.model_id, files=codebase.file_hashes, chunks=with_vectors, sidecars=run.sidecars,
             sidecar_files=sidecar_checksums(run.build_dir), chunking=run.chunking).save(run.build_dir)
    run.timings["storing"] = round(time.perf_counter() - run.storing_since, 2)  # the folder copied, stored, sidecars
    if plan.deferred:
        run.timings["complete"] = round(time.perf_counter() - run.started, 2)  # default searches: the full index
    return replace(run, stats=run_stats(
        run, collection=run.collection, duration_s=round(time.perf_counter() - run.started, 2),
        timings_s=run.timings, chroma_url=run.settings.chroma_url, index_uid=run.index_uid,
        test_coverage=tests_share_with_vectors(codebase.chunks, with_vectors)))


def _copy_live(sidecar: Sidecar, live: IndexLayout, built: IndexLayout) -> bool:
    """A sidecar's files from the live partial index into the build folder, as they are; False
    (nothing copied) when one is missing there: the build then builds it."""
    pairs = list(zip(sidecar.paths(live), sidecar.paths(built), strict=True))
    if not all(source.exists() for source, _ in pairs):
        return False
    for source, target in pairs:
        if source.is_dir():
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)
    return True


def publish(run: Run) -> Run:
    """The metadata written and the build folder swapped in where the index is."""
    publish_build(run.build_dir, run.stats, run.layout)
    return run


def finish(run: Run) -> Run:
    """Under the lock, after the swap: the embedding cache back under its cap."""
    finish_run(run.cache)
    return run


def tidy_server(run: Run) -> Run:
    """A server-side build: the previous build's collection and any a killed run left behind go."""
    if run.settings.chroma_url:
        drop_collections(run.settings.chroma_url, server_prefix(run.index_uid), keep=run.collection)
    return run


def tests_follow(run: Run) -> IndexStats:
    """The complete index is in: now its test chunks' vectors (outside the lock), from the chunks
    the run holds; the swap reads the folder again (an update may have come meanwhile)."""
    if not run.plan.deferred:
        return run.stats
    if run.settings.show_progress:
        tqdm.write(f"Complete for searches (tests left out) in {run.timings['complete']:.1f} s; "
                   f"the vectors of {len(run.plan.deferred)} test chunks follow: {run.layout.root}")
    catalog = _catalog(run.chunked)
    due = TestsDue(run.stats, catalog, [e for e in catalog if e.chunk.chunk_id in run.plan.deferred], run.english_key)
    return add_test_vectors(run.layout, due, run.cache, run.settings, run.embedder, run.on_progress, run.started,
                            lock_wait_s=FINISH_LOCK_WAIT_S) or run.stats


def record_unchanged(run: Run) -> IndexStats:
    """Nothing to change but the record: when and from where (the same files in another folder,
    a moved checkout: the watcher, `reindex` and freshness follow the folder this run read)."""
    manifest, layout = run.previous.builds_on, run.layout
    chunking = run.chunking or manifest.chunking
    if manifest.sidecar_files is None or manifest.chunking != chunking:
        # An index written before these were recorded, or by other chunking code, found whole just now
        # (chunked, every sidecar loaded, every chunk the same): recorded, so that the next unchanged run
        # needs neither (before, a chunker change made every later run chunk every file again).
        replace(manifest, sidecar_files=manifest.sidecar_files or layout_checksums(layout),
                chunking=chunking).save(layout.root)
    stats = replace(run.previous.stats, source=str(run.source), indexed_at=now(),
                    run={**run.counts, "mode": "unchanged"}, duration_s=round(time.perf_counter() - run.started, 2),
                    timings_s={})
    write_metadata(layout, stats)
    return stats


def _catalog(chunked: Chunked) -> list[CatalogEntry]:
    """Every chunk with the hash of its embedded text (progressive.save_catalog)."""
    return [CatalogEntry(c, chunked.hashes[c.chunk_id]) for c in chunked.codebase.chunks]


def run_stats(run: Run, **fields: object) -> IndexStats:
    """The metadata of this run's index: what its chunks say, plus `fields` (a partial index starts
    at dense_coverage 0 and fills it in as vectors arrive; a complete one adds timings). The
    repositories whose files this run changed are stamped with its time; the others keep the
    `updated_at` the previous index recorded."""
    chunked, at = run.chunked.codebase, now()
    recorded = run.previous.stats.repositories if run.previous.stats is not None else []
    return IndexStats(**{
        "source": str(run.source), "files": chunked.files, "total_chunks": len(chunked.chunks),
        "chunks_per_kind": count_kinds(chunked.chunks), "model": run.model_id, "indexed_at": at,
        "duration_s": 0.0, "warnings": chunked.warnings, "collection": COLLECTION_NAME,
        "text_budget": run.settings.embed_code_chars, "run": run.counts,
        "secrets_masked": dict(sorted(chunked.secrets_masked.items())), "redaction_version": REDACTION_VERSION,
        "repositories": stamp_updates(chunked.repositories, recorded, run.chunked.touched, at),
        **fields,
    })


def server_prefix(index_uid: str) -> str:
    """Server-side collections of one index: a new one per build, so the old one answers searches
    until the swap."""
    return f"codelens-{index_uid}-"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def count_kinds(chunks: Sequence[Chunk]) -> dict[str, int]:
    """Every code kind, and the other files' kinds when there are any (index_metadata.json's `chunks_per_kind`)."""
    counts = Counter(c.kind for c in chunks)
    return {kind: counts.get(kind, 0) for kind in CODE_KINDS} | {k: counts[k] for k in FILE_KINDS if counts[k]}
