"""`index_metadata.json`: what an index holds and how it was built (a fixed contract: other tools read it)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from codelens.errors import DatabaseError
from codelens.index.layout import IndexLayout
from codelens.locations import IndexNotFound, index_command

FORMAT_VERSION = 1


@dataclass(frozen=True)
class IndexStats:
    source: str
    files: int
    total_chunks: int
    chunks_per_kind: dict[str, int]
    model: str
    indexed_at: str
    duration_s: float
    warnings: list[str]
    collection: str
    text_budget: int
    timings_s: dict[str, float] = field(default_factory=dict)
    chroma_url: str = ""  # where the vectors live when not in this folder (`chroma run` server)
    index_uid: str = ""  # stable across runs: names this index's collections on a shared server
    run: dict = field(default_factory=dict)  # what the last run did: mode, embedded, deleted, ...
    secrets_masked: dict[str, int] = field(default_factory=dict)  # masks per kind, see redaction.py
    redaction_version: int = 0  # masking rules the stored text went through; 0: none (older index)
    dense_coverage: float = 1.0  # share of chunks with a dense vector; below 1: a progressive run's partial index
    # share of test chunks with their vectors (e5 and the English model's); below 1: a complete
    # index whose test vectors follow (index/test_vectors.py; default searches leave tests out)
    test_coverage: float = 1.0
    # The repositories of the source (codelens/workspace.py): one, or each git repository of a workspace folder
    repositories: list[dict] = field(default_factory=list)
    format_version: int = FORMAT_VERSION

    def to_json(self) -> dict:
        return asdict(self)


def write_stats(db_path: Path, stats: IndexStats) -> None:
    write_metadata(IndexLayout(db_path), stats)


def write_metadata(layout: IndexLayout, stats: IndexStats) -> None:
    """The index's metadata, replaced in one rename (write_stats, for a folder's path)."""
    temporary = layout.metadata.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(stats.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(temporary, layout.metadata)


def read_stats(db_path: Path) -> IndexStats:
    return read_metadata(IndexLayout(db_path))


def read_metadata(layout: IndexLayout) -> IndexStats:
    """The index's metadata (read_stats, for a folder's path)."""
    if not layout.metadata.is_file():
        raise IndexNotFound(str(layout.root))
    try:
        return _parse_stats(layout.metadata)
    except _Unreadable as exc:  # every way it fails says how to rebuild it
        raise DatabaseError(f"{exc} - rebuild: {index_command(layout.root, '--full')}") from exc.__cause__


class _Unreadable(Exception):
    """Why an index_metadata.json cannot be read (read_stats adds the fix)."""


def _parse_stats(target: Path) -> IndexStats:
    try:
        raw = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or not JSON
        raise _Unreadable(f"{target} is unreadable ({exc})") from exc
    if not isinstance(raw, dict):
        raise _Unreadable(f"{target} is not an index description")
    if raw.get("format_version") != FORMAT_VERSION:
        raise _Unreadable(f"the index in {target.parent} has format {raw.get('format_version')!r}, this CodeLens "
                          f"reads format {FORMAT_VERSION}")
    known = IndexStats.__dataclass_fields__
    try:
        return IndexStats(**{key: value for key, value in raw.items() if key in known})
    except TypeError as exc:  # a field missing
        raise _Unreadable(f"{target} is incomplete ({exc})") from exc


def is_codelens_index(db_path: Path) -> bool:
    return IndexLayout(db_path).is_index()
