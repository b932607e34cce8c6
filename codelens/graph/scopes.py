"""First pass of the code graph: which file an import means, and every scope's bindings.

Internal to `codelens.graph.model`. Nothing is evaluated here: a binding records what was
assigned (a def, an import, an expression, an annotation) and where, so the second pass
(`codelens.graph.resolve`) can evaluate it lazily and only when a call needs it. Def
scopes get the chunk ids the chunker gives (same traversal, same `#n` ordinals).
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from codelens.ingest.chunker import holds_defs

DEF_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPLICIT_CLASSMETHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
_BINDING_NODES = (  # the only nodes that bind names (one isinstance test skips all others)
    ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.Global, ast.Nonlocal,
    ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.ExceptHandler, ast.Lambda, ast.MatchAs, ast.MatchStar,
)


def module_name(path: str) -> str:
    """`gymhero/crud/__init__.py` -> `gymhero.crud`; a folder `a/b/` -> `a.b`."""
    parts = list(PurePosixPath(path.rstrip("/")).parts)
    if parts and parts[-1].endswith(".py"):
        parts[-1] = parts[-1][:-3]
    if len(parts) > 1 and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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


# ------------------------------------------------------------ module lookup


class ModuleIndex:
    """Which file `import a.b` means: searched under the codebase root and under every
    folder that is not a package (where `src/` layouts and scripts put their imports). In a
    workspace (`repository_labels`: the top-level folders that are repositories of their own)
    each repository is a root of its own: an import is looked for in the importing file's
    repository first, then in the others (flask's `import click` finds click's code)."""

    def __init__(self, paths: Iterable[str], repository_labels: Iterable[str] = ()) -> None:
        self.files = frozenset(p for p in paths if p.endswith(".py"))
        self.folders = {str(parent) for p in self.files for parent in PurePosixPath(p).parents if str(parent) != "."}
        non_packages = [f for f in self.folders if f"{f}/__init__.py" not in self.files]
        self.labels = tuple(sorted(set(repository_labels)))
        by_depth = sorted(non_packages, key=lambda f: (f.count("/"), f))
        self._roots_of: dict[str, list[str]] = {
            label: [label, *(f for f in by_depth if f.startswith(f"{label}/"))] for label in self.labels}
        self._roots_of[""] = ["", *(f for f in by_depth if self.label_of(f) == "" and f not in self.labels)]
        self.roots = self._roots_of[""]
        self._root_sets = {label: frozenset(roots) for label, roots in self._roots_of.items()}
        self._found: dict[tuple[str, str], str | None] = {}

    def label_of(self, path: str) -> str:
        """The repository label a path is under ("" outside every repository, or with none)."""
        head = path.split("/", 1)[0]
        return head if head in self.labels and path != head else ""

    def locate(self, base: str) -> str | None:
        """`a/b` -> `a/b.py`, `a/b/__init__.py`, or the namespace folder `a/b/`."""
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in self.files:
                return candidate
        return f"{base}/" if base in self.folders else None

    def find(self, dotted: str, importer: str = "") -> str | None:
        """The file `import dotted` in the file `importer` means (None: not in the codebase)."""
        label = self.label_of(importer)
        key = (dotted, label)
        if key not in self._found:
            found = self._search(dotted, self._roots_of[label])
            if found is None and self.labels:  # a package another repository of the workspace provides
                elsewhere = {hit for other in ("", *self.labels) if other != label
                             if (hit := self._search(dotted, self._roots_of[other]))}
                found = elsewhere.pop() if len(elsewhere) == 1 else None
            self._found[key] = found
        return self._found[key]

    def _search(self, dotted: str, roots: list[str]) -> str | None:
        relative = dotted.replace(".", "/")
        found: list[str] = []
        best_depth = -1
        for root in roots:
            depth = root.count("/") + 1 if root else 0
            if found and depth > best_depth:
                break
            hit = self.locate(f"{root}/{relative}" if root else relative)
            if hit:
                found.append(hit)
                best_depth = depth
        return found[0] if len(found) == 1 else None  # two equally near candidates: unknown

    def importable_name(self, path: str) -> str:
        """The dotted name Python imports path by: from its nearest folder that is not a
        package (`src/flask/app.py` -> `flask.app`, `gymhero/crud/user.py` -> `gymhero.crud.user`;
        in a workspace, within the file's repository: `flask/src/flask/app.py` -> `flask.app`)."""
        roots = self._root_sets[self.label_of(path)]
        parts = PurePosixPath(path.rstrip("/")).parts
        for cut in range(len(parts) - 1, 0, -1):
            if "/".join(parts[:cut]) in roots:
                return module_name("/".join(parts[cut:]))
        return module_name(path)

    def relative(self, path: str, level: int, module: str) -> str | None:
        """`from ..x import y` in `path`."""
        parts = list(PurePosixPath(path).parent.parts)
        if level - 1 > len(parts):
            return None
        parts = parts[: len(parts) - (level - 1)]
        parts.extend(module.split(".") if module else [])
        return self.locate("/".join(parts)) if parts else None


# --------------------------------------------------------- first pass: scopes


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
        self.bindings.setdefault(name, []).append(binding)

    def binding_at(self, name: str, position: tuple[int, int] | None) -> Binding | None:
        """The binding in force at position (None: the last one, as seen after the code ran).

        A function's name bound only further down is still local there (a loop); in a
        module or class body it is not bound yet, so the enclosing scope's name applies."""
        candidates = self.bindings.get(name)
        if not candidates:
            return None
        if position is None:
            return candidates[-1]
        before = [b for b in candidates if b.position <= position]
        if before:
            return before[-1]
        return candidates[-1] if self.kind == "function" else None

    def finish(self) -> None:
        for name in self.not_local:
            self.bindings.pop(name, None)
        for candidates in self.bindings.values():
            candidates.sort(key=lambda b: b.position)


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
        for child in ast.iter_child_nodes(node):
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
