"""Indexing orchestration: source -> chunks -> vectors -> an index swapped into place.

Every run is incremental unless told otherwise: chunks whose fingerprint is unchanged
are left alone, removed ones are deleted, and only text never embedded before is
embedded (the cache is keyed by text hash and outlives killed runs). Changes are
applied to a copy of the index that is renamed over the old one only when complete,
so an interrupted or failed run never leaves a half-written index behind.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from tqdm import tqdm

import codelens
from codelens.chunk import CODE_KINDS, FILE_KINDS, Chunk
from codelens.errors import BadInput, DatabaseError
from codelens.index.delta import Delta, load_delta
from codelens.index.embed_cache import EmbeddingCache, choose_cache, embed_with_cache, finish_run, open_cache, text_hash
from codelens.index.folder import check_target, fresh_build_dir, index_lock, recover_interrupted_swap, swap_into_place
from codelens.index.health import changed_sidecars, damaged_sidecars, sidecar_checksums, vectors_damaged
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, chunk_fingerprint
from codelens.index.metadata import IndexStats, is_codelens_index, read_stats, write_stats
from codelens.index.progressive import (
    CatalogEntry,
    PhaseOne,
    embed_progressively,
    is_partial,
    missing_vectors,
    publish_searchable,
    save_catalog,
)
from codelens.index.registry import SIDECARS, sidecar_names
from codelens.index.sidecar import Sidecar, SidecarBuilder, SidecarInput
from codelens.index.store import VectorStore, drop_collections
from codelens.index.test_vectors import (
    FINISH_LOCK_WAIT_S,
    deferred_tests,
    finish_test_vectors,
    tests_share_with_vectors,
)
from codelens.ingest.codebase import ChunkedCodebase, chunk_source, source_file_hashes
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.redaction import REDACTION_VERSION
from codelens.models import ENGLISH_MODEL_KEYS, Embedder, load_embedder, normalize_model_id
from codelens.search.english import recorded_english_key
from codelens.settings import COLLECTION_NAME, Settings
from codelens.workspace import Workspace, changed_repositories, repository_labels, stamp_updates

ProgressCallback = Callable[[int, int], None]
STORE_BATCH = 1000  # chunks per ChromaDB write (and progress step)
STORE_PROGRESS_MIN = 5000  # smaller indexes store in a moment: no bar


def sidecar_builders() -> list[SidecarBuilder]:
    """Structures built beside the vectors on every run, in order (index/registry.py)."""
    return [sidecar.build for sidecar in SIDECARS]


@dataclass(frozen=True)
class ChangePlan:
    upsert: list[Chunk]
    delete: list[str]
    reused: int  # chunks left untouched


def plan_changes(chunks: Sequence[Chunk], fingerprints: dict[str, str], previous: Manifest | None) -> ChangePlan:
    if previous is None:
        return ChangePlan(upsert=list(chunks), delete=[], reused=0)
    upsert = [c for c in chunks if previous.chunks.get(c.chunk_id) != fingerprints[c.chunk_id]]
    delete = sorted(set(previous.chunks) - set(fingerprints))
    return ChangePlan(upsert=upsert, delete=delete, reused=len(chunks) - len(upsert))


def embed_texts(
    texts: Sequence[str], embedder: Embedder, settings: Settings, cache: EmbeddingCache | None = None,
    on_progress: ProgressCallback | None = None,
) -> tuple[np.ndarray, int]:
    """Passage vectors of the index model for texts (cached; see `embed_with_cache`)."""
    if settings.ray_address:  # issue 15 part 3: Ray actors embed, this process caches (distributed.py)
        from codelens.index.distributed import embed_on_ray

        return embed_on_ray(texts, embedder.model_id, embedder.dim, settings.ray_address,
                            batch_size=settings.batch_size, worker_cpus=settings.ray_worker_cpus, cache=cache,
                            show_progress=settings.show_progress, on_progress=on_progress)
    return embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache, settings.batch_size,
                            show_progress=settings.show_progress, on_progress=on_progress)


def build_index(
    source: Path, settings: Settings, embedder: Embedder | None = None,
    on_progress: ProgressCallback | None = None, full: bool = False, finish_tests: bool = True,
) -> IndexStats:
    """Index source into settings.index_dir: incrementally unless full, swapping on success.
    `finish_tests` False: return once the index is complete for searches, leaving the test
    chunks' vectors to whoever follows the folder (a watcher's catch-up: the background serve)."""
    started = time.perf_counter()
    # Recorded as an absolute path: the watcher, `codelens repos`, the app and the freshness checks read
    # it later from other working directories, where a relative `--source src` names another folder.
    source = Path(source).expanduser().resolve()
    index_dir = settings.index_dir
    if settings.english_model and settings.english_model not in ENGLISH_MODEL_KEYS:
        raise BadInput(f"unknown English model {settings.english_model!r}: choose {' or '.join(ENGLISH_MODEL_KEYS)}")
    check_target(index_dir)
    with index_lock(index_dir):
        recover_interrupted_swap(index_dir)
        model_id = embedder.model_id if embedder else normalize_model_id(settings.build_model)
        old_stats, previous = _previous_index(index_dir, model_id, full, settings.chroma_url)
        english_key = settings.english_model or recorded_english_key(index_dir) or ENGLISH_MODEL_KEYS[0]
        names = recorded_sidecars(english_key)
        # Nothing changed, told without chunking (a sidecar found unlike its record: chunk, and rebuild it below).
        # Test vectors still to add (test_vectors.py) are a change: the plan below has them.
        if (previous is not None and old_stats.test_coverage >= 1.0 and _same_files(source, settings, previous, names)
                and not sidecars_unlike_written(index_dir, previous)):
            return _record_unchanged_run(index_dir, source, started, {
                "mode": "unchanged", "upserted": 0, "deleted": 0, "unchanged": len(previous.chunks),
                "embedded": 0}, previous, settings)
        mark = time.perf_counter()
        chunked = chunk_source(source, settings.max_file_bytes, settings.show_progress)
        timings = {"chunking": round(time.perf_counter() - mark, 2)}

        labels = repository_labels(chunked.repositories)
        touched = _touched_repositories(source, chunked, previous.files if previous else None, index_dir)
        recorded = old_stats.repositories if old_stats is not None else []
        texts = {c.chunk_id: embedding_text(c, settings.embed_code_chars, labels) for c in chunked.chunks}
        hashes = {chunk_id: text_hash(text) for chunk_id, text in texts.items()}
        fingerprints = {c.chunk_id: chunk_fingerprint(c, hashes[c.chunk_id]) for c in chunked.chunks}
        plan = plan_changes(chunked.chunks, fingerprints, previous)
        delta = load_delta(index_dir) if previous is not None and not settings.chroma_url else Delta()
        plan = fold_delta(plan, delta, chunked.chunks)
        run = {"mode": "full" if previous is None else "incremental", "upserted": len(plan.upsert),
               "deleted": len(plan.delete), "unchanged": plan.reused, "embedded": 0}
        rebuild: frozenset[str] | None = None  # the sidecars this run builds (None: every one)
        if (previous is not None and not plan.upsert and not plan.delete and not delta.removed
                and previous.files == chunked.file_hashes and previous.sidecars == names
                and IndexLayout(index_dir).catalog.is_file()):
            unlike = sidecars_unlike_written(index_dir, previous)
            if not unlike:
                return _record_unchanged_run(index_dir, source, started, run, previous, settings)
            # Nothing else changed: only those are built again, on a copy of the index.
            rebuild = frozenset(s.name for s in unlike)
            parts = [path.name for s in unlike for path in s.paths(IndexLayout(index_dir))]
            chunked.warnings.append(f"damaged or missing index parts rebuilt: {', '.join(parts)}")

        # A server-side build fills a new collection: every chunk goes in, from the cache
        # where it can. An embedded build updates a copy of the folder: only the changes.
        to_store = chunked.chunks if settings.chroma_url else plan.upsert
        # Test chunks whose vectors follow the swap (test_vectors.py): left out of this index's
        # vectors and manifest, so nothing is lost if the run stops before they are in.
        deferred = deferred_tests(to_store, texts, index_dir, model_id, settings)
        to_store = [c for c in to_store if c.chunk_id not in deferred]
        cache_choice = choose_cache(index_dir)
        if cache_choice.warning:
            chunked.warnings.append(cache_choice.warning)

        if settings.progressive and cache_choice.path and not settings.chroma_url and previous is None and (
                old_stats is None or is_partial(old_stats)):
            embedder = _searchable_first(
                PhaseOne(index_dir, chunked.chunks, texts, hashes, chunked.sources,
                         _stats(source, chunked, model_id, settings, run, recorded, touched, dense_coverage=0.0),
                         settings.show_progress, cache_choice.path),
                embedder, settings, timings, run, on_progress, started, tests=not deferred)

        mark = time.perf_counter()
        embedder = embedder or load_embedder(model_id)
        cache = open_cache(cache_choice.path, model_id)
        try:
            vectors, embedded = embed_texts(
                [texts[c.chunk_id] for c in to_store], embedder, settings, cache, on_progress)
            run["embedded"] += embedded
        finally:
            if cache:
                cache.close()
        timings["embedding"] = round(time.perf_counter() - mark, 2)

        mark = time.perf_counter()
        index_uid = old_stats.index_uid if old_stats and old_stats.index_uid else uuid.uuid4().hex[:12]
        collection = _collection_name(settings, index_uid)
        copy_from = index_dir if previous is not None and not settings.chroma_url else None
        build_dir = fresh_build_dir(index_dir, copy_from=copy_from)
        try:
            store = VectorStore(build_dir, collection, create=True, chroma_url=settings.chroma_url)
            if not settings.chroma_url:  # a deferred test chunk's old vector goes too: it is not current
                store.delete(sorted({*plan.delete, *deferred}) if previous is not None else plan.delete)
            with tqdm(total=len(to_store), unit="chunk", desc="Storing",
                      disable=not settings.show_progress or len(to_store) < STORE_PROGRESS_MIN) as bar:
                for start in range(0, len(to_store), STORE_BATCH):
                    store.upsert(to_store[start : start + STORE_BATCH], vectors[start : start + STORE_BATCH])
                    bar.update(len(to_store[start : start + STORE_BATCH]))
            store.close()
            shutil.rmtree(IndexLayout(build_dir).delta, ignore_errors=True)  # folded into ChromaDB just now
            save_catalog(build_dir, [CatalogEntry(c, hashes[c.chunk_id]) for c in chunked.chunks])
            sidecar_input = SidecarInput(build_dir, chunked.chunks, chunked.sources,
                                         cache_choice.path, settings.show_progress,
                                         index_model=model_id, text_hashes=hashes,
                                         english_model=english_key, without_vectors=deferred,
                                         repository_labels=labels)
            for sidecar in SIDECARS:
                if rebuild is not None and sidecar.name not in rebuild:
                    continue  # the copy holds it as the last run wrote it
                sidecar_started = time.perf_counter()
                sidecar.build(sidecar_input)
                timings[f"sidecar:{sidecar.name}"] = round(time.perf_counter() - sidecar_started, 2)
            with_vectors = {k: v for k, v in fingerprints.items() if k not in deferred}
            Manifest(model=model_id, files=chunked.file_hashes, chunks=with_vectors, sidecars=names,
                     sidecar_files=sidecar_checksums(build_dir), chunking=chunking_key(settings)).save(build_dir)
            timings["storing"] = round(time.perf_counter() - mark, 2)
            if deferred:
                timings["complete"] = round(time.perf_counter() - started, 2)  # default searches: the full index
            stats = _stats(source, chunked, model_id, settings, run, recorded, touched, collection=collection,
                           duration_s=round(time.perf_counter() - started, 2), timings_s=timings,
                           chroma_url=settings.chroma_url, index_uid=index_uid,
                           test_coverage=tests_share_with_vectors(chunked.chunks, with_vectors))
            write_stats(build_dir, stats)
            swap_into_place(build_dir, index_dir)
        except BaseException:
            shutil.rmtree(build_dir, ignore_errors=True)
            if settings.chroma_url:
                drop_collections(settings.chroma_url, collection)
            raise
        finish_run(cache_choice, index_dir)
    if settings.chroma_url:  # the previous build's collection and any a killed run left behind
        drop_collections(settings.chroma_url, _server_prefix(index_uid), keep=collection)
    if deferred and finish_tests:  # the complete index is in: now its test chunks' vectors (outside the lock)
        if settings.show_progress:
            tqdm.write(f"Complete for searches (tests left out) in {timings['complete']:.1f} s; "
                       f"the vectors of {len(deferred)} test chunks follow: {index_dir}")
        stats = finish_test_vectors(index_dir, settings, embedder, on_progress, started,
                                    lock_wait_s=FINISH_LOCK_WAIT_S) or stats
    return stats


def fold_delta(plan: ChangePlan, delta: Delta, chunks: Sequence[Chunk]) -> ChangePlan:
    """The plan plus what incremental updates left beside ChromaDB (delta.py): their chunks go
    into ChromaDB now, the rows of chunks they removed leave it."""
    if not delta.chunk_ids and not delta.removed:
        return plan
    planned = {c.chunk_id for c in plan.upsert}
    in_delta = set(delta.chunk_ids)
    extra = [c for c in chunks if c.chunk_id in in_delta and c.chunk_id not in planned]
    current = {c.chunk_id for c in chunks}
    delete = sorted(set(plan.delete) | (set(delta.removed) - current))
    return ChangePlan(upsert=[*plan.upsert, *extra], delete=delete, reused=plan.reused - len(extra))


def recorded_sidecars(english_key: str) -> list[str]:
    """The sidecar list the manifest records (a change rebuilds them). A non-default English model
    is recorded with it, so that a switch of the English model rebuilds its sidecar."""
    names = sidecar_names()
    if english_key != ENGLISH_MODEL_KEYS[0]:
        names.append(f"english_model:{english_key}")
    return names


def chunking_key(settings: Settings) -> str:
    """Changes with whatever besides the files changes the chunks an index run makes and their
    fingerprints: the code that reads, masks and chunks files (its source hashed, so that no
    version number can be forgotten), the Python whose ast parses them, the size limit and the
    text budget. "" when that code cannot be read (every run then chunks)."""
    root = Path(codelens.__file__).parent
    digest = hashlib.sha256(f"{sys.version_info[:2]}|{settings.max_file_bytes}|{settings.embed_code_chars}".encode())
    try:
        for path in sorted([*(root / "ingest").glob("*.py"), root / "chunk.py", root / "languages.py",
                              root / "index" / "manifest.py"]):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    except OSError:
        return ""
    return digest.hexdigest()[:32]


def _same_files(source: Path, settings: Settings, previous: Manifest, sidecars: list[str]) -> bool:
    """Whether the index holds source exactly as it is now, told without chunking it: every file
    read has the hash the manifest records, the chunking code and settings are the same, and no
    update's delta waits to be folded in (pydantic: the whole unchanged run 0.2 s, chunking alone took 2.4 s)."""
    layout = IndexLayout(settings.index_dir)
    if not previous.chunking or previous.chunking != chunking_key(settings) or previous.sidecars != sidecars:
        return False
    if not layout.catalog.is_file():
        return False
    delta = load_delta(settings.index_dir) if not settings.chroma_url else Delta()
    if delta.chunk_ids or delta.removed:
        return False
    return source_file_hashes(source, settings.max_file_bytes) == previous.files


def sidecars_unlike_written(index_dir: Path, manifest: Manifest) -> list[Sidecar]:
    """The sidecars of index_dir that are not as the last run wrote them: their files' sizes and
    mtimes against the manifest's record (a stat per file, nothing loaded). An index written
    before that record existed is checked by loading its sidecars (health.damaged_sidecars)."""
    if manifest.sidecar_files is not None:
        changed = set(changed_sidecars(index_dir, manifest.sidecar_files))
        return [s for s in SIDECARS if s.name in changed]
    damaged, layout = set(damaged_sidecars(index_dir)), IndexLayout(index_dir)
    return [s for s in SIDECARS if any(path.name in damaged for path in s.paths(layout))]


def _searchable_first(phase: PhaseOne, embedder: Embedder | None, settings: Settings, timings: dict,
                      run: dict, on_progress: ProgressCallback | None, started: float,
                      tests: bool = True) -> Embedder | None:
    """A cold build with vectors to embed: swap in a searchable partial index at once, then
    embed batch by batch into the cache (see progressive.py); the normal build then finds
    every vector cached. Returns the embedder it loaded (None when nothing was missing)."""
    if missing_vectors(phase.index_dir, phase.stats.model, phase.hashes) < max(1, settings.progressive_min_chunks):
        return embedder
    publish_searchable(phase)
    timings["searchable"] = round(time.perf_counter() - started, 2)
    if settings.show_progress:
        tqdm.write(f"Searchable now (keywords, code graph); dense vectors follow: {phase.index_dir}")
    mark = time.perf_counter()
    embedder = embedder or load_embedder(phase.stats.model)
    run["embedded"] += embed_progressively(phase, embedder, settings.batch_size, on_progress, tests=tests)
    timings["dense_batches"] = round(time.perf_counter() - mark, 2)
    return embedder


def _stats(source: Path, chunked: ChunkedCodebase, model_id: str, settings: Settings, run: dict,
           recorded: Sequence[dict] = (), touched: Collection[str] = (), **fields: object) -> IndexStats:
    """The metadata of this run's index: what the chunks say, plus `fields` (a partial index
    starts at dense_coverage 0 and fills it in as vectors arrive; a complete one adds timings).
    The repositories `touched` (their files changed) are stamped with this run's time; the others
    keep the `updated_at` the previous index `recorded`."""
    now = _now()
    return IndexStats(**{
        "source": str(source), "files": chunked.files, "total_chunks": len(chunked.chunks),
        "chunks_per_kind": _count_kinds(chunked.chunks), "model": model_id, "indexed_at": now,
        "duration_s": 0.0, "warnings": chunked.warnings, "collection": COLLECTION_NAME,
        "text_budget": settings.embed_code_chars, "run": run,
        "secrets_masked": dict(sorted(chunked.secrets_masked.items())), "redaction_version": REDACTION_VERSION,
        "repositories": stamp_updates(chunked.repositories, recorded, touched, now),
        **fields,
    })


def _touched_repositories(source: Path, chunked: ChunkedCodebase, previous_files: dict[str, str] | None,
                          index_dir: Path) -> set[str]:
    """The repositories whose files this run changes in the index (added, edited, deleted), told
    from the file hashes the index held: those of the manifest this run builds on, else (a full
    rebuild) of whatever manifest the folder holds, so a rebuild of unchanged files moves no time."""
    if previous_files is None:
        held = Manifest.load(index_dir) if is_codelens_index(index_dir) else None
        previous_files = held.files if held is not None else {}
    workspace = Workspace.from_json(chunked.repositories, str(source))
    return changed_repositories(workspace, previous_files, chunked.file_hashes)


def _collection_name(settings: Settings, index_uid: str) -> str:
    """Embedded: one fixed name per folder. Server: a new collection per build, so the old
    one answers searches until the swap."""
    if not settings.chroma_url:
        return COLLECTION_NAME
    return f"{_server_prefix(index_uid)}{uuid.uuid4().hex[:8]}"


def _server_prefix(index_uid: str) -> str:
    return f"codelens-{index_uid}-"


def _previous_index(index_dir: Path, model_id: str, full: bool,
                    chroma_url: str) -> tuple[IndexStats | None, Manifest | None]:
    """The current index's stats, and its manifest when this run may build on it
    (same model, same masking rules, same place for the vectors); else a full build."""
    if not is_codelens_index(index_dir):
        return None, None
    try:
        stats = read_stats(index_dir)
    except DatabaseError:
        return None, None
    manifest = Manifest.load(index_dir)
    if full or manifest is None or manifest.model != model_id or stats.model != model_id:
        return stats, None
    if not chroma_url and not is_partial(stats) and vectors_damaged(index_dir):
        return stats, None  # the vectors cannot be copied forward: rebuild them (from the embedding cache)
    if stats.redaction_version != REDACTION_VERSION:
        return stats, None  # stored under older masking rules: rebuild in full so no old text survives
    if stats.chroma_url != chroma_url:
        return stats, None
    return stats, manifest


def _record_unchanged_run(db_path: Path, source: Path, started: float, run: dict, manifest: Manifest,
                          settings: Settings) -> IndexStats:
    """Nothing to change but the record: when and from where (the same files in another folder,
    a moved checkout: the watcher, `reindex` and freshness follow the folder this run read)."""
    if manifest.sidecar_files is None or not manifest.chunking:
        # An index written before these were recorded, found whole just now (chunked, every
        # sidecar loaded): recorded, so that the next unchanged run needs neither.
        replace(manifest, sidecar_files=manifest.sidecar_files or sidecar_checksums(db_path),
                chunking=manifest.chunking or chunking_key(settings)).save(db_path)
    stats = read_stats(db_path)
    run["mode"] = "unchanged"
    stats = replace(stats, source=str(source), indexed_at=_now(), duration_s=round(time.perf_counter() - started, 2),
                    run=run, timings_s={})
    write_stats(db_path, stats)
    return stats


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _count_kinds(chunks: Sequence[Chunk]) -> dict[str, int]:
    """Every code kind, and the other files' kinds when there are any (index_metadata.json's `chunks_per_kind`)."""
    counts = Counter(c.kind for c in chunks)
    return {kind: counts.get(kind, 0) for kind in CODE_KINDS} | {k: counts[k] for k in FILE_KINDS if counts[k]}
