"""What the MCP tools answer: `ToolOutput` (the text an agent reads, and the same facts as data),
and that text for a search hit (its code with real line numbers), an unknown chunk id (the ids
it may have meant), a symbol's callers or callees, and the index's status.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from codelens.chunk import KINDS, Chunk, span_segments
from codelens.graph.model import CodeGraph
from codelens.graph.query import Neighbour, neighbour_detail, node_dict, node_heading, use_kinds
from codelens.index.fresh import freshness_text
from codelens.index.freshness import NOTES
from codelens.search.filters import chunk_language, language_summary
from codelens.search.matched import relevance_text
from codelens.search.searcher import Hit

HIT_LINES = 60  # code lines shown per search hit; get_chunk shows the rest


@dataclass(frozen=True)
class ToolOutput:
    """One tool answer: `text` for the model to read, `data` for clients that parse."""

    text: str
    data: dict = field(default_factory=dict)


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


def chunk_data(chunk: Chunk) -> dict:
    return {"chunk_id": chunk.chunk_id, "path": chunk.path, "symbol": chunk.symbol, "kind": chunk.kind,
            "start_line": chunk.start_line, "end_line": chunk.end_line, "language": chunk_language(chunk)}


def hit_data(hit: Hit) -> dict:
    code, _ = numbered_code(hit.chunk, HIT_LINES)
    return {**hit.to_row(), "code": code}


def hit_text(hit: Hit) -> str:
    c = hit.chunk
    code, cut = numbered_code(c, HIT_LINES)
    more = f"\n({cut} more lines: get_chunk {c.chunk_id})" if cut else ""
    found = relevance_text(hit.relevance, hit.matched)
    return (f"{hit.rank}. {c.chunk_id}  [{hit.language}, {c.kind}]  {c.path}:{c.start_line}-{c.end_line}  "
            f"{'relevance ' + found if hit.relevance is not None else found}\n"
            f"```{c.language or ''}\n{code}\n```{more}")


def stale_note(state: str) -> str:
    """Said beside a hit or chunk whose file is not what was indexed any more."""
    return f"\n  ({NOTES[state]})" if state in NOTES else ""


def unknown_chunk_message(chunk_id: str, chunks: dict[str, Chunk]) -> str:
    close = difflib.get_close_matches(chunk_id, list(chunks), n=3, cutoff=0.6)
    if not close and "::" in chunk_id:  # right file, wrong symbol: list what the file holds
        path = chunk_id.split("::", 1)[0]
        close = sorted(i for i in chunks if i.startswith(path + "::"))[:5]
    hint = f" - did you mean: {', '.join(close)}?" if close else " - take an id from a search hit"
    return f"no chunk {chunk_id!r} in the index (ids look like path/to/file.py::Class.method){hint}"


def neighbours_output(graph: CodeGraph, node_id: str, found: list[Neighbour], role: str) -> ToolOutput:
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


def status_text(data: dict) -> str:
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
        *([data["index_run_line"]] if data.get("index_run_line") else []),
    ]
    if data["damaged"]:
        lines.append(f"damaged, left out of searches: {', '.join(data['damaged'])} (python index.py rebuilds them)")
    return "\n".join(lines)
