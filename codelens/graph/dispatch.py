"""Calls through a built name: `getattr(self, "_print_" + cls.__name__)(expr)` calls one of a family of
methods (`_print_Add`, `_print_Mul`...) that no call expression names, so the call graph had no
edge to any of them. Pure: a def's `ast` in, (receiver, prefix, line) records out; the graph
(`graph/model.build_graph`) turns each into `calls` edges marked `via="dispatch"` to the family.

Read: `getattr`/`hasattr` whose name is a string prefix joined to something (`"p_" + x`, `f"p_{x}"`,
`"p_%s" % x`, `"p_{}".format(x)`), directly or through a local variable assigned one of those. A
receiver `self`/`cls` dispatches within the def's class and the classes below it; another
receiver reaches every method of the family in the project. A class that defines the bare
dispatcher of a conventional family (`visit` with `visit_X` methods, `handle`/`handle_X`,
`dispatch`/`dispatch_X`) gets the same edges from it (ast.NodeVisitor's pattern, written at home).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from codelens.chunk import Chunk
from codelens.graph.scopes import child_nodes

DISPATCH = "dispatch"  # the `via` of a call edge made by a built name
_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_SELF = ("self", "cls")
MIN_PREFIX = 3  # `is_` and longer: a shorter prefix (`p`, `_`) names no family
MIN_FAMILY = 2  # a prefix matching fewer methods is a lookup, not a dispatch
# Conventional families whose dispatcher is the bare word: `visit(node)` -> `visit_<Type>`.
CONVENTIONAL = ("visit", "handle", "dispatch", "on", "do")


@dataclass(frozen=True)
class BuiltName:
    """One `getattr(receiver, prefix + ...)` inside a def."""

    on_self: bool  # the receiver is `self` or `cls`: the def's own class hierarchy
    prefix: str
    line: int


def string_prefix(expr: ast.expr) -> str | None:
    """The constant start of a string built at run time (`"_print_" + name` -> `_print_`), else None."""
    text = None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left = expr.left
        while isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add):
            left = left.left
        if isinstance(left, ast.Constant) and isinstance(left.value, str):
            text = left.value
    elif isinstance(expr, ast.JoinedStr) and len(expr.values) > 1:
        first = expr.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            text = first.value
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod) and isinstance(expr.left, ast.Constant) \
            and isinstance(expr.left.value, str) and "%" in expr.left.value:
        text = expr.left.value.split("%", 1)[0]
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "format" \
            and isinstance(expr.func.value, ast.Constant) and isinstance(expr.func.value.value, str):
        text = expr.func.value.value.split("{", 1)[0]
    if text is None or len(text) < MIN_PREFIX or not _PREFIX.match(text):
        return None
    return text


def built_names(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> list[BuiltName]:
    """The built-name lookups of one def's own body (nested defs are theirs)."""
    variables: dict[str, str] = {}
    lookups: list[tuple[ast.Call, ast.expr]] = []
    for node in _own_nodes(definition):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            prefix = string_prefix(node.value)
            if prefix is not None:
                variables[node.targets[0].id] = prefix
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            lookups.append((node, node.args[1]))
    found = []
    for call, name in lookups:
        prefix = variables.get(name.id) if isinstance(name, ast.Name) else string_prefix(name)
        if prefix is None:
            continue
        receiver = call.args[0]
        found.append(BuiltName(isinstance(receiver, ast.Name) and receiver.id in _SELF, prefix, call.lineno))
    return list({(b.on_self, b.prefix): b for b in found}.values())


def _own_nodes(definition: ast.AST) -> Iterable[ast.AST]:
    stack = child_nodes(definition)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(child_nodes(node))


class Families:
    """The methods of the project by class, and the classes below each: what a dispatch reaches."""

    def __init__(self, chunks: Sequence[Chunk], inherits: Iterable[tuple[str, str]]) -> None:
        self.class_ids = {c.chunk_id: c for c in chunks if c.kind == "class"}
        self.methods: dict[str, list[Chunk]] = {}  # class chunk id -> its methods
        for chunk in chunks:
            if chunk.kind == "method" and chunk.parent:
                self.methods.setdefault(f"{chunk.path}::{chunk.parent}", []).append(chunk)
        self.every_method = [c for c in chunks if c.kind in ("method", "function")]
        self.below: dict[str, list[str]] = {}
        for child, parent in inherits:
            if child in self.class_ids and parent in self.class_ids:
                self.below.setdefault(parent, []).append(child)

    def hierarchy(self, class_id: str) -> list[str]:
        """The class and every class that inherits from it, transitively."""
        seen, stack = [], [class_id]
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.append(current)
            stack.extend(self.below.get(current, ()))
        return seen

    def members(self, class_id: str | None, prefix: str) -> list[str]:
        """Chunk ids of the family `prefix*`: in the class's hierarchy, or (no class) anywhere."""
        if class_id is None:
            pool: Iterable[Chunk] = self.every_method
        else:
            pool = (m for c in self.hierarchy(class_id) for m in self.methods.get(c, ()))
        found = [m.chunk_id for m in pool if m.name.startswith(prefix) and len(m.name) > len(prefix)]
        return found if len(found) >= MIN_FAMILY else []


def dispatch_edges(chunks: Sequence[Chunk], trees: Mapping[str, ast.Module], sources: Mapping[str, str],
                   owner_of: Mapping[int, str], inherits: Iterable[tuple[str, str]]) -> list[tuple[str, str, int]]:
    """(dispatcher chunk id, member chunk id, line) of every call through a built name, and of each
    conventional family's bare dispatcher. `owner_of`: id(def node) -> its chunk id."""
    families = Families(chunks, inherits)
    chunk_of = {c.chunk_id: c for c in chunks}
    edges: list[tuple[str, str, int]] = []
    for path, tree in trees.items():
        if "getattr(" not in sources.get(path, "") and "hasattr(" not in sources.get(path, ""):
            continue  # most files look nothing up by name: not walked at all
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            owner = owner_of.get(id(node))
            chunk = chunk_of.get(owner or "")
            if chunk is None:
                continue
            for built in built_names(node):
                home = f"{chunk.path}::{chunk.parent}" if built.on_self and chunk.parent else None
                if built.on_self and home not in families.class_ids:
                    continue
                edges.extend((owner, member, built.line) for member in families.members(home, built.prefix)
                             if member != owner)
    for class_id, methods in families.methods.items():
        for word in CONVENTIONAL:
            bare = next((m for m in methods if m.name == word), None)
            if bare is not None:
                edges.extend((bare.chunk_id, member, bare.start_line)
                             for member in families.members(class_id, word + "_"))
    return edges


__all__ = ["DISPATCH", "BuiltName", "Families", "built_names", "dispatch_edges", "string_prefix"]
