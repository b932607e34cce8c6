"""What the MCP server's tools do, without MCP: plain calls on one index kept open (mcp/served.py),
each returning the text an agent reads plus the same facts as data (mcp/output.py). mcp/server.py
only wires these to the protocol; errors are CodeLensErrors with the fix in the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codelens.answer.ask import answer_question
from codelens.answer.context import ChunkCatalog, Neighbours
from codelens.answer.diff import git_diff, repository_label, repository_root
from codelens.answer.impact import DEFAULT_DEPTH, impact_of
from codelens.answer.impact import to_text as impact_text
from codelens.answer.llm import ChatModel
from codelens.answer.task_context import DEFAULT_BUDGET, to_markdown
from codelens.answer.token_count import DEFAULT_TOKENIZER, check_tokenizer
from codelens.chunk import KINDS
from codelens.errors import BadInput, SourceError
from codelens.graph.codemap import code_map_data
from codelens.graph.model import CodeGraph
from codelens.graph.query import (
    UnknownSymbol,
    call_neighbours,
    callees,
    callers,
    dependencies,
    neighbour_lookup,
    no_call_graph,
    node_dict,
    node_heading,
    resolve_node,
)
from codelens.graph.store import GraphNotFound
from codelens.index.fresh import repository_status
from codelens.index.freshness import NOTES
from codelens.index.manifest import files_beside_code
from codelens.mcp.output import (
    ToolOutput,
    chunk_data,
    hit_data,
    hit_text,
    neighbours_output,
    numbered_code,
    stale_note,
    status_text,
    unknown_chunk_message,
)
from codelens.mcp.served import ServedIndex
from codelens.search.filters import SearchFilters, language_counts, language_filter
from codelens.search.limits import k_problem
from codelens.search.matched import relevance_text
from codelens.search.searcher import Hit

MAX_ASK_K = 20
CHUNK_LINES = 800  # get_chunk's cap: a generated module may be thousands of lines


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
        data = {"query": query, "hits": [{**hit_data(hit), "file_state": state} for hit, state in zip(hits, states,
                                                                                                     strict=True)]}
        if not hits:
            return ToolOutput(f"no results for {query!r} - try other words, or drop the kind, language and path "
                              "filters (include_tests searches test code too)", data)
        blocks = [f"{len(hits)} hits for {query!r}:"]
        blocks.extend(hit_text(hit) + stale_note(state) for hit, state in zip(hits, states, strict=True))
        return ToolOutput("\n\n".join(blocks), data)

    def get_chunk(self, chunk_id: str) -> ToolOutput:
        chunk_id, chunks = chunk_id.strip(), self.index.searcher.chunks
        chunk = chunks.get(chunk_id)
        if chunk is None:
            raise BadInput(unknown_chunk_message(chunk_id, chunks))
        code, cut = numbered_code(chunk, CHUNK_LINES)
        state = self.index.file_state(chunk.path)
        data = {**chunk_data(chunk), "code": chunk.code, "docstring": chunk.docstring, "file_state": state}
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
        return neighbours_output(graph, node_id, found, "callers")

    def callees(self, target: str, include_tests: bool = False) -> ToolOutput:
        graph, node_id = self._resolve(target)
        found = [n for n in callees(graph, node_id) if include_tests or not n.node.is_test]
        return neighbours_output(graph, node_id, found, "callees")

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

        from codelens.index.progress import read_run_progress
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
        running = read_run_progress(db_path)  # an index run under way: its stage, share done and time left
        data["index_run"] = running.to_json() if running else None
        data["index_run_line"] = running.line() if running else ""
        try:
            graph = self.index.graph()
            data["graph"] = {"nodes": len(graph.nodes), "edges": graph.count_edges()}
        except GraphNotFound:
            data["graph"] = None
        return ToolOutput(status_text(data), data)

    # ------------------------------------------------------------ task context, change impact

    def context(self, task: str, budget: int = DEFAULT_BUDGET, path: str = "", include_tests: bool = False,
                repos: Sequence[str] = (), tokenizer: str = DEFAULT_TOKENIZER,
                line_numbers: bool = False) -> ToolOutput:
        """The code a task needs, packed to `budget` tokens of `tokenizer` (answer/task_context.py)."""
        check_tokenizer(tokenizer)
        index = self.index.current()
        filters = SearchFilters(path_prefix=path.strip().removeprefix("./"), include_tests=include_tests,
                                repos=index.workspace.check_names(repos) if repos else ())
        packed = index.context(task, budget, filters, tokenizer, line_numbers)
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

