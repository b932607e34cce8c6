"""What the MCP server's tools do, without MCP: plain calls on one index kept open, each
returning the text an agent reads plus the same facts as data. mcp/server.py only wires
these to the protocol; errors are CodeLensErrors with the fix in the message.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codelens.answer.ask import answer_question
from codelens.answer.context import ChunkCatalog, Neighbours
from codelens.answer.impact import DEFAULT_DEPTH, git_diff, impact_of, repository_label, repository_root
from codelens.answer.impact import to_text as impact_text
from codelens.answer.llm import ChatModel
from codelens.answer.task_context import DEFAULT_BUDGET, to_markdown
from codelens.chunk import KINDS, Chunk, span_segments
from codelens.errors import BadInput, CodeLensError, SourceError
from codelens.graph.codemap import code_map_data
from codelens.graph.model import CodeGraph
from codelens.graph.query import (
    Neighbour,
    UnknownSymbol,
    call_neighbours,
    callees,
    callers,
    dependencies,
    neighbour_detail,
    neighbour_lookup,
    no_call_graph,
    node_dict,
    node_heading,
    resolve_node,
    use_kinds,
)
from codelens.graph.store import GraphNotFound, load_graph
from codelens.index.fresh import freshness_text, repository_status
from codelens.index.freshness import NOTES, FileCheck, source_folder
from codelens.index.manifest import files_beside_code
from codelens.locations import IndexNotFound
from codelens.open_index import OpenIndex
from codelens.search.filters import SearchFilters, chunk_language, language_counts, language_filter, language_summary
from codelens.search.limits import k_problem
from codelens.search.matched import relevance_text
from codelens.search.searcher import Hit, Searcher
from codelens.settings import Settings

MAX_ASK_K = 20
HIT_LINES = 60  # code lines shown per search hit; get_chunk shows the rest
CHUNK_LINES = 800  # get_chunk's cap: a generated module may be thousands of lines


@dataclass(frozen=True)
class ToolOutput:
    """One tool answer: `text` for the model to read, `data` for clients that parse."""

    text: str
    data: dict = field(default_factory=dict)


class NoIndexYet(CodeLensError):
    """IndexNotFound, with the exact command for this server's --db (and collection)."""

    def __init__(self, settings: Settings) -> None:
        where = f"--db {settings.db_path}" + (f" --collection {settings.collection}" if settings.collection else "")
        super().__init__(f"no index in {settings.index_dir} - run: python index.py {where} "
                         "(add --source PATH to index your own code), then call this tool again")


class ServedIndex:
    """The open index a long-running server answers from (`OpenIndex`: searcher, graph, chunk
    catalog): opened on first use, opened again once a missing index appears, reopened when an
    index run swaps in a new one."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._open: OpenIndex | None = None
        self._check: FileCheck | None = None

    def file_state(self, path: str, indexed_hash: str = "") -> str:
        """Whether `path` on disk is still what was indexed (index/freshness.py)."""
        searcher = self.searcher
        root = source_folder(searcher.stats.source)
        if self._check is None or self._check.root != root:
            self._check = FileCheck(root)
        return self._check.state(path, indexed_hash or searcher.file_hashes.get(path, ""))

    def current(self) -> OpenIndex:
        try:
            if self._open is None:
                self._open = OpenIndex(self.settings)
            else:
                self._open.refresh()
        except IndexNotFound:
            raise NoIndexYet(self.settings) from None
        return self._open

    @property
    def searcher(self) -> Searcher:
        return self.current().searcher

    def graph(self) -> CodeGraph:
        """load_graph caches on the file's identity, so this is free until a re-index swaps it."""
        try:
            return load_graph(self.settings.index_dir)
        except IndexNotFound:
            raise NoIndexYet(self.settings) from None

    def catalog(self) -> ChunkCatalog:
        return self.current().catalog

    def warm_up(self) -> None:
        """Load the index, e5, MiniLM and the word bridge now, so the first call is a warm one."""
        self.current().warm_up()


class CodeLensTools:
    """The tools, as plain calls on a ServedIndex."""

    def __init__(self, index: ServedIndex) -> None:
        self.index = index

    # ------------------------------------------------------------ search and code

    def search(self, query: str, k: int = 5, kinds: Sequence[str] = (), path: str = "",
               include_tests: bool = False, repos: Sequence[str] = (), languages: Sequence[str] = ()) -> ToolOutput:
        query = _question(query)
        if k_problem(k):
            raise BadInput(k_problem(k))
        unknown = sorted(set(kinds) - set(KINDS))
        if unknown:
            raise BadInput(f"unknown kind {', '.join(unknown)} - use any of {', '.join(KINDS)}")
        searcher = self.index.searcher
        path = path.strip().removeprefix("./")
        filters = SearchFilters(kinds=tuple(kinds), path_prefix=path, include_tests=include_tests,
                                repos=tuple(repos), languages=language_filter(languages))
        hits = searcher.search(query, k=k, filters=filters)
        states = [self.index.file_state(hit.chunk.path, hit.file_hash) for hit in hits]
        data = {"query": query, "hits": [{**_hit_data(hit), "file_state": state} for hit, state in zip(hits, states,
                                                                                                     strict=True)]}
        if not hits:
            return ToolOutput(f"no results for {query!r} - try other words, or drop the kind, language and path "
                              "filters (include_tests searches test code too)", data)
        blocks = [f"{len(hits)} hits for {query!r}:"]
        blocks.extend(_hit_text(hit) + _stale_note(state) for hit, state in zip(hits, states, strict=True))
        return ToolOutput("\n\n".join(blocks), data)

    def get_chunk(self, chunk_id: str) -> ToolOutput:
        chunk_id, chunks = chunk_id.strip(), self.index.searcher.chunks
        chunk = chunks.get(chunk_id)
        if chunk is None:
            raise BadInput(_unknown_chunk_message(chunk_id, chunks))
        code, cut = numbered_code(chunk, CHUNK_LINES)
        state = self.index.file_state(chunk.path)
        data = {**_chunk_data(chunk), "code": chunk.code, "docstring": chunk.docstring, "file_state": state}
        fence = chunk.language or ""
        lines = [f"{chunk.chunk_id}  [{chunk.kind}]  {chunk.path}:{chunk.start_line}-{chunk.end_line}",
                 *([f"({NOTES[state]})"] if state in NOTES else []), f"```{fence}\n{code}\n```"]
        if cut:
            lines.append(f"({cut} more lines not shown)")
        try:
            neighbours = call_neighbours(self.index.graph(), chunk.chunk_id)
        except GraphNotFound:
            neighbours = None
        if neighbours is not None:
            data.update(callers=list(neighbours.callers), callees=list(neighbours.callees))
            for title, ids in (("called by", neighbours.callers), ("calls", neighbours.callees)):
                if ids:
                    lines.append(f"{title}: {', '.join(ids)}")
        return ToolOutput("\n".join(lines), data)

    # ------------------------------------------------------------ code graph

    def callers(self, target: str, include_tests: bool = False) -> ToolOutput:
        graph, node_id = self._resolve(target)
        found = callers(graph, node_id, include_tests=include_tests)
        return _neighbours_output(graph, node_id, found, "callers")

    def callees(self, target: str, include_tests: bool = False) -> ToolOutput:
        graph, node_id = self._resolve(target)
        found = [n for n in callees(graph, node_id) if include_tests or not n.node.is_test]
        return _neighbours_output(graph, node_id, found, "callees")

    def deps(self, target: str, depth: int = 2, include_tests: bool = False,
             include_external: bool = False) -> ToolOutput:
        graph, node_id = self._resolve(target)
        options = {"include_tests": include_tests, "include_external": include_external}
        data: dict = {"node": node_dict(graph.nodes[node_id]), "depth": depth}
        lines = [node_heading(graph, node_id)]
        for name, title, upstream in (("upstream", "what depends on it", True),
                                      ("downstream", "what it depends on", False)):
            steps = dependencies(graph, node_id, depth, upstream=upstream, **options)
            data[name] = [{**node_dict(graph.nodes[s.node_id]), "depth": s.depth, "from": s.parent} for s in steps]
            lines.append(f"{name} ({title}), depth {depth}: {len(steps) or 'nothing'}")
            lines.extend(f"{'  ' * s.depth}{'<-' if upstream else '->'} {s.node_id}" for s in steps)
        return ToolOutput("\n".join(lines), data)

    def code_map(self, chars: int, repo: str = "") -> ToolOutput:
        from codelens.graph.codemap import repository_part

        graph, files = self.index.graph(), files_beside_code(self.index.settings.index_dir)
        if repo:
            graph, files = repository_part(graph, files, self.index.settings.index_dir, repo)
        data = code_map_data(graph, chars, files)
        return ToolOutput(data["text"], data)

    def _resolve(self, target: str) -> tuple[CodeGraph, str]:
        if not target.strip():
            raise BadInput("empty target - pass a chunk id from search, a name like verify_password, or a file path")
        graph = self.index.graph()
        try:
            return graph, resolve_node(graph, target)
        except UnknownSymbol as exc:
            # A hit of a document or configuration file is a chunk id the graph never held: say so.
            why = no_call_graph(target, self.index.catalog().chunks)
            if why is not None:
                raise UnknownSymbol(f"{why} (get_chunk reads it)") from None
            raise UnknownSymbol(str(exc).replace("python -m codelens map", "the code_map or search tool")) from None

    # ------------------------------------------------------------ the index itself

    def index_status(self, ask_enabled: bool, reindex_allowed: bool) -> ToolOutput:
        from dataclasses import asdict

        from codelens.index.watch import read_watch_status

        searcher = self.index.searcher
        stats, db_path = searcher.stats, self.index.settings.index_dir
        data = {"db": str(db_path), "source": stats.source, "files": stats.files,
                "total_chunks": stats.total_chunks, "chunks_per_kind": stats.chunks_per_kind,
                "model": stats.model, "indexed_at": stats.indexed_at, "duration_s": stats.duration_s,
                "warnings": len(stats.warnings), "dense": searcher.vector_counts(),
                "ask_enabled": ask_enabled, "reindex_allowed": reindex_allowed,
                "damaged": list(searcher.damaged), "repositories": repository_status(db_path, stats),
                "languages": language_counts(searcher.chunks.values())}
        watch = read_watch_status(db_path)
        data["watch"] = asdict(watch) if watch else None
        data["watch_line"] = watch.line() if watch else "watch: off (this index is not being followed)"
        try:
            graph = self.index.graph()
            data["graph"] = {"nodes": len(graph.nodes), "edges": graph.count_edges()}
        except GraphNotFound:
            data["graph"] = None
        return ToolOutput(_status_text(data), data)

    # ------------------------------------------------------------ task context, change impact

    def context(self, task: str, budget: int = DEFAULT_BUDGET, path: str = "", include_tests: bool = False,
                repos: Sequence[str] = ()) -> ToolOutput:
        """The code a task needs, packed to `budget` tokens (answer/task_context.py)."""
        index = self.index.current()
        filters = SearchFilters(path_prefix=path.strip().removeprefix("./"), include_tests=include_tests,
                                repos=index.workspace.check_names(repos) if repos else ())
        packed = index.context(task, budget, filters)
        return ToolOutput(to_markdown(packed, task), packed.to_dict())

    def impact(self, diff: str = "", revision: str = "", staged: bool = False, depth: int = DEFAULT_DEPTH,
               repo: str = "") -> ToolOutput:
        """What a change touches (answer/impact.py): a unified diff given, or git's diff of the indexed
        repository (the working tree against HEAD, `revision`, `A..B`, or the staged change)."""
        if diff.strip() and (revision or staged):
            raise BadInput("give the change either as a diff or as a revision / staged, not both")
        index = self.index.current()
        prefix = repository_label(index.workspace, repo or None)
        if not diff.strip():
            diff = git_diff(repository_root(index.stats.source, index.workspace, prefix), revision or None, staged)
        found = impact_of(diff, index.catalog, index.graph, index.links, depth, prefix)
        return ToolOutput(impact_text(found), found.to_dict())

    # ------------------------------------------------------------ answers in words, re-indexing

    def ask_material(self, question: str, k: int) -> AskMaterial:
        """What an answer is written from: the hits, every chunk (to check citations), graph neighbours."""
        question = _question(question)
        if not 1 <= k <= MAX_ASK_K:
            raise BadInput(f"k={k} is out of range - answer from 1 to {MAX_ASK_K} hits")
        hits = self.index.searcher.search(question, k=k)
        try:
            neighbours = neighbour_lookup(self.index.graph())
        except GraphNotFound:  # an index built before graphs existed: hits only
            neighbours = None
        return AskMaterial(question, tuple(hits), self.index.catalog(), neighbours)

    def reindex(self, full: bool = False) -> ToolOutput:
        """Re-index the source recorded in the index's metadata, never a path a client names."""
        from codelens.index.build import build_index

        searcher = self.index.searcher  # no index: no recorded source, NoIndexYet says what to run
        source = Path(searcher.stats.source)
        if not source.exists():
            raise SourceError(f"this index was built from {source}, which is not there any more - re-index "
                              f"from a shell: python index.py --db {self.index.settings.db_path} --source PATH")
        settings = self.index.settings.with_overrides(show_progress=False)
        stats = build_index(source, settings, embedder=searcher.embedder, full=full)
        self.index.searcher.refresh()
        run = stats.run or {}
        text = (f"re-indexed {source}: {stats.total_chunks} chunks from {stats.files} files in "
                f"{stats.duration_s:.1f} s ({run.get('mode', 'unchanged')}: embedded {run.get('embedded', 0)}, "
                f"updated {run.get('upserted', 0)}, deleted {run.get('deleted', 0)}, "
                f"unchanged {run.get('unchanged', 0)})")
        return ToolOutput(text, {"source": str(source), "total_chunks": stats.total_chunks, "files": stats.files,
                                 "duration_s": stats.duration_s, "run": run})


@dataclass(frozen=True)
class AskMaterial:
    question: str
    hits: tuple[Hit, ...]
    catalog: ChunkCatalog
    neighbours: Neighbours | None


def write_answer(material: AskMaterial, client: ChatModel, budget_tokens: int) -> ToolOutput:
    """The LLM half of ask: network-bound, so the server runs it off the thread that owns the models."""
    answer = answer_question(material.question, material.hits, client, material.catalog,
                             neighbours=material.neighbours, budget_tokens=budget_tokens)
    lines = [answer.text]
    if answer.citations:
        lines.append("\nCitations:")
        lines.extend(f"  {c.ref}  " + (f"-> {c.chunk_id}" if c.verified else "NOT IN THE INDEX")
                     for c in answer.citations)
    if material.hits:
        lines.append("\nSources:")
        lines.extend(f"  {h.rank}. {h.chunk.chunk_id}  {h.chunk.path}:{h.chunk.start_line}-{h.chunk.end_line}  "
                     f"{relevance_text(h.relevance, h.matched)}" for h in material.hits)
    data = {**answer.to_dict(), "found": answer.found, "hits": [h.to_dict() for h in material.hits]}
    return ToolOutput("\n".join(lines), data)


# ------------------------------------------------------------ helpers


def _question(text: str) -> str:
    text = text.strip()
    if not text:
        raise BadInput("empty query - ask a question in Russian or English, e.g. 'where is the password hashed?'")
    return text


def numbered_code(chunk: Chunk, max_lines: int) -> tuple[str, int]:
    """The chunk's code with its real file line numbers (a module chunk's separate statements
    keep theirs, with a gap mark between); (text, lines left out)."""
    spans = chunk.line_spans or ((chunk.start_line, chunk.end_line),)
    segments = span_segments(chunk.code, spans) if chunk.line_spans else [(chunk.code, chunk.start_line)]
    width = len(str(chunk.end_line))
    out: list[str] = []
    total = 0
    for segment, first_line in segments:
        for offset, line in enumerate(segment.splitlines()):
            total += 1
            if total > max_lines:
                continue
            if offset == 0 and out:
                out.append(f"{'':>{width}}  ...")
            out.append(f"{first_line + offset:>{width}}  {line}")
    return "\n".join(out), max(0, total - max_lines)


def _chunk_data(chunk: Chunk) -> dict:
    return {"chunk_id": chunk.chunk_id, "path": chunk.path, "symbol": chunk.symbol, "kind": chunk.kind,
            "start_line": chunk.start_line, "end_line": chunk.end_line, "language": chunk_language(chunk)}


def _hit_data(hit: Hit) -> dict:
    code, _ = numbered_code(hit.chunk, HIT_LINES)
    return {**hit.to_row(), "code": code}


def _hit_text(hit: Hit) -> str:
    c = hit.chunk
    code, cut = numbered_code(c, HIT_LINES)
    more = f"\n({cut} more lines: get_chunk {c.chunk_id})" if cut else ""
    found = relevance_text(hit.relevance, hit.matched)
    return (f"{hit.rank}. {c.chunk_id}  [{hit.language}, {c.kind}]  {c.path}:{c.start_line}-{c.end_line}  "
            f"{'relevance ' + found if hit.relevance is not None else found}\n"
            f"```{c.language or ''}\n{code}\n```{more}")


def _stale_note(state: str) -> str:
    """Said beside a hit or chunk whose file is not what was indexed any more."""
    return f"\n  ({NOTES[state]})" if state in NOTES else ""


def _unknown_chunk_message(chunk_id: str, chunks: dict[str, Chunk]) -> str:
    close = difflib.get_close_matches(chunk_id, list(chunks), n=3, cutoff=0.6)
    if not close and "::" in chunk_id:  # right file, wrong symbol: list what the file holds
        path = chunk_id.split("::", 1)[0]
        close = sorted(i for i in chunks if i.startswith(path + "::"))[:5]
    hint = f" - did you mean: {', '.join(close)}?" if close else " - take an id from a search hit"
    return f"no chunk {chunk_id!r} in the index (ids look like path/to/file.py::Class.method){hint}"


def _neighbours_output(graph: CodeGraph, node_id: str, found: list[Neighbour], role: str) -> ToolOutput:
    internal = [n for n in found if not n.node.is_external]
    external = sorted({n.node.symbol for n in found if n.node.is_external})
    verb = {"callers": "called by", "callees": "calls"}[role]
    if use_kinds(graph.nodes[node_id]) == ("imports",):
        verb = {"callers": "imported by", "callees": "imports"}[role]
    count = f"{verb} {len(internal)}:" if internal else f"{verb}: nothing in the codebase"
    lines = [node_heading(graph, node_id), count]
    lines.extend(f"  {n.node.node_id}{neighbour_detail(n)}" for n in internal)
    if external:
        lines.append(f"external ({len(external)}): {', '.join(external)}")
    data = {"node": node_dict(graph.nodes[node_id]), role: [n.to_dict() for n in internal], "external": external}
    return ToolOutput("\n".join(lines), data)


def _status_text(data: dict) -> str:
    dense, kinds = data["dense"], data["chunks_per_kind"]
    chunks = max(1, dense["chunks"])
    graph = data["graph"]
    repositories = data.get("repositories") or []
    lines = [
        f"index {data['db']}: {data['total_chunks']} chunks from {data['files']} files of {data['source']}",
        *(["repositories: " + ", ".join(f"{r['name']} ({r['files']} files, {r['chunks']} chunks, "
                                        f"updated {r['updated_at'] or 'unknown'}, {freshness_text(r)})"
                                        for r in repositories)] if repositories else []),
        "  " + ", ".join(f"{kind} {kinds.get(kind, 0)}" for kind in KINDS),
        f"languages: {language_summary(data['languages']) or 'none'}",
        f"model {data['model']}, indexed {data['indexed_at']} in {data['duration_s']:.1f} s, "
        f"{data['warnings']} warnings",
        f"dense coverage: e5 {dense['e5_vectors']}/{dense['chunks']} ({100 * dense['e5_vectors'] / chunks:.0f}%), "
        f"{dense.get('english_model') or 'English model'} {dense['minilm_vectors']}/{dense['chunks']} "
        f"({100 * dense['minilm_vectors'] / chunks:.0f}%), "
        f"RU->EN bridge {dense['bridge_words']} words"
        + (f", test vectors {dense['test_vectors']}/{dense['test_chunks']} (the rest follow; default searches "
           "leave tests out)" if dense.get("test_vectors", 0) < dense.get("test_chunks", 0) else ""),
        f"code graph: {graph['nodes']} nodes, {sum(graph['edges'].values())} edges" if graph
        else "code graph: none (rebuild the index with --full to get callers, callees, deps, code_map)",
        "ask: on" if data["ask_enabled"] else "ask: off (set CODELENS_LLM_URL and CODELENS_LLM_MODEL, restart)",
        "reindex: allowed" if data["reindex_allowed"] else "reindex: off (start the server with --allow-reindex)",
        data["watch_line"],
    ]
    if data["damaged"]:
        lines.append(f"damaged, left out of searches: {', '.join(data['damaged'])} (python index.py rebuilds them)")
    return "\n".join(lines)
