"""The code graph's edges for Python: the second pass walks each file's `ast` and records calls,
inherits, decorates and imports edges, each call target evaluated by `resolve.Resolver`.

Internal to `codelens.graph.model`. Separate from the evaluation it asks: this module decides which
nodes of the tree are edges and who owns them (a decorator's calls belong to the def it decorates);
an unknown target is named from what can be read (`ext:sqlalchemy.orm.Session.query`).
"""

from __future__ import annotations

import ast

from codelens.graph.bindings import Project, Scope, start_of
from codelens.graph.resolve import Resolver, package_folder, strip_generic
from codelens.graph.scopes import DEF_TYPES, EdgeSink, child_nodes

EXTERNAL_PREFIX = "ext:"


class EdgeExtractor:
    """Second pass over one file: calls, inherits, decorates and imports edges."""

    def __init__(self, project: Project, resolver: Resolver, sink: EdgeSink) -> None:
        self.project = project
        self.resolver = resolver
        self.sink = sink

    def extract(self, tree: ast.Module, scope: Scope) -> None:
        for statement in tree.body:
            self._visit(statement, scope, scope.owner)

    def _visit(self, node: ast.AST, scope: Scope, owner: str) -> None:
        if isinstance(node, DEF_TYPES):
            self._visit_def(node, scope)
            return
        if isinstance(node, ast.Call):
            self._record_call(node, scope, owner)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._record_import(node, scope)
        for child in child_nodes(node):
            self._visit(child, scope, owner)

    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, outer: Scope) -> None:
        """Decorators, bases, defaults and annotations run in the enclosing scope, but the
        calls in them (`Depends(get_db)`) belong to the def they describe."""
        inner = self.project.def_scopes[id(node)]
        owner = inner.owner
        for decorator in node.decorator_list:
            self._record_decorator(decorator, outer, inner.chunk_id)
            for child in child_nodes(decorator):
                self._visit(child, outer, owner)
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                self._record_base(base, outer, inner.chunk_id)
            header: list[ast.AST] = [*node.bases, *node.keywords]
        else:
            header = [node.args, *([node.returns] if node.returns else [])]
        for part in header:
            self._visit(part, outer, owner)
        for statement in node.body:
            self._visit(statement, inner, owner)

    def _target(self, expr: ast.expr, scope: Scope, position: tuple[int, int]) -> str:
        """The node a call (or decorator) expression points at; a named external when unknown."""
        value = self.resolver.evaluate(expr, scope, position)
        if value is not None and value.kind == "instance":  # calling an instance: its __call__
            value = self.resolver.member(value, "__call__")
        if value is not None and value.kind in ("function", "class"):
            return value.target
        if value is not None and value.kind == "external":
            return EXTERNAL_PREFIX + value.target
        return EXTERNAL_PREFIX + self.resolver.describe(expr, scope, position)

    def _record_call(self, call: ast.Call, scope: Scope, owner: str) -> None:
        if isinstance(call.func, ast.Name) and call.func.id == "super":
            return  # super() itself says nothing; super().m() is recorded as m
        position = start_of(call)
        try:
            self.sink.add(owner, self._target(call.func, scope, position), "calls", call.lineno)
            for argument in [*call.args, *(k.value for k in call.keywords)]:
                argument = argument.value if isinstance(argument, ast.Starred) else argument
                if not isinstance(argument, (ast.Name, ast.Attribute)):
                    continue
                value = self.resolver.evaluate(argument, scope, position)
                if value is not None and value.kind == "function":
                    self.sink.add(owner, value.target, "calls", call.lineno, via="reference")
        except RecursionError:  # a pathological chain: this call stays unrecorded
            return

    def _record_decorator(self, decorator: ast.expr, outer: Scope, decorated: str) -> None:
        if not decorated:
            return
        expr = decorator.func if isinstance(decorator, ast.Call) else decorator
        self.sink.add(self._target(expr, outer, start_of(decorator)), decorated, "decorates", decorator.lineno)

    def _record_base(self, base: ast.expr, outer: Scope, class_id: str) -> None:
        if not class_id:
            return
        expr = strip_generic(base)
        value = self.resolver.evaluate(expr, outer, start_of(base))
        if value is not None and value.target == "builtins.object":
            return
        self.sink.add(class_id, self._target(expr, outer, start_of(base)), "inherits", base.lineno)

    def _record_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        index = self.project.index
        path = scope.path
        if isinstance(node, ast.Import):
            for alias in node.names:
                found = index.find(alias.name, path)
                self._add_import(path, found, alias.name, node.lineno)
            return
        module = node.module or ""
        base = index.relative(path, node.level, module) if node.level else index.find(module, path)
        if base is None:
            self._add_import(path, None, "." * node.level + module, node.lineno)
            return
        folder = package_folder(base)
        for alias in node.names:  # `from pkg import mod` imports the file pkg/mod.py
            submodule = index.locate(folder + alias.name) if folder and alias.name != "*" else None
            self._add_import(path, submodule or base, "", node.lineno)

    def _add_import(self, path: str, found: str | None, dotted: str, line: int) -> None:
        if found is None:
            self.sink.add(path, EXTERNAL_PREFIX + dotted, "imports", line)
        elif not found.endswith("/") and found != path:
            self.sink.add(path, found, "imports", line)
