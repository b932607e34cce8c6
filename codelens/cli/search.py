"""The `search` and `eval` commands: `search`'s flags and output, its fast path through a running
`codelens serve`, the search in this process when there is none, and `eval` (a questions file
through the same search, written as results.json).

`python -m codelens search ...` tries `search_through_server` before importing the full CLI
(graph commands, numpy, ChromaDB, models): with a server for the index, the process imports
only the standard library and these small modules. Anything it cannot answer (no server, a
usage error) returns None and the full CLI takes over, so messages and exit codes stay its.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from codelens.chunk import FILE_KINDS, KINDS
from codelens.cli.common import add_common, add_location_arguments, add_model_argument, hit_line, settings_of
from codelens.languages import language_names
from codelens.locations import current_repository
from codelens.search.limits import MAX_K, k_problem
from codelens.settings import Settings


def add_search_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", help="question or keywords, Russian or English")
    parser.add_argument("-k", type=hit_count, default=5, help=f"number of results, 1 to {MAX_K} (default 5)")
    parser.add_argument("--json", action="store_true", help="print the hits as JSON")
    parser.add_argument("--kind", action="append", choices=KINDS,
                        help="only this kind (repeatable): code (function, method, class, module) or the pieces "
                             "of other files (doc: Markdown/reST sections, config: YAML/TOML/INI/JSON/.env keys, "
                             "text: build files, scripts, SQL, CSV, plain text)")
    parser.add_argument("--path", default="", help="only paths starting with this prefix")
    parser.add_argument("--include-tests", action="store_true", help="also search test code")
    parser.add_argument("--repo", action="append", default=None, metavar="NAME",
                        help="only this repository of a workspace (repeatable; `codelens stats` lists them)")
    parser.add_argument("--lang", action="append", default=None, metavar="NAME",
                        help=f"only this language (repeatable): {', '.join(language_names())}, or the other "
                             f"files' kinds {', '.join(FILE_KINDS)} (`codelens stats` counts each)")


def hit_count(text: str) -> int:
    """`-k`: a usage error (with the limit serve and MCP share) rather than a silent cut."""
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_K}, got {text!r}") from None
    if k_problem(k):
        raise argparse.ArgumentTypeError(k_problem(k))
    return k


def print_hits(hits: list[dict], as_json: bool) -> None:
    """Hit dicts with rank and relevance: `--json` prints the results.json hit format, else one line each."""
    if as_json:
        print(json.dumps([{k: v for k, v in h.items() if k not in ("rank", "relevance")} for h in hits],
                         ensure_ascii=False, indent=2))
        return
    if not hits:
        print("no results")
    for hit in hits:
        print(hit_line(hit))


class _QuietParser(argparse.ArgumentParser):
    """Raises instead of printing usage and exiting: the full CLI reports usage errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(message)


def search_request(args: argparse.Namespace, settings: Settings) -> dict:
    """What a running server is asked; `prefer_repo`: the repository of the workspace the working
    directory is in (an index found from it), first among hits of equal score (search/ties.py)."""
    return {"query": args.query, "k": args.k, "kinds": list(args.kind or ()), "path_prefix": args.path,
            "include_tests": args.include_tests, "model": args.model, "repos": list(args.repo or ()),
            "languages": list(getattr(args, "lang", None) or ()),  # a Namespace built before --lang has none
            "prefer_repo": current_repository(settings.project)}


def search_through_server(argv: Sequence[str]) -> int | None:
    """Answer `search ...` from a running server; None when the full CLI must handle it."""
    from codelens.serve.client import RemoteError, find_server, remote_search

    if not argv or argv[0] != "search":
        return None
    parser = _QuietParser(add_help=False)
    add_search_arguments(parser)
    add_location_arguments(parser)
    add_model_argument(parser)
    try:
        args, unknown = parser.parse_known_args(argv[1:])
    except (ValueError, SystemExit):  # a usage error: the full CLI says it properly
        return None
    if unknown:
        return None
    try:
        settings = settings_of(args)
        if args.include_tests and _test_vectors_missing(settings.index_dir):
            return None  # the full CLI finishes them first (index/test_vectors.py), then asks the server
        address = find_server(settings.index_dir, settings.chroma_url)
        hits = remote_search(address, search_request(args, settings)) if address else None
    except RemoteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except Exception:  # a bad --collection name and the like: the full CLI reports it
        return None
    if hits is None:
        return None
    try:
        print_hits(hits, args.json)
        sys.stdout.flush()
    except BrokenPipeError:  # `... | head`: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _test_vectors_missing(index_dir: Path) -> bool:
    """Whether the index's metadata says some test vectors are not in yet (read with json only:
    this path imports nothing heavy)."""
    from codelens.index.layout import IndexLayout

    try:
        with open(IndexLayout(index_dir).metadata, encoding="utf-8") as handle:
            return float(json.load(handle).get("test_coverage", 1.0)) < 1.0
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def add_search_command(commands: argparse._SubParsersAction) -> None:
    search = commands.add_parser("search", help="search the index", description="Search the index.")
    add_search_arguments(search)
    add_common(search)


def add_eval_command(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("eval", help="run a questions file, write results.json",
                                   description="Precision@5 evaluation over a questions file.")
    evaluate.add_argument("--questions", type=Path, default=Path("eval_questions.json"))
    evaluate.add_argument("--out", type=Path, default=Path("results.json"))
    evaluate.add_argument("-k", type=hit_count, default=5, help=f"hits per question, 1 to {MAX_K} (default 5)")
    add_common(evaluate)


def cmd_search(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    if settings.project is not None:  # found from the working directory: built on first use, never stale
        from codelens.cli.project import prepare_search

        prepare_search(settings, args.query)
    if args.include_tests:  # an index whose test vectors follow: finished first (index/test_vectors.py)
        from codelens.index.test_vectors import finish_before_search

        finish_before_search(settings, lambda line: print(line, file=sys.stderr))
    hits = _search_on_server(args, settings)
    if hits is None:  # no `codelens serve` for this index: search in this process
        from codelens.search.filters import SearchFilters
        from codelens.search.searcher import Searcher

        searcher = Searcher(settings)
        filters = SearchFilters(kinds=tuple(args.kind or ()), path_prefix=args.path,
                                include_tests=args.include_tests, repos=tuple(args.repo or ()),
                                languages=tuple(args.lang or ()))
        found = searcher.search(args.query, k=args.k, filters=filters,
                                prefer_repo=current_repository(settings.project))
        hits = [h.to_row() for h in found]
        if searcher.damaged:
            from codelens.index.health import REPAIR_HINT

            print(f"warning: damaged index parts left out of this search: {', '.join(searcher.damaged)}; "
                  f"{REPAIR_HINT}", file=sys.stderr)
    print_hits(hits, args.json)
    if settings.project is not None:  # the next search here answers from a warm process
        from codelens.cli.project import start_background_server

        if settings.autoserve:
            sys.stdout.flush()
            start_background_server(settings)
    return 0


def _search_on_server(args: argparse.Namespace, settings: Settings) -> list[dict] | None:
    """Hits from a running `codelens serve` for this index, or None when there is none."""
    from codelens.serve.client import find_server, remote_search

    address = find_server(settings.index_dir, settings.chroma_url)
    if address is None:
        return None
    return remote_search(address, search_request(args, settings))


def cmd_eval(args: argparse.Namespace) -> int:
    from codelens.evaluation import load_questions, score_predictions, summarize
    from codelens.open_index import OpenIndex

    questions = load_questions(args.questions)
    index = OpenIndex(settings_of(args))
    # A batch of questions: the models load before the first one is timed (its latency_ms is the
    # search's, as on the page, which warms up when it opens).
    index.searcher.warm_up()
    results = index.evaluate(questions, args.k)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    summary = summarize(score_predictions(results, questions, args.k))
    overall = summary["overall"]
    print(f"wrote {args.out}: {overall['questions']} questions, mean P@5 {overall['precision_at_5']:.3f}, "
          f"Hit@5 {overall['hit_at_5']:.3f}, MRR@5 {overall['mrr_at_5']:.3f}")
    return 0


SEARCH_COMMANDS = {"search": cmd_search, "eval": cmd_eval}
