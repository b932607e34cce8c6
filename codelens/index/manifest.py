"""What an index holds, file by file: content hashes that make re-indexing incremental."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from codelens.chunk import Chunk
from codelens.index.layout import IndexLayout
from codelens.ingest.hashing import file_hash as file_hash  # the reader hashes; kept importable from here
from codelens.languages import language_of


def chunk_fingerprint(chunk: Chunk, embedded_text_hash: str) -> str:
    """Changes when anything stored for the chunk changes: text, lines or metadata."""
    parts = [embedded_text_hash, chunk.code, str(chunk.start_line), str(chunk.end_line),
             chunk.signature, chunk.parent, "|".join(chunk.decorators), str(chunk.is_test),
             repr(chunk.line_spans), *([chunk.script_language] if chunk.script_language else [])]
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", errors="replace")).hexdigest()[:32]


def files_beside_code(index_dir: Path) -> list[str]:
    """The indexed files that are not code (documents, configuration, build files): what the
    code map lists beside the code graph's modules. Empty without a manifest."""
    manifest = Manifest.load(index_dir)
    return sorted(path for path in manifest.files if language_of(path) is None) if manifest else []


def repository_counts(index_dir: Path, workspace) -> list[dict]:
    """Each repository of the index (`workspace.Workspace`) with its files and chunks, from the
    manifest (stats, MCP index_status and the app list them)."""
    from codelens.workspace import count_by_repository

    manifest = Manifest.load(index_dir)
    if manifest is not None:
        paths, chunk_ids = list(manifest.files), list(manifest.chunks)
    else:
        paths, chunk_ids = _catalog_paths_and_ids(index_dir)
    counts = count_by_repository(workspace, paths, chunk_ids)
    return [{"name": name, "files": files, "chunks": chunks} for name, (files, chunks) in counts.items() if name]


def _catalog_paths_and_ids(index_dir: Path) -> tuple[list[str], list[str]]:
    """A partial index (a progressive run's first swaps) has no manifest yet: its chunk catalog
    lists every chunk (only the two fields are read, not whole chunks)."""
    try:
        rows = json.loads(IndexLayout(index_dir).catalog.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], []
    rows = [row for row in rows if isinstance(row, dict)] if isinstance(rows, list) else []
    return sorted({str(row.get("path", "")) for row in rows} - {""}), [str(row.get("chunk_id", "")) for row in rows]


@dataclass
class Manifest:
    model: str
    files: dict[str, str] = field(default_factory=dict)  # rel_path -> file hash
    chunks: dict[str, str] = field(default_factory=dict)  # chunk_id -> fingerprint
    sidecars: list[str] = field(default_factory=list)  # builders whose files the index holds
    # Each sidecar's files as they were written (health.sidecar_checksums): an unchanged run
    # compares them with the disk instead of loading every sidecar. None: an index written
    # before they were recorded (the run then loads the sidecars once to check them).
    sidecar_files: dict[str, dict[str, list[int]]] | None = None
    # What made the chunks besides the files (build.chunking_key): with it and the files' hashes
    # unchanged, an index run knows the chunks are too without chunking. "": unknown.
    chunking: str = ""

    def save(self, index_dir: Path) -> None:
        target = IndexLayout(index_dir).manifest
        temporary = target.with_suffix(".tmp")
        raw = {"model": self.model, "files": self.files, "chunks": self.chunks, "sidecars": self.sidecars}
        if self.sidecar_files is not None:
            raw["sidecar_files"] = self.sidecar_files
        if self.chunking:
            raw["chunking"] = self.chunking
        temporary.write_text(json.dumps(raw), encoding="utf-8")
        os.replace(temporary, target)

    @classmethod
    def load(cls, index_dir: Path) -> Manifest | None:
        return cls.read(IndexLayout(index_dir))

    @classmethod
    def read(cls, layout: IndexLayout) -> Manifest | None:
        """None when there is no usable manifest: the caller then rebuilds in full."""
        try:
            raw = json.loads(layout.manifest.read_text(encoding="utf-8"))
            recorded = raw.get("sidecar_files")
            return cls(model=raw["model"], files=dict(raw["files"]), chunks=dict(raw["chunks"]),
                       sidecars=list(raw.get("sidecars", [])),
                       sidecar_files=dict(recorded) if isinstance(recorded, dict) else None,
                       chunking=str(raw.get("chunking", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return None
