"""A diff mapped to the chunks it touches: each file is matched to the index on the side its
lines agree with (the index may hold the code before the change, as in review, or after it, as
in a working tree), and each changed line to the innermost chunk holding it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

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
        if path is None:
            continue
        placed = _placed(file.hunks, _known_lines(catalog.in_file(path)), side)
        if placed is not None:
            held = (_holding(catalog, path, line) for line in _changed_lines(placed, side))
            return [chunk for chunk in held if chunk is not None]
    return False


def _holding(catalog: ChunkCatalog, path: str, line: int) -> Chunk | None:
    """The innermost chunk holding the line; for a line between definitions (a blank line, a def
    added after a class's last method), the file's module block, else the definition just before it;
    None above the file's first definition with no module block (an import added at the top)."""
    found = catalog.at_lines(path, line)
    if found is not None:
        return found
    chunks = catalog.in_file(path)
    module = [c for c in chunks if c.symbol == MODULE_SYMBOL]
    if module:
        return module[0]
    before = [c for c in chunks if c.end_line < line]
    return max(before, key=lambda c: (c.end_line, c.start_line)) if before else None


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


def _placed(hunks: Sequence[Hunk], known: dict[int, str], side: str) -> list[Hunk] | None:
    """The hunks where this side's lines are the indexed ones: at their own line numbers (lines no
    chunk shows are not compared), else each moved by the fewest lines that make every line it
    shows match, as `patch` applies a diff made against a slightly different version. None when a
    hunk matches nowhere, or no line of this side was compared at all."""
    placed, compared = [], 0
    for hunk in hunks:
        lines = [(number, text.rstrip()) for number, _, text in _side(hunk, side)]
        found = _shift(lines, known)
        if found is None:
            return None
        shift, seen = found
        compared += seen
        placed.append(replace(hunk, old_start=hunk.old_start + shift) if side == "old"
                      else replace(hunk, new_start=hunk.new_start + shift))
    return placed if compared or all(not _side(h, side) for h in hunks) else None


def _shift(lines: Sequence[tuple[int, str]], known: dict[int, str]) -> tuple[int, int] | None:
    """(the move, lines compared): 0 when no line the index shows differs; else the smallest move
    (1, -1, 2, -2, ...) at which every one of them matches, at least one not blank."""
    if not lines:
        return 0, 0
    first, last = min(known, default=0), max(known, default=0)
    reach = max(last - lines[0][0], lines[-1][0] - first, 0)
    for distance in range(reach + 1):
        for shift in ((0,) if distance == 0 else (distance, -distance)):
            compared = solid = 0
            for number, text in lines:
                held = known.get(number + shift)
                if held is None:
                    continue
                if held.rstrip() != text:
                    break
                compared += 1
                solid += bool(text.strip())
            else:
                if shift == 0 or solid:
                    return shift, compared
    return None


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
