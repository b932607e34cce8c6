"""How much of each language its grammar cannot read: files with a parse error and lines under ERROR.

Each zip or folder (default: every `../shared/benchmarks/semble_langs_dev/*.zip`) is read as an index
reads it (vendored and generated files left out), and each code file is parsed as the chunker parses it
(the language's own blanking first, `LanguageRow.parser_bytes`). A line under an ERROR node that no
error-free construct inside it holds is code the grammar could not place: its definitions are recovered
one by one if at all, the rest is <module> text. Prints a row per language and the worst files.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from _common import SHARED, print_table

from codelens.ingest.codebase import chunk_source
from codelens.ingest.formats import code_language
from codelens.ingest.grammars import GrammarUnavailable, new_parser
from codelens.ingest.syntax_source import parser_bytes
from codelens.languages import PYTHON, grammar_of, row_named

BENCH_DIR = SHARED / "benchmarks" / "semble_langs_dev"
MAX_FILE_BYTES = 1_000_000  # as bench/graph_edges.py reads


def unplaced_lines(root) -> int:
    """Lines under ERROR nodes that no error-free construct of two lines or more inside them holds: C's
    include guard is an ERROR when its `#endif` cannot be matched, yet everything in it parsed."""
    lost: set[int] = set()
    kept: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, inside = stack.pop()
        first, last = node.start_point[0], node.end_point[0]
        if node.type == "ERROR":
            lost.update(range(first, last + 1))
            stack.extend((child, True) for child in node.children)
        elif inside and not node.has_error and node.is_named and last > first:
            kept.update(range(first, last + 1))
        elif node.has_error:
            stack.extend((child, inside) for child in node.children)
    return len(lost - kept)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="*", type=Path, help="zips or folders (default: semble_langs_dev)")
    parser.add_argument("--worst", type=int, default=3, help="the files with most lines under ERROR to name")
    args = parser.parse_args(argv)
    totals: dict[str, Counter] = defaultdict(Counter)
    worst: list[tuple[int, str, str]] = []
    for source in args.sources or sorted(BENCH_DIR.glob("*.zip")):
        chunked = chunk_source(source, MAX_FILE_BYTES)
        for path, text in chunked.sources.items():
            language = code_language(path, text)
            row = row_named(language) if language and language != PYTHON else None
            grammar = grammar_of(row, path) if row is not None else None
            if grammar is None:
                continue
            try:
                tree = new_parser(grammar).parse(parser_bytes(row, text.encode("utf-8", "surrogatepass")))
            except GrammarUnavailable:
                continue
            count = totals[language]
            count["files"] += 1
            count["lines"] += text.count("\n") + 1
            if tree.root_node.has_error:
                lost = unplaced_lines(tree.root_node)
                count["with errors"] += 1
                count["error lines"] += lost
                worst.append((lost, language, f"{source.name}/{path}"))
    rows = [[language, str(c["files"]), str(c["with errors"]), f"{c['error lines']:,}",
             f"{c['error lines'] / max(1, c['lines']):.1%}"]
            for language, c in sorted(totals.items(), key=lambda item: -item[1]["error lines"])]
    print_table(["language", "files", "with errors", "lines under ERROR", "of its lines"], rows)
    by_language: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for lost, language, path in sorted(worst, reverse=True):
        if len(by_language[language]) < args.worst and lost:
            by_language[language].append((lost, path))
    for language, files in by_language.items():
        print(f"\n{language}: " + "; ".join(f"{path} ({lost:,})" for lost, path in files))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
