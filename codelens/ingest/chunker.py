"""Split a code file into chunks: Python by `ast` first, tree-sitter when `ast` cannot parse it;
every other language of `codelens.languages` by its grammar (`ingest/syntax.py`).

Every parser produces the neutral `ParsedModule`; `chunks_from_parsed` turns it into
chunks with the same ids (`path::Qualified.name`, see chunk.py), so all paths give identical chunk shapes.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import replace
from pathlib import PurePosixPath
from typing import NamedTuple

from codelens.chunk import MODULE_SYMBOL, Chunk, Definition, ParsedModule
from codelens.ingest import treesitter
from codelens.ingest.lines import source_lines
from codelens.languages import is_language_test_path
from codelens.languages.model import test_folders

MAX_SIGNATURE_CHARS = 400


class ChunkingResult(NamedTuple):
    chunks: list[Chunk]
    warning: str | None = None


def chunk_file(rel_path: str, text: str) -> ChunkingResult:
    """Chunk one file's text. Never raises on bad source: falls back, then warns."""
    parsed = parse_with_ast(text)
    warning = None
    if parsed is None:
        parsed = treesitter.parse_with_tree_sitter(text)
        if parsed is None:
            warning = f"{rel_path}: no parser could read it; indexed as one <module> chunk"
            parsed = ParsedModule(definitions=[], module_spans=_whole_file_span(text))
    return ChunkingResult(chunks_from_parsed(rel_path, text, parsed), warning)


def is_test_path(rel_path: str) -> bool:
    """Python's rules (any file under `tests/` or `testdata/`, `test_*`, `*_test.py`, conftest.py), then the file's
    language's (`*_test.go`, `*.spec.ts`, `__tests__/`, `*Test.java`: codelens/languages/)."""
    path = PurePosixPath(rel_path)
    name = path.name
    # `testdata/`: Go's test inputs, whatever their language (urfave/cli's godoc dump in 10 of 16 top 10s)
    in_tests = any(part in ("tests", "test", "testdata") for part in test_folders(path))
    python_rules = in_tests or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    return python_rules or is_language_test_path(rel_path)


# ---------------------------------------------------------------- ast parser


def parse_with_ast(text: str) -> ParsedModule | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not our concern
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = source_lines(text)
    try:
        definitions = [_ast_definition(node, lines) for node in _nested_defs(tree)]
    except RecursionError:
        return None
    return ParsedModule(
        definitions=definitions,
        module_spans=_ast_module_spans(tree),
        docstring=ast.get_docstring(tree, clean=True) or "",
        import_spans=[(n.lineno, n.end_lineno or n.lineno) for n in tree.body
                      if isinstance(n, (ast.Import, ast.ImportFrom)) or _is_trivial_statement(n)],
    )


def _is_def(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def _ast_definition(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> Definition:
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    signature = _ast_signature(node, lines)
    children = [_ast_definition(child, lines) for child in _nested_defs(node)]
    return Definition(
        kind="class" if isinstance(node, ast.ClassDef) else "function",
        name=node.name,
        start_line=start,
        end_line=node.end_lineno or node.lineno,
        signature=signature,
        docstring=ast.get_docstring(node, clean=True) or "",
        decorators=tuple(_decorator_text(d, lines) for d in node.decorator_list),
        children=children,
    )


def _ast_signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> str:
    """The header from `def`/`class` up to where the body starts, whitespace collapsed."""
    body = node.body[0]
    header = lines[node.lineno - 1 : body.lineno]
    if not header:
        return ""
    header = list(header)
    header[-1] = header[-1][: body.col_offset] if body.lineno > node.lineno else header[-1]
    if body.lineno == node.lineno:
        header = [lines[node.lineno - 1][node.col_offset : body.col_offset]]
    else:
        header[0] = header[0][node.col_offset :]
    return " ".join(" ".join(header).split())


def holds_defs(node: ast.AST) -> bool:
    """Nodes whose bodies can define chunks: statements, `except` handlers, `case` blocks."""
    return isinstance(node, (ast.stmt, ast.excepthandler, ast.match_case))


# The fields that hold statements (a def is a statement: it is never inside an expression)
_BODY_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def _statements_in(node: ast.AST) -> list[ast.AST]:
    """The statements, `except` handlers and `case` blocks directly in node's bodies, in field order:
    what ast.iter_child_nodes gives without the expressions (most of a tree's nodes)."""
    children: list[ast.AST] = []
    for name in node._fields:
        if name in _BODY_FIELDS and isinstance(value := getattr(node, name, None), list):
            children.extend(value)
    return children


def _nested_defs(node: ast.AST) -> list[ast.AST]:
    """Defs anywhere in node's body (inside if/try/except/with/match too), not inside other defs."""
    found: list[ast.AST] = []
    stack = list(reversed(_statements_in(node)))
    while stack:
        child = stack.pop()
        if _is_def(child):
            found.append(child)
        elif holds_defs(child):
            stack.extend(reversed(_statements_in(child)))
    return found


def _decorator_text(node: ast.expr, lines: list[str]) -> str:
    """The decorator as written (both parsers agree on this), whitespace collapsed."""
    segment = lines[node.lineno - 1 : node.end_lineno or node.lineno]
    if len(segment) == 1:
        segment = [segment[0][node.col_offset : node.end_col_offset]]
    else:
        segment[0] = segment[0][node.col_offset :]
        segment[-1] = segment[-1][: node.end_col_offset]
    return " ".join(" ".join(segment).split())


def _ast_module_spans(tree: ast.Module) -> list[tuple[int, int]]:
    spans = []
    for node in tree.body:
        if _is_def(node) or isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if _is_trivial_statement(node):
            continue
        spans.append((node.lineno, node.end_lineno or node.lineno))
    return spans


def _is_trivial_statement(node: ast.stmt) -> bool:
    """`pass`, `...`, `__all__ = [...]` say nothing a search should find."""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return node.value.value is Ellipsis
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return isinstance(target, ast.Name) and target.id == "__all__"
    return False


# ------------------------------------------------------- shared chunk assembly


def chunks_from_parsed(rel_path: str, text: str, parsed: ParsedModule) -> list[Chunk]:
    lines = source_lines(text)
    is_test = is_test_path(rel_path)
    chunks: list[Chunk] = []
    used_ids: dict[str, int] = {}

    def unique_id(symbol: str) -> tuple[str, str]:
        count = used_ids.get(symbol, 0) + 1
        used_ids[symbol] = count
        # A redefinition (property setter, if/else variants) gets an ordinal, not a line
        # number, so the id stays stable when code only moves.
        final_symbol = symbol if count == 1 else f"{symbol}#{count}"
        return f"{rel_path}::{final_symbol}", final_symbol

    def visit(definition: Definition, prefix: str, parent_class: str) -> None:
        if definition.owner and not prefix:  # a method defined outside its type (Go, Rust, C++)
            prefix = parent_class = definition.owner
        qualified = f"{prefix}.{definition.name}" if prefix else definition.name
        chunk_id, symbol = unique_id(qualified)
        kind = "class" if definition.kind == "class" else "method" if parent_class else "function"
        chunks.append(Chunk(
            chunk_id=chunk_id, path=rel_path, symbol=symbol, kind=kind,
            start_line=definition.start_line, end_line=definition.end_line,
            code=_slice(lines, definition.start_line, definition.end_line),
            signature=definition.signature[:MAX_SIGNATURE_CHARS],
            docstring=definition.docstring, parent=parent_class if kind == "method" else "",
            decorators=definition.decorators, is_test=is_test or definition.is_test,
        ))
        child_parent = qualified if definition.kind == "class" else ""
        for child in definition.children:
            visit(child, qualified, child_parent)

    module_chunk = _module_chunk(rel_path, lines, parsed, is_test)
    if module_chunk is not None:
        used_ids[MODULE_SYMBOL] = 1
        chunks.append(module_chunk)
    for definition in with_overloads(parsed.definitions):
        visit(definition, "", "")
    return chunks


def with_overloads(definitions: list[Definition]) -> list[Definition]:
    """Each function with the `@overload` stubs of its name directly before it as one function (typing's
    overloads: typer's sixty-line `Option` stubs above the one that does the work, pydantic's
    `computed_field`), from the first stub's line, its doc the implementation's or a stub's; as TypeScript's
    overloads and body are one. Stubs with nothing after them (a `.pyi`-style module) stay functions."""
    merged: list[Definition] = []
    stubs: list[Definition] = []
    for definition in definitions:
        definition = replace(definition, children=with_overloads(definition.children)) \
            if definition.children else definition
        if stubs and (definition.name != stubs[0].name or definition.kind != "function"):
            merged.extend(stubs)
            stubs = []
        if definition.kind == "function" and any(_OVERLOAD.fullmatch(d) for d in definition.decorators):
            stubs.append(definition)
            continue
        if stubs:
            definition = replace(definition, start_line=stubs[0].start_line, docstring=definition.docstring or next(
                (stub.docstring for stub in stubs if stub.docstring), ""))
        merged.append(definition)
        stubs = []
    return merged + stubs


_OVERLOAD = re.compile(r"(?:[\w.]+\.)?overload")


def _module_chunk(rel_path: str, lines: list[str], parsed: ParsedModule, is_test: bool) -> Chunk | None:
    spans = _merge_spans(parsed.module_spans)
    if not spans and not parsed.definitions:  # a file of imports only (re-exports): its imports
        spans = _merge_spans(parsed.import_spans)
    if not spans:
        return None
    code = "\n".join(_slice(lines, start, end) for start, end in spans)
    if not code.strip():
        return None
    return Chunk(
        chunk_id=f"{rel_path}::{MODULE_SYMBOL}", path=rel_path, symbol=MODULE_SYMBOL,
        kind="doc" if parsed.documentation else "module", start_line=spans[0][0], end_line=spans[-1][1], code=code,
        docstring=parsed.docstring, is_test=is_test, line_spans=tuple(spans) if len(spans) > 1 else (),
    )


def _merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted line ranges with touching or overlapping ones merged (`a = 1; b = 2` is one line)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _slice(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start - 1 : end])


def _whole_file_span(text: str) -> list[tuple[int, int]]:
    line_count = max(1, len(source_lines(text.rstrip("\r\n"))))
    return [(1, line_count)] if text.strip() else []
