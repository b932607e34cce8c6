"""The code graph on disk: SQLite tables in the index folder, loaded whole into memory.

`build_graph_sidecar` is the indexer's sidecar builder: every index run that changed
something rebuilds the graph from all chunks and file texts (well under a second for a
few hundred files), so the graph is never stale and needs no incremental bookkeeping.
`load_graph` reads it back; the loaded graph is cached per file version, so callers may
load it per request. Treat the returned graph as read-only: it is shared.
`call_neighbour_files` asks the file for a few chunks' call neighbours without loading it
(the search's `graph-files` ranking stage, once per question); `stored_file_hubs` reads the files'
hub scores written beside the graph (`hub-files`, cached per file version).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from codelens.errors import EXIT_NO_INDEX, CodeLensError, DatabaseError
from codelens.graph.hubs import file_hubs
from codelens.graph.model import CodeGraph, Edge, Node, build_graph
from codelens.index.layout import IndexLayout
from codelens.index.metadata import is_codelens_index
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.locations import IndexNotFound, index_command

GRAPH_FORMAT = "1"
# A StoredGraph keeps the answers it read (a walk asks of a node more than once), this many at most
_ASKED_KEPT = 20_000

_SCHEMA = """
CREATE TABLE graph_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE nodes (
    node_id TEXT PRIMARY KEY, kind TEXT NOT NULL, path TEXT NOT NULL, symbol TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, is_test INTEGER NOT NULL, summary TEXT NOT NULL
);
CREATE TABLE edges (
    source TEXT NOT NULL, target TEXT NOT NULL, kind TEXT NOT NULL, line INTEGER NOT NULL,
    count INTEGER NOT NULL, via TEXT NOT NULL, PRIMARY KEY (source, target, kind)
);
CREATE INDEX edges_by_target ON edges (target, kind);
CREATE TABLE file_hubs (path TEXT PRIMARY KEY, hub REAL NOT NULL);
"""


class GraphNotFound(CodeLensError):
    """An index without a code graph: built before graphs existed, or damaged."""

    exit_code = EXIT_NO_INDEX

    def __init__(self, db_path: Path) -> None:
        super().__init__(
            f"the index in {db_path} has no code graph (it was built before graphs existed) - "
            f"rebuild it: {index_command(db_path, '--full')}"
        )


def build_graph_sidecar(build: SidecarInput) -> None:
    """Sidecar builder (listed in `codelens.search.sidecars`): write the index's graph file."""
    graph = build_graph(build.chunks, build.sources, build.repository_labels)
    save_graph(graph, IndexLayout(Path(build.build_dir)).graph)


# An update rebuilds it after the searchable swap: the whole graph is resolved again (callers in
# unchanged files point at the changed ones), seconds on pydantic.
def count_graph_nodes(index_dir: Path) -> object:
    """Its health check (index/health.py): the file opens read-only and has its nodes table."""
    path = IndexLayout(index_dir).graph
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
        return connection.execute("SELECT count(*) FROM nodes").fetchone()


# A progressive run adds it right after its first swap: keywords answer first. About 1.7 s per
# 1,000 chunks on 2 cores (abseil-cpp's 16,406: 28 s; bench/RESULTS.md, issue 43).
# "_v2": the files' hub scores beside the graph (graph/hubs.py); the new name rebuilds an older index's
# graph at its next run
GRAPH_SIDECAR = Sidecar("build_graph_sidecar_v2", build_graph_sidecar, lambda layout: (layout.graph,),
                        after_partial=True, after_update=True, checks=(count_graph_nodes,),
                        cost=WorkCost("code graph", 0.0017))


def save_graph(graph: CodeGraph, path: Path) -> None:
    """Write the graph to a fresh SQLite file, renamed into place only when complete."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    try:
        with closing(sqlite3.connect(temporary)) as connection:
            connection.executescript(_SCHEMA)
            connection.executemany(
                "INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(n.node_id, n.kind, n.path, n.symbol, n.start_line, n.end_line, int(n.is_test), n.summary)
                 for n in graph.nodes.values()],
            )
            connection.executemany(
                "INSERT INTO edges VALUES (?, ?, ?, ?, ?, ?)",
                [(e.source, e.target, e.kind, e.line, e.count, e.via) for e in graph.edges],
            )
            connection.executemany("INSERT INTO file_hubs VALUES (?, ?)", sorted(file_hubs(graph).items()))
            connection.executemany("INSERT INTO graph_meta VALUES (?, ?)", [
                ("format", GRAPH_FORMAT), ("nodes", str(len(graph.nodes))), ("edges", str(len(graph.edges))),
                ("repositories", json.dumps(list(graph.repository_labels))),
            ])
            connection.commit()
        os.replace(temporary, path)
    except (OSError, sqlite3.Error) as exc:
        temporary.unlink(missing_ok=True)
        raise DatabaseError(f"cannot write the code graph {path}: {exc}") from exc


def load_graph(db_path: Path | str) -> CodeGraph:
    """The graph of the index in db_path. IndexNotFound without an index, GraphNotFound
    when the index has no graph."""
    db_path = Path(db_path)
    version = _file_version(IndexLayout(db_path).graph)
    if version is None:
        if not is_codelens_index(db_path):
            raise IndexNotFound(str(db_path)) from None
        raise GraphNotFound(db_path) from None
    return _load(*version)


def _file_version(path: Path) -> tuple[str, int, int, int] | None:
    """The graph file's identity (path, inode, mtime, size), the key of what is cached from it: an index run
    swaps in a new file, so a new key. None when it cannot be read."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return str(path.resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=4)
def _load(path: str, inode: int, mtime_ns: int, size: int) -> CodeGraph:
    """Cached on the file's version (`_file_version`)."""
    try:
        with closing(sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)) as connection:
            meta = dict(connection.execute("SELECT key, value FROM graph_meta").fetchall())
            if meta.get("format") != GRAPH_FORMAT:
                raise DatabaseError(
                    f"{path} has graph format {meta.get('format')!r}, this CodeLens reads {GRAPH_FORMAT} "
                    f"- rebuild: {index_command(Path(path).parent, '--full')}"
                )
            nodes = [Node(*row[:6], is_test=bool(row[6]), summary=row[7])
                     for row in connection.execute("SELECT * FROM nodes")]
            edges = [Edge(*row) for row in connection.execute("SELECT * FROM edges")]
    except sqlite3.Error as exc:
        rebuild = index_command(Path(path).parent, "--full")
        raise DatabaseError(f"{path} is unreadable ({exc}) - rebuild: {rebuild}") from exc
    try:
        labels = [str(label) for label in json.loads(meta.get("repositories") or "[]")]
    except (ValueError, TypeError):
        labels = []
    return CodeGraph.from_parts(nodes, edges, labels)


class StoredGraph:
    """The graph file read edge by edge, as a walk over a few nodes needs it: what CodeGraph answers
    for `out_edges`, `in_edges` and `edges_via`, in CodeGraph's order, without loading the whole
    file (SymPy's 119k edges: 0.86 s of a fresh `codelens context`; each question here a
    fraction of a millisecond). A process that keeps the index open loads the CodeGraph instead."""

    def __init__(self, path: Path) -> None:
        self._connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        try:
            meta = dict(self._connection.execute("SELECT key, value FROM graph_meta").fetchall())
        except sqlite3.Error as exc:
            raise DatabaseError(f"{path} is unreadable ({exc}) - rebuild: {index_command(path.parent, '--full')}") \
                from exc
        if meta.get("format") != GRAPH_FORMAT:
            raise DatabaseError(f"{path} has graph format {meta.get('format')!r}, this CodeLens reads "
                                f"{GRAPH_FORMAT} - rebuild: {index_command(path.parent, '--full')}")
        self._asked: dict[tuple[str, ...], tuple[Edge, ...]] = {}  # the file never changes under it

    def _edges(self, where: str, values: Sequence[str], kinds: Sequence[str], order: str) -> tuple[Edge, ...]:
        kinds = sorted(set(kinds))
        key = (where, *values, "", *kinds)
        known = self._asked.get(key)
        if known is not None:  # a walk asks of a node's calls for its callees, its dispatches and the packer
            return known
        if kinds:
            where += f" AND kind IN ({', '.join('?' * len(kinds))})"
        rows = self._connection.execute(f"SELECT * FROM edges WHERE {where} ORDER BY {order}", [*values, *kinds])
        if len(self._asked) >= _ASKED_KEPT:
            self._asked.clear()
        found = self._asked[key] = tuple(Edge(*row) for row in rows)
        return found

    def out_edges(self, node_id: str, kinds: Sequence[str] = ()) -> tuple[Edge, ...]:
        return self._edges("source = ?", [node_id], kinds, "kind, line, target")

    def in_edges(self, node_id: str, kinds: Sequence[str] = ()) -> tuple[Edge, ...]:
        return self._edges("target = ?", [node_id], kinds, "source, kind, line, target")

    def edges_via(self, via: str) -> tuple[Edge, ...]:
        return self._edges("via = ?", [via], (), "source, kind, line, target")


def open_stored_graph(db_path: Path | str) -> StoredGraph:
    """The graph of the index in db_path, read edge by edge; GraphNotFound when it has none."""
    path = IndexLayout(Path(db_path)).graph
    if not path.is_file():
        raise GraphNotFound(Path(db_path))
    return StoredGraph(path)


_CALL_NEIGHBOURS = """
SELECT e.source, n.path FROM edges e JOIN nodes n ON n.node_id = e.target
 WHERE e.kind = 'calls' AND e.source IN ({marks}) AND n.path != ''
UNION
SELECT e.target, n.path FROM edges e JOIN nodes n ON n.node_id = e.source
 WHERE e.kind = 'calls' AND e.target IN ({marks}) AND n.path != ''
"""


def stored_file_hubs(graph_path: Path) -> Mapping[str, float]:
    """The files' hub scores (graph/hubs.py) as the graph file holds them; none for a graph written
    before it held them, or missing or unreadable (a ranking aid: never fails a search)."""
    version = _file_version(graph_path)
    return _hubs(*version) if version is not None else {}


@lru_cache(maxsize=4)
def _hubs(path: str, inode: int, mtime_ns: int, size: int) -> Mapping[str, float]:
    try:
        with closing(sqlite3.connect(f"{Path(path).as_uri()}?mode=ro", uri=True)) as connection:
            return MappingProxyType(dict(connection.execute("SELECT path, hub FROM file_hubs").fetchall()))
    except sqlite3.Error:
        return MappingProxyType({})


def call_neighbour_files(graph_path: Path, chunk_ids: Sequence[str]) -> dict[str, frozenset[str]]:
    """For each chunk id, the files of the code it calls and of the code that calls it (its
    own file included when it calls into it). A graph file that is missing or unreadable
    gives no neighbours: this feeds a ranking aid and must never fail a search."""
    ids = list(dict.fromkeys(chunk_ids))
    if not ids:
        return {}
    found: dict[str, set[str]] = {}
    try:
        with closing(sqlite3.connect(f"{graph_path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
            marks = ",".join("?" * len(ids))
            for chunk_id, path in connection.execute(_CALL_NEIGHBOURS.format(marks=marks), ids + ids):
                found.setdefault(chunk_id, set()).add(path)
    except (OSError, sqlite3.Error):
        return {}
    return {chunk_id: frozenset(paths) for chunk_id, paths in found.items()}
