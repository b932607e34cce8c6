"""From named line ranges to chunks: what every chunker of non-Python files shares.

A chunker of documents, configuration or build files says where its pieces are
(`Piece(symbol, start_line, end_line)`); `pieces_to_chunks` trims them, cuts a piece over the
size budget at blank lines (never inside a fenced code block when it can help it) into parts
named `symbol (2)`, `symbol (3)`, and gives every chunk a unique, stable id
(`path::symbol`, a repeated symbol `#2`), as the Python chunker does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codelens.chunk import Chunk
from codelens.ingest.chunker import is_test_path

# About what a Python function of the demo holds (most are under 1,000 characters): a piece
# of this size is embedded nearly whole (the embedded text's budget is 700 characters).
MAX_PIECE_CHARS = 1200
_FENCES = ("```", "~~~")


@dataclass(frozen=True)
class Piece:
    symbol: str
    start_line: int  # 1-based, inclusive
    end_line: int


def pieces_to_chunks(rel_path: str, lines: Sequence[str], pieces: Iterable[Piece], kind: str,
                     budget: int = MAX_PIECE_CHARS) -> list[Chunk]:
    """Chunks of the pieces, in order: blank edges trimmed, long ones cut, ids unique."""
    chunks: list[Chunk] = []
    used: dict[str, int] = {}
    is_test = is_test_path(rel_path)
    for piece in pieces:
        trimmed = _trim(lines, piece.start_line, piece.end_line)
        if trimmed is None:
            continue
        for part, (start, end) in enumerate(split_to_budget(lines, *trimmed, budget), 1):
            symbol = piece.symbol if part == 1 else f"{piece.symbol} ({part})"
            count = used.get(symbol, 0) + 1
            used[symbol] = count
            symbol = symbol if count == 1 else f"{symbol}#{count}"
            chunks.append(Chunk(chunk_id=f"{rel_path}::{symbol}", path=rel_path, symbol=symbol, kind=kind,
                                start_line=start, end_line=end, code="\n".join(lines[start - 1 : end]),
                                is_test=is_test))
    return chunks


def _trim(lines: Sequence[str], start: int, end: int) -> tuple[int, int] | None:
    start, end = max(1, start), min(len(lines), end)
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    return (start, end) if start <= end else None


def split_to_budget(lines: Sequence[str], start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """Line ranges of at most ~budget characters: cut after the last blank line outside a fence
    that fits, else (one long paragraph) after the last line that fits."""
    parts: list[tuple[int, int]] = []
    part_start, size, last_break, in_fence = start, 0, 0, False
    for number in range(start, end + 1):
        line = lines[number - 1]
        if line.lstrip().startswith(_FENCES):
            in_fence = not in_fence
        size += len(line) + 1
        if size > budget and number > part_start and _chars(lines, part_start, end) > budget * 5 // 4:
            # a blank line that leaves a sizeable part, else the line before (one long paragraph
            # or table: no heading cut off alone)
            good_break = last_break >= part_start and _chars(lines, part_start, last_break) >= budget // 3
            cut = last_break if good_break else number - 1
            parts.append((part_start, cut))
            part_start = cut + 1
            size = _chars(lines, part_start, number)
            last_break = 0
        if not line.strip() and not in_fence:
            last_break = number
    parts.append((part_start, end))
    return [trimmed for s, e in parts if (trimmed := _trim(lines, s, e)) is not None]


def _chars(lines: Sequence[str], start: int, end: int) -> int:
    return sum(len(lines[n - 1]) + 1 for n in range(start, end + 1))
