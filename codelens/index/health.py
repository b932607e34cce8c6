"""Which parts of an index folder are damaged (truncated, garbage, unreadable), so that a search
can say so and the next index run can rebuild them instead of calling the index unchanged.

Every leg's sidecar may fail safely at search time (the Searcher then rebuilds it in memory or
goes without it), which keeps answering but hides the damage; this check names it. The vectors
are the exception: a ChromaDB folder that does not open is a clear error until a run rebuilds it.

An index run records each sidecar's files (`sidecar_checksums`: size and modification time,
stat only) in the manifest; an index run compares them with the disk (`sidecars_unlike_written`)
and rebuilds the sidecars whose files are missing or rewritten, without loading any of them.
Size and mtime, not a hash of the contents: the check must stay a stat per file at any index size
(hashing pydantic's sidecars reads tens of MB, the standard library's hundreds), and every way a
file gets damaged through the file system (deleted, truncated, overwritten, replaced) changes one of
them. What it cannot see, a change that keeps both (bit rot, a restore that sets the old mtime),
still shows at search time (`Searcher.damaged`), and `index.py --full` rebuilds everything.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import numpy as np

from codelens.index.layout import IndexLayout
from codelens.index.registry import SIDECARS
from codelens.index.sidecar import Sidecar

# sidecar name -> {path inside the index folder: [size, mtime_ns]} for every file it holds
SidecarFiles = dict[str, dict[str, list[int]]]

REPAIR_HINT = "python index.py rebuilds it (nothing is embedded again)"


def damaged_sidecars(layout: IndexLayout) -> list[str]:
    """The sidecar folders and files of the index that exist but do not load (each sidecar's
    `checks`, declared by its leg)."""
    checks: dict[Path, Callable[[Path], object]] = {
        path: load for sidecar in SIDECARS for path, load in zip(sidecar.paths(layout), sidecar.checks, strict=False)
    }
    damaged = []
    for path, load in checks.items():
        if not path.exists():
            continue
        try:
            usable = load(layout.root) is not None
        except Exception:  # any failure to load is damage, whatever the library raises
            usable = False
        if not usable:
            damaged.append(path.name)
    return damaged


def short_of_vectors(layout: IndexLayout, chunks_with_vectors: int) -> tuple[Sidecar, ...]:
    """The sidecars built from the index model's vectors when its dense matrix holds fewer rows than the index has
    chunks with vectors: written whole, as the last run recorded them, but from part of the vectors (before
    09b4a0b a run took them from the machine's embedding cache alone, which may have evicted most: trpc's file
    means from 3 files of 100). The matrix's header alone is read; no matrix (an older index, a server's vectors),
    nothing to say."""
    try:
        rows = np.load(layout.dense_vectors, mmap_mode="r").shape[0]
    except (OSError, ValueError, IndexError):
        return ()
    return tuple(s for s in SIDECARS if s.index_vectors) if rows < chunks_with_vectors else ()


def sidecar_checksums(index_dir: Path) -> SidecarFiles:
    return layout_checksums(IndexLayout(index_dir))


def layout_checksums(layout: IndexLayout) -> SidecarFiles:
    """Each sidecar's files in the index folder now: size and modification time (ns), stat only. A
    sidecar the index does not hold (the English vectors of another index model) has no files."""
    return {sidecar.name: _file_stats(layout.root, sidecar.paths(layout)) for sidecar in SIDECARS}


def sidecars_unlike_written(layout: IndexLayout, recorded: SidecarFiles | None) -> tuple[Sidecar, ...]:
    """The sidecars of the index that are not as the last run wrote them: their files now against
    its `recorded` sizes and mtimes (a file missing, added, truncated or rewritten; a stat per file,
    nothing loaded). An index written before that record existed (None) is checked by loading its
    sidecars (damaged_sidecars)."""
    if recorded is not None:
        now = layout_checksums(layout)
        return tuple(s for s in SIDECARS if recorded.get(s.name) != now[s.name])
    damaged = set(damaged_sidecars(layout))
    return tuple(s for s in SIDECARS if any(path.name in damaged for path in s.paths(layout)))


def _file_stats(root: Path, paths: tuple[Path, ...]) -> dict[str, list[int]]:
    stats: dict[str, list[int]] = {}
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            try:
                status = file.stat()
            except OSError:  # not there: absent from the record
                continue
            stats[file.relative_to(root).as_posix()] = [status.st_size, status.st_mtime_ns]
    return stats


def vectors_damaged(index_dir: Path) -> str | None:
    """Why the ChromaDB file of index_dir cannot serve (None when it can): read-only through SQLite
    itself, since ChromaDB writes to its files as it opens them (an unchanged run touches nothing)."""
    database = index_dir / "chroma.sqlite3"
    try:
        with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True, timeout=10)) as connection:
            connection.execute("SELECT count(*) FROM embeddings").fetchone()
    except sqlite3.Error as exc:
        return f"{database}: {exc}"
    return None

