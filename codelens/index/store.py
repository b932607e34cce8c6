"""The only module that imports chromadb: a cosine collection of chunks on disk."""

from __future__ import annotations

import re
import sqlite3
import struct
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from codelens.chunk import Chunk
from codelens.errors import DatabaseError

_UPSERT_BATCH = 1000
_GET_BATCH = 5000  # ids per read: well under SQLite's limit on a statement's variables
# HNSW's candidate list at search time. ChromaDB's default (100) missed 2-18% of the true 100
# nearest chunks on a 2,400-chunk index, and which ones differed from one process to the next
# (the vectors not yet flushed to its HNSW file are re-inserted at every open), so the same
# question could rank differently in two runs. At 400 the nearest 100 were exact and the same in
# every process, for about 1 ms more per question (bench/RESULTS.md, session 6).
SEARCH_EF = 400
COLLECTION_METADATA = {"hnsw:space": "cosine", "hnsw:search_ef": SEARCH_EF}


class VectorStore:
    """One collection: in a local folder (embedded ChromaDB), or on a `chroma run` server
    when chroma_url is given."""

    def __init__(self, db_path: Path, collection: str, create: bool = False, chroma_url: str = "") -> None:
        self.db_path = db_path
        self.collection_name = collection
        self._client = open_client(db_path, chroma_url)
        self._count: int | None = None
        self._wrote = False  # close() then clears what ChromaDB's HNSW files hold past their vectors
        self._local = not chroma_url
        try:
            if create:
                self._collection = self._client.get_or_create_collection(
                    collection, metadata=dict(COLLECTION_METADATA), embedding_function=None
                )
                _widen_search(self._collection)
            else:
                self._collection = self._client.get_collection(collection, embedding_function=None)
        except Exception as exc:  # chromadb raises many types, e.g. when the index was swapped
            raise DatabaseError(f"cannot open the ChromaDB index at {db_path}: {exc} - if it is damaged, "
                                "python index.py rebuilds it from the embedding cache") from exc

    def count(self) -> int:
        """Chunks in the collection (remembered: this object's writes are the only ones, as
        every index run builds a new folder or collection)."""
        if self._count is None:
            self._count = self._collection.count()
        return self._count

    def upsert(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> None:
        self._count, self._wrote = None, True
        with _write_errors(self.db_path):
            for start in range(0, len(chunks), _UPSERT_BATCH):
                part = chunks[start : start + _UPSERT_BATCH]
                self._collection.upsert(
                    ids=[c.chunk_id for c in part],
                    embeddings=vectors[start : start + len(part)].tolist(),
                    documents=[c.code for c in part],
                    metadatas=[_to_metadata(c) for c in part],
                )

    def relabel(self, chunks: Sequence[Chunk]) -> None:
        """New metadata for chunks stored with the same code and vector (ChromaDB keeps both)."""
        self._count, self._wrote = None, True
        with _write_errors(self.db_path):
            for start in range(0, len(chunks), _UPSERT_BATCH):
                part = chunks[start : start + _UPSERT_BATCH]
                # a key set to None is removed: a chunk that lost its decorators or spans keeps none
                self._collection.update(ids=[c.chunk_id for c in part],
                                        metadatas=[{**_CLEARED, **_to_metadata(c)} for c in part])

    def delete(self, chunk_ids: Sequence[str]) -> None:
        self._count, self._wrote = None, True
        with _write_errors(self.db_path):
            for start in range(0, len(chunk_ids), _UPSERT_BATCH):
                self._collection.delete(ids=list(chunk_ids[start : start + _UPSERT_BATCH]))

    def nearest(self, vector: np.ndarray, n_results: int, kinds: Sequence[str] = (),
                include_tests: bool = True) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) of the nearest chunks, best first: ids and distances
        only, for a caller that holds the chunks already. `kinds` and `include_tests` narrow
        the search inside ChromaDB (its metadata pre-filter scans the metadata)."""
        try:
            result = self._collection.query(
                query_embeddings=[vector.tolist()], n_results=max(1, min(n_results, self.count())),
                where=_where(kinds, include_tests), include=["distances"],
            )
        except Exception as exc:  # chromadb raises many types, e.g. when the index was swapped
            raise DatabaseError(f"the index at {self.db_path} could not be read: {exc}") from exc
        return [(chunk_id, 1.0 - float(distance))
                for chunk_id, distance in zip(result["ids"][0], result["distances"][0], strict=False)]

    def all_vectors(self) -> tuple[list[str], np.ndarray]:
        """(chunk ids, their vectors as rows): the exact search under a narrow filter."""
        try:
            result = self._collection.get(include=["embeddings"])
        except Exception as exc:  # chromadb raises many types, e.g. when the index was swapped
            raise DatabaseError(f"the index at {self.db_path} could not be read: {exc}") from exc
        ids = list(result["ids"])
        vectors = np.asarray(result["embeddings"], dtype=np.float32) if ids else np.zeros((0, 0), np.float32)
        return ids, vectors.reshape(len(ids), -1)

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors it holds of these chunks (one it lacks is not in the answer)."""
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(chunk_ids), _GET_BATCH):
            try:
                result = self._collection.get(ids=list(chunk_ids[start : start + _GET_BATCH]), include=["embeddings"])
            except Exception as exc:  # chromadb raises many types, e.g. when the index was swapped
                raise DatabaseError(f"the index at {self.db_path} could not be read: {exc}") from exc
            found.update((chunk_id, np.asarray(vector, dtype=np.float32))
                         for chunk_id, vector in zip(result["ids"], result["embeddings"], strict=True))
        return found

    def all_chunks(self) -> list[Chunk]:
        result = self._collection.get(include=["documents", "metadatas"])
        return [
            _from_metadata(chunk_id, document, metadata)
            for chunk_id, document, metadata in zip(
                result["ids"], result["documents"], result["metadatas"], strict=True
            )
        ]

    def close(self) -> None:
        """Release the files so the folder can be moved or deleted (build aside, then swap), and
        after a write clear the bytes ChromaDB's HNSW files hold past their vectors."""
        forget_open_indexes()
        if self._wrote and self._local:
            clear_unused_hnsw(self.db_path)


def _widen_search(collection) -> None:
    """An index built before SEARCH_EF keeps ChromaDB's default; its next index run (which
    updates a copy of it) raises the search breadth, a setting ChromaDB lets change in place."""
    hnsw = (getattr(collection, "configuration", None) or {}).get("hnsw") or {}
    if hnsw.get("ef_search", SEARCH_EF) < SEARCH_EF:
        collection.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})


@contextmanager
def _write_errors(db_path: Path) -> Iterator[None]:
    """ChromaDB's many error types for a failed write (a full disk among them) as one clear error."""
    try:
        yield
    except Exception as exc:
        raise DatabaseError(f"cannot write vectors to {db_path} ({type(exc).__name__}: {exc}): is the disk full? "
                            "The index in place is unchanged; free some space and run again") from exc


LOCK_WAIT_S = 10.0


def _wait_for_unlocked(database: Path) -> None:
    """ChromaDB writes to its SQLite file as it opens, and waits forever for a lock another process
    holds (a stuck process, a database browser): wait LOCK_WAIT_S at most, then say so."""
    import sqlite3

    if not database.is_file():
        return
    try:
        connection = sqlite3.connect(database, timeout=LOCK_WAIT_S, isolation_level=None)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        if "locked" not in str(exc):
            return  # damage and the like: ChromaDB's own open reports it
        raise DatabaseError(f"{database} has been locked by another process for {LOCK_WAIT_S:.0f} s - close whatever "
                            "holds it (a database browser, a stuck process) and try again") from exc


def open_client(db_path: Path, chroma_url: str = ""):
    """A PersistentClient on db_path, or an HttpClient when a server URL is given."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
    if not chroma_url:
        _wait_for_unlocked(db_path / "chroma.sqlite3")
        try:
            return chromadb.PersistentClient(path=str(db_path), settings=chroma_settings)
        except Exception as exc:
            raise DatabaseError(f"cannot open the ChromaDB index at {db_path}: {exc} - if it is damaged, "
                                "python index.py rebuilds it from the embedding cache") from exc
    parsed = urlparse(chroma_url if "://" in chroma_url else f"http://{chroma_url}")
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise DatabaseError(f"--chroma-url {chroma_url!r} is not an http(s)://HOST:PORT address")
    try:
        client = chromadb.HttpClient(
            host=parsed.hostname, port=parsed.port or (443 if parsed.scheme == "https" else 8000),
            ssl=parsed.scheme == "https", settings=chroma_settings,
        )
        client.heartbeat()
    except Exception as exc:
        raise DatabaseError(
            f"cannot reach the ChromaDB server at {chroma_url} ({exc}) - start one with: "
            "chroma run --path ./chroma_server --host 127.0.0.1 --port 8000"
        ) from exc
    return client


def drop_collections(chroma_url: str, prefix: str, keep: str = "") -> list[str]:
    """Delete a server's collections named prefix* except keep: old or abandoned builds."""
    client = open_client(Path("."), chroma_url)
    dropped = []
    for collection in client.list_collections():
        name = collection if isinstance(collection, str) else collection.name
        if name.startswith(prefix) and name != keep:
            client.delete_collection(name)
            dropped.append(name)
    return dropped


_DATABASE_FILE = "chroma.sqlite3"
_SEGMENT_DIR = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")  # one per segment, by UUID


def stored_vectors_version(db_path: Path) -> tuple:
    """Which vectors an index folder's ChromaDB holds, without opening ChromaDB: its files' (name,
    inode, size) and the row count and last write's sequence id of its embeddings table (read-only
    SQLite, milliseconds). The same while no run has written vectors: an incremental update
    hard-links these files into the folder it swaps in (index/update.py), so what was read from
    them holds across that swap; an index run writes into a copy (new inodes, new sequence ids).
    Not the mtimes: ChromaDB rewrites its files each time it opens them. Empty when unknown."""
    database = db_path / _DATABASE_FILE
    try:
        with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True, timeout=10)) as connection:
            written = connection.execute("SELECT count(*), max(seq_id) FROM embeddings").fetchone()
        children = sorted(db_path.iterdir())
    except (OSError, sqlite3.Error):
        return ()
    files = [child for child in children if child.name.startswith(_DATABASE_FILE)]
    for child in children:
        if _SEGMENT_DIR.fullmatch(child.name) and child.is_dir():
            files.extend(sorted(child.iterdir()))
    version: list[object] = [tuple(written)]
    for file in files:
        try:
            status = file.stat()
        except OSError:
            return ()
        version.append((file.relative_to(db_path).as_posix(), status.st_ino, status.st_size))
    return tuple(version)


def stored_vectors(db_path: Path, collection: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors a local index folder's ChromaDB collection holds of these chunks ({} when it holds none)."""
    try:
        store = VectorStore(db_path, collection)
    except DatabaseError:
        return {}
    try:
        return store.vectors(chunk_ids)
    finally:
        store.close()


# hnswlib's header.bin (ChromaDB's fork, PERSISTENCE_VERSION 1) begins: version (int32), offsetLevel0,
# max_elements, cur_element_count, size_data_per_element (size_t each), little-endian on every platform chromadb ships
_HNSW_HEADER = struct.Struct("<iQQQQ")
_HNSW_VERSION = 1


def clear_unused_hnsw(db_path: Path) -> int:
    """Zero what each HNSW segment's data_level0.bin and length.bin hold past their vectors; how many
    of those bytes were not zero. hnswlib writes its whole malloc'd capacity, never zeroed, when it creates an index
    (chroma-core/chroma#7688), so the slots no vector fills yet hold whatever this process had freed:
    once, a source file's text read before its secrets were masked. The slots past the header's
    element count are unused (a vector written later fills its whole slot), so zeros there change no
    answer. A segment whose files do not have the layout described above is left as it is."""
    cleared = 0
    for header in sorted(db_path.glob("*/header.bin")):
        if not _SEGMENT_DIR.fullmatch(header.parent.name):
            continue
        try:
            with header.open("rb") as handle:
                fields = _HNSW_HEADER.unpack(handle.read(_HNSW_HEADER.size))
        except (OSError, struct.error):
            continue
        version, _, max_elements, count, slot = fields
        if version != _HNSW_VERSION or slot == 0 or count > max_elements:
            continue
        cleared += _zero_after(header.parent / "data_level0.bin", count, slot)
        cleared += _zero_after(header.parent / "length.bin", count, 4)  # one float32 per vector
    return cleared


def _zero_after(path: Path, count: int, slot: int) -> int:
    """Zero a file of `slot`-byte slots after its first `count`; the bytes that were not zero."""
    try:
        size = path.stat().st_size
        if size % slot or size < count * slot:
            return 0
        with path.open("r+b") as handle:
            handle.seek(count * slot)
            tail = handle.read()
            nonzero = len(tail) - tail.count(0)
            if nonzero:
                handle.seek(count * slot)
                handle.write(bytes(len(tail)))
        return nonzero
    except OSError:
        return 0


def forget_open_indexes() -> None:
    """ChromaDB caches one client per path in a process; after an index folder was swapped
    the cached one points at deleted files, so every store must be opened again."""
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


def _where(kinds: Sequence[str], include_tests: bool) -> dict | None:
    """A ChromaDB metadata filter: the kinds asked for, and no test code unless asked."""
    clauses: list[dict] = []
    if kinds:
        clauses.append({"kind": {"$in": list(kinds)}})
    if not include_tests:
        clauses.append({"is_test": False})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


# the optional keys: set to None, an update removes a key the chunk no longer has
_CLEARED = {"decorators": None, "line_spans": None, "script_language": None}


def _to_metadata(chunk: Chunk) -> dict:
    metadata = {
        "path": chunk.path, "symbol": chunk.symbol, "kind": chunk.kind,
        "start_line": chunk.start_line, "end_line": chunk.end_line,
        "parent": chunk.parent, "signature": chunk.signature, "docstring": chunk.docstring,
        "has_docstring": chunk.has_docstring, "is_test": chunk.is_test,
    }
    if chunk.decorators:
        metadata["decorators"] = list(chunk.decorators)
    if chunk.line_spans:
        metadata["line_spans"] = ",".join(f"{start}-{end}" for start, end in chunk.line_spans)
    if chunk.script_language:
        metadata["script_language"] = chunk.script_language
    return metadata


def _parse_spans(text: str) -> tuple[tuple[int, int], ...]:
    spans = []
    for part in filter(None, text.split(",")):
        start, _, end = part.partition("-")
        spans.append((int(start), int(end)))
    return tuple(spans)


def _from_metadata(chunk_id: str, document: str | None, metadata: dict) -> Chunk:
    return Chunk(
        chunk_id=chunk_id, path=metadata["path"], symbol=metadata["symbol"],
        kind=metadata["kind"], start_line=int(metadata["start_line"]),
        end_line=int(metadata["end_line"]), code=document or "",
        signature=metadata.get("signature", ""), docstring=metadata.get("docstring", ""),
        parent=metadata.get("parent", ""), decorators=tuple(metadata.get("decorators") or ()),
        is_test=bool(metadata.get("is_test", False)),
        line_spans=_parse_spans(metadata.get("line_spans") or ""),
        script_language=metadata.get("script_language") or "",
    )
