"""The open index a long-running MCP server answers from: opened on the first call, opened again
once a missing index appears (until then every tool says which command builds it), reopened when
an index run swaps in a new one; and whether a file on disk is still what was indexed.
"""

from __future__ import annotations

from codelens.answer.context import ChunkCatalog
from codelens.errors import CodeLensError
from codelens.graph.model import CodeGraph
from codelens.graph.store import load_graph
from codelens.index.freshness import FileCheck, source_folder
from codelens.locations import IndexNotFound
from codelens.open_index import OpenIndex
from codelens.search.searcher import Searcher
from codelens.settings import Settings


class NoIndexYet(CodeLensError):
    """IndexNotFound, with the exact command for this server's --db (and collection)."""

    def __init__(self, settings: Settings) -> None:
        where = f"--db {settings.db_path}" + (f" --collection {settings.collection}" if settings.collection else "")
        super().__init__(f"no index in {settings.index_dir} - run: python index.py {where} "
                         "(add --source PATH to index your own code), then call this tool again")


class ServedIndex:
    """The open index a long-running server answers from (`OpenIndex`: searcher, graph, chunk
    catalog): opened on first use, opened again once a missing index appears, reopened when an
    index run swaps in a new one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._open: OpenIndex | None = None
        self._check: FileCheck | None = None

    def file_state(self, path: str, indexed_hash: str = "") -> str:
        """Whether `path` on disk is still what was indexed (index/freshness.py)."""
        searcher = self.searcher
        root = source_folder(searcher.stats.source)
        if self._check is None or self._check.root != root:
            self._check = FileCheck(root)
        return self._check.state(path, indexed_hash or searcher.file_hashes.get(path, ""))

    def current(self) -> OpenIndex:
        try:
            if self._open is None:
                self._open = OpenIndex(self.settings)
            else:
                self._open.refresh()
        except IndexNotFound:
            raise NoIndexYet(self.settings) from None
        return self._open

    @property
    def searcher(self) -> Searcher:
        return self.current().searcher

    def graph(self) -> CodeGraph:
        """load_graph caches on the file's identity, so this is free until a re-index swaps it."""
        try:
            return load_graph(self.settings.index_dir)
        except IndexNotFound:
            raise NoIndexYet(self.settings) from None

    def catalog(self) -> ChunkCatalog:
        return self.current().catalog

    def warm_up(self) -> None:
        """Load the index, e5, MiniLM and the word bridge now, so the first call is a warm one."""
        self.current().warm_up()
