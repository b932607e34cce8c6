"""Embeddings cached by (model, weights version, hash of the exact embedded text) in SQLite.

One cache per machine (`locations.shared_embedding_cache()`) serves every index: a second clone
of a repository, a worktree or a workspace holding it embeds nothing it has seen, and the words
of the bridge (kept under their own key, `multilingual-e5-small:query-words`) recur across
repositories. Unchanged, moved or renamed code is never embedded twice, and an interrupted run
resumes: each batch is committed as soon as it is embedded.

The guarantees the per-index caches had still hold for a cache many runs share:
- concurrent runs: WAL (readers never wait for a writer), a 30 s busy timeout, and only short
  write transactions (one batch, or a few hundred use times, per commit);
- another version of a model's weights: its fingerprint is part of the key, so its vectors are
  never used, and never deleted either (two installed versions share one machine); they age out;
- a size cap (CODELENS_EMBED_CACHE_MB, 2 GB by default): each hit's use time (to the day) is
  recorded in batches when the cache closes (never per read), and at the end of a run the least recently
  used vectors are evicted until the cache holds 80% of the cap (so the next run does not evict again);
- a cache never fails a run: a damaged shared file is moved aside and started anew, and one that
  cannot be opened (read-only home, a lock held too long) falls back to a cache beside the
  index (the old per-index place), else to none, with a warning in the run's metadata.

The per-index cache files of earlier versions (`<parent>/.D.embeddings.sqlite`, table
`embeddings`) are not read: an index that exists needs from a cache only the vectors of text
that changed since (new text, no cache has it) because its sidecars reuse the previous index's
vectors; only a killed first run's progress is embedded again, once. A run that used the shared
cache removes that file (it is the fallback place too, and holds nothing the index lacks).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from codelens.index.layout import IndexLayout
from codelens.index.progress import embedding_begins, run_tracked
from codelens.locations import shared_embedding_cache
from codelens.models import release_freed_memory, weights_fingerprint
from codelens.settings import environment_value

DEFAULT_CAP_MB = 2048
EVICT_TO = 0.8  # share of the cap an eviction leaves
USE_RESOLUTION_S = 24 * 3600  # least recently used by the day: finer costs writes, and tells nothing more
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS vectors (
        model TEXT NOT NULL, weights TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
        PRIMARY KEY (model, weights, text_hash))""",
    # Use times in a narrow table of their own (id: the vector's rowid): recording one rewrites a
    # few bytes, not the 1.5 KB row of a vector (measured: 33k use times 8.6 s in the row, 0.34 s here).
    "CREATE TABLE IF NOT EXISTS uses (id INTEGER PRIMARY KEY, used REAL NOT NULL, bytes INTEGER NOT NULL)",
    # Eviction walks this (newest first) without reading a vector.
    "CREATE INDEX IF NOT EXISTS uses_by_time ON uses (used, bytes)",
)
_ROW_OVERHEAD = 150  # bytes beside the vector: its key twice (table, primary key), its use row and index entry
_LOOKUP_BATCH = 500
_WRITE_BATCH = 500  # use times or deletions per write transaction: short, so other runs never wait long
_SETUP_ATTEMPTS = 20  # about 10 s in all, beside SQLite's own 30 s wait where it waits
_DAMAGED = ("file is not a database", "malformed", "corrupt")


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:32]


def connect_cache(path: Path) -> sqlite3.Connection:
    """Open (creating) a cache file for reading and writing; raises sqlite3.Error or OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    attempt = 0
    while True:
        db = sqlite3.connect(path, timeout=30)
        try:
            _set_up(db)
            return db
        except sqlite3.OperationalError as exc:
            db.close()
            # Two runs creating the file at once: until it is in WAL mode, SQLite answers one of
            # them "locked" at once, without waiting (its deadlock rule): try again shortly.
            attempt += 1
            if "locked" not in str(exc) or attempt >= _SETUP_ATTEMPTS:
                raise
            time.sleep(0.05 * attempt)
        except BaseException:
            db.close()
            raise


def _set_up(db: sqlite3.Connection) -> None:
    # Before the first table, or never: lets an eviction hand freed pages back to the disk.
    db.execute("PRAGMA auto_vacuum=INCREMENTAL")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")  # WAL: a killed process loses nothing committed
    db.execute("PRAGMA journal_size_limit=16777216")  # the log shrinks back to 16 MB after a checkpoint
    for statement in _SCHEMA:
        db.execute(statement)
    db.commit()


class EmbeddingCache:
    """One model's vectors in one cache file, under the installed weights' fingerprint."""

    def __init__(self, path: Path, model: str) -> None:
        self.path = Path(path)
        self.model = model
        self.weights = weights_fingerprint(model)
        self._db = connect_cache(self.path)
        self._hits: set[int] = set()  # rowids: their use time is written when the cache closes

    def get_many(self, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        try:
            found = _lookup(self._db, self.model, self.weights, hashes, self._hits)
        except sqlite3.Error:
            return {}  # an unreadable cache holds nothing: the texts are embedded again
        return found

    def put_many(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        now = time.time()
        rows = [(self.model, self.weights, key, np.asarray(vector, dtype=np.float32).tobytes())
                for key, vector in items]
        try:
            # An upsert keeps the vector's rowid, which its use time is filed under.
            self._db.executemany("INSERT INTO vectors VALUES (?, ?, ?, ?) ON CONFLICT (model, weights, text_hash) "
                                 "DO UPDATE SET vector = excluded.vector", rows)
            self._db.executemany("INSERT OR REPLACE INTO uses SELECT rowid, ?, length(vector) FROM vectors "
                                 "WHERE model = ? AND weights = ? AND text_hash = ?",
                                 [(now, model, weights, key) for model, weights, key, _ in rows])
            self._db.commit()
        except sqlite3.OperationalError as exc:  # SQLite's word for a full disk: "disk I/O error"
            from codelens.errors import DatabaseError

            raise DatabaseError(f"cannot write the embedding cache {self.path} ({exc}): is the disk full? The index "
                                "is as it was and every batch before this one is kept; free some space and run "
                                "again") from exc
        except sqlite3.DatabaseError:
            pass  # a page damaged since the cache opened: this batch is not kept, the run goes on

    def close(self) -> None:
        try:
            _record_use(self._db, sorted(self._hits))
        except sqlite3.Error:
            pass  # use times only steer eviction
        finally:
            self._db.close()


def _lookup(db: sqlite3.Connection, model: str, weights: str, hashes: Sequence[str],
            rowids: set[int] | None = None) -> dict[str, np.ndarray]:
    """The vectors of hashes found; the rowids of those found go into rowids."""
    found: dict[str, np.ndarray] = {}
    unique = list(dict.fromkeys(hashes))
    for start in range(0, len(unique), _LOOKUP_BATCH):
        part = unique[start : start + _LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        rows = db.execute(
            f"SELECT rowid, text_hash, vector FROM vectors WHERE model = ? AND weights = ? AND text_hash IN ({marks})",
            [model, weights, *part],
        )
        for rowid, key, blob in rows:
            found[key] = np.frombuffer(blob, dtype=np.float32)
            if rowids is not None:
                rowids.add(rowid)
    return found


def _record_use(db: sqlite3.Connection, rowids: Sequence[int]) -> None:
    """Use times, to USE_RESOLUTION_S: one is rewritten at most once per period, so the runs
    of one day write none after the first."""
    now = time.time()
    for start in range(0, len(rowids), _WRITE_BATCH):
        part = rowids[start : start + _WRITE_BATCH]
        marks = ",".join("?" * len(part))
        db.execute(f"UPDATE uses SET used = ? WHERE id IN ({marks}) AND used < ?",
                   [now, *part, now - USE_RESOLUTION_S])
        db.commit()


def read_cached_vectors(path: Path | None, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """Read-only lookup for a process that searches while another one writes the cache:
    never creates or repairs the file; a missing or unreadable cache holds nothing."""
    if path is None or not path.is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return {}
    try:
        return _lookup(db, model, weights_fingerprint(model), hashes)
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def read_index_vectors(index_dir: Path, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors an index run may have cached for these texts (`cached_vectors`), for a reader."""
    return cached_vectors(CacheChoice(None, beside=IndexLayout(index_dir).embedding_cache), model, hashes)


# ---------------------------------------------------------------- which cache a run uses


@dataclass(frozen=True)
class CacheChoice:
    """Where one run caches its vectors (chosen once: every stage and `finish_run` read it)."""

    path: Path | None  # None: no cache at all (every text is embedded, nothing resumes)
    shared: bool = False
    warning: str = ""
    beside: Path | None = None  # the fallback place beside the index (IndexLayout.embedding_cache)
    cap_mb: float | None = None  # Settings.embed_cache_mb (None: the environment's, else the default)


def cached_vectors(cache: CacheChoice, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors the index's runs may have cached for these texts: in the shared cache, else beside it."""
    found = read_cached_vectors(shared_embedding_cache(), model, hashes)
    rest = [h for h in hashes if h not in found]
    if rest and cache.beside is not None:
        found.update(read_cached_vectors(cache.beside, model, rest))
    return found


def choose_cache(layout: IndexLayout, cap_mb: float | None = None) -> CacheChoice:
    """The shared cache, repaired if damaged; else the fallback beside the index; else none."""
    return CacheChoice(*_usable_cache(layout), beside=layout.embedding_cache, cap_mb=cap_mb)


def _usable_cache(layout: IndexLayout) -> tuple[Path | None, bool, str]:
    """(path, shared, warning) of the cache a run writes: see choose_cache."""
    shared, local = shared_embedding_cache(), layout.embedding_cache
    problem = _try_open(shared)
    if problem and _is_damaged(problem):
        moved = _move_aside(shared)
        if moved and not _try_open(shared):
            return shared, True, (f"the embedding cache {shared} was damaged ({problem}): "
                                  f"moved aside to {moved.name}, started anew")
    if not problem:
        return shared, True, ""
    why = (f"cannot open the shared embedding cache {shared} ({problem}); set CODELENS_CACHE_DIR to a "
           "writable folder to share vectors between indexes")
    if not _try_open(local):
        return local, False, f"{why}. This run caches its vectors beside the index: {local}"
    return None, False, f"{why}. Nothing is cached this run (nor beside the index: {local})"


def _try_open(path: Path) -> str:
    """'' when the cache at path opens for writing, else why not."""
    try:
        connect_cache(path).close()
    except (sqlite3.Error, OSError) as exc:
        return str(exc) or type(exc).__name__
    return ""


def _is_damaged(problem: str) -> bool:
    return any(word in problem for word in _DAMAGED)


def _move_aside(path: Path) -> Path | None:
    """A damaged cache out of the way (kept once, for a look), with its write-ahead log."""
    aside = path.with_name(path.name + ".damaged")
    try:
        os.replace(path, aside)
    except OSError:
        return None
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    return aside


def cache_cap_bytes(megabytes: float | None = None, environ: Mapping[str, str] | None = None) -> int:
    """`megabytes` (Settings.embed_cache_mb), else CODELENS_EMBED_CACHE_MB, in bytes (2 GB by
    default; an unreadable value is the default)."""
    if megabytes is None:
        megabytes = environment_value("embed_cache_mb", environ)
    return int(max(DEFAULT_CAP_MB if megabytes is None else megabytes, 0.0) * 1024 * 1024)


def finish_run(choice: CacheChoice) -> int:
    """The end of an index run: the cache back under its cap, and (with the shared cache) the
    per-index file of earlier versions or fallback runs removed. Returns vectors evicted."""
    if choice.shared and choice.beside is not None:
        for suffix in ("", "-wal", "-shm"):
            choice.beside.with_name(choice.beside.name + suffix).unlink(missing_ok=True)
    if choice.path is None:
        return 0
    try:
        return evict_to_cap(choice.path, cache_cap_bytes(choice.cap_mb))
    except (sqlite3.Error, OSError):
        return 0  # the next run tries again


def evict_to_cap(path: Path, cap_bytes: int) -> int:
    """Remove the least recently used vectors until the cache holds EVICT_TO of cap_bytes.
    Free when the file is under the cap (one stat); over it, one walk of the use-time index.
    Returns how many vectors were removed."""
    # The file alone: the write-ahead log is a few MB at most (short transactions, SQLite's
    # checkpoints, journal_size_limit), and counting it would evict again after each run.
    if not path.is_file() or path.stat().st_size <= cap_bytes:
        return 0
    db = connect_cache(path)
    try:
        # Rows share pages unevenly (two e5 vectors fill a 4 KiB page by three quarters): scale
        # the rows' sizes to the pages they take, so that the cap is what the file holds.
        rows, row_bytes = db.execute("SELECT count(*), coalesce(sum(bytes), 0) FROM uses").fetchone()
        pages, free, page_size = (db.execute(f"PRAGMA {name}").fetchone()[0]
                                  for name in ("page_count", "freelist_count", "page_size"))
        scale = max(1.0, (pages - free) * page_size / max(1, row_bytes + rows * _ROW_OVERHEAD))
        budget = cap_bytes * EVICT_TO / scale
        kept, oldest_kept, over = 0, None, False
        newest_first = db.execute("SELECT used, bytes FROM uses ORDER BY used DESC")
        for used, size in newest_first:
            if kept + size + _ROW_OVERHEAD > budget:
                over = True
                break
            kept += size + _ROW_OVERHEAD
            oldest_kept = used
        newest_first.close()
        if not over:
            return 0  # what is left fits: the file is only holding free pages
        removed = 0
        while True:
            ids = [i for (i,) in db.execute("SELECT id FROM uses WHERE used < ? LIMIT ?",
                                            (float("inf") if oldest_kept is None else oldest_kept, _WRITE_BATCH))]
            marks = ",".join("?" * len(ids))
            db.execute(f"DELETE FROM vectors WHERE rowid IN ({marks})", ids)
            db.execute(f"DELETE FROM uses WHERE id IN ({marks})", ids)
            db.commit()
            removed += len(ids)
            if len(ids) < _WRITE_BATCH:
                break
        db.executescript("PRAGMA incremental_vacuum;")  # (execute() would free one page per call)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the freed pages leave the file now
        return removed
    finally:
        db.close()


def open_cache(path: Path | None, model: str) -> EmbeddingCache | None:
    """The cache at path for one model, or None (no path, or it cannot be opened now): a cache
    never fails a run."""
    if path is None:
        return None
    try:
        return EmbeddingCache(path, model)
    except (sqlite3.Error, OSError):
        return None


# ---------------------------------------------------------------- embedding through the cache


def embed_with_cache(
    texts: Sequence[str], embed: Callable[[list[str]], np.ndarray], dim: int, cache: EmbeddingCache | None,
    batch_size: int, *, desc: str = "Embedding", show_progress: bool = False, unit: str = "chunk",
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors (len(texts) x dim) for texts: from the cache where possible, else embedded in
    length-sorted batches (less padding work), each batch committed to the cache as soon as it
    is done, so a killed run resumes there. Returns (vectors, number of texts newly embedded)."""
    hashes = [text_hash(t) for t in texts]
    cached = cache.get_many(hashes) if cache else {}
    vectors = np.zeros((len(texts), dim), dtype=np.float32)
    missing: dict[str, int] = {}
    for i, key in enumerate(hashes):
        if key in cached and cached[key].shape[0] == dim:
            vectors[i] = cached[key]
        else:
            missing.setdefault(key, i)
    order = sorted(missing.values(), key=lambda i: len(texts[i]))
    advance = embedding_begins(len(texts), len(order))  # an index run's one progress (index/progress.py)
    with tqdm(total=len(order), unit=unit, desc=desc, disable=not show_progress or not order or run_tracked()) as bar:
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            batch_vectors = embed([texts[i] for i in batch])
            release_freed_memory()
            if cache:
                cache.put_many((hashes[i], v) for i, v in zip(batch, batch_vectors, strict=True))
            vectors[batch] = batch_vectors
            bar.update(len(batch))
            advance(min(start + len(batch), len(order)))
            if on_progress:
                on_progress(min(start + len(batch), len(order)), len(order))
    for i, key in enumerate(hashes):  # duplicates of a text embedded in this run
        if key in missing and missing[key] != i:
            vectors[i] = vectors[missing[key]]
    return vectors, len(order)


def lazy_encoder(load: Callable[[], Callable[[list[str]], np.ndarray]]) -> Callable[[list[str]], np.ndarray]:
    """An encode function whose model loads on the first call: a run that finds every
    vector in the cache never loads it (seconds, and torch's memory)."""
    loaded: list[Callable[[list[str]], np.ndarray]] = []

    def encode(texts: list[str]) -> np.ndarray:
        if not loaded:
            loaded.append(load())
        return loaded[0](texts)

    return encode
