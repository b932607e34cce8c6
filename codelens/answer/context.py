"""The context an answer is written from: the hits, then their code-graph neighbours, packed
into a token budget (code while it lasts, signatures after), each chunk once; and the catalog
of every chunk of the index that citations are checked against.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from codelens.answer.llm import DEFAULT_CONTEXT_TOKENS
from codelens.chunk import MODULE_SYMBOL, Chunk

Neighbours = Callable[[str], tuple[Sequence[str], Sequence[str]]]
"""chunk_id -> (callers, callees), both as chunk ids: the code graph's direct edges."""

NEIGHBOURS_PER_CHUNK = 4
_DOCSTRING_CHARS = 300


def estimate_tokens(text: str) -> int:
    """UTF-8 bytes / 4: close for code and English, and heavier for Cyrillic (2 bytes a letter), as tokenizers are."""
    return max(1, (len(text.encode("utf-8")) + 3) // 4)


# ------------------------------------------------------------------ the index


def _span(chunk: Chunk) -> int:
    return chunk.end_line - chunk.start_line


class ChunkCatalog:
    """Every chunk of an index, looked up by id, by file line and by symbol: what citations are checked against."""

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self.chunks: dict[str, Chunk] = {c.chunk_id: c for c in chunks}
        self._by_path: dict[str, list[Chunk]] = {}
        self._by_name: dict[str, list[Chunk]] = {}
        for chunk in sorted(self.chunks.values(), key=lambda c: (c.path, c.start_line, c.chunk_id)):
            self._by_path.setdefault(chunk.path, []).append(chunk)
            if chunk.symbol != MODULE_SYMBOL:
                parts = chunk.symbol.split("#")[0].split(".")
                for first in range(len(parts)):  # "A.b.c" is found as "A.b.c", "b.c" and "c"
                    self._by_name.setdefault(".".join(parts[first:]), []).append(chunk)

    def __len__(self) -> int:
        return len(self.chunks)

    def get(self, chunk_id: str) -> Chunk | None:
        return self.chunks.get(chunk_id)

    def resolve_path(self, path: str) -> str | None:
        """An indexed path, allowing `./`, or a unique match on whole path components at either end."""
        path = path.strip().removeprefix("./")
        if path in self._by_path:
            return path
        matches = [p for p in self._by_path if p.endswith("/" + path) or path.endswith("/" + p)]
        return matches[0] if len(matches) == 1 else None

    def in_file(self, path: str) -> list[Chunk]:
        return list(self._by_path.get(path, ()))

    def at_lines(self, path: str, start: int, end: int | None = None) -> Chunk | None:
        """The smallest chunk holding the whole range, else the smallest holding its first line."""
        end = start if end is None else end
        if end < start:
            return None
        chunks = self._by_path.get(path, [])
        for first, last in ((start, end), (start, start)):
            holding = [c for c in chunks if c.start_line <= first and last <= c.end_line]
            if holding:
                return min(holding, key=_span)
        return None

    def named(self, name: str) -> list[Chunk]:
        """Chunks whose qualified name is `name` or ends with `.name`."""
        return list(self._by_name.get(name, ()))

    def mentioning(self, name: str) -> list[Chunk]:
        """Chunks whose code uses `name` as a whole word, the ones that define or assign it first."""
        word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
        defines = re.compile(rf"^\s*(?:(?:async\s+)?def\s+|class\s+)?{re.escape(name)}\s*[(:=]", re.MULTILINE)
        found = [c for c in self.chunks.values() if word.search(c.code)]
        return sorted(found, key=lambda c: (not defines.search(c.code), c.chunk_id))


# ------------------------------------------------------------------ context packing


@dataclass(frozen=True)
class ContextBlock:
    chunk: Chunk
    role: str  # "hit", "callee" or "caller"
    hops: int  # 0 for a search hit, 1 for its direct neighbours, 2 for theirs
    full: bool  # the numbered code, or only the signature and docstring
    text: str  # the header line and body, as sent to the model

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class PackedContext:
    blocks: tuple[ContextBlock, ...]
    budget_tokens: int
    left_out: tuple[str, ...] = ()  # chunk ids that did not fit the budget

    @property
    def text(self) -> str:
        return "\n\n".join(block.text for block in self.blocks)

    @property
    def tokens(self) -> int:
        return sum(block.tokens for block in self.blocks)

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        return tuple(block.chunk.chunk_id for block in self.blocks)


@dataclass(frozen=True)
class _Candidate:
    chunk: Chunk
    role: str
    hops: int
    note: str  # why it is in the context, for the block header


def pack_context(
    chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None = None,
    budget_tokens: int = DEFAULT_CONTEXT_TOKENS, include_tests: bool = False,
) -> PackedContext:
    """Hits in rank order with their code, then their direct callees/callers (code while it fits,
    else signatures), then the neighbours' neighbours as signatures; each chunk once."""
    blocks: list[ContextBlock] = []
    left_out: list[str] = []
    seen: set[str] = set()
    remaining = budget_tokens
    for candidate in _candidates(chunks, catalog, neighbours, include_tests):
        chunk_id = candidate.chunk.chunk_id
        if chunk_id in seen or _already_shown(candidate.chunk, blocks):
            continue
        seen.add(chunk_id)
        block = _fit(candidate, remaining, first=not blocks)
        if block is None:
            left_out.append(chunk_id)
            continue
        blocks.append(block)
        remaining -= block.tokens
    return PackedContext(tuple(blocks), budget_tokens, tuple(left_out))


def _candidates(chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None,
                include_tests: bool) -> list[_Candidate]:
    found = [_Candidate(chunk, "hit", 0, f"search hit {rank}") for rank, chunk in enumerate(chunks, start=1)]
    if neighbours is None:
        return found
    frontier, visited = list(chunks), {c.chunk_id for c in chunks}
    for hops in (1, 2):
        next_frontier = []
        for chunk in frontier:
            callers, callees = neighbours(chunk.chunk_id)
            for role, ids, verb in (("callee", callees, "called by"), ("caller", callers, "calls")):
                for neighbour in _known(ids, catalog, include_tests)[:NEIGHBOURS_PER_CHUNK]:
                    found.append(_Candidate(neighbour, role, hops, f"{verb} `{chunk.symbol}`"))
                    if neighbour.chunk_id not in visited:
                        visited.add(neighbour.chunk_id)
                        next_frontier.append(neighbour)
        frontier = next_frontier
    return found


def _known(chunk_ids: Sequence[str], catalog: ChunkCatalog, include_tests: bool) -> list[Chunk]:
    chunks = (catalog.get(chunk_id) for chunk_id in chunk_ids)
    return [c for c in chunks if c is not None and (include_tests or not c.is_test)]


def _already_shown(chunk: Chunk, blocks: Sequence[ContextBlock]) -> bool:
    """A method whose whole class is already in the context adds nothing."""
    return any(
        b.full and b.chunk.kind != "module" and b.chunk.path == chunk.path
        and b.chunk.start_line <= chunk.start_line and chunk.end_line <= b.chunk.end_line
        for b in blocks
    )


def _fit(candidate: _Candidate, remaining: int, first: bool) -> ContextBlock | None:
    if first:  # the best hit always goes in, with as much of its code as the budget allows
        block = _block(candidate, True)
        return block if block.tokens <= remaining else _block(candidate, True, max_tokens=remaining)
    for full in (True, False) if candidate.hops < 2 else (False,):
        block = _block(candidate, full)
        if block.tokens <= remaining:
            return block
    return None


def _block(candidate: _Candidate, full: bool, max_tokens: int | None = None) -> ContextBlock:
    chunk = candidate.chunk
    what = "module-level code" if chunk.kind == "module" else f"{chunk.kind} `{chunk.symbol}`"
    note = candidate.note + ("" if full else "; signature only")
    header = f"### {chunk.path}:{chunk.start_line}-{chunk.end_line} {what} ({note})"
    lines = _code_lines(chunk) if full else _signature_lines(chunk)
    if max_tokens is not None:
        lines = _cut(header, lines, max_tokens)
    text = "\n".join([header, *lines])
    return ContextBlock(chunk, candidate.role, candidate.hops, full, text)


def _code_lines(chunk: Chunk) -> list[str]:
    """Code with its file line numbers, so the model can cite them; a module block's lines are not contiguous."""
    lines = chunk.code.splitlines()
    if len(lines) != chunk.end_line - chunk.start_line + 1:
        return lines
    width = len(str(chunk.end_line))
    return [f"{number:>{width}} | {line}" for number, line in enumerate(lines, start=chunk.start_line)]


def _signature_lines(chunk: Chunk) -> list[str]:
    signature = chunk.signature or (chunk.code.splitlines() or [""])[0]
    lines = [signature]
    if chunk.docstring:
        doc = " ".join(chunk.docstring.split())
        lines.append(f'    """{doc[:_DOCSTRING_CHARS]}"""')
    return lines


def _cut(header: str, lines: list[str], max_tokens: int) -> list[str]:
    marker = "... (cut to fit the context budget)"
    kept: list[str] = []
    for line in lines:
        if estimate_tokens("\n".join([header, *kept, line, marker])) > max_tokens:
            return [*kept, marker]
        kept.append(line)
    return kept
