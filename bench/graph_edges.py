"""The code graph per language: how many call edges resolve, and a sample to check by hand.

    python bench/graph_edges.py [ZIP ...] [--sample 20] [--seed 7]

Each zip (default: every `../shared/benchmarks/semble_langs_dev/*.zip`) is chunked as an index
run chunks it (`codelens.ingest.codebase.chunk_source`, nothing embedded) and its graph built
(`codelens.graph.model.build_graph`). The table has, per language: files, chunks, call edges
resolved in the codebase (in the file, through an import, on `this`/a receiver), uncertain
(by a unique name only, `via="name"`), external (`ext:...`), and the graph's build seconds
(all of each zip's build counted under its main language) with seconds per 1,000 chunks.

`--sample N` then prints, per language, N random call edges into the codebase (resolved and
uncertain alike, each marked) with the calling line and the line that defines the target:
what a person reads to judge whether the edge is right.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from _common import SHARED, print_table

from codelens.chunk import Chunk
from codelens.graph.model import BY_NAME, CodeGraph, Edge, build_graph
from codelens.ingest.codebase import ChunkedCodebase, chunk_source
from codelens.ingest.formats import code_language

BENCH_DIR = SHARED / "benchmarks" / "semble_langs_dev"
MAX_FILE_BYTES = 1_000_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zips", nargs="*", type=Path, help="zips or folders (default: semble_langs_dev)")
    parser.add_argument("--sample", type=int, default=0, help="random call edges per language to print")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    sources = args.zips or sorted(BENCH_DIR.glob("*.zip"))
    totals: dict[str, Counter] = defaultdict(Counter)
    samples: dict[str, list[tuple[Edge, ChunkedCodebase]]] = defaultdict(list)
    for source in sources:
        chunked = chunk_source(source, MAX_FILE_BYTES)
        started = time.perf_counter()
        graph = build_graph(chunked.chunks, chunked.sources)
        seconds = time.perf_counter() - started
        main_language = _count(graph, chunked, totals)
        totals[main_language]["seconds_ms"] += round(seconds * 1000)
        print(f"{source.name}: {len(chunked.chunks)} chunks, graph {seconds:.2f} s", file=sys.stderr)
        for edge in graph.edges if args.sample else ():  # kept only when asked: every zip's chunks stay alive
            if edge.kind == "calls" and not graph.nodes[edge.target].is_external:
                samples[_language(chunked, edge.source.partition("::")[0])].append((edge, chunked))
    _print_counts(totals)
    if args.sample:
        _print_samples(samples, args.sample, random.Random(args.seed))
    return 0


def _count(graph: CodeGraph, chunked: ChunkedCodebase, totals: dict[str, Counter]) -> str:
    """Adds one codebase's files, chunks and call edges per language; returns its main language."""
    chunks_of: Counter[str] = Counter()
    for path, text in chunked.sources.items():
        language = code_language(path, text)
        if language is not None:
            totals[language]["files"] += 1
    for chunk in chunked.chunks:
        if chunk.is_code and (language := chunk.language) is not None:
            totals[language]["chunks"] += 1
            chunks_of[language] += 1
    for edge in graph.edges:
        if edge.kind != "calls":
            continue
        language = _language(chunked, edge.source.partition("::")[0])
        if graph.nodes[edge.target].is_external:
            totals[language]["external"] += 1
        else:
            totals[language]["uncertain" if edge.via == BY_NAME else "resolved"] += 1
    return chunks_of.most_common(1)[0][0] if chunks_of else "?"


def _language(chunked: ChunkedCodebase, path: str) -> str:
    """A file's language by its name, or a script's by its `#!` line; "?" for anything else."""
    return code_language(path, chunked.sources.get(path, "")) or "?"


def _print_counts(totals: dict[str, Counter]) -> None:
    rows = []
    for language in sorted(totals, key=lambda name: -totals[name]["chunks"]):
        count = totals[language]
        internal = count["resolved"] + count["uncertain"]
        seconds = count["seconds_ms"] / 1000
        rows.append([language, count["files"], count["chunks"], count["resolved"], count["uncertain"],
                     count["external"], f"{internal / max(1, internal + count['external']):.0%}", seconds,
                     seconds * 1000 / max(1, count["chunks"]) if seconds else 0.0])
    print_table(["language", "files", "chunks", "calls resolved", "uncertain (by name)", "external",
                 "into the code", "graph s", "s per 1,000 chunks"], rows)


def _print_samples(samples: dict[str, list], size: int, rng: random.Random) -> None:
    for language in sorted(samples):
        edges = samples[language]
        picked = rng.sample(edges, min(size, len(edges)))
        print(f"\n## {language}: {len(picked)} of {len(edges)} call edges into the code")
        for number, (edge, chunked) in enumerate(picked, 1):
            target = next((c for c in chunked.chunks if c.chunk_id == edge.target), None)
            caller_path = edge.source.partition("::")[0]
            mark = "uncertain (by name)" if edge.via == BY_NAME else "resolved"
            print(f"{number:2}. [{mark}] {edge.source} -> {edge.target}")
            print(f"    call  {caller_path}:{edge.line}: {_line(chunked.sources.get(caller_path, ''), edge.line)}")
            if target is not None:
                line, text = _definition_line(target)
                print(f"    def   {target.path}:{line}: {text}")


def _line(text: str, number: int) -> str:
    lines = text.splitlines()
    return lines[number - 1].strip()[:160] if 0 < number <= len(lines) else ""


def _definition_line(chunk: Chunk) -> tuple[int, str]:
    """The first line of a chunk that names it (past its doc comment and attributes)."""
    for offset, line in enumerate(chunk.code.splitlines()):
        if chunk.name in line and not line.lstrip().startswith(("/", "*", "#", "@", "--")):
            return chunk.start_line + offset, line.strip()[:160]
    return chunk.start_line, chunk.code.splitlines()[0].strip()[:160] if chunk.code else ""


if __name__ == "__main__":
    sys.exit(main())
