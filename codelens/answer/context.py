"""The context an answer is written from: the hits, then their code-graph neighbours, packed
into a token budget by the shared packer (answer/pack.py: code while it lasts, signatures after),
each chunk once; and the catalog of every chunk of the index that citations are checked against.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from codelens.answer.llm import DEFAULT_CONTEXT_TOKENS
from codelens.answer.pack import ASK_RULES, CUT, Candidate, pack
from codelens.answer.token_count import BYTE_ESTIMATE
from codelens.chunk import MODULE_SYMBOL, Chunk

Neighbours = Callable[[str], tuple[Sequence[str], Sequence[str]]]
"""chunk_id -> (callers, callees), both as chunk ids: the code graph's direct edges."""

NEIGHBOURS_PER_CHUNK = 4


def estimate_tokens(text: str) -> int:
    """UTF-8 bytes / 4: close for code and English, and heavier for Cyrillic (2 bytes a letter), as tokenizers are."""
    return BYTE_ESTIMATE.count(text)


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


def pack_context(
    chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None = None,
    budget_tokens: int = DEFAULT_CONTEXT_TOKENS, include_tests: bool = False,
) -> PackedContext:
    """Hits in rank order with their code, then their direct callees/callers (code while it fits,
    else signatures), then the neighbours' neighbours as signatures; each chunk once. The packer
    of `codelens context` (answer/pack.py) under ask's rules: rank order, the best hit cut rather
    than dropped, the byte estimate of tokens."""
    packed = pack(_candidates(chunks, catalog, neighbours, include_tests), budget_tokens, BYTE_ESTIMATE, ASK_RULES)
    blocks = tuple(ContextBlock(p.chunk, p.role, p.hops, p.form in ("full", CUT), p.text) for p in packed.pieces)
    return PackedContext(blocks, budget_tokens, packed.left_out)


def _candidates(chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None,
                include_tests: bool) -> list[Candidate]:
    found = [Candidate(chunk, "hit", 0, note=f"search hit {rank}") for rank, chunk in enumerate(chunks, start=1)]
    if neighbours is None:
        return found
    frontier, visited = list(chunks), {c.chunk_id for c in chunks}
    for hops in (1, 2):
        next_frontier = []
        for chunk in frontier:
            callers, callees = neighbours(chunk.chunk_id)
            for role, ids, verb in (("callee", callees, "called by"), ("caller", callers, "calls")):
                for neighbour in _known(ids, catalog, include_tests)[:NEIGHBOURS_PER_CHUNK]:
                    found.append(Candidate(neighbour, role, hops, note=f"{verb} `{chunk.symbol}`"))
                    if neighbour.chunk_id not in visited:
                        visited.add(neighbour.chunk_id)
                        next_frontier.append(neighbour)
        frontier = next_frontier
    return found


def _known(chunk_ids: Sequence[str], catalog: ChunkCatalog, include_tests: bool) -> list[Chunk]:
    chunks = (catalog.get(chunk_id) for chunk_id in chunk_ids)
    return [c for c in chunks if c is not None and (include_tests or not c.is_test)]
