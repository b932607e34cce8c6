"""Which parts of an index folder are damaged (truncated, garbage, unreadable), so that a search
can say so and the next index run can rebuild them instead of calling the index unchanged.

Every leg's sidecar may fail safely at search time (the Searcher then rebuilds it in memory or
goes without it), which keeps answering but hides the damage; this check names it. The vectors
are the exception: a ChromaDB folder that does not open is a clear error until a run rebuilds it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from codelens.index.layout import IndexLayout

REPAIR_HINT = "python index.py rebuilds it (nothing is embedded again)"


def damaged_sidecars(index_dir: Path) -> list[str]:
    """The sidecar folders and files of index_dir that exist but do not load."""
    from codelens.search.bridge import load_bridge_vectors
    from codelens.search.english import load_english_vectors
    from codelens.search.file_vectors import load_file_vectors
    from codelens.search.lexical import LexicalIndex, load_file_words

    layout = IndexLayout(index_dir)
    checks: dict[Path, Callable[[Path], object]] = {
        layout.lexical: LexicalIndex.load, layout.file_words: load_file_words, layout.bridge: load_bridge_vectors,
        layout.english: load_english_vectors, layout.file_vectors: load_file_vectors, layout.graph: _open_graph,
    }
    damaged = []
    for path, load in checks.items():
        if not path.exists():
            continue
        try:
            usable = load(index_dir) is not None
        except Exception:  # any failure to load is damage, whatever the library raises
            usable = False
        if not usable:
            damaged.append(path.name)
    return damaged


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


def _open_graph(index_dir: Path) -> object:
    path = IndexLayout(index_dir).graph
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as connection:
        return connection.execute("SELECT count(*) FROM nodes").fetchone()
