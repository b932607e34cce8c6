"""Code in every language of `codelens.languages` by its syntax tree: one chunker reading the table.

A file is parsed with its row's tree-sitter grammar; the definitions the row names become the
neutral `Definition` records (classes with their members, functions, methods under their class
or, outside it, under the type they belong to: Go's receiver, Rust's `impl`, C++'s `Foo::bar`,
Swift's `extension`, Kotlin's `fun Foo.bar()`), everything else at the top level becomes the
<module> chunk, and `chunker.chunks_from_parsed` makes the chunks and ids, as for Python.

This module is the chunker's entry: loading a grammar, the fallback to plain text, a long <module>
cut into parts, a component's markup (Vue, Svelte) as `<template>` pieces. The bytes handed to the
parser are `syntax_source`'s (C macros, a component's markup blanked). The walk that finds the
definitions is `syntax_walk`, what each language calls them is `syntax_names`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath
from typing import NamedTuple

from codelens.chunk import MODULE_SYMBOL, Chunk, Definition, ParsedModule
from codelens.ingest.chunker import chunks_from_parsed
from codelens.ingest.formats import chunk_other_file
from codelens.ingest.grammars import GrammarUnavailable, shared_parser
from codelens.ingest.lines import definition_within, source_lines, spans_within
from codelens.ingest.pieces import MAX_PIECE_CHARS, Piece, pieces_to_chunks, split_to_budget
from codelens.ingest.syntax_source import markup_runs, parser_bytes
from codelens.ingest.syntax_walk import DefinitionWalk
from codelens.languages import Grammar, LanguageRow, grammar_of, language_row, row_named

MODULE_PART_CHARS = 2 * MAX_PIECE_CHARS  # a long <module> is cut into parts of about this size
TEMPLATE_SYMBOL = "<template>"  # a component's markup (Vue, Svelte)


class SyntaxResult(NamedTuple):
    parsed: ParsedModule
    warning: str | None = None


def load_parser(grammar: Grammar):
    """One parser per grammar for the process (`ingest/grammars.py`, the one loader)."""
    return shared_parser(grammar)


def module_name(rel_path: str) -> str:
    """What an importer calls a file's module: its name, or its folder's for a folder's entry file
    (`lib/mime-funcs/index.js` is `require('./mime-funcs')`, Lua's `lua/conform/init.lua` is `require('conform')`)."""
    path = PurePosixPath(rel_path)
    return path.parent.name if path.stem in ("index", "init") and path.parent.name else path.stem


def parse_with_grammar(rel_path: str, text: str, row: LanguageRow, grammar: Grammar) -> SyntaxResult:
    """The definitions and <module> statements of one file; GrammarUnavailable when it cannot be parsed."""
    source = text.encode("utf-8", errors="replace")
    # blanked where the grammar cannot read (syntax_source): same bytes, same offsets, every row is
    # the line it is in the chunks' text
    lines = source_lines(text)
    component = module_name(rel_path)
    root, walk, (definitions, spans, imports) = _read(row, grammar, source, lines, component)
    doc = walk.module_doc(root, definitions)
    comments_only = not (definitions or spans or imports)
    if doc is not None:  # the file's doc comment: its <module> chunk's, a file of docs alone has one
        spans.append(doc[0])
    last = max(1, len(source_lines(text.rstrip("\r\n"))))
    if comments_only and not spans and text.strip():  # comments alone: a Lua types file of `---@class`
        spans.append((1, last))  # annotations, a header of docs; the file's text, not nothing
    parsed = ParsedModule(definitions=[definition_within(d, last) for d in definitions],
                          module_spans=spans_within(spans, last), import_spans=spans_within(imports, last),
                          docstring=doc[1] if doc is not None else "", documentation=comments_only and bool(spans))
    warning = None
    if root.has_error:
        count = _count(parsed.definitions)
        first, last_error = widest_error(root)
        where = f"lines {first}-{last_error}" if last_error > first else f"line {first}"
        warning = (f"{rel_path}: the {row.name} grammar could not parse all of it (the widest error: {where}); "
                   f"kept the {count} definitions it recovered")
    return SyntaxResult(parsed, warning)


def _read(row: LanguageRow, grammar: Grammar, source: bytes, lines: list[str], component: str):
    """(root, walk, its top level) of the grammar's reading; for a file with errors, of the row's second
    reading (`LanguageRow.recover_bytes`) instead when fewer of its lines fall under ERROR, or as few
    and more of its definitions are found (libuv's `win/tty.c`: 15 functions more)."""
    parser = load_parser(grammar)
    readable = parser_bytes(row, source)
    root = parser.parse(readable).root_node
    walk = DefinitionWalk(row, source, lines, component=component, parsed=readable)
    found = walk.top_level(root)
    if not root.has_error or row.recover_bytes is None or (second := row.recover_bytes(readable)) == readable:
        return root, walk, found
    other = parser.parse(second).root_node
    other_walk = DefinitionWalk(row, source, lines, component=component, parsed=second)
    other_found = other_walk.top_level(other)
    if (error_lines(other), -_count(other_found[0])) < (error_lines(root), -_count(found[0])):
        return other, other_walk, other_found
    return root, walk, found


def error_lines(root) -> int:
    """Lines under a tree's outermost ERROR nodes (an ERROR inside one is not counted again)."""
    return sum(_lines_spanned(node) for node in _outermost_errors(root) if node.type == "ERROR")


def widest_error(root) -> tuple[int, int]:
    """The 1-based first and last lines of a tree's widest outermost ERROR node, or of a missing node where the
    grammar only inserted one (mockk's `API.kt`: lines 737-5528, where a warning that counted the definitions
    kept hid that the rest of the file was lost)."""
    widest = max(_outermost_errors(root), key=_lines_spanned, default=None)
    return (widest.start_point[0] + 1, widest.end_point[0] + 1) if widest is not None else (1, 1)


def _outermost_errors(root):
    """A tree's ERROR and missing nodes that no other one holds, first found first."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(node.children)


def _lines_spanned(node) -> int:
    return node.end_point[0] - node.start_point[0] + 1


def _count(definitions: list[Definition]) -> int:
    return sum(1 + _count(d.children) for d in definitions)


def chunk_code_file(rel_path: str, text: str, language: str | None = None) -> tuple[list[Chunk], list[str]]:
    """The chunks of a file in a language with a grammar (its name's, or the one given: a script's `#!`
    line's), and warnings; its grammar missing: the plain-text chunker's pieces and a warning naming the
    package (never nothing)."""
    row = row_named(language) if language else language_row(rel_path)
    grammar = grammar_of(row, rel_path) if row is not None else None
    if row is None or grammar is None:
        return chunk_other_file(rel_path, text, "text"), []
    try:
        result = parse_with_grammar(rel_path, text, row, grammar)
    except GrammarUnavailable as exc:
        return chunk_other_file(rel_path, text, "text"), [
            f"the {row.name} grammar is unavailable, its files are indexed as plain text: {exc}"]
    except (ValueError, RuntimeError, RecursionError) as exc:  # the parser gave up on this file
        return chunk_other_file(rel_path, text, "text"), [f"{rel_path}: not parsed ({exc}); indexed as plain text"]
    chunks = _module_in_parts(chunks_from_parsed(rel_path, text, result.parsed), source_lines(text))
    if row.sfc:
        chunks += _markup_pieces(rel_path, text)
    return chunks, [result.warning] if result.warning else []


def _markup_pieces(rel_path: str, text: str) -> list[Chunk]:
    """A Vue or Svelte component's markup as text pieces named `<template>`: what it shows, whose
    words a question about the page names (the script's definitions are the code chunks)."""
    runs = markup_runs(text.encode("utf-8", errors="replace"))
    lines = source_lines(text.rstrip("\r\n"))
    return pieces_to_chunks(rel_path, lines, [Piece(TEMPLATE_SYMBOL, s, e) for s, e in runs], "text")


def _module_in_parts(chunks: list[Chunk], lines: list[str]) -> list[Chunk]:
    """A long <module> (a TypeScript test file's `describe` calls, a header's prototypes, what a
    grammar could not parse) in parts of about MODULE_PART_CHARS: `<module>`, `<module> (2)`...
    as long document pieces are, so each part is embedded whole. Python's is left as it is."""
    module = next((c for c in chunks if c.symbol == MODULE_SYMBOL), None)
    if module is None or len(module.code) <= MODULE_PART_CHARS * 3 // 2:
        return chunks
    spans = list(module.line_spans) or [(module.start_line, module.end_line)]
    pieces = [part for start, end in spans for part in split_to_budget(lines, start, end, MODULE_PART_CHARS)]
    groups: list[list[tuple[int, int]]] = [[]]
    size = 0
    for start, end in pieces:
        chars = sum(len(lines[n - 1]) + 1 for n in range(start, end + 1))
        if groups[-1] and size + chars > MODULE_PART_CHARS:
            groups.append([])
            size = 0
        groups[-1].append((start, end))
        size += chars
    parts = []
    for number, group in enumerate(groups, 1):
        symbol = MODULE_SYMBOL if number == 1 else f"{MODULE_SYMBOL} ({number})"
        parts.append(replace(
            module, chunk_id=f"{module.path}::{symbol}", symbol=symbol, start_line=group[0][0],
            end_line=group[-1][1], code="\n".join("\n".join(lines[s - 1 : e]) for s, e in group),
            line_spans=tuple(group) if len(group) > 1 else ()))
    position = chunks.index(module)
    return chunks[:position] + parts + chunks[position + 1 :]
