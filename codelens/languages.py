"""The languages CodeLens reads as code: one row each (extensions, grammar, node types).

Pure data and pure functions of a path: the chunker (`ingest/syntax.py`), the code graph, test
and generated-file detection and highlighting read this table; nothing here imports a grammar.
Python keeps its `ast` path (`ingest/chunker.py`); its row says what the other readers need.
Adding a language is a row here (and, where its grammar needs one, a small rule in the chunker).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Grammar:
    """Where a tree-sitter grammar comes from: the wheel to install and the function that returns it."""

    package: str  # the PyPI distribution (`tree-sitter-go`): what an error tells the user to install
    module: str  # the import name (`tree_sitter_go`)
    function: str = "language"  # `tree_sitter_typescript.language_tsx`


@dataclass(frozen=True)
class LanguageRow:
    """One language: how its files are recognised and what its syntax tree's node types mean."""

    name: str  # the `language` a hit carries and `--lang` takes: python, typescript, go...
    extensions: tuple[str, ...]  # lower-case suffixes with the dot
    grammar: Grammar | None  # None: read by Python's ast (python) or by the plain-text chunker
    file_names: tuple[str, ...] = ()  # exact lower-case file names (`rakefile`)
    grammar_by_suffix: tuple[tuple[str, Grammar], ...] = ()  # `.tsx` -> the TSX grammar


PYTHON = "python"

LANGUAGES: tuple[LanguageRow, ...] = (
    LanguageRow(PYTHON, (".py",), None),
    LanguageRow("typescript", (".ts", ".mts", ".cts", ".tsx"),
                Grammar("tree-sitter-typescript", "tree_sitter_typescript", "language_typescript"),
                grammar_by_suffix=((".tsx", Grammar("tree-sitter-typescript", "tree_sitter_typescript",
                                                    "language_tsx")),)),
    LanguageRow("javascript", (".js", ".mjs", ".cjs", ".jsx"),
                Grammar("tree-sitter-javascript", "tree_sitter_javascript")),
    LanguageRow("go", (".go",), Grammar("tree-sitter-go", "tree_sitter_go")),
    LanguageRow("java", (".java",), Grammar("tree-sitter-java", "tree_sitter_java")),
)

_BY_SUFFIX = {suffix: row for row in LANGUAGES for suffix in row.extensions}
_BY_FILE_NAME = {name: row for row in LANGUAGES for name in row.file_names}
_BY_NAME = {row.name: row for row in LANGUAGES}


def language_row(rel_path: str) -> LanguageRow | None:
    """The row of a code file, by its name or suffix; None for anything that is not code."""
    name = PurePosixPath(rel_path).name.lower()
    return _BY_FILE_NAME.get(name) or _BY_SUFFIX.get(PurePosixPath(name).suffix)


def language_of(rel_path: str) -> str | None:
    """`web/src/api/client.ts` -> "typescript"; None for documents, configuration and the rest."""
    row = language_row(rel_path)
    return row.name if row is not None else None


def row_named(name: str) -> LanguageRow | None:
    return _BY_NAME.get(name.lower())


def language_names() -> tuple[str, ...]:
    return tuple(row.name for row in LANGUAGES)


def grammar_for(rel_path: str) -> Grammar | None:
    """The grammar a file is parsed with (`.tsx` has its own), None without one."""
    row = language_row(rel_path)
    if row is None:
        return None
    suffix = PurePosixPath(rel_path.lower()).suffix
    return dict(row.grammar_by_suffix).get(suffix, row.grammar)
