"""The records the code graph's two Python passes share: a scope and its bindings, what a binding
evaluates to (`Value`), what is known of a class, and the `Project` that holds them all.

Internal to `codelens.graph`. The first pass (`scopes`) writes them, the second (`resolve`,
`python_edges`) reads them; nothing here reads a file or evaluates anything.
"""

from __future__ import annotations

import ast
from bisect import bisect_right, insort
from dataclasses import dataclass, field

from codelens.graph.python_modules import ModuleIndex


@dataclass(frozen=True)
class Value:
    """What an expression evaluates to, as far as static reading can tell."""

    kind: str  # module, function, class, instance, super, external, external_instance
    target: str  # file path (module), chunk id (function, class, instance, super), dotted name


@dataclass(eq=False)
class Binding:
    """One assignment of a name; an unknown value when value, expr and import_from are unset."""

    position: tuple[int, int]  # (line, column) from which it holds
    value: Value | None = None
    expr: ast.expr | None = None
    scope: Scope | None = None  # where expr (or the import) is evaluated
    annotation: bool = False  # expr is a type: the name holds an instance of it
    fallback: ast.expr | None = None  # `x: Generic[T] = Foo()`: the value, when the type says nothing
    import_from: tuple[str, int, str | None] | None = None  # (module, level, name or None)


@dataclass(eq=False)
class Scope:
    kind: str  # module, class, function
    path: str
    owner: str  # the node that code directly in this scope belongs to
    qualified: str  # qualified name without #n ordinals, as the chunker builds ids
    chunk_id: str = ""  # "" for the module and for defs the chunker does not chunk
    parent: Scope | None = None
    class_id: str = ""  # a class's own chunk id; a method's class
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star_imports: list[Binding] = field(default_factory=list)
    not_local: set[str] = field(default_factory=set)  # global / nonlocal names

    def bind(self, name: str, binding: Binding) -> None:
        """Kept in source order as bound (equal positions in the order bound), so that the binding
        in force is found by bisection: SymPy's graph spent a third of its time scanning these lists."""
        insort(self.bindings.setdefault(name, []), binding, key=_position)

    def binding_at(self, name: str, position: tuple[int, int] | None) -> Binding | None:
        """The binding in force at position (None: the last one, as seen after the code ran).

        A function's name bound only further down is still local there (a loop); in a
        module or class body it is not bound yet, so the enclosing scope's name applies."""
        candidates = self.bindings.get(name)
        if not candidates:
            return None
        if position is None:
            return candidates[-1]
        before = bisect_right(candidates, position, key=_position)
        if before:
            return candidates[before - 1]
        return candidates[-1] if self.kind == "function" else None

    def finish(self) -> None:
        for name in self.not_local:
            self.bindings.pop(name, None)


def _position(binding: Binding) -> tuple[int, int]:
    return binding.position


@dataclass(eq=False)
class ClassInfo:
    scope: Scope  # the class body
    outer: Scope  # where its bases are evaluated
    bases: list[ast.expr]
    attributes: dict[str, Binding] = field(default_factory=dict)  # self.x = ... in its methods


@dataclass(eq=False)
class Project:
    index: ModuleIndex
    chunk_ids: frozenset[str] | None  # None: every def is taken to be a chunk
    modules: dict[str, Scope] = field(default_factory=dict)  # path -> module scope
    classes: dict[str, ClassInfo] = field(default_factory=dict)  # class chunk id -> info
    returns: dict[str, tuple[ast.expr, Scope]] = field(default_factory=dict)  # function id -> annotation
    properties: set[str] = field(default_factory=set)  # function ids read as attributes, not called
    def_scopes: dict[int, Scope] = field(default_factory=dict)  # id(def node) -> its scope


def start_of(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def end_of(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "end_lineno", None) or getattr(node, "lineno", 0), getattr(node, "end_col_offset", 0) or 0)
