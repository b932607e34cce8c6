"""What an index run knows and what it decided: the run record its stages pass on (stages.py).

An index run reads the index it builds on (`scan`), chunks the source when it must, then makes
every decision once (`plan`): nothing changed, which chunks to store and delete, which damaged
sidecars alone to rebuild, a searchable partial index first (progressive.py), the test chunks
whose vectors follow the swap (test_vectors.py). The stages after it read `run.plan` and decide
nothing again. The index folder travels as the run's one `IndexLayout`.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

import codelens
from codelens.chunk import Chunk
from codelens.errors import BadInput
from codelens.index.delta import Delta
from codelens.index.embed_cache import CacheChoice, choose_cache, text_hash
from codelens.index.embedding import ProgressCallback
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, chunk_fingerprint
from codelens.index.metadata import IndexStats
from codelens.index.previous import Previous, read_previous
from codelens.index.progress_stages import RunWork, Stage, run_stages
from codelens.index.progressive import catalog_contents, is_partial
from codelens.index.registry import SIDECARS, sidecar_names
from codelens.index.test_vectors import deferred_tests
from codelens.ingest.codebase import ChunkedCodebase, source_file_hashes
from codelens.ingest.embed_text import embedding_text
from codelens.models import ENGLISH_MODEL_KEYS, Embedder, normalize_model_id
from codelens.settings import Settings
from codelens.workspace import Workspace, changed_repositories, repository_labels


@dataclass(frozen=True)
class ChangePlan:
    upsert: list[Chunk]
    delete: list[str]
    reused: int  # chunks left untouched


@dataclass(frozen=True)
class Plan:
    """The decisions of one index run, made once by `plan`."""

    unchanged: bool = False  # nothing to write but the record of this run
    changes: ChangePlan = ChangePlan([], [], 0)
    to_store: list[Chunk] = field(default_factory=list)  # the chunks whose vectors this run stores
    deferred: frozenset[str] = frozenset()  # test chunks whose vectors follow the swap (test_vectors.py)
    rebuild: frozenset[str] | None = None  # the sidecars this run builds (None: every one)
    progressive: bool = False  # a searchable partial index first, its vectors after (progressive.py)
    # Chunks ChromaDB holds with the same code and vector that only moved (lines, parent, signature):
    # their metadata alone is written again, not their vectors (a pull shifts most of a changed file's lines)
    relabel: list[Chunk] = field(default_factory=list)


@dataclass(frozen=True)
class Chunked:
    """The source chunked, and what every later stage reads of each chunk."""

    codebase: ChunkedCodebase
    labels: tuple[str, ...]  # the workspace's repository labels
    texts: dict[str, str]  # chunk id -> the index model's embedded text
    hashes: dict[str, str]  # chunk id -> text hash
    fingerprints: dict[str, str]  # chunk id -> manifest fingerprint
    touched: set[str]  # repositories whose files this run changes


@dataclass(frozen=True)
class Run:
    """One index run, passed from stage to stage (each returns the next)."""

    source: Path
    settings: Settings
    layout: IndexLayout
    started: float
    model_id: str
    full: bool = False
    embedder: Embedder | None = None
    # (done, total) of the index model's embedding, for a caller that runs the stages itself; None
    # from build_index, whose progress is the whole run's (index/progress.py: the loops report there)
    on_progress: ProgressCallback | None = None
    english_key: str = ENGLISH_MODEL_KEYS[0]
    sidecars: list[str] = field(default_factory=list)  # the sidecar list the manifest records
    chunking: str = ""  # chunking_key(settings): what made the chunks besides the files
    previous: Previous = field(default_factory=Previous)  # the index it builds on, read once (previous.py)
    chunked: Chunked | None = None
    plan: Plan = Plan()
    counts: dict = field(default_factory=dict)  # index_metadata.json's `run`
    timings: dict = field(default_factory=dict)
    cache: CacheChoice | None = None
    vectors: np.ndarray | None = None  # of plan.to_store, in its order
    build_dir: Path | None = None
    storing_since: float = 0.0  # when the build folder was made: `storing` counts from there, as it always did
    collection: str = ""
    index_uid: str = ""
    stats: IndexStats | None = None
    # The sidecars a progressive run built into its live partial index from these same chunks: the
    # complete build copies them instead of building them again (the graph: 28 s on abseil-cpp).
    built_live: frozenset[str] = frozenset()


def start(source: Path, settings: Settings, embedder: Embedder | None, on_progress: ProgressCallback | None,
          full: bool) -> Run:
    """The run record, its options checked before anything is touched."""
    if settings.english_model and settings.english_model not in ENGLISH_MODEL_KEYS:
        raise BadInput(f"unknown English model {settings.english_model!r}: choose {' or '.join(ENGLISH_MODEL_KEYS)}")
    # Recorded as an absolute path: the watcher, `codelens repos`, the app and the freshness checks read
    # it later from other working directories, where a relative `--source src` names another folder.
    return Run(Path(source).expanduser().resolve(), settings, IndexLayout(settings.index_dir), time.perf_counter(),
               embedder.model_id if embedder else normalize_model_id(settings.build_model), full, embedder, on_progress)


def scan(run: Run) -> Run:
    """The index this run builds on, and whether it already holds the source as it is now,
    told without chunking (a sidecar found unlike its record: chunk, and rebuild it). Test
    vectors still to add (test_vectors.py) are a change: the plan has them."""
    previous = read_previous(run.layout, run.model_id, run.full, run.settings.chroma_url)
    english_key = run.settings.english_model or previous.english_key or ENGLISH_MODEL_KEYS[0]
    run = replace(run, previous=previous, english_key=english_key, sidecars=recorded_sidecars(english_key),
                  chunking=chunking_key(run.settings))
    manifest = previous.builds_on
    unchanged = (manifest is not None and previous.stats.test_coverage >= 1.0 and _same_files(run)
                 and not previous.unlike_written)
    counts = {"mode": "unchanged", "upserted": 0, "deleted": 0, "unchanged": len(manifest.chunks),
              "embedded": 0} if unchanged else {}
    return replace(run, plan=Plan(unchanged=unchanged), counts=counts)


def chunked_run(run: Run, codebase: ChunkedCodebase) -> Run:
    """The chunks' texts, hashes and fingerprints, read once by every later stage."""
    labels = repository_labels(codebase.repositories)
    texts = {c.chunk_id: embedding_text(c, run.settings.embed_code_chars, labels) for c in codebase.chunks}
    hashes = {chunk_id: text_hash(text) for chunk_id, text in texts.items()}
    fingerprints = {c.chunk_id: chunk_fingerprint(c, hashes[c.chunk_id]) for c in codebase.chunks}
    held = run.previous.held  # the manifest this run builds on, or (a full rebuild) whatever the folder holds
    workspace = Workspace.from_json(codebase.repositories, str(run.source))
    touched = changed_repositories(workspace, held.files if held is not None else {}, codebase.file_hashes)
    return replace(run, chunked=Chunked(codebase, tuple(labels), texts, hashes, fingerprints, touched))


def plan(run: Run) -> Run:
    """Every decision of the run, from the chunks and the index it builds on."""
    chunked, previous, settings = run.chunked, run.previous.builds_on, run.settings
    chunks = chunked.codebase.chunks
    delta = run.previous.updates
    changes = fold_delta(plan_changes(chunks, chunked.fingerprints, previous), delta, chunks)
    counts = {"mode": "full" if previous is None else "incremental", "upserted": len(changes.upsert),
              "deleted": len(changes.delete), "unchanged": changes.reused, "embedded": 0}
    rebuild: frozenset[str] | None = None
    if (previous is not None and not changes.upsert and not changes.delete and not delta.removed
            and previous.files == chunked.codebase.file_hashes and previous.sidecars == run.sidecars
            and run.previous.has_catalog):
        unlike = run.previous.unlike_written
        if not unlike:
            return replace(run, plan=Plan(unchanged=True, changes=changes), counts=counts)
        # Nothing else changed: only those are built again, on a copy of the index.
        rebuild = frozenset(s.name for s in unlike)
        parts = [path.name for s in unlike for path in s.paths(run.layout)]
        chunked.codebase.warnings.append(f"damaged or missing index parts rebuilt: {', '.join(parts)}")
    # A server-side build fills a new collection: every chunk goes in, from the cache
    # where it can. An embedded build updates a copy of the folder: only the changes.
    to_store = chunks if settings.chroma_url else changes.upsert
    relabel: list[Chunk] = []
    if previous is not None and not settings.chroma_url:
        relabel = moved_chunks(to_store, chunked.hashes, previous, run.layout, delta)
        moved = {c.chunk_id for c in relabel}
        to_store = [c for c in to_store if c.chunk_id not in moved]
    # Test chunks whose vectors follow the swap (test_vectors.py): left out of this index's
    # vectors and manifest, so nothing is lost if the run stops before they are in.
    cache = choose_cache(run.layout, settings.embed_cache_mb)
    deferred = deferred_tests(to_store, chunked.texts, cache, run.model_id, settings)
    if cache.warning:
        chunked.codebase.warnings.append(cache.warning)
    # The first searchable index embeds here: a run sent to a Ray cluster (--ray) embeds everything there.
    progressive = bool(settings.progressive and cache.path and not settings.chroma_url and not settings.ray_address
                       and previous is None and (run.previous.stats is None or is_partial(run.previous.stats)))
    return replace(run, counts=counts, cache=cache, plan=Plan(
        False, changes, [c for c in to_store if c.chunk_id not in deferred], deferred, rebuild, progressive, relabel))


def moved_chunks(to_store: Sequence[Chunk], text_hashes: dict[str, str], previous: Manifest, layout: IndexLayout,
                 delta: Delta) -> list[Chunk]:
    """The chunks to store that ChromaDB already holds with the same code and embedded text: a
    vector of the previous index's manifest (not one an update left beside it in the delta) whose
    catalog row has this code and this text hash."""
    pending = [c for c in to_store if c.chunk_id in previous.chunks]
    if not pending:
        return []
    stored, in_delta = catalog_contents(layout), set(delta.chunk_ids)
    return [c for c in pending if c.chunk_id not in in_delta
            and stored.get(c.chunk_id) == (c.code, text_hashes[c.chunk_id])]


def expected_stages(run: Run) -> list[Stage]:
    """The run's stages weighed for its progress (index/progress_stages.py): before chunking, guessed from
    the index it builds on (most files unchanged, nothing to embed; a cold run: not counted yet);
    once planned, counted from the plan."""
    builds_on, stats = run.previous.builds_on, run.previous.stats
    if run.chunked is None:
        guess = (RunWork() if builds_on is None or stats is None else
                 RunWork(files=stats.files, chunks=stats.total_chunks, to_store=0, held=len(builds_on.chunks)))
        return run_stages(guess, tuple(SIDECARS), SIDECARS.partial_only)
    return run_stages(RunWork(files=run.chunked.codebase.files, chunks=len(run.chunked.codebase.chunks),
                              to_store=len(run.plan.to_store), held=len(builds_on.chunks) if builds_on else 0,
                              deferred=len(run.plan.deferred), progressive=run.plan.progressive,
                              rebuild=run.plan.rebuild), tuple(SIDECARS), SIDECARS.partial_only)


def plan_changes(chunks: Sequence[Chunk], fingerprints: dict[str, str], previous: Manifest | None) -> ChangePlan:
    if previous is None:
        return ChangePlan(upsert=list(chunks), delete=[], reused=0)
    upsert = [c for c in chunks if previous.chunks.get(c.chunk_id) != fingerprints[c.chunk_id]]
    delete = sorted(set(previous.chunks) - set(fingerprints))
    return ChangePlan(upsert=upsert, delete=delete, reused=len(chunks) - len(upsert))


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
        for path in sorted([*(root / "ingest").glob("*.py"), root / "chunk.py", *(root / "languages").glob("*.py"),
                              root / "index" / "manifest.py"]):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    except OSError:
        return ""
    return digest.hexdigest()[:32]


def _same_files(run: Run) -> bool:
    """Whether the index holds the source exactly as it is now, told without chunking it: every file
    read has the hash the manifest records, the chunking code and settings are the same, and no
    update's delta waits to be folded in (pydantic: the whole unchanged run 0.2 s, chunking alone took 2.4 s)."""
    previous, manifest = run.previous, run.previous.builds_on
    if not manifest.chunking or manifest.chunking != run.chunking or manifest.sidecars != run.sidecars:
        return False
    if not previous.has_catalog or previous.updates.chunk_ids or previous.updates.removed:
        return False
    return source_file_hashes(run.source, run.settings.max_file_bytes) == manifest.files
