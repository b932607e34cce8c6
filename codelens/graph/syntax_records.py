"""What a file's syntax tree says in a language other than Python, as plain records: its call
sites, its declared types, its imports (`Site`, `Declared`, `ImportRecord`, together `FileSyntax`).

Internal to `codelens.graph`. The readers (`syntax_sites` with `syntax_calls`, `syntax_declared`
and `syntax_imports`) make them, `syntax_modules` and the resolver (`syntax_edges`) read them: kept
apart so that the two sides share the records without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tree_sitter import Node as SyntaxNode

# What a receiver is when it is no name (see `syntax_calls`): the object itself, its base, an expression
SELF = "<self>"
SUPER = "<super>"
COMPLEX = "<expr>"


@dataclass(frozen=True)
class ImportRecord:
    line: int
    module: str  # as written: "./api/client", "github.com/x/y", "com.acme.pay", "crate::routing", "uv.h"
    names: tuple[tuple[str, str], ...] = ()  # (name in the module, local name)
    alias: str = ""  # the local name bound to the module itself (`* as x`, a Go package, `use a::b`)
    wildcard: bool = False  # every top-level name of the module is visible (`.*`, `#include`, `use a::*`)
    separator: str = "."  # how the module's parts are joined, for external names


def text_of(node: SyntaxNode | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def line_of(node: SyntaxNode) -> int:
    """A node's first line, 1-based."""
    return node.start_point[0] + 1


@dataclass(frozen=True)
class Site:
    kind: str  # "calls", "new" (an instantiation) or "inherits"
    name: str  # the callee's, the class's or the base's last name
    receiver: str  # "", SELF, SUPER, COMPLEX, or a (dotted) name; for Rust's `impl Trait for Type`, Type
    line: int


@dataclass(frozen=True)
class Declared:
    """A variable, parameter or field and the type it holds: `repo: UserRepo`, `x := &Server{}`."""

    line: int
    name: str  # `repo`; `<self>.repo` for a field set through the object itself (`this.repo = ...`)
    qualifier: str  # the type's package or module as written (`store` in `*store.DB`), or ""
    type_name: str
    explicit: bool  # declared (`Repo repo`), not read from the value it is given
    called: bool = False  # the value a call returns (`w := httptest.NewRecorder()`): type_name is the callee's


@dataclass
class FileSyntax:
    sites: list[Site] = field(default_factory=list)
    imports: list[ImportRecord] = field(default_factory=list)
    declared: list[Declared] = field(default_factory=list)
    package: str = ""  # the declared package or namespace, dotted (`com.acme.pay`, `Monolog.Handler`)
