"""Second pass of the code graph: evaluate names and expressions through the first pass's
bindings, for the edges `codelens.graph.python_edges` records.

Internal to `codelens.graph`. Evaluation is lazy and memoized per binding, follows imports
across modules, and answers None (unknown) rather than guess; what cannot be resolved is still
described from what can be read (`sqlalchemy.orm.Session.query`, `thing.go`), for a named external.
"""

from __future__ import annotations

import ast
import builtins

from codelens.graph.bindings import Binding, Project, Scope, Value, start_of
from codelens.graph.scopes import parse_python

_LITERAL_TYPES = {
    ast.JoinedStr: "str", ast.List: "list", ast.ListComp: "list", ast.Dict: "dict", ast.DictComp: "dict",
    ast.Set: "set", ast.SetComp: "set", ast.Tuple: "tuple",
}


# --------------------------------------------------------- resolution


class Resolver:
    """Evaluates names and expressions to `Value`s through the first pass's bindings, lazily."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._values: dict[int, Value | None] = {}
        self._active: set[int] = set()
        self._mros: dict[str, list[Value]] = {}
        self._active_attributes: set[tuple[str, str]] = set()

    def lookup(self, name: str, scope: Scope, position: tuple[int, int] | None) -> Value | None:
        """None: bound to something unknown (a parameter, a loop variable), which shadows globals."""
        current: Scope | None = scope
        innermost = True
        while current is not None:
            if innermost or current.kind != "class":  # class bodies are not enclosing scopes
                binding = current.binding_at(name, position if innermost else None)
                if binding is not None:
                    return self.binding_value(binding)
            innermost = False
            current = current.parent
        return self._global_fallback(scope.path, name)

    def _global_fallback(self, path: str, name: str) -> Value:
        module = self.project.modules.get(path)
        external_star = ""
        for star in module.star_imports if module else ():
            source = self.binding_value(star)
            if source is not None and source.kind == "module":
                found = self._module_attr(source.target, name)
                if found is not None:
                    return found
            elif source is not None and not external_star:
                external_star = source.target
        if name in vars(builtins):
            return Value("external", f"builtins.{name}")
        return Value("external", f"{external_star}.{name}" if external_star else name)

    def binding_value(self, binding: Binding) -> Value | None:
        key = id(binding)
        if key in self._values:
            return self._values[key]
        if key in self._active:  # a cycle (x = x.y): unknown
            return None
        self._active.add(key)
        try:
            value = self._compute(binding)
        finally:
            self._active.discard(key)
        self._values[key] = value
        return value

    def _compute(self, binding: Binding) -> Value | None:
        if binding.value is not None:
            return binding.value
        if binding.import_from is not None and binding.scope is not None:
            return self._import_value(binding.scope.path, *binding.import_from)
        if binding.expr is not None and binding.scope is not None:
            position = start_of(binding.expr)
            if not binding.annotation:
                return self.evaluate(binding.expr, binding.scope, position)
            value = self.annotation_value(binding.expr, binding.scope, position)
            if value is None and binding.fallback is not None:
                value = self.evaluate(binding.fallback, binding.scope, start_of(binding.fallback))
            return value
        return None

    def _import_value(self, path: str, module: str, level: int, name: str | None) -> Value | None:
        index = self.project.index
        target = index.relative(path, level, module) if level else index.find(module, path)
        if name is None:  # import a.b.c (binds a) / import a.b.c as x
            return Value("module", target) if target else Value("external", module)
        if name == "*":
            return Value("module", target) if target else Value("external", module)
        if target is None:
            dotted = "." * level + module
            return Value("external", f"{dotted}.{name}" if module else f"{dotted}{name}")
        return self._module_attr(target, name) or Value("external", f"{index.importable_name(target)}.{name}")

    def member(self, value: Value, attribute: str) -> Value | None:
        if value.kind == "module":
            return self._module_attr(value.target, attribute)
        if value.kind == "class":
            return self._class_attr(value.target, attribute, skip=0)
        if value.kind in ("instance", "super"):
            found = self._class_attr(value.target, attribute, skip=1 if value.kind == "super" else 0)
            if found is not None and found.kind == "function" and found.target in self.project.properties:
                return self._returned(found.target)  # a property reads as what it returns
            return found
        if value.kind in ("external", "external_instance"):
            return Value("external", f"{value.target}.{attribute}")
        return None

    def _module_attr(self, path: str, name: str) -> Value | None:
        if (path, name) in self._active_attributes:  # star imports in a cycle
            return None
        self._active_attributes.add((path, name))
        try:
            return self._find_module_attr(path, name)
        finally:
            self._active_attributes.discard((path, name))

    def _find_module_attr(self, path: str, name: str) -> Value | None:
        folder = path
        if not path.endswith("/"):
            scope = self.project.modules.get(path)
            binding = scope.binding_at(name, None) if scope else None
            if binding is not None:
                return self.binding_value(binding)
            if scope is not None and scope.star_imports:
                found = self._global_fallback(path, name)
                if found.kind != "external":
                    return found
            folder = package_folder(path)
            if not folder:
                return None
        submodule = self.project.index.locate(folder + name)
        return Value("module", submodule) if submodule else None

    def _class_attr(self, class_id: str, name: str, skip: int) -> Value | None:
        """A member through the MRO: the codebase's classes first, then the first external base."""
        order = self.mro(class_id)[skip:]
        for entry in order:
            info = self.project.classes.get(entry.target) if entry.kind == "class" else None
            if info is None:
                continue
            binding = info.scope.binding_at(name, None) or info.attributes.get(name)
            if binding is not None:
                return self.binding_value(binding)
        for entry in order:
            if entry.kind == "external":
                return Value("external", f"{entry.target}.{name}")
        return None

    def mro(self, class_id: str) -> list[Value]:
        """The class, then its bases depth-first left to right (C3 is not worth it here)."""
        if class_id in self._mros:
            return self._mros[class_id]
        order = [Value("class", class_id)]
        self._mros[class_id] = order  # provisional: guards against inheritance cycles
        info = self.project.classes.get(class_id)
        for base in info.bases if info else ():
            value = self.evaluate(strip_generic(base), info.outer, start_of(base))
            if value is None or value.target == "builtins.object":
                continue
            if value.kind == "class":
                candidates = self.mro(value.target)
            elif value.kind == "external":
                candidates = [value]
            else:
                continue
            order.extend(c for c in candidates if c not in order)
        return order

    def evaluate(self, expr: ast.expr, scope: Scope, position: tuple[int, int]) -> Value | None:
        if isinstance(expr, ast.Name):
            return self.lookup(expr.id, scope, position)
        if isinstance(expr, ast.Attribute):
            base = self.evaluate(expr.value, scope, position)
            return self.member(base, expr.attr) if base is not None else None
        if isinstance(expr, ast.Call):
            return self._call_result(expr, scope, position)
        if isinstance(expr, ast.NamedExpr):
            return self.evaluate(expr.value, scope, position)
        literal = _literal_type(expr)
        return Value("external_instance", f"builtins.{literal}") if literal else None

    def _call_result(self, call: ast.Call, scope: Scope, position: tuple[int, int]) -> Value | None:
        if isinstance(call.func, ast.Name) and call.func.id == "super":
            return self._super(call, scope, position)
        callee = self.evaluate(call.func, scope, position)
        if callee is None:
            return None
        if callee.kind == "class":
            return Value("instance", callee.target)
        if callee.kind == "function":
            return self._returned(callee.target)
        if callee.kind == "external" and callee.target == "functools.partial" and call.args:
            return self.evaluate(call.args[0], scope, position)  # partial(f, ...) behaves as f
        if callee.kind == "external" and _looks_like_class(callee.target):
            return Value("external_instance", callee.target)
        return None

    def _returned(self, function_id: str) -> Value | None:
        """What calling a function gives, by its return annotation."""
        returned = self.project.returns.get(function_id)
        return self.annotation_value(returned[0], returned[1], start_of(returned[0])) if returned else None

    def _super(self, call: ast.Call, scope: Scope, position: tuple[int, int]) -> Value | None:
        if call.args:
            value = self.evaluate(call.args[0], scope, position)
            return Value("super", value.target) if value is not None and value.kind == "class" else None
        current: Scope | None = scope
        while current is not None and current.kind != "function":
            current = current.parent
        return Value("super", current.class_id) if current is not None and current.class_id else None

    def annotation_value(self, expr: ast.expr, scope: Scope, position: tuple[int, int]) -> Value | None:
        """`x: Foo`, `Optional[Foo]`, `"Foo"`, `Foo | None`: an instance of Foo."""
        unwrapped = _unwrap_annotation(expr)
        value = self.evaluate(unwrapped, scope, position) if unwrapped is not None else None
        if value is None:
            return None
        if value.kind == "class":
            return Value("instance", value.target)
        if value.kind == "external" and not value.target.startswith("typing."):
            return Value("external_instance", value.target)
        return None

    def describe(self, expr: ast.expr, scope: Scope, position: tuple[int, int]) -> str:
        """A readable dotted name for a call target that resolves to nothing in the codebase."""
        if isinstance(expr, ast.Name):
            value = self.lookup(expr.id, scope, position)
            return self.value_name(value) if value is not None else expr.id
        if isinstance(expr, ast.Attribute):
            base = self.evaluate(expr.value, scope, position)
            prefix = self.value_name(base) if base is not None else self.describe(expr.value, scope, position)
            return f"{prefix}.{expr.attr}"
        if isinstance(expr, ast.Call):  # the callee's last name keeps call chains short
            return f"{self.describe(expr.func, scope, position).rsplit('.', 1)[-1]}()"
        if isinstance(expr, ast.Subscript):
            return f"{self.describe(expr.value, scope, position)}[]"
        return f"<{type(expr).__name__.lower()}>"

    def value_name(self, value: Value) -> str:
        if value.kind == "module":
            return self.project.index.importable_name(value.target)
        if value.kind in ("function", "class", "instance", "super"):
            path, _, symbol = value.target.partition("::")
            return f"{self.project.index.importable_name(path)}.{symbol}"
        return value.target


def package_folder(path: str) -> str:
    """`a/b/__init__.py` and the namespace folder `a/b/` -> `a/b/`; a plain module -> ""."""
    if path.endswith("/"):
        return path
    return path[: -len("__init__.py")] if path.endswith("/__init__.py") else ""


def strip_generic(expr: ast.expr) -> ast.expr:
    """`Base[T]` as a base class means Base."""
    return expr.value if isinstance(expr, ast.Subscript) else expr


def _literal_type(expr: ast.expr) -> str:
    if isinstance(expr, ast.Constant):
        return type(expr.value).__name__ if isinstance(expr.value, (str, bytes, int, float, complex)) else ""
    return _LITERAL_TYPES.get(type(expr), "")


def _looks_like_class(dotted: str) -> bool:
    last = dotted.rsplit(".", 1)[-1]
    if dotted.startswith("builtins."):
        return isinstance(getattr(builtins, last, None), type)
    return last[:1].isupper() and not last.isupper()


def _unwrap_annotation(expr: ast.expr | None) -> ast.expr | None:
    """The one class an annotation names, through strings, Optional, Annotated and `| None`."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        parsed = parse_python(expr.value)
        if parsed is None or len(parsed.body) != 1 or not isinstance(parsed.body[0], ast.Expr):
            return None
        return _unwrap_annotation(parsed.body[0].value)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        kept = [side for side in (expr.left, expr.right) if not _is_none(side)]
        return _unwrap_annotation(kept[0]) if len(kept) == 1 else None
    if isinstance(expr, ast.Subscript):
        wrapper = expr.value.id if isinstance(expr.value, ast.Name) else getattr(expr.value, "attr", "")
        elements = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if wrapper == "Optional" or (wrapper == "Annotated" and elements):
            return _unwrap_annotation(elements[0])
        kept = [e for e in elements if not _is_none(e)]
        return _unwrap_annotation(kept[0]) if wrapper == "Union" and len(kept) == 1 else None
    return expr if isinstance(expr, (ast.Name, ast.Attribute)) else None


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None
