"""The code graph: files and chunks as nodes; who contains, calls, inherits from, imports
and decorates whom as edges. Extracted from `ast` at index time; pure (texts in, records out).

`build_graph(chunks, sources)` works in two passes per file. The first
(`codelens.graph.scopes`) records every scope's bindings (defs, imports, assignments,
annotated parameters, `self.x = ...`) without evaluating anything; the second
(`codelens.graph.python_edges`) walks the code and evaluates each call's target
(`codelens.graph.resolve`) lazily through those bindings, across modules: `from x import y as z`, relative imports,
re-exports in `__init__.py`, `self`/`cls`, `super()`, inherited methods, module-level
instances (`user_crud = UserCRUDRepository(...)`), local inference (`x = Foo(); x.bar()`),
parameter and return annotations. A call that cannot be resolved inside the codebase is
kept as a named external target (`ext:sqlalchemy.orm.Session.query`, `ext:builtins.len`),
never dropped. A function passed as an argument (`Depends(get_token)`, `partial(f)`)
counts as called by the function that passes it (`via="reference"`): that is how
dependency-injection code calls. A method reached through a built name (`getattr(self, "_print_" +
name)`, a `visit_X` family) is called by its dispatcher (`via="dispatch"`, `codelens.graph.dispatch`).
Files `ast` cannot parse keep their nodes and contains
edges (taken from the chunks) but get no other edges.

Every other language with a graph rule (`codelens.languages.GRAPH_RULES`: TypeScript, Go, Java,
Rust, C++...) gets its calls, inherits and imports edges from its syntax tree
(`codelens.graph.syntax_edges`): resolved within the file, through its imports, then by a unique
name (`via="name"`: uncertain).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from codelens.chunk import Chunk
from codelens.graph.bindings import Project
from codelens.graph.dispatch import DISPATCH, dispatch_edges
from codelens.graph.python_edges import EXTERNAL_PREFIX, EdgeExtractor
from codelens.graph.python_modules import ModuleIndex, module_name
from codelens.graph.resolve import Resolver
from codelens.graph.scopes import EdgeSink, ScopeBuilder, parse_python
from codelens.graph.syntax_edges import BY_NAME, add_syntax_edges, code_languages
from codelens.ingest.chunker import is_test_path
from codelens.languages import PYTHON, graph_rule

__all__ = ["BY_NAME", "DISPATCH", "EDGE_KINDS", "EXTERNAL", "EXTERNAL_PREFIX", "FILE", "CodeGraph", "Edge", "Node",
           "build_graph", "contains_edges", "definition_ids", "external_node", "first_line", "module_name",
           "parse_python"]

EDGE_KINDS = ("contains", "calls", "inherits", "imports", "decorates")
FILE = "file"
EXTERNAL = "external"
SUMMARY_CHARS = 120


# ------------------------------------------------------------------- records


@dataclass(frozen=True)
class Node:
    """A file (`gymhero/security.py`), a chunk (its chunk id) or an external name (`ext:...`)."""

    node_id: str
    kind: str  # "file", "external", or the chunk kind: function, method, class, module
    path: str  # "" for externals
    symbol: str  # chunk: qualified name; file: dotted module; external: dotted name
    start_line: int = 0
    end_line: int = 0
    is_test: bool = False
    summary: str = ""  # the docstring's first line

    @property
    def is_external(self) -> bool:
        return self.kind == EXTERNAL

    @property
    def is_chunk(self) -> bool:
        return self.kind not in (FILE, EXTERNAL)

    @property
    def label(self) -> str:
        """What a person reads: the qualified name, the file path, or the external name."""
        return self.path if self.kind == FILE else self.symbol


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str  # one of EDGE_KINDS
    line: int = 0  # first line where it happens (0 for contains)
    count: int = 1  # how many places
    # "" a call (or an edge resolved through the code), "reference" a function passed as an argument,
    # "name" (BY_NAME) resolved by a unique name only: uncertain (languages other than Python),
    # "dispatch" (DISPATCH) a method reached through a built name (`getattr(self, "_print_" + name)`)
    via: str = ""


@dataclass(frozen=True)
class CodeGraph:
    """Nodes and edges with both adjacency directions; build with `from_parts`."""

    nodes: Mapping[str, Node]
    edges: tuple[Edge, ...]
    outgoing: Mapping[str, tuple[Edge, ...]] = field(repr=False)
    incoming: Mapping[str, tuple[Edge, ...]] = field(repr=False)
    # A workspace's repositories (their path labels): an edge between two of them is marked
    repository_labels: tuple[str, ...] = ()

    @classmethod
    def from_parts(cls, nodes: Iterable[Node], edges: Iterable[Edge],
                   repository_labels: Iterable[str] = ()) -> CodeGraph:
        node_map = {node.node_id: node for node in nodes}
        edge_list = tuple(sorted(edges, key=lambda e: (e.source, e.kind, e.line, e.target)))
        outgoing: dict[str, list[Edge]] = defaultdict(list)
        incoming: dict[str, list[Edge]] = defaultdict(list)
        for edge in edge_list:
            outgoing[edge.source].append(edge)
            incoming[edge.target].append(edge)
            for end in (edge.source, edge.target):
                if end not in node_map and end.startswith(EXTERNAL_PREFIX):
                    node_map[end] = external_node(end)
        return cls(node_map, edge_list, {k: tuple(v) for k, v in outgoing.items()},
                   {k: tuple(v) for k, v in incoming.items()}, tuple(repository_labels))

    def repository_of(self, node_id: str) -> str:
        """The repository label of a node's file in a workspace ("" with one repository)."""
        node = self.nodes.get(node_id)
        head = (node.path if node is not None else node_id).split("/", 1)[0]
        return head if head in self.repository_labels else ""

    def out_edges(self, node_id: str, kinds: Iterable[str] = ()) -> tuple[Edge, ...]:
        wanted = set(kinds)
        return tuple(e for e in self.outgoing.get(node_id, ()) if not wanted or e.kind in wanted)

    def in_edges(self, node_id: str, kinds: Iterable[str] = ()) -> tuple[Edge, ...]:
        wanted = set(kinds)
        return tuple(e for e in self.incoming.get(node_id, ()) if not wanted or e.kind in wanted)

    def edges_via(self, via: str) -> tuple[Edge, ...]:
        """The edges made one way (`DISPATCH`: the methods reached through a built name)."""
        return tuple(e for e in self.edges if e.via == via)

    def of_repository(self, label: str) -> CodeGraph:
        """The part of a workspace's graph inside one repository, with its edges to libraries (those
        into the other repositories are left out): what `map --repo` maps."""
        if not label:
            return self
        inside = {node_id: node for node_id, node in self.nodes.items()
                  if node.path == label or node.path.startswith(f"{label}/")}
        edges = [e for e in self.edges
                 if e.source in inside and (e.target in inside or e.target.startswith(EXTERNAL_PREFIX))]
        return CodeGraph.from_parts(inside.values(), edges, (label,))

    def count_edges(self) -> dict[str, int]:
        counts = dict.fromkeys(EDGE_KINDS, 0)
        for edge in self.edges:
            counts[edge.kind] = counts.get(edge.kind, 0) + 1
        return counts


def external_node(node_id: str) -> Node:
    return Node(node_id=node_id, kind=EXTERNAL, path="", symbol=node_id[len(EXTERNAL_PREFIX):])


# ---------------------------------------------------------------- build


def build_graph(chunks: Sequence[Chunk], sources: Mapping[str, str],
                repository_labels: Sequence[str] = ()) -> CodeGraph:
    """The whole graph from the chunker's chunks and every file's text (rel_path -> text).
    Code only: the pieces and texts of documents and configuration files are left out.
    `repository_labels`: a workspace's repositories (each resolves its own imports first)."""
    chunks = [c for c in chunks if c.is_code]
    # code by its name, and a script by its `#!` line (`bin/manage`: Python)
    languages = code_languages(sources)
    other_code = {path: sources[path] for path, language in languages.items() if graph_rule(language) is not None}
    sources = {path: text for path, text in sources.items() if languages.get(path) == PYTHON}
    trees = {path: tree for path in sorted(sources) if (tree := parse_python(sources[path])) is not None}
    sink = EdgeSink()
    for edge in contains_edges(chunks):
        sink.add(edge.source, edge.target, edge.kind, 0)
    project = Project(index=ModuleIndex(sources, repository_labels), chunk_ids=frozenset(c.chunk_id for c in chunks))
    module_owner = {c.path: c.chunk_id for c in chunks if c.kind == "module"}
    for path, tree in trees.items():
        try:
            project.modules[path] = ScopeBuilder(project, path, module_owner.get(path, path)).build(tree)
        except RecursionError:  # absurdly deep code: its nodes stay, its edges are skipped
            continue
    resolver = Resolver(project)
    for path, scope in project.modules.items():
        try:
            EdgeExtractor(project, resolver, sink).extract(trees[path], scope)
        except RecursionError:
            continue
    inherits = [(row[0], row[1]) for row in sink.rows() if row[2] == "inherits"]
    owner_of = {key: scope.chunk_id for key, scope in project.def_scopes.items() if scope.chunk_id}
    for source, target, line in dispatch_edges(chunks, trees, sources, owner_of, inherits):
        sink.add(source, target, "calls", line, via=DISPATCH)
    add_syntax_edges(chunks, {**sources, **other_code}, languages, sink, repository_labels)
    nodes = _nodes(chunks, {**sources, **other_code}, trees, project.index)
    return CodeGraph.from_parts(nodes, [Edge(*row) for row in sink.rows()], repository_labels)


def definition_ids(path: str, text: str) -> list[str]:
    """The chunk ids the graph gives one file's defs, in source order: they must be the
    chunker's ids, or edges would hang off the wrong nodes (the tests hold them equal)."""
    tree = parse_python(text)
    if tree is None:
        return []
    project = Project(index=ModuleIndex([path]), chunk_ids=None)
    ScopeBuilder(project, path, path).build(tree)
    return [scope.chunk_id for scope in project.def_scopes.values() if scope.chunk_id]


def _nodes(chunks: Sequence[Chunk], sources: Mapping[str, str], trees: Mapping[str, ast.Module],
           index: ModuleIndex) -> list[Node]:
    module_docs = {c.path: c.docstring for c in chunks if c.kind == "module"}
    paths = sorted(set(sources) | {c.path for c in chunks})
    nodes = []
    for path in paths:
        tree = trees.get(path)
        doc = (ast.get_docstring(tree) if tree is not None else None) or module_docs.get(path, "")
        symbol = index.importable_name(path) if path.endswith(".py") else _dotted_path(path)
        nodes.append(Node(node_id=path, kind=FILE, path=path, symbol=symbol,
                          is_test=is_test_path(path), summary=first_line(doc)))
    nodes.extend(
        Node(node_id=c.chunk_id, kind=c.kind, path=c.path, symbol=c.symbol, start_line=c.start_line,
             end_line=c.end_line, is_test=c.is_test, summary=first_line(c.docstring))
        for c in chunks
    )
    return nodes


def _dotted_path(path: str) -> str:
    """A file of another language as a dotted name: `web/src/api/client.ts` -> `web.src.api.client`."""
    return str(PurePosixPath(path).with_suffix("")).replace("/", ".")


def first_line(text: str) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:SUMMARY_CHARS]
    return ""


def contains_edges(chunks: Sequence[Chunk]) -> list[Edge]:
    """file -> top-level chunks and its <module> block, class -> methods, def -> nested defs.

    Taken from line spans, so files parsed by tree-sitter get them too."""
    edges: list[Edge] = []
    by_path: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        if chunk.kind == "module":
            edges.append(Edge(chunk.path, chunk.chunk_id, "contains"))
        else:
            by_path[chunk.path].append(chunk)
    for path, members in by_path.items():
        stack: list[Chunk] = []
        for chunk in sorted(members, key=lambda c: (c.start_line, -c.end_line)):
            while stack and not (stack[-1].start_line <= chunk.start_line and chunk.end_line <= stack[-1].end_line):
                stack.pop()
            edges.append(Edge(stack[-1].chunk_id if stack else path, chunk.chunk_id, "contains"))
            stack.append(chunk)
    return edges
