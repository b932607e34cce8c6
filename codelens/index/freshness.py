"""Is a hit's file still what was indexed? Never show stale code as current.

Each hit carries its file's content hash at index time (the manifest's); a `FileCheck` hashes
the file on disk now (cached on its size and mtime, so a result page costs a few stat calls)
and says "current", "changed" (edited since: the watcher catches up in seconds), "deleted", or
"unknown" (the source is a zip, or no longer there: nothing to compare with).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from codelens.index.manifest import file_hash

CURRENT, CHANGED, DELETED, UNKNOWN = "current", "changed", "deleted", "unknown"
NOTES = {CHANGED: "the file changed on disk since it was indexed (an update follows); re-read it before editing",
         DELETED: "the file was deleted since it was indexed"}
_CACHE_LIMIT = 10_000


def source_folder(source: str) -> Path | None:
    """The indexed folder (or workspace file: its folder repositories are compared), or None for
    a zip (or a source that is gone)."""
    from codelens.workspace_file import is_workspace_file

    path = Path(source)
    return path.resolve() if source and (path.is_dir() or is_workspace_file(path)) else None


class FileCheck:
    def __init__(self, root: Path | None, indexed: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.indexed = indexed or {}
        self._hashes: dict[str, tuple[int, int, str]] = {}  # rel path -> (size, mtime_ns, hash)
        self._locate: Callable[[str], Path | None] = lambda rel: root / rel if root is not None else None
        if root is not None and root.is_file():  # a workspace file: each path in its repository (a zip's: unknown)
            from codelens.ingest.tree import live_tree

            self._locate = live_tree(root).locate

    def state(self, rel_path: str, indexed_hash: str = "") -> str:
        indexed_hash = indexed_hash or self.indexed.get(rel_path, "")
        path = self._locate(rel_path) if self.root is not None else None
        if path is None or not indexed_hash:
            return UNKNOWN
        try:
            stat = path.stat()
            cached = self._hashes.get(rel_path)
            if cached is None or cached[:2] != (stat.st_size, stat.st_mtime_ns):
                if len(self._hashes) > _CACHE_LIMIT:
                    self._hashes.clear()
                cached = (stat.st_size, stat.st_mtime_ns, file_hash(path.read_bytes()))
                self._hashes[rel_path] = cached
        except FileNotFoundError:
            return DELETED
        except OSError:
            return UNKNOWN
        return CURRENT if cached[2] == indexed_hash else CHANGED
