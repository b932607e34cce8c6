"""The settings walk of issue 36, read with `ast` (nothing imported, nothing run).

Start at `codelens/index/build.py:build_index` with its `settings` parameter tracked, and follow
every call that passes a tracked value on:

- tracked values: the parameter; a name assigned from a tracked value or from what a followed
  call returns (or yields) as one (`run = scan(run)`); one of its parts (an
  attribute ending in a field or property name of Settings or IndexLayout: `settings.index_dir`,
  `layout.catalog`, `run.options.chroma_url`; a record's other attributes are not parts); a
  method call on it (`settings.with_overrides(...)`); a record built from it or changed
  (`IndexLayout(index_dir)`, `Run(settings, ...)`, `replace(run, ...)`);
- a stop: one call site, in a function the walk reads, that passes a tracked value to a function
  or class of `codelens/` it can resolve (a module function, an imported one, `self.method`); the
  callee is read once per set of tracked parameters, with those parameters tracked;
- a climb back up: a stop whose callee is in a higher layer than its caller (tests/test_layers.py's
  layers);
- a return to a module already left: a stop, in reading order (depth first, call by call), whose
  callee module differs from the previous stop's and was seen before;
- names: the distinct parameter and local names a tracked value takes on the way.

Calls through a value only known at run time (`sidecar.build(...)`, a callback) are not followed:
the script says how many it met. `python bench/settings_walk.py [-v]`.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_layers import LAYERS, package_modules  # noqa: E402

START = ("codelens.index.build", "build_index", "settings")
RECORD_HELPERS = {"replace"}  # dataclasses.replace(record, ...) returns the same record, changed
# The classes whose fields and properties are "the settings and their parts" or "the index folder".
PART_CLASSES = (("codelens.settings", "Settings"), ("codelens.index.layout", "IndexLayout"))


def layer(module: str) -> int:
    best, index = -1, -1
    for position, (_, members) in enumerate(LAYERS):
        for member in members:
            if (module == member or module.startswith(member + ".")) and len(member) > best:
                best, index = len(member), position
    return index


@dataclass
class Module:
    name: str
    functions: dict[str, ast.FunctionDef]  # "f" and "Class.method"
    classes: dict[str, ast.ClassDef]
    imported: dict[str, tuple[str, str]]  # local name -> (module, name)


def read_module(name: str, path: Path) -> Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions: dict[str, ast.FunctionDef] = {}
    classes: dict[str, ast.ClassDef] = {}
    imported: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = node
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{node.name}.{item.name}"] = item
    for node in ast.walk(tree):  # lazy imports inside functions count too
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                imported[alias.asname or alias.name] = (node.module, alias.name)
    return Module(name, functions, classes, imported)


@dataclass
class Walk:
    modules: dict[str, Module]
    # (caller's module, caller, line, callee's module, callee) in reading order
    stops: list[tuple[str, str, int, str, str]] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    unresolved: int = 0
    _read: dict[tuple[str, str, frozenset[str]], bool] = field(default_factory=dict)  # -> returns a tracked value

    def resolve(self, module: Module, func: ast.expr, cls: str | None) -> tuple[str, str] | None:
        """(module, "function" or "Class.method" or "Class") of a call's target, when static."""
        if isinstance(func, ast.Name):
            if func.id in module.functions or func.id in module.classes:
                return module.name, func.id
            if func.id in module.imported:
                return self._defined(*module.imported[func.id])
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == "self" and cls and f"{cls}.{func.attr}" in module.functions:
                return module.name, f"{cls}.{func.attr}"
            owner = module.imported.get(func.value.id)
            if owner and self._defined(*owner):
                found = self._defined(*owner)
                if found and f"{found[1]}.{func.attr}" in self.modules[found[0]].functions:
                    return found[0], f"{found[1]}.{func.attr}"
            if func.value.id in module.classes and f"{func.value.id}.{func.attr}" in module.functions:
                return module.name, f"{func.value.id}.{func.attr}"
        return None

    def _defined(self, source: str, name: str) -> tuple[str, str] | None:
        """Follow re-exports (`from codelens.models import load_embedder`) to the defining module."""
        for _ in range(5):
            module = self.modules.get(source)
            if module is None:
                candidate = f"{source}.{name}"
                return (candidate, "") if candidate in self.modules else None
            if name in module.functions or name in module.classes:
                return source, name
            if name not in module.imported:
                return None
            source, name = module.imported[name]
        return None

    def read(self, module_name_: str, qualname: str, tracked: frozenset[str]) -> bool:
        """Read a callee with these parameters tracked; whether it returns (or yields) a tracked value."""
        key = (module_name_, qualname, tracked)
        if key in self._read or not tracked:
            return self._read.get(key, False)
        self._read[key] = False  # while it is read (a recursion finds it so)
        module = self.modules[module_name_]
        node = module.functions.get(qualname)
        if node is None:  # a class: its __init__ when it has one, else a record (nothing to read)
            init = module.functions.get(f"{qualname}.__init__")
            if init is None:
                return False
            qualname, node = f"{qualname}.__init__", init
        self.names |= tracked
        cls = qualname.split(".")[0] if "." in qualname else None
        self._read[key] = self._body(module, node, cls, set(tracked))
        return self._read[key]

    def _body(self, module: Module, node: ast.FunctionDef, cls: str | None, tracked: set[str]) -> bool:
        returns = False
        for statement in _statements(node):
            returning: set[int] = set()  # the calls of this statement whose callee returns a tracked value
            for call in _calls(statement):
                if self._call(module, node, cls, call, tracked, returning):
                    returning.add(id(call))
            for target, value in _assignments(statement):
                if carries(value, tracked, returning):
                    tracked.add(target)
                    self.names.add(target)
            for value in _returned(statement):
                returns = returns or carries(value, tracked, returning)
        return returns

    def _call(self, module: Module, node: ast.FunctionDef, cls: str | None, call: ast.Call,
              tracked: set[str], returning: set[int]) -> bool:
        """Follow one call when it passes a tracked value; whether its result is a tracked value."""
        args = [(i, a) for i, a in enumerate(call.args) if carries(a, tracked, returning)]
        kwargs = [k for k in call.keywords if k.arg and carries(k.value, tracked, returning)]
        if not args and not kwargs:
            return False
        target = self.resolve(module, call.func, cls)
        if target is None or target[0] not in self.modules:
            if not _reads_part(call.func, tracked) and not (isinstance(call.func, ast.Name)
                                                           and call.func.id in RECORD_HELPERS):
                self.unresolved += isinstance(call.func, (ast.Attribute, ast.Name)) and _is_ours(module, call.func)
            return False
        self.stops.append((module.name, node.name, call.lineno, target[0], target[1]))
        params = self._params(target)
        received = {params[i] for i, _ in args if i < len(params)} | {k.arg for k in kwargs if k.arg in params}
        return self.read(target[0], target[1], frozenset(received))

    def _params(self, target: tuple[str, str]) -> list[str]:
        module = self.modules[target[0]]
        node = module.functions.get(target[1]) or module.functions.get(f"{target[1]}.__init__")
        if node is None:
            klass = module.classes.get(target[1])
            if klass is None:
                return []
            return [s.target.id for s in klass.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        names = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        return names[1:] if names and names[0] in ("self", "cls") else names


def _statements(node: ast.FunctionDef) -> list[ast.stmt]:
    """The function's statements in reading order, nested blocks included, nested functions not."""
    out: list[ast.stmt] = []

    def visit(body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            out.append(statement)
            for name in ("body", "orelse", "finalbody"):
                visit(getattr(statement, name, []) or [])
            for handler in getattr(statement, "handlers", []) or []:
                visit(handler.body)

    visit(node.body)
    return out


def _calls(statement: ast.stmt) -> list[ast.Call]:
    """The calls of one statement itself (not of its nested blocks), in source order."""
    shallow = [getattr(statement, name) for name in ("value", "test", "iter", "exc", "targets", "items", "msg")
               if getattr(statement, name, None) is not None]
    found: list[ast.Call] = []
    for part in shallow:
        for node in ast.walk(part) if isinstance(part, ast.AST) else [n for p in part for n in ast.walk(p)]:
            if isinstance(node, ast.Call):
                found.append(node)
    # inner calls first (`plan(chunk(run))`: chunk's result is known when plan's arguments are read)
    return sorted(found, key=lambda c: (c.end_lineno or 0, c.end_col_offset or 0))


def _returned(statement: ast.stmt) -> list[ast.expr]:
    """What a statement hands back to the caller: a return's value, a yield's (a context manager's)."""
    if isinstance(statement, ast.Return) and statement.value is not None:
        return [statement.value]
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Yield) and statement.value.value:
        return [statement.value.value]
    return []


def _assignments(statement: ast.stmt) -> list[tuple[str, ast.expr]]:
    pairs: list[tuple[str, ast.expr]] = []
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Name):
                pairs.append((target.id, statement.value))
            elif isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple) \
                    and len(target.elts) == len(statement.value.elts):  # `a, settings = x, run.settings`
                pairs += [(t.id, v) for t, v in zip(target.elts, statement.value.elts, strict=True)
                          if isinstance(t, ast.Name)]
            elif isinstance(target, ast.Tuple):
                pairs += [(t.id, statement.value) for t in target.elts if isinstance(t, ast.Name)]
    elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
        pairs.append((statement.target.id, statement.value))
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        pairs += [(i.optional_vars.id, i.context_expr) for i in statement.items
                  if isinstance(i.optional_vars, ast.Name)]
    elif isinstance(statement, ast.For) and isinstance(statement.target, ast.Name):
        pairs.append((statement.target.id, statement.iter))
    return pairs


def part_names(modules: dict[str, Module]) -> frozenset[str]:
    """The fields and properties of Settings and IndexLayout: a tracked value's attribute named so is
    a part of the settings or of the index folder (any other attribute, e.g. a record's chunks, is not)."""
    names: set[str] = {"settings", "layout", "index_dir"}
    for module, name in PART_CLASSES:
        for item in modules[module].classes[name].body:
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                names.add(item.target.id)
            elif isinstance(item, ast.FunctionDef):
                names.add(item.name)
    return frozenset(names)


PARTS: frozenset[str] = frozenset()


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _attributes(expr: ast.expr) -> list[str]:
    names = []
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        if isinstance(expr, ast.Attribute):
            names.append(expr.attr)
        expr = expr.value
    return names


def _reads_part(func: ast.expr, tracked: set[str]) -> bool:
    return isinstance(func, ast.Attribute) and _root(func) in tracked


def _is_ours(module: Module, func: ast.expr) -> bool:
    """A call on a value (`sidecar.build`, `store.upsert`): counted as not followed."""
    return isinstance(func, ast.Attribute)


def carries(expr: ast.expr, tracked: set[str], returning: set[int] = frozenset()) -> bool:
    """Whether an expression's value is a tracked value, a part of one, a record made from one, or
    what a followed call returned as one (`run = scan(run)`)."""
    if isinstance(expr, ast.Call) and id(expr) in returning:
        return True
    if isinstance(expr, ast.Name):
        return expr.id in tracked
    if isinstance(expr, (ast.Attribute, ast.Subscript)):
        # a part of the settings or of the index folder: named like one of them at the end (the
        # options a run record took from the settings are still settings: `run.options.chroma_url`)
        attributes = _attributes(expr)
        return _root(expr) in tracked and (not attributes or attributes[0] in PARTS)
    if isinstance(expr, ast.Call):
        if _reads_part(expr.func, tracked):  # settings.with_overrides(...), layout.collection(name)
            return True
        inner = [*expr.args, *(k.value for k in expr.keywords)]
        return any(carries(a, tracked, returning) for a in inner) and _is_record(expr.func)
    if isinstance(expr, ast.Starred):
        return carries(expr.value, tracked, returning)
    if isinstance(expr, ast.IfExp):
        return carries(expr.body, tracked, returning) or carries(expr.orelse, tracked, returning)
    if isinstance(expr, ast.BoolOp):
        return any(carries(v, tracked, returning) for v in expr.values)
    return False


def _is_record(func: ast.expr) -> bool:
    """A class (by the name's capital), Path(...) or replace(...): the value goes on inside it."""
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name[:1].isupper() or name in RECORD_HELPERS


def walk() -> Walk:
    global PARTS
    modules = {name: read_module(name, path) for name, path in package_modules().items()}
    PARTS = part_names(modules)
    result = Walk(modules)
    result.read(START[0], START[1], frozenset({START[2]}))
    return result


def summary(result: Walk) -> dict[str, int]:
    previous, seen, returns, climbs = START[0], {START[0]}, 0, 0
    for caller, _, _, callee, _ in result.stops:
        if layer(callee) > layer(caller):
            climbs += 1
        if callee != previous and callee in seen:
            returns += 1
        seen.add(callee)
        previous = callee
    return {"stops": len(result.stops), "modules": len(seen), "climbs back up": climbs,
            "returns to a module left": returns, "names": len(result.names),
            "calls not followed (runtime values)": result.unresolved}


def main() -> None:
    result = walk()
    if "-v" in sys.argv:
        for caller, function, line, callee, name in result.stops:
            mark = " ^" if layer(callee) > layer(caller) else ""
            print(f"  {caller}:{line} {function} -> {callee}.{name}{mark}")
        print("names:", ", ".join(sorted(result.names)))
    for key, value in summary(result).items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
