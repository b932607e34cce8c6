"""The records that flow through indexing and search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from codelens.languages import language_of

CODE_KINDS = ("function", "method", "class", "module")  # code in any language (codelens/languages/)
# The pieces of the other files: documents (Markdown, reST), configuration (YAML, TOML, INI,
# JSON, .env), and text (build files, scripts, SQL, CSV, plain text); see ingest/formats.py.
FILE_KINDS = ("doc", "config", "text")
KINDS = CODE_KINDS + FILE_KINDS
MODULE_SYMBOL = "<module>"


@dataclass(frozen=True)
class Chunk:
    """One searchable unit: a function, method, class or a file's module-level block, or a
    piece of another file (a document's section, a configuration key, a build target)."""

    chunk_id: str  # "<path>::<qualified name>": stable across re-indexing when code only moves
    path: str
    symbol: str  # qualified name, or "<module>"
    kind: str  # one of KINDS
    start_line: int
    end_line: int
    code: str  # the original source lines: what is stored and shown
    signature: str = ""
    docstring: str = ""
    parent: str = ""  # qualified name of the enclosing class, for methods
    decorators: tuple[str, ...] = ()
    is_test: bool = False
    # For a module chunk made of separate statements: the (start, end) line ranges its code
    # joins, in order; empty when the code is the contiguous start_line..end_line.
    line_spans: tuple[tuple[int, int], ...] = ()
    # The language a file's content says where its name says none or another: the one its `#!` line runs
    # (`bin/asdf`: "bash"), an Objective-C header's (`AFURLSessionManager.h`: "objc", not C); empty for every
    # other file, whose language is its path's
    script_language: str = ""

    @property
    def is_code(self) -> bool:
        """Code in any language: what the code graph, callers and callees know."""
        return self.kind in CODE_KINDS

    @property
    def language(self) -> str | None:
        """`python`, `typescript`, `go`...: by the path (`codelens.languages`), a script's by its `#!`
        line, an Objective-C header's by its head; None for documents, configuration and the rest."""
        return self.script_language or language_of(self.path)

    @property
    def has_docstring(self) -> bool:
        return bool(self.docstring)

    @property
    def name(self) -> str:
        return self.symbol.rsplit(".", 1)[-1]


def stored_chunk(fields: dict) -> Chunk:
    """The chunk whose every field `fields` holds (as `vars(chunk)` gave them, tuples as tuples),
    made without `__init__`: a frozen dataclass sets each field through `object.__setattr__`, six
    times the cost, and a fresh search makes 40k chunks from the catalog. `fields` becomes its own."""
    chunk = object.__new__(Chunk)
    chunk.__dict__.update(fields)
    return chunk


def span_segments(code: str, line_spans: Sequence[tuple[int, int]]) -> list[tuple[str, int]]:
    """A module chunk joins separate statements: split its code back into (segment, first real line)."""
    lines = code.splitlines()
    segments, position = [], 0
    for start, end in line_spans:
        count = end - start + 1
        segments.append(("\n".join(lines[position : position + count]), start))
        position += count
    return segments


@dataclass
class Definition:
    """A def or class as a parser saw it: the neutral form both parsers produce."""

    kind: str  # "function" or "class"
    name: str
    start_line: int  # first decorator line when decorated
    end_line: int
    signature: str
    docstring: str = ""
    decorators: tuple[str, ...] = ()
    children: list[Definition] = field(default_factory=list)
    # The type a definition outside it belongs to (Go's receiver, Rust's `impl`, C++'s `Foo::bar`):
    # it is named and kept as a method of that type. Python's parsers never set it.
    owner: str = ""
    is_test: bool = False  # a test written beside the code (Zig's `test "..." {}`), whatever its file


@dataclass
class ParsedModule:
    definitions: list[Definition]
    # (start_line, end_line) of module-level statements worth a <module> chunk
    module_spans: list[tuple[int, int]]
    docstring: str = ""
    # (start_line, end_line) of module-level imports (and `__all__`): the <module> chunk of a file that has
    # nothing else (a re-export or import-only file), so such a file can still be found
    import_spans: list[tuple[int, int]] = field(default_factory=list)
    # a file of comments alone: a Go package's doc.go, a Lua file of type annotations; its <module> chunk is a
    # document (read as the README is: below the code, by meaning), not code
    documentation: bool = False
