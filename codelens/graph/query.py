"""Questions asked of a loaded `CodeGraph`: who calls this, what does it call, what does it
depend on transitively, which node a name means; graph expansion for retrieval; a Graphviz
drawing of a chunk's neighbourhood. All pure: a graph in, plain data out.

For chunks "calls" means calls edges (a class is "called" where it is instantiated); for
files it means imports edges (importers and imported files).
"""

from __future__ import annotations

import difflib
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from codelens.chunk import Chunk
from codelens.errors import EXIT_BAD_INPUT, CodeLensError
from codelens.graph.model import BY_NAME, FILE, CodeGraph, Edge, Node

MAX_CANDIDATES = 12


class UnknownSymbol(CodeLensError):
    """A name that matches no node, or several (the message lists them)."""

    exit_code = EXIT_BAD_INPUT


@dataclass(frozen=True)
class Neighbour:
    """A caller or callee, with where and how often the call happens."""

    node: Node
    line: int  # the first call site's line (in the caller's file)
    count: int
    via: str  # "" a call, "reference" passed as an argument (Depends(f), partial(f)), "name" uncertain (by name only)
    other_repo: str = ""  # in a workspace: the neighbour's repository when it is not the asked node's

    def to_dict(self) -> dict:
        return {**node_dict(self.node), "line": self.line, "count": self.count, "via": self.via,
                "other_repo": self.other_repo}


@dataclass(frozen=True)
class CallNeighbours:
    callers: tuple[str, ...]  # chunk ids (file paths for a file)
    callees: tuple[str, ...]


@dataclass(frozen=True)
class DependencyStep:
    node_id: str
    depth: int  # 1 = direct
    parent: str  # the node it was reached from


def node_dict(node: Node) -> dict:
    return {"id": node.node_id, "kind": node.kind, "path": node.path, "symbol": node.symbol,
            "start_line": node.start_line, "end_line": node.end_line, "is_test": node.is_test}


def use_kinds(node: Node | None) -> tuple[str, ...]:
    return ("imports",) if node is not None and node.kind == FILE else ("calls",)


# ------------------------------------------------------------ callers / callees


def callers(graph: CodeGraph, node_id: str, *, include_tests: bool = True) -> list[Neighbour]:
    """Who calls node_id (who imports it, for a file), in file and line order."""
    edges = graph.in_edges(node_id, use_kinds(graph.nodes.get(node_id)))
    found = [_neighbour(graph, e.source, e) for e in edges]
    return _ordered([n for n in found if include_tests or not n.node.is_test])


def callees(graph: CodeGraph, node_id: str, *, include_external: bool = True) -> list[Neighbour]:
    """What node_id calls (imports, for a file), in call order; externals last."""
    edges = graph.out_edges(node_id, use_kinds(graph.nodes.get(node_id)))
    found = [_neighbour(graph, e.target, e) for e in edges]
    internal = sorted((n for n in found if not n.node.is_external), key=lambda n: (n.line, n.node.node_id))
    external = sorted((n for n in found if n.node.is_external), key=lambda n: (n.line, n.node.node_id))
    return internal + (external if include_external else [])


def call_neighbours(graph: CodeGraph, chunk_id: str, *, include_tests: bool = False) -> CallNeighbours:
    """A chunk's direct callers and callees inside the codebase, as ids: for "called by" /
    "calls" lists and for retrieval."""
    return CallNeighbours(
        callers=tuple(n.node.node_id for n in callers(graph, chunk_id, include_tests=include_tests)),
        callees=tuple(n.node.node_id for n in callees(graph, chunk_id, include_external=False)
                      if include_tests or not n.node.is_test),
    )


def neighbour_lookup(graph: CodeGraph) -> Callable[[str], tuple[tuple[str, ...], tuple[str, ...]]]:
    """`chunk_id -> (callers, callees)` over a loaded graph: what answer packing asks for."""
    def lookup(chunk_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        found = call_neighbours(graph, chunk_id)
        return found.callers, found.callees

    return lookup


def node_heading(graph: CodeGraph, node_id: str) -> str:
    """`path::symbol  [kind]  path:start-end`: a node as a listing's heading line."""
    node = graph.nodes[node_id]
    where = f"  {node.path}:{node.start_line}-{node.end_line}" if node.is_chunk else ""
    return f"{node_id}  [{node.kind}]{where}"


def neighbour_detail(neighbour: Neighbour) -> str:
    """`  (line 12, x2, via reference, test)`: where and how a neighbour is linked; "" when nothing to say."""
    parts = [f"line {neighbour.line}"] if neighbour.line else []
    if neighbour.count > 1:
        parts.append(f"x{neighbour.count}")
    if neighbour.via == BY_NAME:
        parts.append("uncertain: matched by name only")
    elif neighbour.via:
        parts.append(f"via {neighbour.via}")
    if neighbour.node.is_test:
        parts.append("test")
    if neighbour.other_repo:
        parts.append(f"in repository {neighbour.other_repo}")
    return f"  ({', '.join(parts)})" if parts else ""


def _neighbour(graph: CodeGraph, node_id: str, edge: Edge) -> Neighbour:
    origin = edge.source if node_id == edge.target else edge.target
    mine, theirs = graph.repository_of(origin), graph.repository_of(node_id)
    return Neighbour(graph.nodes[node_id], edge.line, edge.count, edge.via,
                     other_repo=theirs if graph.repository_labels and theirs != mine else "")


def _ordered(neighbours: Iterable[Neighbour]) -> list[Neighbour]:
    return sorted(neighbours, key=lambda n: (n.node.is_test, n.node.path, n.node.start_line, n.node.node_id))


# ------------------------------------------------------------ transitive deps


def dependencies(graph: CodeGraph, node_id: str, depth: int, *, upstream: bool,
                 include_tests: bool = True, include_external: bool = False) -> list[DependencyStep]:
    """Breadth-first up to depth: what node_id depends on (downstream: calls, base classes;
    imports for a file) or what depends on it (upstream). Each node appears once, at its
    shortest distance; externals are leaves."""
    node = graph.nodes.get(node_id)
    kinds = ("imports",) if node is not None and node.kind == FILE else ("calls", "inherits")
    steps: list[DependencyStep] = []
    seen = {node_id}
    queue: deque[tuple[str, int]] = deque([(node_id, 0)])
    while queue:
        current, distance = queue.popleft()
        if distance >= depth:
            continue
        edges = graph.in_edges(current, kinds) if upstream else graph.out_edges(current, kinds)
        for edge in sorted(edges, key=lambda e: (e.line, e.source, e.target)):
            other = edge.source if upstream else edge.target
            found = graph.nodes[other]
            if other in seen or (found.is_test and not include_tests) or (found.is_external and not include_external):
                continue
            seen.add(other)
            steps.append(DependencyStep(other, distance + 1, current))
            if not found.is_external:
                queue.append((other, distance + 1))
    return steps


# ------------------------------------------------------------ names


def find_nodes(graph: CodeGraph, query: str) -> list[str]:
    """Node ids a name may mean, best tier only: the exact id; then an exact qualified name,
    file path or dotted name (`gymhero.security.verify_password`); then a name ending the
    qualified name (`authenticate_user`) or the id (`user.py::UserCRUDRepository`);
    then external names."""
    query = query.strip()
    if query in graph.nodes:
        return [query]
    internal = [n for n in graph.nodes.values() if not n.is_external]
    tiers: list[Callable[[Node], bool]] = [
        lambda n: n.symbol == query or n.path == query or _dotted(graph, n) == query,
        lambda n: n.is_chunk and (n.symbol.endswith("." + query) or n.node_id.endswith("/" + query)
                                  or _dotted(graph, n).endswith("." + query)),
    ]
    for matches in tiers:
        found = sorted(n.node_id for n in internal if matches(n))
        if found:
            return found
    external = [n for n in graph.nodes.values() if n.is_external]
    return sorted(n.node_id for n in external if n.symbol == query or n.symbol.endswith("." + query))


def resolve_node(graph: CodeGraph, query: str) -> str:
    """The one node a name means. Several candidates: the only non-test one wins; otherwise
    UnknownSymbol lists them. None: UnknownSymbol with close names."""
    found = find_nodes(graph, query)
    if len(found) > 1:
        production = [node_id for node_id in found if not graph.nodes[node_id].is_test]
        found = production if len(production) == 1 else found
    if len(found) == 1:
        return found[0]
    if found:
        listed = "\n  ".join(found[:MAX_CANDIDATES])
        more = f"\n  ... and {len(found) - MAX_CANDIDATES} more" if len(found) > MAX_CANDIDATES else ""
        raise UnknownSymbol(f"{query!r} is ambiguous - use one of these ids:\n  {listed}{more}")
    names = sorted({n.symbol for n in graph.nodes.values() if n.is_chunk})
    close = difflib.get_close_matches(query, names, n=5, cutoff=0.6)
    hint = f" - did you mean: {', '.join(close)}?" if close else " - try: python -m codelens map"
    raise UnknownSymbol(f"no function, class or file named {query!r} in the code graph{hint}")


# What a chunk of another file is, in a sentence (chunk.FILE_KINDS; ingest/formats.py).
_PIECE_OF = {"doc": "a section of the document", "config": "a piece of the configuration file",
             "text": "a piece of the file"}


def no_call_graph(query: str, chunks: Mapping[str, Chunk]) -> str | None:
    """Why a name the code graph does not know has no callers or callees, when it is the id of
    a document, configuration or text chunk, or the path of such a file (the graph holds code
    only); None when it is neither (the usual "no function, class or file named" then)."""
    query = query.strip().removeprefix("./")
    chunk = chunks.get(query)
    if chunk is not None and not chunk.is_code:
        return (f"{query!r} is {_PIECE_OF.get(chunk.kind, 'a piece of the file')} {chunk.path} (kind {chunk.kind}), "
                "not code: it has no call graph - callers, callees and deps take a function, class, "
                "method or code file")
    in_file = [c for c in chunks.values() if c.path == query]
    if in_file and not any(c.is_code for c in in_file):
        return (f"{query} is not a Python file or code in another language (its chunks are of kind "
                f"{in_file[0].kind}): it has no call graph - callers, callees and deps take a function, class, "
                "method or code file")
    return None


def _dotted(graph: CodeGraph, node: Node) -> str:
    """`gymhero.security.verify_password`: the file's importable name, then the symbol."""
    if node.kind == FILE or not node.path:
        return node.symbol
    module = graph.nodes.get(node.path)
    return f"{module.symbol}.{node.symbol}" if module is not None else node.symbol


# ------------------------------------------------------------ drawing


_STYLE = {
    "center": 'fillcolor="#ffd966", penwidth=2',
    "external": 'shape=ellipse, fillcolor="#eeeeee", fontcolor="#555555"',
    "test": 'fillcolor="#e2f0d9"',
    "default": 'fillcolor="#ffffff"',
}
_EDGE_STYLE = {"calls": "", "reference": 'style=dashed, label="ref"', "inherits": 'style=dashed, arrowhead=empty',
               "contains": 'color="#aaaaaa", arrowhead=none', BY_NAME: 'style=dotted, label="by name?"'}


def neighbourhood_nodes(graph: CodeGraph, chunk_id: str, depth: int = 1, *, max_nodes: int = 30,
                        include_external: bool = False, include_tests: bool = False) -> list[str]:
    """chunk_id and what it calls or is called by, up to depth steps, nearest first."""
    steps = [
        step
        for upstream in (False, True)
        for step in dependencies(graph, chunk_id, depth, upstream=upstream, include_tests=include_tests,
                                 include_external=include_external)
    ]
    picked = [chunk_id]
    for step in sorted(steps, key=lambda s: s.depth):  # stable: callees before callers at each depth
        if step.node_id not in picked:
            picked.append(step.node_id)
    return picked[:max_nodes]


def neighbourhood_dot(graph: CodeGraph, chunk_id: str, depth: int = 1, *, max_nodes: int = 30,
                      include_external: bool = False, include_tests: bool = False) -> str:
    """Graphviz DOT of a chunk's call neighbourhood, for `st.graphviz_chart`: the chunk
    highlighted, callers on its left, callees on its right, inheritance dashed."""
    picked = neighbourhood_nodes(graph, chunk_id, depth, max_nodes=max_nodes,
                                 include_external=include_external, include_tests=include_tests)
    chosen = set(picked)
    lines = [
        "digraph neighbourhood {",
        '  rankdir=LR; bgcolor="transparent";',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=8, color="#555555"];',
    ]
    for node_id in picked:
        node = graph.nodes.get(node_id)
        if node is not None:
            lines.append(f"  {_quote(node_id)} [label={_quote(_dot_label(node))}, {_STYLE[_role(node, chunk_id)]}];")
    for edge in graph.edges:
        if edge.source in chosen and edge.target in chosen and edge.kind in ("calls", "inherits"):
            style = _EDGE_STYLE[edge.via if edge.via in ("reference", BY_NAME) else edge.kind]
            lines.append(f"  {_quote(edge.source)} -> {_quote(edge.target)}{f' [{style}]' if style else ''};")
    lines.append("}")
    return "\n".join(lines)


def _role(node: Node, center: str) -> str:
    if node.node_id == center:
        return "center"
    if node.is_external:
        return "external"
    return "test" if node.is_test else "default"


def _dot_label(node: Node) -> str:
    if node.is_external or node.kind == FILE:
        return node.label
    return f"{node.symbol}\n{node.path}:{node.start_line}"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
