"""Command line: `python -m codelens COMMAND ...`; `python index.py` is `index`.

Library exceptions become one-line messages and exit codes here, at the edge.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from codelens.cli.ask import add_ask_command, cmd_ask
from codelens.cli.common import EXIT_CODES_HELP, add_common, hit_line, settings_of
from codelens.cli.graph import GRAPH_COMMANDS, add_graph_commands
from codelens.errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CodeLensError, SourceError
from codelens.mcp.cli import MCP_COMMANDS, add_mcp_command
from codelens.settings import default_source


class UsageParser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error, the code that means "no index" here: use EXIT_USAGE."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(
        prog="python -m codelens",
        description="CodeLens: semantic search over a Python codebase (Russian and English).",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_index_arguments(commands.add_parser(
        "index", help="index a codebase (zip or folder) into --db",
        description="Chunk every function, method, class and module block, embed, store."))

    search = commands.add_parser("search", help="search the index", description="Search the index.")
    search.add_argument("query", help="question or keywords, Russian or English")
    search.add_argument("-k", type=int, default=5, help="number of results (default 5)")
    search.add_argument("--json", action="store_true", help="print the hits as JSON")
    search.add_argument("--kind", action="append", choices=["function", "method", "class", "module"],
                        help="only this kind (repeatable)")
    search.add_argument("--path", default="", help="only paths starting with this prefix")
    search.add_argument("--include-tests", action="store_true", help="also search test code")
    add_common(search)

    evaluate = commands.add_parser("eval", help="run a questions file, write results.json",
                                   description="Precision@5 evaluation over a questions file.")
    evaluate.add_argument("--questions", type=Path, default=Path("eval_questions.json"))
    evaluate.add_argument("--out", type=Path, default=Path("results.json"))
    evaluate.add_argument("-k", type=int, default=5)
    add_common(evaluate)

    stats = commands.add_parser("stats", help="show what the index holds")
    stats.add_argument("--json", action="store_true")
    add_common(stats)
    add_ask_command(commands)
    add_graph_commands(commands)
    add_mcp_command(commands)
    return parser


def add_index_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", type=Path, default=None,
                        help="zip file or folder to index (default: ./codebase_python.zip, "
                             "else ../shared/codebase_python.zip)")
    parser.add_argument("--full", action="store_true",
                        help="rebuild from scratch instead of updating only what changed")
    parser.add_argument("--batch-size", type=int, default=None, help="chunks per embedding batch")
    parser.add_argument("--max-file-kb", type=_positive_int, default=None,
                        help="skip .py files larger than this, with a warning (default 1000 kB)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--ray", default=None, metavar="ADDRESS|auto",
                        help="embed on a Ray cluster: HEAD:6379, ray://HEAD:10001, or auto (the cluster "
                             "this machine joined, else a local one); needs pip install -r requirements-ray.txt")
    parser.add_argument("--ray-worker-cpus", type=_positive_int, default=None,
                        help="CPUs per Ray embedding worker (default: one worker per node, all its CPUs)")
    add_common(parser)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def cmd_index(args: argparse.Namespace) -> int:
    from codelens.index.build import build_index

    settings = settings_of(args)
    source = args.source or default_source()
    if source is None:
        raise SourceError("no codebase_python.zip here or in ../shared - pass --source ZIP_OR_FOLDER")
    stats = build_index(source, settings, full=args.full)
    print(format_summary(stats, settings.index_dir))
    return 0


def format_summary(stats, db_path: Path) -> str:
    from codelens.index.progressive import coverage_line

    kinds = stats.chunks_per_kind
    lines = [
        "INDEXING COMPLETE",
        f"Files processed:  {stats.files}      Total chunks indexed: {stats.total_chunks}",
        f"  Functions: {kinds['function']}  Methods: {kinds['method']}  "
        f"Classes: {kinds['class']}  Modules: {kinds['module']}",
        f"Vector DB stored at: {stats.chroma_url or db_path}   Model: {stats.model}   "
        f"Time: {stats.duration_s:.1f} s",
    ]
    lines.append(coverage_line(stats))
    run = stats.run or {}
    if run:
        lines.append(f"Run: {run.get('mode')}  embedded: {run.get('embedded', 0)}  "
                     f"updated: {run.get('upserted', 0)}  deleted: {run.get('deleted', 0)}  "
                     f"unchanged: {run.get('unchanged', 0)}")
    if stats.secrets_masked:
        masked = ", ".join(f"{kind} {count}" for kind, count in stats.secrets_masked.items())
        lines.append(f"Secrets masked: {sum(stats.secrets_masked.values())} ({masked})")
    if stats.warnings:
        lines.append(f"Warnings: {len(stats.warnings)} (see index_metadata.json)")
        lines.extend(f"  - {w}" for w in stats.warnings[:10])
    return "\n".join(lines)


def cmd_search(args: argparse.Namespace) -> int:
    from codelens.search.filters import SearchFilters
    from codelens.search.searcher import Searcher

    searcher = Searcher(settings_of(args))
    filters = SearchFilters(kinds=tuple(args.kind or ()), path_prefix=args.path,
                            include_tests=args.include_tests)
    hits = searcher.search(args.query, k=args.k, filters=filters)
    if args.json:
        print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return 0
    if not hits:
        print("no results")
    for hit in hits:
        print(hit_line(hit))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from codelens.evaluation import load_questions, score_predictions, summarize
    from codelens.open_index import OpenIndex

    questions = load_questions(args.questions)
    results = OpenIndex(settings_of(args)).evaluate(questions, args.k)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    summary = summarize(score_predictions(results, questions, args.k))
    overall = summary["overall"]
    print(f"wrote {args.out}: {overall['questions']} questions, mean P@5 {overall['precision_at_5']:.3f}, "
          f"Hit@5 {overall['hit_at_5']:.3f}, MRR@5 {overall['mrr_at_5']:.3f}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from codelens.index.metadata import read_stats

    settings = settings_of(args)
    stats = read_stats(settings.index_dir)
    if args.json:
        print(json.dumps(stats.to_json(), ensure_ascii=False, indent=2))
    else:
        print(format_summary(stats, settings.index_dir).replace("INDEXING COMPLETE", "INDEX"))
    return 0


COMMANDS = {"index": cmd_index, "search": cmd_search, "eval": cmd_eval, "stats": cmd_stats, "ask": cmd_ask}
COMMANDS.update(GRAPH_COMMANDS)
COMMANDS.update(MCP_COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except CodeLensError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # `... | head` closed the pipe: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def index_main(argv: Sequence[str] | None = None) -> int:
    """`python index.py [flags]`: the index command without the word."""
    return main(["index", *(sys.argv[1:] if argv is None else argv)])
