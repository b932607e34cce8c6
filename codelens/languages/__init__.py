"""The languages CodeLens reads as code: a module each (`codelens/languages/go.py`...), the registry here.

Each language's module holds everything the language means, as data and small pure functions: its
row (extensions, the pinned tree-sitter wheel, the node types of its definitions, containers and
imports, doc comments, test and generated files, the bytes its grammar parses, its naming quirks),
its graph rule (calls, instantiations, bases, its import style: the reader in `graph/syntax_imports.py`
and the locator in `graph/syntax_modules.py` under that name) and its conventions (test ids, how it
throws, how it declares a constant). Nothing here imports a grammar, the chunker or the graph: the
chunker (`ingest/syntax.py`), the code graph, test and generated-file detection and highlighting
read these records. Python keeps its `ast` path (`ingest/chunker.py`); its module says what the
other readers need.

Adding a language is one module here, listed in `_MODULES`, and one fixture folder in
`tests/languages/` (tests/test_language_rooms.py checks that both are there and agree).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from codelens.languages import (
    bash,
    bsl,
    c,
    cpp,
    csharp,
    dart,
    elixir,
    go,
    haskell,
    java,
    javascript,
    kotlin,
    lua,
    objc,
    pascal,
    perl,
    php,
    python,
    ruby,
    rust,
    scala,
    svelte,
    swift,
    typescript,
    vue,
    zig,
)
from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow, in_test_folder

__all__ = [
    "CLASS", "FUNCTION", "GRAPH_RULES", "LANGUAGES", "PYTHON", "Conventions", "Grammar", "GraphRule",
    "LanguageRow", "grammar_of", "graph_rule", "is_generated_path", "is_language_test_path",
    "language_names", "language_of", "language_row", "row_named", "script_row",
]

PYTHON = python.NAME

# The order is the registry's (`language_names()`, `--lang`'s choices): Python first, then as they came.
_MODULES = (python, typescript, javascript, go, java, kotlin, csharp, rust, c, cpp, ruby, php, swift, scala, dart,
            elixir, haskell, lua, bsl, pascal, vue, svelte, perl, objc, bash, zig)

LANGUAGES: tuple[LanguageRow, ...] = tuple(module.LANGUAGE for module in _MODULES)
# The code graph's rules by language name: Python's graph is `graph/scopes.py`'s, by ast
GRAPH_RULES: dict[str, GraphRule] = {row.name: row.graph for row in LANGUAGES if row.graph is not None}

_BY_SUFFIX = {suffix: row for row in LANGUAGES for suffix in row.extensions}
_BY_FILE_NAME = {name: row for row in LANGUAGES for name in row.file_names}
_BY_NAME = {row.name: row for row in LANGUAGES}
_BY_INTERPRETER = {name: row for row in LANGUAGES for name in row.interpreters}


def language_row(rel_path: str) -> LanguageRow | None:
    """The row of a code file, by its name or suffix; None for anything that is not code."""
    name = rel_path.rsplit("/", 1)[-1].lower()  # string work, not PurePosixPath: every hit asks (Chunk.language)
    dot = name.rfind(".")
    suffix = name[dot:] if 0 < dot < len(name) - 1 else ""  # what PurePosixPath.suffix says
    return _BY_FILE_NAME.get(name) or _BY_SUFFIX.get(suffix)


def language_of(rel_path: str) -> str | None:
    """`web/src/api/client.ts` -> "typescript"; None for documents, configuration and the rest."""
    row = language_row(rel_path)
    return row.name if row is not None else None


def script_row(first_line: str) -> LanguageRow | None:
    """The language a `#!` line runs: `#!/bin/bash -e`, `#!/usr/bin/env -S python3 -u`, `#! /usr/bin/perl`
    (a version after the name is dropped: `python3.12`, `lua5.4`); None for any other line."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":  # `env [-S] [NAME=value] program`
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    program = words[0].rsplit("/", 1)[-1] if words else ""
    return _BY_INTERPRETER.get(program.rstrip("0123456789.") or program)


def row_named(name: str) -> LanguageRow | None:
    return _BY_NAME.get(name.lower())


def language_names() -> tuple[str, ...]:
    return tuple(row.name for row in LANGUAGES)


def grammar_of(row: LanguageRow, rel_path: str) -> Grammar | None:
    """The grammar row's language parses this file with: its own, or its suffix's (`.tsx`)."""
    suffix = PurePosixPath(rel_path.lower()).suffix
    return dict(row.grammar_by_suffix).get(suffix, row.grammar)


def is_language_test_path(rel_path: str) -> bool:
    """Test code by its language's conventions (`*_test.go`, `*.spec.ts`, `__tests__/`, `*Test.java`); a file
    of no language (a fixture, an expected output) by its folder alone (model.in_test_folder). Python's own
    rules are `ingest/chunker.is_test_path`'s."""
    row = language_row(rel_path)
    if row is None:
        return in_test_folder(rel_path)
    return row.name != PYTHON and row.is_test_path(rel_path)


def is_generated_path(rel_path: str) -> bool:
    """Written by a tool, by its name: `*.pb.go`, `*.min.js`, `*.g.dart`."""
    name = PurePosixPath(rel_path).name.lower()
    row = language_row(rel_path)
    return ".min." in name or (row is not None and name.endswith(tuple(s.lower() for s in row.generated_suffixes)))


def graph_rule(language: str | None) -> GraphRule | None:
    """The code graph's rule for a language (None: the graph reads no edges from its files)."""
    return GRAPH_RULES.get(language) if language else None
