"""The package's imports, read with `ast` (nothing imported, nothing run): no import circle between
modules of `codelens/`, and no arrow from a lower layer to a higher one.

Every import counts, wherever it is written: at the top of a module, inside a function (a lazy
import is still an arrow) or under `if TYPE_CHECKING:` (a type names what a module depends on).
`bench/imports.py` prints what these tests find.

The layers, lowest first (shared/DESIGN.md "Layers"); a module may import its own layer and those
below it. `graph` and `search` share a layer: the ranking's graph stage reads the graph's store.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent / "codelens"

# Each layer by the modules and packages that make it (a package stands for every module in it).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Records, the locations and the settings every layer reads: nothing here imports a layer.
    ("base", (
        "codelens", "codelens.chunk", "codelens.errors", "codelens.languages", "codelens.settings",
        "codelens.locations", "codelens.workspace", "codelens.workspace_file", "codelens.tokens",
        "codelens.exposure", "codelens.weights",
    )),
    ("models", ("codelens.models",)),
    ("ingest", ("codelens.ingest",)),
    ("index", ("codelens.index",)),
    ("graph, search", ("codelens.graph", "codelens.search")),
    ("answer", ("codelens.answer",)),
    # The edges: what a user starts, and what they share above the searcher and the graph.
    ("edges", (
        "codelens.open_index", "codelens.evaluation", "codelens.agents", "codelens.config_merge",
        "codelens.__main__",
        "codelens.cli", "codelens.app", "codelens.serve", "codelens.mcp",
    )),
)


@dataclass(frozen=True)
class Arrow:
    """One import: `source` imports `target` at `line` (both dotted module names)."""

    source: str
    target: str
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE_ROOT.rglob("*.py"))}


def _absolute(node: ast.ImportFrom, source: str, is_package: bool) -> str:
    """The module a `from ... import` names, relative dots resolved against `source`."""
    if node.level == 0:
        return node.module or ""
    base = source.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _targets(node: ast.AST, source: str, is_package: bool, modules: set[str]) -> Iterator[str]:
    """The package modules one import statement reaches. `from pkg import name` reaches `pkg`
    (the name is looked up there, so its `__init__` runs first) and the module `pkg.name` when
    there is one; `import pkg.mod` reaches `pkg.mod`."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in modules:
                yield alias.name
    elif isinstance(node, ast.ImportFrom):
        module = _absolute(node, source, is_package)
        for alias in node.names:
            if module in modules:
                yield module
            if f"{module}.{alias.name}" in modules:
                yield f"{module}.{alias.name}"


def arrows() -> list[Arrow]:
    """Every import between two modules of the package, lazy and type-only ones included."""
    modules = package_modules()
    names = set(modules)
    found: set[Arrow] = set()
    for source, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for target in _targets(node, source, is_package, names):
                if target != source:
                    found.add(Arrow(source, target, node.lineno))
    return sorted(found, key=lambda a: (a.source, a.target, a.line))


def layer_of(module: str) -> int:
    """The index in LAYERS of the longest prefix naming `module` (a module must have one)."""
    best, best_len = -1, -1
    for index, (_, members) in enumerate(LAYERS):
        for member in members:
            if (module == member or module.startswith(member + ".")) and len(member) > best_len:
                best, best_len = index, len(member)
    if best < 0:
        raise KeyError(f"{module} is in no layer: add it to LAYERS in tests/test_layers.py")
    return best


def upward_arrows(found: list[Arrow]) -> list[Arrow]:
    return [a for a in found if layer_of(a.target) > layer_of(a.source)]


def circles(found: list[Arrow]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm): each is at
    least one import circle."""
    graph: dict[str, list[str]] = {}
    for arrow in found:
        graph.setdefault(arrow.source, []).append(arrow.target)
        graph.setdefault(arrow.target, [])
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(groups)


def _describe(found: list[Arrow]) -> str:
    return "\n".join(f"{a.source}:{a.line} -> {a.target}" for a in found)


def test_the_reader_sees_every_kind_of_import() -> None:
    """The reader is checked on modules whose imports are known: a relative import from a package's
    `__init__`, an absolute one, and a lazy one inside a function all count."""
    found = arrows()
    pairs = {(a.source, a.target) for a in found}
    assert ("codelens.models", "codelens.models.embedders") in pairs
    assert ("codelens.cli.entry", "codelens.cli.main") in pairs
    assert len(found) > 300


def test_every_module_is_in_a_layer() -> None:
    for module in package_modules():
        layer_of(module)


def _checked_arrows() -> list[Arrow]:
    return arrows()


def test_no_import_circles() -> None:
    found = circles(_checked_arrows())
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(group) for group in found)


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    found = upward_arrows(_checked_arrows())
    assert found == [], "upward imports:\n" + _describe(found)


def test_the_checks_find_a_circle_and_an_upward_arrow() -> None:
    """The two checks on a made-up graph: a circle of three and an import from index/ up to search/."""
    made_up = [Arrow("codelens.errors", "codelens.locations", 1),
               Arrow("codelens.locations", "codelens.workspace", 1),
               Arrow("codelens.workspace", "codelens.errors", 1),
               Arrow("codelens.index.build", "codelens.search.lexical", 1),
               Arrow("codelens.search.lexical", "codelens.index.layout", 1)]
    assert circles(made_up) == [["codelens.errors", "codelens.locations", "codelens.workspace"]]
    assert upward_arrows(made_up) == [made_up[3]]


def _registered_after(module: str) -> list[str]:
    code = (f"import {module}\nfrom codelens.index.registry import SIDECARS\n"
            "print(' '.join(s.name for s in SIDECARS))")
    done = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE_ROOT.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize("entry", ["codelens.cli.main", "codelens.search.searcher", "codelens.mcp.tools",
                                   "codelens.open_index"])
def test_every_entry_point_registers_the_legs_sidecars(entry: str) -> None:
    """index/ imports no leg: the legs' sidecars are registered by the modules that index or search
    (search/sidecars.py), so an index run started from any of them builds every sidecar."""
    from codelens.search.sidecars import SHIPPED_SIDECARS

    assert _registered_after(entry) == [s.name for s in SHIPPED_SIDECARS]


def test_an_index_run_with_no_sidecars_registered_says_what_to_import() -> None:
    code = "from codelens.index.registry import SIDECARS\nlist(SIDECARS)"
    done = subprocess.run([sys.executable, "-c", code], cwd=PACKAGE_ROOT.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0 and "import codelens.search.sidecars" in done.stderr
