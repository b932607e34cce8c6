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


# ------------------------------------------------------------------ the code graph's rules
# What the code graph (`codelens/graph/syntax_edges.py`) reads from each language's syntax tree,
# beside the rows above: where a call's callee is, which nodes build an instance or name base
# classes, how imports read, and how a method names its own object. Keyed by the row's name.


@dataclass(frozen=True)
class GraphRule:
    """How one language's calls, instantiations, base classes and imports look in its tree."""

    family: str  # languages that call each other by plain name share one (typescript and javascript: "js")
    # call node type -> where the callee is: a field holding the callee expression; "" the call node itself
    # holds the name and receiver fields (Java's method_invocation); "first" its first named child (Kotlin, Swift)
    calls: tuple[tuple[str, str], ...]
    constructs: tuple[tuple[str, str], ...] = ()  # `new Foo()`: node type -> field ("first": first named child)
    bases: tuple[str, ...] = ()  # node types whose type names are the base classes and interfaces
    imports: str = ""  # how its import declarations read (a reader in graph/syntax_imports.py)
    self_words: tuple[str, ...] = ("this",)  # a receiver that means the enclosing class's own object
    implicit_self: bool = False  # a bare call may be a method of the enclosing class (Java, C#, Kotlin...)
    package_scope: bool = False  # a folder's files see each other's names without importing them (Go, Java...)
    receiver_of: str = ""  # Go: the method node whose receiver parameter names its own object
    noise: tuple[str, ...] = ()  # callee names that are builtins or keywords, never recorded
    # receivers that are the language's own objects (`console`, `System`): a call on one is external,
    # never matched to the codebase by its method's name
    builtins: tuple[str, ...] = ()


_JS_CALLS = (("call_expression", "function"),)
_JS_NEW = (("new_expression", "constructor"),)
_JS_BASES = ("extends_clause", "implements_clause", "extends_type_clause")
_JS_BUILTINS = ("console", "Math", "JSON", "Object", "Array", "Promise", "Reflect", "Symbol", "Number", "String",
                "Date", "window", "document", "process", "Buffer", "globalThis", "Error", "Map", "Set")
_JVM_BUILTINS = ("System", "String", "Math", "Objects", "Arrays", "Collections", "List", "Map", "Set", "Optional",
                 "Integer", "Long", "Boolean", "Double", "Character", "Thread", "Stream", "Collectors")
_C_CALLS = (("call_expression", "function"),)
_GO_NOISE = ("append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
             "new", "panic", "print", "println", "real", "recover", "string", "int", "int8", "int16", "int32",
             "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64", "byte",
             "rune", "bool", "error", "any")

GRAPH_RULES: dict[str, GraphRule] = {
    "typescript": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                             builtins=_JS_BUILTINS),
    "javascript": GraphRule("js", _JS_CALLS, _JS_NEW, _JS_BASES, "js", noise=("require", "import", "super"),
                             builtins=_JS_BUILTINS),
    "go": GraphRule("go", (("call_expression", "function"),), (("composite_literal", "type"),), (), "go",
                    self_words=(), package_scope=True, receiver_of="method_declaration", noise=_GO_NOISE),
    "java": GraphRule("jvm", (("method_invocation", ""),), (("object_creation_expression", "type"),),
                      ("superclass", "super_interfaces", "extends_interfaces"), "java", implicit_self=True,
                      package_scope=True, builtins=_JVM_BUILTINS),
    "kotlin": GraphRule("jvm", (("call_expression", "first"),), (), ("delegation_specifiers",), "kotlin",
                        implicit_self=True, package_scope=True),
    "scala": GraphRule("jvm", (("call_expression", "function"),), (("instance_expression", "first"),),
                       ("extends_clause",), "scala", implicit_self=True, package_scope=True),
    "csharp": GraphRule("csharp", (("invocation_expression", "function"),),
                        (("object_creation_expression", "type"),), ("base_list",), "csharp",
                        implicit_self=True, package_scope=True, noise=("nameof", "typeof", "sizeof"),
                        builtins=("Console", "Math", "String", "Task", "Enumerable", "Convert", "Array", "Type",
                                  "Activator", "Expression", "Interlocked", "Volatile", "GC")),
    "rust": GraphRule("rust", (("call_expression", "function"),), (), (), "rust", self_words=("self", "Self"),
                      noise=("Some", "Ok", "Err", "Box")),
    "c": GraphRule("c", _C_CALLS, (), (), "include", noise=("sizeof", "defined")),
    "cpp": GraphRule("c", _C_CALLS, (("new_expression", "type"),), ("base_class_clause",), "include",
                     implicit_self=True, noise=("sizeof", "defined", "static_cast", "dynamic_cast",
                                                "reinterpret_cast", "const_cast")),
    "ruby": GraphRule("ruby", (("call", ""),), (), ("superclass",), "ruby", self_words=("self",),
                      implicit_self=True,
                      noise=("require", "require_relative", "attr_accessor", "attr_reader", "attr_writer",
                             "include", "extend", "private", "public", "protected", "raise", "new")),
    "php": GraphRule("php", (("function_call_expression", "function"), ("member_call_expression", ""),
                             ("scoped_call_expression", ""), ("nullsafe_member_call_expression", "")),
                     (("object_creation_expression", "first"),), ("base_clause", "class_interface_clause"), "php",
                     self_words=("$this", "self", "static"), package_scope=True),
    "swift": GraphRule("swift", (("call_expression", "first"),), (), ("inheritance_specifier",), "swift",
                       self_words=("self", "Self"), implicit_self=True, package_scope=True),
}


def graph_rule(language: str | None) -> GraphRule | None:
    """The code graph's rule for a language (None: the graph reads no edges from its files)."""
    return GRAPH_RULES.get(language) if language else None
