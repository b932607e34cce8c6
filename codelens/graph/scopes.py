"""First pass of the code graph: every scope of a Python file and its bindings.

Internal to `codelens.graph.model`. Nothing is evaluated here: a binding records what was
assigned (a def, an import, an expression, an annotation) and where, so the second pass
(`codelens.graph.resolve`) can evaluate it lazily and only when a call needs it. Def
scopes get the chunk ids the chunker gives (same traversal, same `#n` ordinals). The records
it fills are `codelens.graph.bindings`; which file an import means, `codelens.graph.python_modules`.
"""

from __future__ import annotations

import ast
import warnings
from functools import cache

from codelens.graph.bindings import Binding, ClassInfo, Project, Scope, Value, end_of, start_of
from codelens.ingest.chunker import holds_defs

DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_BINDING_NODES = (  # the only nodes that bind names (one isinstance test skips all others)
    ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.Global, ast.Nonlocal,
    ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.ExceptHandler, ast.Lambda, ast.MatchAs, ast.MatchStar,
)


# Fields whose nodes hold nothing the graph reads: a name's Load/Store context, an operator
_EMPTY_FIELDS = frozenset({"ctx", "op", "ops"})
# Nodes with no child node at all (the most common ones: names and constants)
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.alias})
# List fields that may hold something other than a node: `{**x}`'s None key, a keyword-only argument
# without a default, the attribute names of a class pattern
_MIXED_LISTS = frozenset({"keys", "kw_defaults", "kwd_attrs"})


@cache
def _node_fields(node_type: type) -> tuple[tuple[str, bool], ...]:
    """(field, whether a list there may hold other things than nodes) for each field that may hold nodes."""
    if node_type in _LEAVES:
        return ()
    return tuple((name, name in _MIXED_LISTS) for name in node_type._fields if name not in _EMPTY_FIELDS)


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """ast.iter_child_nodes without the context and operator nodes, as a list: the graph walks every
    node of every file twice, and on SymPy iter_child_nodes' two generators per node were half its time."""
    children: list[ast.AST] = []
    for name, mixed in _node_fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, list):
            children.extend([item for item in value if isinstance(item, ast.AST)] if mixed else value)
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def parse_python(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not our concern
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class EdgeSink:
    """Collects edges, one per (source, target, kind), counting repeats."""

    def __init__(self) -> None:
        self._edges: dict[tuple[str, str, str], list] = {}

    def add(self, source: str, target: str, kind: str, line: int, via: str = "") -> None:
        if source == target and kind != "calls":
            return
        entry = self._edges.get((source, target, kind))
        if entry is None:
            self._edges[(source, target, kind)] = [line, 1, via]
            return
        entry[0] = min(entry[0], line) if entry[0] and line else entry[0] or line
        entry[1] += 1
        if not via:  # a direct call says more than a reference
            entry[2] = ""

    def rows(self) -> list[tuple[str, str, str, int, int, str]]:
        """(source, target, kind, first line, count, via) per edge: the fields of `Edge`."""
        return [(source, target, kind, line, count, via)
                for (source, target, kind), (line, count, via) in self._edges.items()]


# --------------------------------------------------------- first pass: scopes


def _names_in(target: ast.AST) -> list[ast.Name]:
    return [n for n in ast.walk(target) if isinstance(n, ast.Name)]


class ScopeBuilder:
    """First pass over one file: scopes and their bindings, chunk ids as the chunker gives them."""

    def __init__(self, project: Project, path: str, module_owner: str) -> None:
        self.project = project
        self.path = path
        self.module_owner = module_owner
        self._used: dict[str, int] = {}
        self._scopes: list[Scope] = []

    def build(self, tree: ast.Module) -> Scope:
        scope = self._new_scope("module", self.module_owner, "", "", None)
        for statement in tree.body:
            self._process(statement, scope, chunked=True)
        for each in self._scopes:
            each.finish()
        return scope

    def _new_scope(self, kind: str, owner: str, qualified: str, chunk_id: str, parent: Scope | None,
                   class_id: str = "") -> Scope:
        scope = Scope(kind, self.path, owner, qualified, chunk_id, parent, class_id)
        self._scopes.append(scope)
        return scope

    def _process(self, node: ast.AST, scope: Scope, chunked: bool) -> None:
        """Bindings of node and everything under it, up to nested defs (which get their own scope).

        The chunker only finds defs reached through statements, `except` handlers and `case`
        blocks (not inside expressions); `chunked` tracks that so the ids here match its ids."""
        if isinstance(node, DEF_TYPES):
            self._define(node, scope, chunked)
            return
        if isinstance(node, _BINDING_NODES):
            self._bind(node, scope)
        for child in child_nodes(node):
            self._process(child, scope, chunked and holds_defs(child))

    def _chunk_id(self, qualified: str) -> str:
        count = self._used.get(qualified, 0) + 1
        self._used[qualified] = count
        chunk_id = f"{self.path}::{qualified if count == 1 else f'{qualified}#{count}'}"
        known = self.project.chunk_ids
        return chunk_id if known is None or chunk_id in known else ""

    def _define(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, outer: Scope,
                chunked: bool) -> None:
        qualified = f"{outer.qualified}.{node.name}" if outer.qualified else node.name
        chunk_id = self._chunk_id(qualified) if chunked else ""
        is_class = isinstance(node, ast.ClassDef)
        value = Value("class" if is_class else "function", chunk_id) if chunk_id else None
        outer.bind(node.name, Binding(end_of(node), value=value))
        owner = chunk_id or outer.owner
        if isinstance(node, ast.ClassDef):
            scope = self._new_scope("class", owner, qualified, chunk_id, outer, class_id=chunk_id)
            if chunk_id:
                self.project.classes[chunk_id] = ClassInfo(scope, outer, list(node.bases))
        else:
            scope = self._function_scope(node, outer, qualified, owner, chunk_id)
        self.project.def_scopes[id(node)] = scope
        for statement in node.body:
            self._process(statement, scope, chunked)

    def _function_scope(self, node: ast.FunctionDef | ast.AsyncFunctionDef, outer: Scope, qualified: str,
                        owner: str, chunk_id: str) -> Scope:
        class_id = outer.class_id if outer.kind == "class" else ""
        scope = self._new_scope("function", owner, qualified, chunk_id, outer, class_id=class_id)
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        receiver = _receiver_kind(node) if outer.kind == "class" else ""
        for index, arg in enumerate([*positional, *args.kwonlyargs]):
            if index == 0 and receiver and positional:
                value = Value(receiver, class_id) if class_id else None
                scope.bind(arg.arg, Binding((0, 0), value=value))
            elif arg.annotation is not None:
                scope.bind(arg.arg, Binding((0, 0), expr=arg.annotation, scope=outer, annotation=True))
            else:
                scope.bind(arg.arg, Binding((0, 0)))
        for arg in (args.vararg, args.kwarg):
            if arg is not None:
                scope.bind(arg.arg, Binding((0, 0)))
        if chunk_id and node.returns is not None:
            self.project.returns[chunk_id] = (node.returns, outer)
        if chunk_id and _is_property(node):
            self.project.properties.add(chunk_id)
        return scope

    def _bind(self, node: ast.AST, scope: Scope) -> None:
        """The names one node binds in scope (imports, assignments, loop and `as` targets)."""
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self._bind_import(node, scope)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node.value, scope, end_of(node))
        elif isinstance(node, ast.AnnAssign):
            self._bind_annotated(node, scope)
        elif isinstance(node, ast.NamedExpr):
            self._bind_target(node.target, node.value, scope, end_of(node))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.not_local.update(node.names)
        else:
            for name, position in _unknown_targets(node):
                scope.bind(name, Binding(position))

    def _bind_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        position = end_of(node)
        for alias in node.names:
            if isinstance(node, ast.Import):
                module = alias.name if alias.asname else alias.name.split(".")[0]
                binding = Binding(position, scope=scope, import_from=(module, 0, None))
                scope.bind(alias.asname or module, binding)
                continue
            binding = Binding(position, scope=scope, import_from=(node.module or "", node.level, alias.name))
            if alias.name == "*":
                scope.star_imports.append(binding)
            else:
                scope.bind(alias.asname or alias.name, binding)

    def _bind_target(self, target: ast.expr, value: ast.expr, scope: Scope, position: tuple[int, int]) -> None:
        if isinstance(target, ast.Name):
            scope.bind(target.id, Binding(position, expr=value, scope=scope))
        elif isinstance(target, (ast.Tuple, ast.List)):
            pairs = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            for index, element in enumerate(target.elts):
                if pairs and not isinstance(element, ast.Starred):
                    self._bind_target(element, value.elts[index], scope, position)
                else:
                    for name in _names_in(element):
                        scope.bind(name.id, Binding(position))
        elif isinstance(target, ast.Attribute):
            self._bind_self_attribute(target, Binding(position, expr=value, scope=scope), scope)
        elif isinstance(target, ast.Starred):
            for name in _names_in(target):
                scope.bind(name.id, Binding(position))

    def _bind_annotated(self, node: ast.AnnAssign, scope: Scope) -> None:
        binding = Binding(end_of(node), expr=node.annotation, scope=scope, annotation=True, fallback=node.value)
        if isinstance(node.target, ast.Name):
            scope.bind(node.target.id, binding)
        elif isinstance(node.target, ast.Attribute):
            self._bind_self_attribute(node.target, binding, scope)

    def _bind_self_attribute(self, target: ast.Attribute, binding: Binding, scope: Scope) -> None:
        """`self.repo = Repo()` in a method: instances of the class carry `repo`."""
        if scope.kind != "function" or not scope.class_id or not isinstance(target.value, ast.Name):
            return
        receiver = scope.binding_at(target.value.id, (0, 0))
        if receiver is None or receiver.value != Value("instance", scope.class_id):
            return
        info = self.project.classes.get(scope.class_id)
        if info is not None:
            info.attributes.setdefault(target.attr, binding)


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {d.id if isinstance(d, ast.Name) else d.attr if isinstance(d, ast.Attribute) else ""
            for d in node.decorator_list}


def _is_property(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@property`, `@cached_property`, `@x.setter` and kin: read as attributes, never called."""
    return any(name.endswith("property") or name in ("setter", "getter", "deleter")
               for name in _decorator_names(node))


def _receiver_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """What a method's first parameter holds: "instance", "class", or "" (staticmethod)."""
    names = _decorator_names(node)
    if "staticmethod" in names:
        return ""
    if "classmethod" in names or node.name in _IMPLICIT_CLASSMETHODS:
        return "class"
    return "instance"


def _unknown_targets(node: ast.AST) -> list[tuple[str, tuple[int, int]]]:
    """Names bound to values static reading cannot know: loop, `with ... as`, `except as`, lambda args."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [(n.id, end_of(node.target)) for n in _names_in(node.target)]
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return [(node.target.id, end_of(node))]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(n.id, end_of(node.optional_vars)) for n in _names_in(node.optional_vars)]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [(node.name, start_of(node))]
    if isinstance(node, ast.Lambda):
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        return [(a.arg, start_of(node)) for a in every if a is not None]
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [(node.name, end_of(node))]
    return []
