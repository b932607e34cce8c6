"""Citation checking: every path, path:line, path:start-end, path::symbol and backticked
identifier an answer cites is resolved against the whole index; what does not resolve is
marked, never left standing as if it were real.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codelens.answer.context import ChunkCatalog
from codelens.chunk import Chunk

UNVERIFIED_MARK = {"en": "[not in the index]", "ru": "[нет в индексе]"}


# ------------------------------------------------------------------ citations


@dataclass(frozen=True)
class Citation:
    ref: str  # as written in the answer: "pkg/auth.py:7-9", "pkg/auth.py::login", "Repository.save"
    chunk_id: str | None  # the chunk it resolves to; None when it resolves to nothing in the index
    verified: bool
    lines: tuple[int, int] | None = None  # the cited lines of a path:line / path:start-end reference

    def to_dict(self) -> dict:
        return {"ref": self.ref, "chunk_id": self.chunk_id, "verified": self.verified}


@dataclass(frozen=True)
class Reference:
    """One place in an answer that cites code, before it is checked."""

    ref: str
    start: int  # where it sits in the answer text (backticks included), for marking
    end: int
    path: str | None = None
    symbol: str | None = None
    lines: tuple[int, int] | None = None


_LOCATION = re.compile(
    r"(?<![\w/.-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\.pyi?)"
    r"(?:::(?P<symbol>[\w.#<>]*[\w>])|:L?(?P<start>\d+)(?:\s?[-–]\s?L?(?P<end>\d+))?)?(?![\w/])"
)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_SYMBOL = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?")
_NOT_SYMBOLS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {"self", "cls"}


def find_refs(text: str) -> list[Reference]:
    """Every `path`, `path:line`, `path:start-end`, `path::symbol` and backticked identifier, in order."""
    refs = []
    for match in _LOCATION.finditer(text):
        start, end = match.group("start"), match.group("end")
        lines = (int(start), int(end or start)) if start else None
        quoted = text[match.start() - 1 : match.start()] == "`" and text[match.end() : match.end() + 1] == "`"
        refs.append(Reference(match.group(0), match.start() - quoted, match.end() + quoted, match.group("path"),
                         match.group("symbol"), lines))
    for match in _BACKTICKED.finditer(text):
        inside = _SYMBOL.fullmatch(match.group(1).strip())
        overlaps = any(r.start < match.end() and match.start() < r.end for r in refs)
        if inside and not overlaps and inside.group("name") not in _NOT_SYMBOLS:
            refs.append(Reference(inside.group("name"), match.start(), match.end(), symbol=inside.group("name")))
    return sorted(refs, key=lambda r: r.start)


def check_citations(text: str, catalog: ChunkCatalog, prefer: Sequence[str] = ()) -> tuple[Citation, ...]:
    """Each distinct reference in the answer, resolved against the index; `prefer` (the context's
    chunk ids) breaks ties between chunks of the same name."""
    citations: dict[str, Citation] = {}
    for ref in find_refs(text):
        if ref.ref not in citations:
            chunk = _resolve(ref, catalog, prefer)
            citations[ref.ref] = Citation(ref.ref, chunk.chunk_id if chunk else None, chunk is not None, ref.lines)
    return tuple(citations.values())


def _resolve(ref: Reference, catalog: ChunkCatalog, prefer: Sequence[str]) -> Chunk | None:
    if ref.path is None:
        found = catalog.named(ref.symbol) or catalog.mentioning(ref.symbol)
        if not found and "." in ref.symbol:  # a module: `pkg.auth` is pkg/auth.py
            return _resolve(Reference(ref.ref, ref.start, ref.end, path=ref.symbol.replace(".", "/") + ".py"),
                            catalog, prefer)
        return _preferred(found, prefer)
    path = catalog.resolve_path(ref.path)
    if path is None:
        return None
    if ref.lines is not None:
        return catalog.at_lines(path, *ref.lines)
    if ref.symbol is not None:
        exact = catalog.get(f"{path}::{ref.symbol}")
        return exact or _preferred([c for c in catalog.named(ref.symbol) if c.path == path], prefer)
    in_file = catalog.in_file(path)
    return next((c for c in in_file if c.kind == "module"), in_file[0] if in_file else None)


def _preferred(chunks: Sequence[Chunk], prefer: Sequence[str]) -> Chunk | None:
    rank = {chunk_id: position for position, chunk_id in enumerate(prefer)}
    ordered = sorted(enumerate(chunks), key=lambda item: (rank.get(item[1].chunk_id, len(rank)), item[0]))
    return ordered[0][1] if ordered else None


def mark_unverified(text: str, citations: Sequence[Citation], language: str) -> str:
    """Put UNVERIFIED_MARK after every occurrence of a citation that resolves to nothing."""
    invented = {c.ref for c in citations if not c.verified}
    mark = f" {UNVERIFIED_MARK[language]}"
    for ref in reversed(find_refs(text)):
        if ref.ref in invented and not text.startswith(mark, ref.end):
            text = text[: ref.end] + mark + text[ref.end :]
    return text
