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

from codelens.cli_common import add_location_arguments, settings_from_args
from codelens.cli_search import add_model_argument, add_search_arguments, print_hits, search_request
from codelens.errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CodeLensError
from codelens.graph_cli import GRAPH_COMMANDS, add_graph_commands
from codelens.settings import Settings, default_source

EXIT_CODES_HELP = """exit codes: 0 ok, 1 error, 2 no index, 3 bad source, 4 bad --db,
5 model mismatch, 6 bad input file or unknown name, 7 LLM endpoint failed, 64 usage error"""


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
    add_search_arguments(search)
    _add_common(search)

    evaluate = commands.add_parser("eval", help="run a questions file, write results.json",
                                   description="Precision@5 evaluation over a questions file.")
    evaluate.add_argument("--questions", type=Path, default=Path("eval_questions.json"))
    evaluate.add_argument("--out", type=Path, default=Path("results.json"))
    evaluate.add_argument("-k", type=int, default=5)
    _add_common(evaluate)

    serve = commands.add_parser(
        "serve", help="keep the index and models loaded on localhost; `search` then answers at once",
        description="A resident search process on 127.0.0.1: `python -m codelens search` uses it while it "
                    "runs and searches in-process when it does not. Ctrl-C or SIGTERM stops it.")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    _add_common(serve)

    stats = commands.add_parser("stats", help="show what the index holds")
    stats.add_argument("--json", action="store_true")
    _add_common(stats)
    _add_ask_parser(commands)
    add_graph_commands(commands)
    return parser


def add_index_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", type=Path, default=None,
                        help="zip file or folder to index (default: ./codebase_python.zip, "
                             "else ../shared/codebase_python.zip, else CodeLens's own codelens/ package)")
    parser.add_argument("--full", action="store_true",
                        help="rebuild from scratch instead of updating only what changed")
    parser.add_argument("--batch-size", type=int, default=None, help="chunks per embedding batch")
    parser.add_argument("--max-file-kb", type=_positive_int, default=None,
                        help="skip .py files larger than this, with a warning (default 1000 kB)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_common(parser)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def _add_common(parser: argparse.ArgumentParser) -> None:
    add_location_arguments(parser)
    add_model_argument(parser)


def _settings(args: argparse.Namespace) -> Settings:
    settings = settings_from_args(args)
    if getattr(args, "batch_size", None):
        settings = settings.with_overrides(batch_size=args.batch_size)
    if getattr(args, "quiet", False):
        settings = settings.with_overrides(show_progress=False)
    if getattr(args, "max_file_kb", None):
        settings = settings.with_overrides(max_file_bytes=args.max_file_kb * 1000)
    if getattr(args, "model", None) and args.command == "index":
        settings = settings.with_overrides(model=args.model)
    return settings


def cmd_index(args: argparse.Namespace) -> int:
    from codelens.indexer import build_index

    settings = _settings(args)
    source = args.source or default_source()
    if source is None:  # a clone anywhere else: CodeLens's own package is the demo
        from codelens.self_demo import own_source

        source = own_source()
        print(f"No codebase_python.zip here or in ../shared: indexing CodeLens's own source ({source}) "
              "as the demo - search CodeLens itself. Pass --source ZIP_OR_FOLDER for your code.", flush=True)
    stats = build_index(source, settings, full=args.full)
    print(format_summary(stats, settings.index_dir))
    return 0


def format_summary(stats, db_path: Path) -> str:
    kinds = stats.chunks_per_kind
    lines = [
        "INDEXING COMPLETE",
        f"Files processed:  {stats.files}      Total chunks indexed: {stats.total_chunks}",
        f"  Functions: {kinds['function']}  Methods: {kinds['method']}  "
        f"Classes: {kinds['class']}  Modules: {kinds['module']}",
        f"Vector DB stored at: {stats.chroma_url or db_path}   Model: {stats.model}   "
        f"Time: {stats.duration_s:.1f} s",
    ]
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
    settings = _settings(args)
    hits = _search_on_server(args, settings)
    if hits is None:  # no `codelens serve` for this index: search in this process
        from codelens.search import Searcher, SearchFilters

        searcher = Searcher(settings, requested_model=args.model)
        filters = SearchFilters(kinds=tuple(args.kind or ()), path_prefix=args.path,
                                include_tests=args.include_tests)
        found = searcher.search(args.query, k=args.k, filters=filters)
        hits = [{**h.to_dict(), "rank": h.rank, "relevance": h.relevance} for h in found]
    print_hits(hits, args.json)
    return 0


def _search_on_server(args: argparse.Namespace, settings: Settings) -> list[dict] | None:
    """Hits from a running `codelens serve` for this index, or None when there is none."""
    from codelens.serve_client import find_server, remote_search

    address = find_server(settings.index_dir, settings.chroma_url)
    if address is None:
        return None
    return remote_search(address, search_request(args))


def cmd_serve(args: argparse.Namespace) -> int:
    from codelens.serve import serve

    serve(_settings(args), port=args.port, requested_model=args.model,
          on_ready=lambda line: print(line, flush=True))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from codelens.evaluation import load_questions, run_evaluation, score_predictions, summarize
    from codelens.search import Searcher

    questions = load_questions(args.questions)
    searcher = Searcher(_settings(args), requested_model=args.model)
    results = run_evaluation(
        questions, lambda q, k: [h.to_dict() for h in searcher.search(q, k)], searcher.model, args.k)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    summary = summarize(score_predictions(results, questions, args.k))
    overall = summary["overall"]
    print(f"wrote {args.out}: {overall['questions']} questions, mean P@5 {overall['precision_at_5']:.3f}, "
          f"Hit@5 {overall['hit_at_5']:.3f}, MRR@5 {overall['mrr_at_5']:.3f}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from codelens.index_meta import read_stats

    settings = _settings(args)
    stats = read_stats(settings.index_dir)
    if args.json:
        print(json.dumps(stats.to_json(), ensure_ascii=False, indent=2))
    else:
        print(format_summary(stats, settings.index_dir).replace("INDEXING COMPLETE", "INDEX"))
    return 0


# ----------------------------------------------------------------- ask: answers in words (issue 8)


def _add_ask_parser(commands: argparse._SubParsersAction) -> None:
    from codelens.llm import HOW_TO_ENABLE

    ask = commands.add_parser(
        "ask", help="answer a question in words from the found code (needs an LLM endpoint)",
        description="Search, then let an OpenAI-compatible LLM answer from the found code only; every cited "
                    "path:line and symbol is checked against the index.",
        epilog=f"{HOW_TO_ENABLE}\n\n{EXIT_CODES_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ask.add_argument("question", help="question, Russian or English")
    ask.add_argument("-k", type=int, default=5, help="search hits to answer from (default 5)")
    ask.add_argument("--json", action="store_true", help='print {"answer", "citations", "hits"} as JSON')
    ask.add_argument("--budget", type=int, default=None,
                     help="context tokens sent to the model (default 2500, env CODELENS_LLM_CONTEXT_TOKENS)")
    _add_common(ask)


def cmd_ask(args: argparse.Namespace) -> int:
    from codelens.answer import ChunkCatalog, answer_question
    from codelens.graph_query import neighbour_lookup
    from codelens.graph_store import GraphNotFound, load_graph
    from codelens.llm import HOW_TO_ENABLE, ChatClient, LLMConfig
    from codelens.search import Searcher

    config = LLMConfig.from_env()  # first: half a configuration fails before any work
    searcher = Searcher(_settings(args), requested_model=args.model)
    hits = searcher.search(args.question, k=args.k)
    if config is None:
        return _print_hits_only(hits, args.json, HOW_TO_ENABLE)
    if not args.json:
        print("Sources:" if hits else "no results")
        print("\n".join(_hit_line(hit) for hit in hits) + "\n")
    stream = _AnswerStream() if not args.json and sys.stdout.isatty() else None
    try:
        neighbours = neighbour_lookup(load_graph(searcher.settings.index_dir))
    except GraphNotFound:  # an index built before graphs existed: hits only, no neighbours
        neighbours = None
    answer = answer_question(
        args.question, hits, ChatClient(config), ChunkCatalog(searcher.chunks.values()),
        neighbours=neighbours,
        budget_tokens=args.budget or config.context_tokens,
        on_token=stream.token if stream else None, on_retry=stream.retry if stream else None)
    if args.json:
        print(json.dumps({**answer.to_dict(), "hits": [h.to_dict() for h in hits]}, ensure_ascii=False, indent=2))
        return 0
    if stream is None or stream.shown.strip() != answer.text:
        print("\n\nWith citations checked:\n" if stream else "Answer:\n", end="")
        print(answer.text)
    print("\nCitations:" if answer.citations else "")
    for citation in answer.citations:
        where = f"-> {citation.chunk_id}" if citation.verified else "NOT IN THE INDEX"
        print(f"  {citation.ref}  {where}")
    return 0


def _hit_line(hit) -> str:
    c = hit.chunk
    return f"{hit.rank}. {c.path}:{c.start_line}-{c.end_line}  {c.symbol}  [{c.kind}]  {hit.relevance:.1f}%"


def _print_hits_only(hits: list, as_json: bool, how_to_enable: str) -> int:
    if as_json:
        print(json.dumps({"answer": "", "citations": [], "hits": [h.to_dict() for h in hits], "enabled": False,
                          "how_to_enable": how_to_enable}, ensure_ascii=False, indent=2))
        return 0
    print("\n".join(_hit_line(hit) for hit in hits) if hits else "no results")
    print(f"\nAnswers in words are off. {how_to_enable}")
    return 0


class _AnswerStream:
    """Prints the answer as it streams in; remembers what the last attempt showed."""

    def __init__(self) -> None:
        self.shown = ""

    def token(self, delta: str) -> None:
        if not self.shown:
            print("Answer:")
        self.shown += delta
        sys.stdout.write(delta)
        sys.stdout.flush()

    def retry(self) -> None:
        print("\n\n(some citations were not in the index - asking again)\n")
        self.shown = ""


COMMANDS = {"index": cmd_index, "search": cmd_search, "eval": cmd_eval, "stats": cmd_stats, "ask": cmd_ask,
            "serve": cmd_serve}
COMMANDS.update(GRAPH_COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = COMMANDS[args.command](args)
        sys.stdout.flush()  # inside the try: a pipe closed by `| head` shows up here, not at exit
        return status
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
