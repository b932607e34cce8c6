"""Incremental update: a few changed files into the live index in seconds (what a watcher runs).

An index run (build.py) re-reads and re-chunks the whole source and writes ChromaDB in a copy
of the folder. An update knows which files changed: it re-chunks only those, embeds only text
the embedding cache has never seen, and leaves ChromaDB's files alone: the e5 vectors of the
chunks it changed go to a small `delta/` sidecar that the dense leg searches beside ChromaDB
(layout.py), hard links carry ChromaDB's files into the build folder, and the other sidecars are
rebuilt from the catalog of every chunk (they reuse what the copy holds for unchanged text).
The result is swapped in like an index run's, under the same lock: a kill -9 at any moment
leaves the previous or the new index, whole. The next index run folds the delta into ChromaDB.

Whatever an update cannot do incrementally (no catalog yet, another model, masking rules or
text budget, a partial index, a delta grown large) it hands to a normal index run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.errors import DatabaseError
from codelens.index.delta import Delta, load_delta, save_delta
from codelens.index.embed_cache import choose_cache, finish_run, text_hash
from codelens.index.embedding import embed_through_cache
from codelens.index.folder import held_work_dir, index_lock, writing
from codelens.index.health import sidecar_checksums
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, chunk_fingerprint, file_hash
from codelens.index.metadata import IndexStats, read_stats
from codelens.index.plan import chunking_key, recorded_sidecars
from codelens.index.progressive import CatalogEntry, load_catalog, save_catalog
from codelens.index.registry import SIDECARS
from codelens.index.sidecar import Sidecar, SidecarInput, held_vectors, recorded_english_key
from codelens.index.stages import count_kinds
from codelens.index.stages import now as _now
from codelens.index.steps import build_sidecars, building, publish
from codelens.index.test_vectors import tests_share_with_vectors
from codelens.ingest.codebase import FileChunks, chunk_one_file
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.redaction import REDACTION_VERSION, redact
from codelens.ingest.source import read_source_text
from codelens.ingest.tree import SourceTree, live_tree, open_tree
from codelens.models import ENGLISH_MODEL_KEYS, Embedder
from codelens.settings import Settings
from codelens.workspace import Workspace, changed_repositories, repository_labels, stamp_updates

MAX_DELTA_SHARE = 0.25  # a delta above this share of the index: an index run folds it into ChromaDB
MAX_DELTA_MIN = 2000  # ... but never below this many chunks
LOCK_WAIT_S = 600.0  # a watcher waits this long for a manual index run to finish
DEFERRED = "sidecars_pending"  # in the metadata's `run`: an update left `after_update` sidecars to rebuild
_MASKED: dict[tuple[str, str], str | None] = {}  # (file, content hash) -> masked text, for this process's updates
_MASKED_LIMIT = 100_000


@dataclass(frozen=True)
class UpdateResult:
    mode: str  # "update", "unchanged", or "index run" (handed to build_index)
    files: int  # changed files looked at
    upserted: int = 0
    deleted: int = 0
    embedded: int = 0
    warnings: tuple[str, ...] = ()  # this update's (an unparsable file is one, never a failure)
    duration_s: float = 0.0
    timings_s: dict[str, float] = field(default_factory=dict)


@dataclass
class _State:
    """The live index as an update reads it."""

    stats: IndexStats
    manifest: Manifest
    catalog: list[CatalogEntry]
    delta: Delta


def update_index(source: Path, settings: Settings, changed: Iterable[str] | None = None,
                 embedder: Embedder | None = None, lock_wait_s: float = LOCK_WAIT_S) -> UpdateResult:
    """Bring the index of settings.index_dir up to date with the folder `source` for the files
    `changed` (rel paths, or absolute paths under source; None: compare every file). Waits up
    to lock_wait_s for another writer (IndexBusy after)."""
    started = time.perf_counter()
    layout = IndexLayout(settings.index_dir)  # the folder, from here on
    tree = live_tree(source)
    result = None
    with writing(layout, wait_s=lock_wait_s):
        state = _read_state(layout, settings)
        regrouped = state is not None and not same_repositories(state.stats.repositories, tree.workspace)
        if state is not None and not (regrouped and _new_static_root(tree, state.stats.repositories)):
            if regrouped:  # a repository came or went: recorded with this update (paths stay as they are)
                state.stats = replace(state.stats, repositories=stamp_updates(
                    tree.workspace.to_json(), state.stats.repositories))  # each keeps its time
                changed = None
            paths = _changed_paths(tree, state.manifest, changed)
            files = {path: _read(tree, path, settings.max_file_bytes) for path in sorted(paths)}
            files = {p: f for p, f in files.items() if _differs(f, state.manifest.files.get(p))}
            if not files and not regrouped:
                return UpdateResult("unchanged", len(paths), duration_s=round(time.perf_counter() - started, 3))
            result = _apply(layout, settings, state, files, embedder, started)
    # outside the lock: the index run takes it itself
    return result or _index_run(source, settings, embedder, started)


def _index_run(source: Path, settings: Settings, embedder: Embedder | None, started: float) -> UpdateResult:
    from codelens.index.build import build_index

    stats = build_index(source, settings.with_overrides(show_progress=False), embedder=embedder)
    run = stats.run or {}
    return UpdateResult("index run", stats.files, run.get("upserted", 0), run.get("deleted", 0),
                        run.get("embedded", 0), duration_s=round(time.perf_counter() - started, 3))


def _read_state(layout: IndexLayout, settings: Settings) -> _State | None:
    """The live index, or None when an update cannot build on it (an index run must)."""
    index_dir = layout.root
    if not layout.is_index() or not layout.catalog.is_file():
        return None
    try:
        stats = read_stats(index_dir)
    except DatabaseError:
        return None
    manifest = Manifest.load(index_dir)
    if (manifest is None or stats.dense_coverage < 1.0 or stats.chroma_url or settings.chroma_url
            or stats.redaction_version != REDACTION_VERSION or stats.text_budget != settings.embed_code_chars
            or manifest.model != stats.model or (settings.english_model and
                                                 settings.english_model != recorded_english_key(layout))):
        return None
    return _State(stats, manifest, load_catalog(index_dir), load_delta(index_dir))


def same_repositories(recorded: Sequence[dict], workspace: Workspace) -> bool:
    """Whether the index's recorded repositories are the workspace's now (two workspaces of one
    are the same whatever they are called: their paths carry no label)."""
    recorded_workspace = Workspace.from_json(recorded, "")
    if workspace.is_single and recorded_workspace.is_single:
        return True
    return bool(recorded) and recorded_workspace.to_json() == workspace.to_json()  # `updated_at` aside


def _new_static_root(tree: SourceTree, recorded: Sequence[dict]) -> bool:
    """A zip repository the index does not hold yet: only an index run extracts a zip."""
    held = {str(item.get("label", "")) for item in recorded or () if isinstance(item, dict)}
    return any(not root.live and root.label not in held for root in tree.roots)


def _changed_paths(tree: SourceTree, manifest: Manifest, changed: Iterable[str] | None) -> set[str]:
    """Rel paths to look at: those given that the index reads (or held), else every file of
    the folders on disk, and every indexed one no longer there (a zip's stay as they are)."""
    if changed is None:
        on_disk = {f.rel_path for f in tree.files(live_only=True)}
        return on_disk | {p for p in manifest.files if p not in on_disk and not tree.is_static(p)}
    paths = set()
    for item in changed:
        path = Path(item) if Path(item).is_absolute() else tree.locate(item)
        rel = tree.relative(path) if path is not None else None
        if rel is not None and (rel in manifest.files or tree.accepts(path)):
            paths.add(rel)
    return paths


def _read(tree: SourceTree, rel_path: str, max_file_bytes: int) -> FileChunks | None:
    """The file chunked, or None when it is gone (or no longer indexed)."""
    path = tree.locate(rel_path)
    if path is None or not path.is_file() or path.is_symlink() or not tree.accepts(path):
        return None
    return chunk_one_file(path, rel_path, max_file_bytes)


def _differs(file: FileChunks | None, indexed_hash: str | None) -> bool:
    current = file.file_hash if file is not None else None
    return current != indexed_hash


def _apply(layout: IndexLayout, settings: Settings, state: _State, files: Mapping[str, FileChunks | None],
           embedder: Embedder | None, started: float) -> UpdateResult | None:
    """Re-chunk, embed, rebuild the sidecars aside and swap; None: too large for an update."""
    index_dir, timings = layout.root, {}
    kept = [e for e in state.catalog if e.chunk.path not in files]
    new_chunks = [c for f in files.values() if f is not None for c in f.chunks]
    labels = repository_labels(state.stats.repositories)
    texts = {c.chunk_id: embedding_text(c, settings.embed_code_chars, labels) for c in new_chunks}
    entries = sorted([*kept, *(CatalogEntry(c, text_hash(texts[c.chunk_id])) for c in new_chunks)],
                     key=lambda e: (e.chunk.path, e.chunk.start_line, e.chunk.chunk_id))
    kept_ids = {e.chunk.chunk_id for e in kept}
    fingerprints = {cid: fp for cid, fp in state.manifest.chunks.items() if cid in kept_ids}
    fingerprints.update({c.chunk_id: chunk_fingerprint(c, text_hash(texts[c.chunk_id])) for c in new_chunks})
    upsert = [c for c in new_chunks if state.manifest.chunks.get(c.chunk_id) != fingerprints[c.chunk_id]]
    deleted = sorted(set(state.manifest.chunks) - set(fingerprints))
    delta_ids = (set(state.delta.chunk_ids) | {c.chunk_id for c in upsert}) & set(fingerprints)
    if len(delta_ids) > max(MAX_DELTA_MIN, MAX_DELTA_SHARE * len(entries)):
        return None
    mark = time.perf_counter()
    cache_choice = choose_cache(layout, settings.embed_cache_mb)
    vectors, embedded = _vectors(settings, state, upsert, texts, embedder, cache_choice.path)
    timings["embedding"] = round(time.perf_counter() - mark, 3)
    delta = _next_delta(state.delta, delta_ids, vectors, deleted)
    # Only the deferred code graph reads every file's text (refresh_deferred); the rest, the chunks.
    sources = {p: f.text for p, f in files.items() if f is not None and f.text is not None}
    with building(layout, copy_from=layout, link=vector_store_entries(index_dir)) as build_dir:
        _write(build_dir, layout, settings, state, entries, sources, fingerprints, files, delta, timings,
               cache_choice.path)
        stats = _next_stats(state, entries, files, run={
            "mode": "update", "upserted": len(upsert), "deleted": len(deleted), "files": len(files),
            "unchanged": len(entries) - len(upsert), "embedded": embedded, DEFERRED: True},
            timings=timings, started=started)
        # test chunks whose vectors still follow (test_vectors.py) have no fingerprint: still pending
        stats = replace(stats, test_coverage=tests_share_with_vectors((e.chunk for e in entries), fingerprints))
        publish(build_dir, stats, layout)
    finish_run(cache_choice)
    warnings = (*(w for f in files.values() if f is not None for w in f.warnings),
                *((cache_choice.warning,) if cache_choice.warning else ()))
    return UpdateResult("update", len(files), len(upsert), len(deleted), embedded, warnings,
                        stats.duration_s, timings)


def _vectors(settings: Settings, state: _State, upsert: list[Chunk], texts: Mapping[str, str],
             embedder: Embedder | None, cache_path: Path | None) -> tuple[dict[str, np.ndarray], int]:
    """e5 vectors of the changed chunks (cached; the model loads only for new text)."""
    if not upsert:
        return {}, 0
    vectors, embedded, _ = embed_through_cache([texts[c.chunk_id] for c in upsert], embedder, state.stats.model,
                                               cache_path, settings.with_overrides(show_progress=False))
    return dict(zip((c.chunk_id for c in upsert), vectors, strict=True)), embedded


def _next_delta(previous: Delta, ids: set[str], fresh: Mapping[str, np.ndarray], deleted: list[str]) -> Delta:
    old = dict(zip(previous.chunk_ids, previous.vectors, strict=True))
    order = sorted(ids)
    dim = next(iter(fresh.values())).shape[0] if fresh else (previous.vectors.shape[1] if old else 0)
    rows = [fresh[i] if i in fresh else old[i] for i in order]
    vectors = np.stack(rows).astype(np.float32) if rows else np.zeros((0, dim), dtype=np.float32)
    removed = sorted((set(previous.removed) | set(deleted)) - ids)
    return Delta(tuple(order), vectors, tuple(removed))


def vector_store_entries(index_dir: Path) -> frozenset[str]:
    """The top-level entries of an index folder that are ChromaDB's: everything that is not a
    sidecar, the metadata, the manifest, the catalog or the delta."""
    layout = IndexLayout(index_dir)
    ours = {p.name for s in SIDECARS for p in s.paths(layout)}
    ours |= {layout.metadata.name, layout.manifest.name, layout.catalog.name, layout.delta.name,
             layout.collections.name}
    return frozenset(p.name for p in index_dir.iterdir() if p.name not in ours and not p.name.endswith(".tmp"))


def _sources(tree: SourceTree, entries: list[CatalogEntry], files: Mapping[str, FileChunks | None],
             max_file_bytes: int) -> dict[str, str]:
    """Every indexed file's masked text (the code graph reads them all): the changed ones as
    just read, the others from disk (a zip's from its extraction), masked once per content in
    this process."""
    sources: dict[str, str] = {p: f.text for p, f in files.items() if f is not None and f.text is not None}
    for path in sorted({e.chunk.path for e in entries} - set(files)):
        located = tree.locate(path, live_only=False)
        text = masked_text(located, max_file_bytes) if located is not None else None
        if text is not None:
            sources[path] = text
    return sources


def masked_text(path: Path, max_file_bytes: int) -> str | None:
    """The file's text with secrets masked, as an index run reads it; None when skipped."""
    try:
        if path.stat().st_size > max_file_bytes:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    key = (str(path), file_hash(raw))
    if key not in _MASKED:
        text = read_source_text(raw)
        if len(_MASKED) > _MASKED_LIMIT:
            _MASKED.clear()
        _MASKED[key] = redact(text).text if text is not None else None
    return _MASKED[key]


def prewarm(chunks: Sequence[Chunk]) -> None:
    """Fill what updates remember per chunk (terms, bridge words, English text) for these chunks
    now, so a watcher's first update is as quick as the later ones (on pydantic the first took
    50 s on a loaded machine, the next 8 s). The watcher calls it slice by slice between updates."""
    for sidecar in SIDECARS:
        if sidecar.prewarm is not None:
            sidecar.prewarm(chunks)


def refresh_deferred(source: Path, settings: Settings, still_wanted: Callable[[], bool] = lambda: True,
                     lock_wait_s: float = LOCK_WAIT_S) -> bool:
    """After an update: rebuild the sidecars it left for later (the code graph) and swap them in.
    They are built without the writer's lock (seconds on pydantic), so an update that comes
    meanwhile is not held up: then (or when `still_wanted()` says no) the work is dropped and
    the next quiet moment does it again. False when nothing was swapped in."""
    layout = IndexLayout(settings.index_dir)  # the folder, from here on
    index_dir = layout.root
    try:
        stats, seen = read_stats(index_dir), _metadata_identity(layout)
    except DatabaseError:
        return False
    if not (stats.run or {}).get(DEFERRED) or not layout.catalog.is_file():
        return False
    entries = load_catalog(index_dir)
    later = [s for s in SIDECARS if s.after_update]
    # outside the writer's lock: held, so an update's clean-up of killed runs' leftovers leaves it alone
    with held_work_dir(layout, "graph-") as work:
        with tempfile.TemporaryDirectory(prefix="codelens-src-") as extracted:
            tree = live_tree(source)  # a workspace file's zips: extracted for their text
            tree = open_tree(source, Path(extracted)) if tree.has_static else tree
            sources = _sources(tree, entries, {}, settings.max_file_bytes)
        build_sidecars(later, SidecarInput(work, [e.chunk for e in entries], sources,
                                           repository_labels=repository_labels(read_stats(index_dir).repositories)))
        if not still_wanted():
            return False
        with index_lock(layout, wait_s=lock_wait_s):
            if _metadata_identity(layout) != seen:  # an update swapped in meanwhile: it waits again
                return False
            _swap_in_rebuilt(layout, work, later, stats)
    return True


def _swap_in_rebuilt(live: IndexLayout, work: Path, rebuilt: list[Sidecar], stats: IndexStats) -> None:
    """The live index with the rebuilt sidecars' files from `work`; everything else hard-linked."""
    built, index_dir = IndexLayout(work), live.root
    names = {p.name for s in rebuilt for p in s.paths(live)}
    link = frozenset(p.name for p in index_dir.iterdir()) - names - {live.metadata.name}
    with building(live, copy_from=live, link=link) as build_dir:
        for sidecar in rebuilt:
            for made, target in zip(sidecar.paths(built), sidecar.paths(IndexLayout(build_dir)), strict=True):
                if target.is_dir():
                    shutil.rmtree(target)
                if made.exists():
                    os.replace(made, target)
        manifest = Manifest.load(build_dir)
        if manifest is not None:  # the rebuilt files' sizes and mtimes, or the next run rebuilds them again
            replace(manifest, sidecar_files=sidecar_checksums(build_dir)).save(build_dir)
        publish(build_dir, replace(stats, run={**stats.run, DEFERRED: False}), live)


def _metadata_identity(layout: IndexLayout) -> tuple[int, int]:
    stat = layout.metadata.stat()
    return stat.st_ino, stat.st_mtime_ns


def _write(build_dir: Path, layout: IndexLayout, settings: Settings, state: _State, entries: list[CatalogEntry],
           sources: dict[str, str],
           fingerprints: dict[str, str], files: Mapping[str, FileChunks | None], delta: Delta,
           timings: dict[str, float], cache_path: Path | None) -> None:
    """The new catalog, delta, sidecars and manifest into the build folder."""
    english_key = recorded_english_key(layout) or ENGLISH_MODEL_KEYS[0]
    save_catalog(build_dir, entries)
    save_delta(build_dir, delta)
    sidecar_input = SidecarInput(build_dir, [e.chunk for e in entries], sources,
                                 cache_path, index_model=state.stats.model,
                                 text_hashes={e.chunk.chunk_id: e.text_hash for e in entries},
                                 english_model=english_key, changed_paths=frozenset(files),
                                 without_vectors=frozenset(e.chunk.chunk_id for e in entries) - fingerprints.keys(),
                                 repository_labels=repository_labels(state.stats.repositories),
                                 vectors_elsewhere=bool(state.stats.chroma_url),
                                 stored=partial(held_vectors, layout, frozenset(files)))
    # the `after_update` ones: refresh_deferred rebuilds them after the swap
    build_sidecars([s for s in SIDECARS if not s.after_update], sidecar_input, timings, digits=3)
    file_hashes = {p: h for p, h in state.manifest.files.items() if p not in files}
    file_hashes.update({p: f.file_hash for p, f in files.items() if f is not None and f.file_hash is not None})
    # the chunks of the other files came from the last index run's chunking: still this code's?
    chunking = state.manifest.chunking if state.manifest.chunking == chunking_key(settings) else ""
    Manifest(model=state.stats.model, files=dict(sorted(file_hashes.items())), chunks=fingerprints,
             sidecars=recorded_sidecars(english_key), sidecar_files=sidecar_checksums(build_dir),
             chunking=chunking).save(build_dir)


def _next_stats(state: _State, entries: list[CatalogEntry], files: Mapping[str, FileChunks | None], run: dict,
                timings: dict[str, float], started: float) -> IndexStats:
    """The metadata after the update: counts from the catalog, each changed file's warnings
    replacing its old ones, and the time of this update for the repositories whose files changed."""
    stale = tuple(f"{path}:" for path in files)
    warnings = [w for w in state.stats.warnings if not w.startswith(stale)]
    warnings += [w for f in files.values() if f is not None for w in f.warnings]
    file_count = state.stats.files + sum(1 for p, f in files.items() if f is not None and p not in state.manifest.files)
    file_count -= sum(1 for p, f in files.items() if f is None and p in state.manifest.files)
    chunks = [e.chunk for e in entries]
    now = _now()
    after = {p: f.file_hash for p, f in files.items() if f is not None and f.file_hash is not None}
    touched = changed_repositories(Workspace.from_json(state.stats.repositories, state.stats.source),
                                   {p: h for p, h in state.manifest.files.items() if p in files}, after)
    repositories = stamp_updates(state.stats.repositories, state.stats.repositories, touched, now)
    return replace(state.stats, files=file_count, total_chunks=len(chunks), chunks_per_kind=count_kinds(chunks),
                   indexed_at=now, warnings=warnings, run=run, timings_s=timings, repositories=repositories,
                   duration_s=round(time.perf_counter() - started, 3))
