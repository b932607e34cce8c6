"""A code map: the ~2,000-character overview a newcomer needs, from the code graph.

Packages, their modules, and each module's main classes (with their main methods) and
functions, ranked by how much the rest of the codebase uses them; then the most called
code and the libraries it builds on; then the documents and configuration files of each
folder (the graph holds code only: the caller passes their paths, `files_beside_code`).
Selection is greedy under a character budget: the most important module or symbol is added
first, and anything that would overflow the budget is left out (and counted as not shown).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codelens.graph.model import FILE, CodeGraph, Node
from codelens.languages import PYTHON, language_of, row_named

DEFAULT_MAP_CHARS = 2000
MAX_CANDIDATES = 600
MOST_CALLED = 6
MAX_LIBRARIES = 10
ENTRY_POINT_BONUS = 1.5
FILES_SHARE = 0.25  # of the budget, at most, for the documents and configuration files


@dataclass(frozen=True)
class SymbolInfo:
    node: Node
    score: float
    callers: int  # distinct non-test callers
    methods: tuple[str, ...] = ()  # a class's method ids, most important first


@dataclass(frozen=True)
class ModuleInfo:
    node: Node
    score: float
    symbols: tuple[SymbolInfo, ...]  # top-level functions and classes, most important first


@dataclass
class _Selection:
    modules: set[str] = field(default_factory=set)
    symbols: set[str] = field(default_factory=set)


def symbol_scores(graph: CodeGraph) -> dict[str, SymbolInfo]:
    """Importance of every non-test chunk: distinct callers (test callers count a third),
    subclasses, registration by a decorator (`@router.post`: an entry point), a class's
    methods' use, a docstring, and public names over `_private`."""
    infos: dict[str, SymbolInfo] = {}
    for node in graph.nodes.values():
        if not node.is_chunk or node.is_test or node.kind == "module":
            continue
        callers = {e.source for e in graph.in_edges(node.node_id, ("calls",)) if e.source != node.node_id}
        production = [c for c in callers if not graph.nodes[c].is_test]
        score = len(production) + (len(callers) - len(production)) / 3
        score += 2 * len(graph.in_edges(node.node_id, ("inherits",))) + (0.5 if node.summary else 0)
        if any(not e.source.startswith("ext:builtins.") for e in graph.in_edges(node.node_id, ("decorates",))):
            score += ENTRY_POINT_BONUS
        score = score * 0.5 if node.symbol.rsplit(".", 1)[-1].startswith("_") else score + 1
        infos[node.node_id] = SymbolInfo(node, score, len(production))
    for node_id, info in list(infos.items()):
        if info.node.kind == "class":
            methods = [infos[e.target] for e in graph.out_edges(node_id, ("contains",)) if e.target in infos]
            methods.sort(key=lambda m: -m.score)
            bonus = 1 + sum(m.score for m in methods) / 2
            infos[node_id] = SymbolInfo(info.node, info.score + bonus, info.callers,
                                        tuple(m.node.node_id for m in methods))
    return infos


def module_infos(graph: CodeGraph, scores: dict[str, SymbolInfo]) -> list[ModuleInfo]:
    """Non-test modules with their top-level functions and classes."""
    modules = []
    for node in graph.nodes.values():
        if node.kind != FILE or node.is_test:
            continue
        members = [scores[e.target] for e in graph.out_edges(node.node_id, ("contains",)) if e.target in scores]
        members.sort(key=lambda s: -s.score)
        importers = {e.source for e in graph.in_edges(node.node_id, ("imports",))}
        score = (members[0].score if members else 0) + sum(m.score for m in members[:3]) / 2 + len(importers) / 2
        modules.append(ModuleInfo(node, score, tuple(members)))
    return modules


def code_map(graph: CodeGraph, max_chars: int = DEFAULT_MAP_CHARS, other_files: Iterable[str] = ()) -> str:
    """The map as text, at most max_chars long (the header alone may exceed a tiny budget);
    other_files: the paths of the documents and configuration files, listed by folder."""
    scores = symbol_scores(graph)
    modules = {m.node.node_id: m for m in module_infos(graph, scores)}
    header = _header(graph, scores)
    footer = _footer(graph, scores) + files_by_folder(_beside(graph, other_files), int(max_chars * FILES_SHARE))
    layout = _Layout(header, footer, modules, scores, {path: _package(path) for path in modules})
    selection = _Selection()
    for kind, key, owner, parent in _candidates(modules, scores):
        trial = _Selection(set(selection.modules) | {owner}, set(selection.symbols))
        if kind == "symbol":
            trial.symbols |= {key, parent} - {""}
        if len(layout.render(trial)) <= max_chars:
            selection = trial
    return layout.render(selection)


def _candidates(modules: dict[str, ModuleInfo], scores: dict[str, SymbolInfo]) -> list[tuple[str, str, str, str]]:
    """(kind, key, module path, enclosing class) for every module and listable symbol, best first."""
    ranked: list[tuple[float, tuple[str, str, str, str]]] = []
    for path, module in modules.items():
        if not module.symbols:  # an `__init__.py` that only re-exports: structure, not content
            ranked.append((module.score / 4, ("module", path, path, "")))
        for symbol in module.symbols:  # a module comes with its first symbol: no bare module lines
            ranked.append((max(symbol.score, module.score if symbol is module.symbols[0] else 0),
                           ("symbol", symbol.node.node_id, path, "")))
            for method_id in symbol.methods:
                ranked.append((scores[method_id].score / 2, ("symbol", method_id, path, symbol.node.node_id)))
    ranked.sort(key=lambda item: (-item[0], item[1][1]))
    return [candidate for _, candidate in ranked[:MAX_CANDIDATES]]


@dataclass(frozen=True)
class _Layout:
    """What every rendering shares; `render(selection)` is the map for one selection."""

    header: list[str]
    footer: list[str]
    modules: dict[str, ModuleInfo]
    scores: dict[str, SymbolInfo]
    packages: dict[str, str]  # module path -> package folder

    def render(self, selection: _Selection) -> str:
        by_package: dict[str, list[str]] = defaultdict(list)
        for path in selection.modules:
            by_package[self.packages[path]].append(path)
        sizes = Counter(self.packages.values())
        lines = list(self.header)
        for package in sorted(by_package):
            hidden = sizes[package] - len(by_package[package])
            lines.append(f"{package or '.'}/" + (f" (+{hidden} more)" if hidden else ""))
            lines.extend(_module_line(self.modules[path], self.scores, selection.symbols)
                         for path in sorted(by_package[package]))
        if len(selection.modules) < len(self.modules):
            lines.append(f"({len(self.modules) - len(selection.modules)} of {len(self.modules)} modules not shown)")
        return "\n".join([*lines, *self.footer])


def _module_line(module: ModuleInfo, scores: dict[str, SymbolInfo], chosen: set[str]) -> str:
    parts = []
    for symbol in module.symbols:
        if symbol.node.node_id not in chosen:
            continue
        name = symbol.node.symbol
        methods = [scores[m].node.symbol.rsplit(".", 1)[-1] for m in symbol.methods if m in chosen]
        parts.append(f"{name}({', '.join(methods)})" if methods else name)
    name = PurePosixPath(module.node.path).name
    return f"  {name}" + (f": {', '.join(parts)}" if parts else "")


def _package(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


def _header(graph: CodeGraph, scores: dict[str, SymbolInfo]) -> list[str]:
    files = [n for n in graph.nodes.values() if n.kind == FILE]
    tests = sum(1 for n in files if n.is_test)
    kinds = Counter(info.node.kind for info in scores.values())
    return [
        f"Code map: {len(files) - tests} modules (+{tests} test files); {kinds['class']} classes, "
        f"{kinds['function']} functions, {kinds['method']} methods.",
        "package/ then module: Class(methods), functions - most used first",
    ]


def _footer(graph: CodeGraph, scores: dict[str, SymbolInfo]) -> list[str]:
    called = sorted((info for info in scores.values() if info.callers), key=lambda i: (-i.callers, i.node.node_id))
    lines = []
    if called:
        lines.append("Most called: " + ", ".join(f"{i.node.symbol} ({i.callers})" for i in called[:MOST_CALLED]))
    libraries = _libraries(graph)
    if libraries:
        lines.append("Uses: " + ", ".join(libraries))
    return lines


def files_by_folder(paths: Iterable[str], max_chars: int) -> list[str]:
    """`Docs and config:` then a line per folder (`.github/workflows/: run-tests.yaml`), top
    folders first, within max_chars; what does not fit is counted."""
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in sorted(set(paths)):
        by_folder[_package(path)].append(PurePosixPath(path).name)
    if not by_folder:
        return []
    lines, used, hidden = ["Docs and config:"], len("Docs and config:") + 1, 0
    for folder in sorted(by_folder, key=lambda f: (f.count("/") + bool(f), f)):
        line = f"  {folder or '.'}/: {', '.join(by_folder[folder])}"
        if used + len(line) + 1 > max_chars:
            hidden += len(by_folder[folder])
            continue
        lines.append(line)
        used += len(line) + 1
    if hidden:
        lines.append(f"  (+{hidden} more files)")
    return lines if len(lines) > 1 else []


def _libraries(graph: CodeGraph) -> list[str]:
    """Third-party top-level packages imported by non-test code, most imported first."""
    files = [n for n in graph.nodes.values() if n.kind == FILE]
    internal_tops = {PurePosixPath(PurePosixPath(n.path).parts[0]).stem for n in files}
    # `com.google.gson` in gson's own src/main/java/com/google/gson/: its own code, never a library
    internal_tops |= {top for top in {library_name(graph.nodes[t].symbol, language_of(s)) for s, t in
                                      _import_edges(graph)} if "." in top and any(
        f".{top}." in f".{n.symbol}." for n in files)}
    counts: Counter[str] = Counter()
    for source, target in _import_edges(graph):
        language = language_of(source)
        top = library_name(graph.nodes[target].symbol, language)
        if top and not top.startswith("_") and top not in internal_tops and not _standard(top, language):
            counts[top] += 1
    return [name for name, _ in counts.most_common(MAX_LIBRARIES)]


def _standard(top: str, language: str | None) -> bool:
    """Whether a library an import names is the language's own (Python's stdlib, Go's `fmt`, `java.util`):
    its module in `codelens/languages/` says (`is_standard_import`, else `standard_libraries`)."""
    row = row_named(language or PYTHON)
    if row is None:
        return False
    if row.is_standard_import is not None:
        return row.is_standard_import(top)
    return top in row.standard_libraries


def library_name(imported: str, language: str | None = None) -> str:
    """The library an import names: `sqlalchemy.orm` -> sqlalchemy; `github.com/gin-gonic/gin/render`
    -> github.com/gin-gonic/gin; `@trpc/server/http` -> @trpc/server; `serde::de` -> serde;
    `Psr\\Log\\LoggerInterface` -> Psr; `<stdio.h>` -> stdio.h; in Java, Kotlin and Scala
    `com.google.errorprone.annotations` -> com.google.errorprone."""
    imported = imported.lstrip(".").strip("<>")
    if "/" in imported:
        parts = imported.split("/")
        if "." in parts[0] and len(parts) >= 3:  # a Go module path: host/owner/name
            return "/".join(parts[:3])
        return "/".join(parts[:2]) if imported.startswith("@") else parts[0]
    for separator in ("::", "\\"):
        if separator in imported:
            return imported.split(separator)[0]
    if imported.endswith((".h", ".hpp")):
        return imported
    parts = imported.split(".")
    row = row_named(language) if language else None
    if row is not None and row.reversed_domains and parts[0] in _REVERSED_DOMAINS:  # com.google.errorprone
        return ".".join(parts[:3])
    return parts[0]


_REVERSED_DOMAINS = frozenset({"com", "org", "io", "net", "dev", "me", "edu", "co", "de", "uk"})


def _import_edges(graph: CodeGraph) -> Iterable[tuple[str, str]]:
    for edge in graph.edges:
        if edge.kind == "imports" and graph.nodes[edge.target].is_external and not graph.nodes[edge.source].is_test:
            yield edge.source, edge.target


def code_map_data(graph: CodeGraph, max_chars: int = DEFAULT_MAP_CHARS, other_files: Iterable[str] = ()) -> dict:
    """The map's text plus its data, for `map --json`: every module, its top symbols, scores,
    and the documents and configuration files."""
    scores = symbol_scores(graph)
    modules = sorted(module_infos(graph, scores), key=lambda m: (-m.score, m.node.path))
    other_files = _beside(graph, other_files)
    return {
        "text": code_map(graph, max_chars, other_files),
        "files": other_files,
        "modules": [
            {"path": m.node.path, "score": round(m.score, 2), "summary": m.node.summary,
             "symbols": [{"id": s.node.node_id, "kind": s.node.kind, "symbol": s.node.symbol,
                          "score": round(s.score, 2), "callers": s.callers,
                          "methods": [scores[x].node.symbol for x in s.methods[:8]]} for s in m.symbols[:10]]}
            for m in modules
        ],
        "libraries": _libraries(graph),
    }


def _beside(graph: CodeGraph, other_files: Iterable[str]) -> list[str]:
    """The files beside the code: a script the graph read as code by its `#!` line (`bin/asdf`, no
    extension) is one of its modules, not among them."""
    return sorted(set(other_files) - {n.path for n in graph.nodes.values() if n.kind == FILE})


def repository_part(graph: CodeGraph, files: list[str], index_dir: Path, name: str) -> tuple[CodeGraph, list[str]]:
    """The graph and the other files of one repository of the index (BadInput for an unknown name)."""
    from codelens.index.metadata import read_stats
    from codelens.workspace import Workspace

    stats = read_stats(index_dir)
    workspace = Workspace.from_json(stats.repositories, stats.source)
    workspace.check_names([name])
    label = next(repo.label for repo in workspace.repositories if repo.name == name)
    if not label:
        return graph, files
    return graph.of_repository(label), [path for path in files if path.startswith(f"{label}/")]
