"""A codebase as chunks: open the source (zip or folder), read every code file (Python and the
languages of `codelens.languages`) and every document, configuration and build file (`formats`)
safely, mask secrets, chunk. Problems with single files become warnings, never a failed run.
"""

from __future__ import annotations

import codecs
import dataclasses
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from codelens.chunk import Chunk
from codelens.errors import SourceError
from codelens.ingest.chunker import chunk_file
from codelens.ingest.formats import (
    CSV_HEAD_BYTES,
    chunk_other_file,
    generated_mark,
    is_code_format,
    looks_generated,
    looks_like_table,
    max_bytes,
    skipped_file_reason,
    without_number_rows,
)
from codelens.ingest.hashing import file_hash
from codelens.ingest.redaction import redact
from codelens.ingest.source import SourceFile, list_source_files, read_format, read_source_text
from codelens.ingest.sql import is_sql_definition
from codelens.ingest.syntax import chunk_code_file
from codelens.ingest.tree import open_tree
from codelens.languages import PYTHON, language_names, language_of, row_named


@dataclass
class ChunkedCodebase:
    chunks: list[Chunk]
    files: int
    warnings: list[str]
    sources: dict[str, str] = field(default_factory=dict)  # rel_path -> text
    file_hashes: dict[str, str] = field(default_factory=dict)
    secrets_masked: Counter[str] = field(default_factory=Counter)  # kind -> masks
    python_files: int = 0  # of `files`, the Python ones
    repositories: list[dict] = field(default_factory=list)  # workspace.Workspace.to_json() of the source


def chunk_codebase(root: Path, max_file_bytes: int, show_progress: bool = False) -> ChunkedCodebase:
    """Read and chunk every file under root that is read; problems become warnings."""
    return chunk_files(list_source_files(root), max_file_bytes, show_progress)


def chunk_files(files: list[SourceFile], max_file_bytes: int, show_progress: bool = False,
                on_file: Callable[[int, int], None] | None = None) -> ChunkedCodebase:
    """Read and chunk these files (a folder's, or a workspace's: ingest/tree.py); problems become warnings.
    `on_file(done, total)` after each file: an index run's one progress (index/progress.py) instead of a bar."""
    result = ChunkedCodebase(chunks=[], files=0, warnings=[])
    result.files = len(files)
    result.python_files = sum(1 for f in files if f.rel_path.endswith(".py"))
    seen: set[str] = set()
    for done, source_file in enumerate(tqdm(files, unit="file", desc="Chunking",
                                            disable=not show_progress or len(files) < 200), start=1):
        one = chunk_one_file(source_file.abs_path, source_file.rel_path, max_file_bytes)
        if on_file:
            on_file(done, len(files))
        # a missing grammar says so once, not once per file of its language
        result.warnings.extend(w for w in one.warnings if w not in seen)
        seen.update(one.warnings)
        if one.file_hash is not None:
            result.file_hashes[source_file.rel_path] = one.file_hash
        if one.text is None:
            continue
        result.secrets_masked.update(one.secrets_masked)
        result.chunks.extend(one.chunks)
        result.sources[source_file.rel_path] = one.text
    return result


@dataclass(frozen=True)
class FileChunks:
    """One file read, masked and chunked (what an incremental update re-does per changed file)."""

    rel_path: str
    chunks: list[Chunk]
    text: str | None  # the masked text; None: skipped (too large, unreadable, binary, generated)
    file_hash: str | None  # of the raw bytes; None: unreadable
    warnings: list[str]
    secrets_masked: dict[str, int]


def chunk_one_file(path: Path, rel_path: str, max_file_bytes: int) -> FileChunks:
    """Python by ast (tree-sitter when ast fails); other code by its grammar (`syntax`); documents,
    configuration and build files by their format (`formats`); a script with no extension by the
    language its `#!` line runs (`source.read_format`), which its chunks record (`Chunk.script_language`)."""
    fmt = read_format(path) or "text"
    raw, text, warning = _read_file(path, rel_path, fmt, max_file_bytes)
    if raw is not None and fmt != PYTHON and is_code_format(fmt):
        text, warning = _code_text(rel_path, raw, text, warning)
    digest = file_hash(raw) if raw is not None else None
    table = text is not None and _table_in_code(text, fmt)
    if text is not None:
        text, warning = _unless_generated(rel_path, text, fmt, warning, table)
    warnings = [warning] if warning else []
    if text is None:
        return FileChunks(rel_path, [], None, digest, warnings, {})
    # Secrets out before chunking: every chunk field, embedding and sidecar sees masked text.
    row = row_named(fmt) if is_code_format(fmt) else None
    text, masks = redact(text, plain_values=row is None or row.bare_values)
    if fmt == PYTHON:
        chunked = chunk_file(rel_path, text)
        if chunked.warning:
            warnings.append(chunked.warning)
        chunks = list(chunked.chunks)
    elif is_code_format(fmt):
        chunks, code_warnings = chunk_code_file(rel_path, text, fmt)
        if table and not any(chunk.kind in ("function", "method") for chunk in chunks):  # the table alone: data
            return FileChunks(rel_path, [], None, digest, [f"{rel_path}: skipped, {_TABLE_REASON}"], {})
        warnings.extend(code_warnings)
    else:
        chunks = list(chunk_other_file(rel_path, text, fmt))
    if is_code_format(fmt) and language_of(rel_path) != fmt:
        chunks = [dataclasses.replace(chunk, script_language=fmt) for chunk in chunks]
    return FileChunks(rel_path, chunks, text, digest, warnings, dict(masks))


def _unless_generated(rel_path: str, text: str, fmt: str, warning: str | None,
                      table: bool = False) -> tuple[str | None, str | None]:
    """(text, warning): None and why when the file was written by a tool; a table in code (`table`) without its
    rows. Python by its name only
    (protoc's `*_pb2.py`, `*_pb2_grpc.py`), not by its lines' length or a DO NOT EDIT mark, so a Python
    repository's results do not move."""
    if fmt in ("csv", "markdown", "rst"):
        return text, warning
    if fmt != PYTHON and looks_generated(text):
        return None, f"{rel_path}: skipped, minified or generated (lines too long to be written by hand)"
    if is_code_format(fmt):
        reason = skipped_file_reason(rel_path)
        if reason is None and fmt != PYTHON and generated_mark(text):
            reason = "generated (a DO NOT EDIT / @generated mark)"
        if reason is not None:
            return None, f"{rel_path}: skipped, {reason}"
        if table:  # its rows blanked; chunk_one_file keeps what stands around them where functions do
            note = f"{rel_path}: its rows of numbers left out (a table in code)"
            return without_number_rows(text), f"{warning}; {note}" if warning else note
    return text, warning


_TABLE_REASON = "a table of numbers (data a program wrote, not code)"


def _table_in_code(text: str, fmt: str) -> bool:
    """A code file that is mostly rows of numbers (formats.looks_like_table); not Python's (its results stay)."""
    return is_code_format(fmt) and fmt != PYTHON and looks_like_table(text)


def source_file_hashes(source: Path, max_file_bytes: int) -> dict[str, str]:
    """The hash of every file of source that `chunk_source` reads, as it records them
    (`ChunkedCodebase.file_hashes`), without chunking: an index run compares them with the
    manifest to tell that nothing changed (pydantic: a fraction of a second; chunking took 2.4 s of CPU)."""
    hashes: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="codelens-src-") as work_dir:
        for source_file in open_tree(source, Path(work_dir)).files():
            fmt = read_format(source_file.abs_path) or "text"
            raw, _ = _read_raw(source_file.abs_path, source_file.rel_path, fmt, max_file_bytes)
            if raw is not None:
                hashes[source_file.rel_path] = file_hash(raw)
    return hashes


def _read_raw(path: Path, rel_path: str, fmt: str, max_file_bytes: int) -> tuple[bytes | None, str | None]:
    """(raw bytes, warning): None when the file is over its format's limit (formats.max_bytes) or
    unreadable. A CSV file's first CSV_HEAD_BYTES are read whatever its size (a data file is
    summarised by its first rows). The one place that says how much of a file is read: chunking
    and the unchanged check (source_file_hashes) hash the same bytes."""
    limit, head_only = max_bytes(fmt, max_file_bytes), fmt == "csv"
    try:
        size = path.stat().st_size
        if size > limit and not head_only:
            return None, f"{rel_path}: skipped, {size} bytes is over the {limit}-byte limit"
        with open(path, "rb") as handle:
            return handle.read(CSV_HEAD_BYTES if head_only else limit + 1), None
    except OSError as exc:
        return None, f"{rel_path}: unreadable ({exc})"


def _read_file(path: Path, rel_path: str, fmt: str, max_file_bytes: int) -> tuple[bytes | None, str | None, str | None]:
    """(raw bytes, text, warning): text is None when the file is skipped (_read_raw)."""
    raw, warning = _read_raw(path, rel_path, fmt, max_file_bytes)
    if raw is None:
        return None, None, warning
    text = read_source_text(raw)
    if text is None:
        return raw, None, f"{rel_path}: skipped, binary content (NUL bytes)"
    if fmt == "csv" and len(raw) == CSV_HEAD_BYTES:
        text = text.rsplit("\n", 1)[0]  # the last line read may be cut short
    return raw, text, None


_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _code_text(rel_path: str, raw: bytes, text: str | None,
               warning: str | None) -> tuple[str | None, str | None]:
    """Code in another language than Python: UTF-16 with its byte order mark is read (a Windows
    editor's file), and a file that is not UTF-8 says it was read as Latin-1 (Python's own rules,
    PEP 263 first, stay `read_source_text`'s)."""
    if raw.startswith(_UTF16_BOMS):
        try:
            return raw.decode("utf-16"), f"{rel_path}: read as UTF-16 (not UTF-8)"
        except UnicodeDecodeError:
            return None, f"{rel_path}: skipped, neither UTF-8 nor UTF-16"
    if text is not None and not raw.startswith(codecs.BOM_UTF8):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return text, f"{rel_path}: read as Latin-1 (not UTF-8)"
    return text, warning


def chunk_source(source: Path, max_file_bytes: int, show_progress: bool = False,
                 on_file: Callable[[int, int], None] | None = None) -> ChunkedCodebase:
    """Every chunk of a zip, a folder or a workspace file's repositories (ingest/tree.py);
    SourceError when it holds no code in any language. `on_file`: chunk_files'."""
    with tempfile.TemporaryDirectory(prefix="codelens-src-") as work_dir:
        tree = open_tree(source, Path(work_dir))
        vendored: list[str] = []
        chunked = chunk_files(tree.files(vendored=vendored), max_file_bytes, show_progress, on_file)
        chunked.warnings[:0] = list(tree.warnings) + [
            f"{folder}: skipped, vendored or build output (other people's or generated code)" for folder in vendored]
        chunked.repositories = tree.workspace.to_json()
    if not any(chunk.is_code or is_sql_definition(chunk) for chunk in chunked.chunks):  # a schema repository is code
        others = ", ".join(name for name in language_names() if name != PYTHON)
        raise SourceError(f"no code found in {source}: no Python code found ({chunked.python_files} .py files), "
                          f"nor any in {others}, nor SQL definitions")
    return chunked
