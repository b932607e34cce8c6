"""A diff mapped to the chunks it touches: each file is matched to the index on the side its
lines agree with (the index may hold the code before the change, as in review, or after it, as
in a working tree), and each changed line to the innermost chunk holding it.
"""

from __future__ import annotations

from collections.abc import Sequence

from codelens.answer.context import ChunkCatalog
from codelens.answer.diff import FileDiff, Hunk
from codelens.chunk import MODULE_SYMBOL, Chunk, span_segments
from codelens.errors import BadInput


def changed_chunks(files: Sequence[FileDiff], catalog: ChunkCatalog, prefix: str = "") -> list[Chunk]:
    """The innermost chunk of every changed line, on the side of each file the index holds;
    BadInput when the diff touches no indexed file or does not match what the index holds."""
    changed: dict[str, Chunk] = {}
    indexed = 0
    mismatched: list[str] = []
    for file in files:
        chunks = _file_chunks(file, catalog, prefix)
        if chunks is None:
            continue
        indexed += 1
        if chunks is False:
            mismatched.append(file.old_path or file.new_path or "")
            continue
        for chunk in chunks:
            changed.setdefault(chunk.chunk_id, chunk)
    if mismatched and not changed:
        raise BadInput(f"the diff does not apply to the index: {', '.join(mismatched[:3])} differ from what was "
                       "indexed - update the index (codelens index) or diff against the indexed code")
    if not indexed:
        raise BadInput("the diff touches no indexed file - is it a change to this index's repository "
                       "(--repo NAME in a workspace)?")
    return sorted(changed.values(), key=lambda c: (c.path, c.start_line, c.chunk_id))


def _file_chunks(file: FileDiff, catalog: ChunkCatalog, prefix: str) -> list[Chunk] | bool | None:
    """The chunks one file's change touches; None when the file is not indexed; False when neither
    side of its change matches the indexed lines."""
    old = _indexed(file.old_path, catalog, prefix)
    new = _indexed(file.new_path, catalog, prefix)
    if old is None and new is None:
        return None
    if file.new_path is None and old is not None:  # deleted: all of it
        return catalog.in_file(old)
    if file.old_path is None and new is not None:  # added, and the index has it already
        return catalog.in_file(new)
    for path, side in ((old, "old"), (new, "new")):
        if path is not None and _matches(file.hunks, catalog.in_file(path), side):
            return [_holding(catalog, path, line) for line in _changed_lines(file.hunks, side)]
    return False


def _holding(catalog: ChunkCatalog, path: str, line: int) -> Chunk:
    """The innermost chunk holding the line; for a line between definitions (a blank line, a def
    added after a class's last method), the file's module block, else the definition just before it."""
    found = catalog.at_lines(path, line)
    if found is not None:
        return found
    chunks = catalog.in_file(path)
    module = [c for c in chunks if c.symbol == MODULE_SYMBOL]
    if module:
        return module[0]
    before = [c for c in chunks if c.end_line < line] or chunks
    return max(before, key=lambda c: (c.end_line, c.start_line))


def _indexed(path: str | None, catalog: ChunkCatalog, prefix: str) -> str | None:
    if path is None:
        return None
    full = f"{prefix}/{path}" if prefix else path
    return full if catalog.in_file(full) else None


def _side(hunk: Hunk, side: str) -> list[tuple[int, str, str]]:
    """(line number, prefix, text) of the lines of one side of a hunk."""
    number = hunk.old_start if side == "old" else hunk.new_start
    skip = "+" if side == "old" else "-"
    found = []
    for line in hunk.lines:
        if line[:1] == skip:
            continue
        found.append((number, line[:1], line[1:]))
        number += 1
    return found


def _matches(hunks: Sequence[Hunk], chunks: Sequence[Chunk], side: str) -> bool:
    """Whether every line of this side that an indexed chunk shows is the line the chunk holds."""
    known = _known_lines(chunks)
    compared = 0
    for hunk in hunks:
        for number, _, text in _side(hunk, side):
            if number in known:
                if known[number].rstrip() != text.rstrip():
                    return False
                compared += 1
    return compared > 0 or all(not _side(h, side) for h in hunks)


def _known_lines(chunks: Sequence[Chunk]) -> dict[int, str]:
    known: dict[int, str] = {}
    for chunk in chunks:
        if chunk.kind == "module" and chunk.line_spans:
            for segment, first in span_segments(chunk.code, chunk.line_spans):
                known.update(enumerate(segment.splitlines(), start=first))
        elif chunk.symbol != MODULE_SYMBOL:
            known.update(enumerate(chunk.code.splitlines(), start=chunk.start_line))
    return known


def _changed_lines(hunks: Sequence[Hunk], side: str) -> list[int]:
    """The lines this side changes; where it only gains lines on the other side, the line before
    the insertion (the definition it lands in)."""
    mark, other = ("-", "+") if side == "old" else ("+", "-")
    lines: list[int] = []
    for hunk in hunks:
        start, count = (hunk.old_start, hunk.old_count) if side == "old" else (hunk.new_start, hunk.new_count)
        number, marked, anchor = start, [], None
        for line in hunk.lines:
            tag = line[:1]
            if tag == mark:
                marked.append(number)
                number += 1
            elif tag == other:
                if anchor is None:  # git's start is the line before an insertion when the side has no lines
                    anchor = start if count == 0 else number - 1
            else:
                number += 1
        lines.extend(marked or ([max(anchor, 1)] if anchor is not None else []))
    return lines
