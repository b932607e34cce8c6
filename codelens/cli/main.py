"""Command line: `python -m codelens COMMAND ...`; `python index.py` is `index`.

Library exceptions become one-line messages and exit codes here, at the edge.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import codelens.search.sidecars  # noqa: F401  (registers the index's sidecars before any command runs)
from codelens.cli.access import add_access_arguments, team_token_of
from codelens.cli.agents import AGENT_COMMANDS, add_agent_command
from codelens.cli.app import add_app_command, app_commands
from codelens.cli.ask import add_ask_command, cmd_ask
from codelens.cli.common import EXIT_CODES_HELP, add_common, add_setting_arguments, settings_of
from codelens.cli.context import CONTEXT_COMMANDS, add_context_commands
from codelens.cli.graph import GRAPH_COMMANDS, add_graph_commands
from codelens.cli.search import add_search_arguments, hit_count, print_hits, search_request
from codelens.cli.setup import SETUP_COMMANDS, add_setup_command
from codelens.errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, BadInput, CodeLensError
from codelens.locations import current_repository
from codelens.mcp.cli import MCP_COMMANDS, add_mcp_command
from codelens.models import ENGLISH_MODEL_KEYS
from codelens.search.limits import MAX_K
from codelens.settings import DEFAULT_DB, Settings, default_source, environment_value

# A disk or quota that is full, or a file size limit: the run stops, nothing is lost (index/folder.py).
_WRITE_FAILURES = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


class UsageParser(argparse.ArgumentParser):
    """argparse exits 2 on a usage error, the code that means "no index" here: use EXIT_USAGE."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(prog: str | None = None, index_prog: str | None = None) -> argparse.ArgumentParser:
    """Every command's flags; `prog`: the program's name in usage lines (default: as it was started);
    `index_prog`: the index command's own (`index.py`, which is that command without its word)."""
    from codelens.cli.common import program_name

    parser = UsageParser(
        prog=prog or program_name(),
        description="CodeLens: semantic code search in Python, TypeScript, Go, Java and more (Russian and English).",
        epilog=EXIT_CODES_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_index_arguments(commands.add_parser(
        "index", help="index a codebase (zip or folder) into --db", **({"prog": index_prog} if index_prog else {}),
        description="Chunk every function, method, class and module block, and the docs, configuration "
                    "and build files, embed, store."))

    search = commands.add_parser("search", help="search the index", description="Search the index.")
    add_search_arguments(search)
    add_common(search)

    evaluate = commands.add_parser("eval", help="run a questions file, write results.json",
                                   description="Precision@5 evaluation over a questions file.")
    evaluate.add_argument("--questions", type=Path, default=Path("eval_questions.json"))
    evaluate.add_argument("--out", type=Path, default=Path("results.json"))
    evaluate.add_argument("-k", type=hit_count, default=5, help=f"hits per question, 1 to {MAX_K} (default 5)")
    add_common(evaluate)

    serve = commands.add_parser(
        "serve", help="keep the index and models loaded on localhost; `search` then answers at once",
        description="A resident search process on 127.0.0.1: `python -m codelens search` uses it while it "
                    "runs and searches in-process when it does not. Ctrl-C or SIGTERM stops it. With --host "
                    "on another address it serves a team: every request needs the team token (--token-file).")
    serve.add_argument("--port", type=int, default=0, help="port (default: any free one)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only; any other needs a token)")
    add_access_arguments(serve)
    serve.add_argument("--stop", action="store_true", help="stop the server of this index (one a search started "
                                                          "in the background, or one started by hand)")
    # What a search in a repository starts (cli/project.py): builds a missing index, checks the
    # folder before every search, exits after 15 idle minutes.
    serve.add_argument("--background", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--project", type=Path, default=None, help=argparse.SUPPRESS)
    add_watch_argument(serve)
    add_common(serve)

    repos = commands.add_parser("repos", help="list the indexes on this machine (repository, size, last update)",
                                description="Every index kept in the user cache: the repository or folder it "
                                            "indexes, its size on disk, when it was last updated, whether a "
                                            "server is running for it.")
    repos.add_argument("--json", action="store_true")
    forget = commands.add_parser("forget", help="delete the index of a repository (stops its server first)",
                                 description="Delete the index kept in the user cache for PATH (default: the "
                                             "repository around the working directory).")
    forget.add_argument("path", nargs="?", type=Path, default=None)

    stats = commands.add_parser("stats", help="show what the index holds")
    stats.add_argument("--json", action="store_true")
    add_common(stats)
    add_ask_command(commands)
    add_graph_commands(commands)
    add_context_commands(commands)
    add_mcp_command(commands)
    add_agent_command(commands)
    add_setup_command(commands)
    add_app_command(commands)
    return parser


def add_index_arguments(parser: argparse.ArgumentParser, positional: bool = True) -> None:
    if positional:
        parser.add_argument("path", nargs="?", type=Path, default=None,
                            help="the repository, folder, zip or workspace file (a .toml with [workspace]: "
                                 "docs/repositories.md) to index (the same as --source)")
    parser.add_argument("--source", type=Path, default=None,
                        help="zip file or folder to index (default: the repository around the working "
                             "directory; for index.py and an index in --db or ./chroma_db: the source it "
                             "was built from, else ./codebase_python.zip, else ../shared/codebase_python.zip, "
                             "else CodeLens's own codelens/ package)")
    parser.add_argument("--full", action="store_true",
                        help="rebuild from scratch instead of updating only what changed")
    add_setting_arguments(parser, "batch_size", "max_file_bytes", "show_progress", "ray_address", "ray_worker_cpus",
                          "english_model", extra={"english_model": {"choices": ENGLISH_MODEL_KEYS}})
    parser.add_argument("--watch", action="store_true",
                        help="after indexing, keep the index fresh: every save under a folder source is "
                             "searchable within seconds (Ctrl-C stops)")
    add_common(parser)


def add_watch_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-watch", dest="watch", action="store_false",
                        help="do not follow changes to the indexed folder (watched by default; a zip never is)")


def cmd_index(args: argparse.Namespace) -> int:
    from codelens.index.build import build_index
    from codelens.workspace_file import is_workspace_file

    given = getattr(args, "path", None)
    if given is not None and args.source is not None and given != args.source:
        raise BadInput(f"two sources: {given} and --source {args.source} - give one")
    args.source = args.source or given
    settings = settings_of(args)
    if settings.project is not None:  # no --db: the index of the project being indexed
        settings = _project_index_settings(settings, args.source)
        source = args.source or settings.project
    else:
        source = args.source or default_source()
    if source is None:  # a clone anywhere else: CodeLens's own package is the demo
        from codelens.app.self_demo import own_source

        source = own_source()
        print(f"No codebase_python.zip here or in ../shared: indexing CodeLens's own source ({source}) "
              "as the demo - search CodeLens itself. Pass --source ZIP_OR_FOLDER for your code.", flush=True)
    if args.watch and not Path(source).is_dir() and not is_workspace_file(Path(source)):
        raise BadInput(f"--watch needs a folder source or a workspace file, {source} is a zip - pass --source FOLDER")
    stats = build_index(source, settings, full=args.full)
    if settings.project is not None and is_workspace_file(Path(source)):  # searches in its repositories find it
        from codelens.locations import remember_workspace_file
        from codelens.workspace_file import load_workspace_file

        remember_workspace_file(Path(source), [entry.path for entry in load_workspace_file(Path(source)).folders])
    print(format_summary(stats, settings.index_dir), flush=True)
    if args.watch:
        watch_forever(settings, Path(source))
    return 0


def _project_index_settings(settings: Settings, source: Path | None) -> Settings:
    """`codelens index [PATH]` with no --db: PATH's own index in the user cache (or the index of
    the project around the working directory), never a home folder or / by accident."""
    from dataclasses import replace

    from codelens.locations import index_for, is_too_broad

    project = Path(source).expanduser().resolve() if source is not None else settings.project
    if source is None and is_too_broad(project):
        raise BadInput(f"{project} is not inside a repository - cd into one, or run: codelens index PATH")
    return replace(settings, db_path=index_for(project), project=project)


_FILE_KIND_LABELS = (("doc", "Docs"), ("config", "Config"), ("text", "Text"))


def watch_forever(settings: Settings, source: Path) -> None:
    """`index.py --watch`: follow the folder just indexed (not a path an earlier run recorded)
    until Ctrl-C, one line per update."""
    from codelens.index.watch import watcher_for

    watcher, line = watcher_for(settings, on_update=lambda result: print(update_line(result), flush=True),
                                source=source)
    print(f"{line} - Ctrl-C stops", flush=True)
    if watcher is not None:
        watcher.run()


def update_line(result) -> str:
    if result.mode == "unchanged":
        return "up to date: nothing changed"
    line = (f"{result.mode}: {result.files} files in {result.duration_s:.1f} s (updated {result.upserted}, "
            f"deleted {result.deleted}, embedded {result.embedded})")
    return line + "".join(f"\n  warning: {w}" for w in result.warnings)


def format_summary(stats, db_path: Path, check_fresh: bool = False, languages: dict | None = None) -> str:
    """What an index holds; `check_fresh` (stats) lists every repository, with its freshness now;
    `languages` (stats: `language_counts`) its files and chunks per language."""
    from codelens.index.progressive import coverage_line
    from codelens.index.test_vectors import pending_tests_line

    kinds = stats.chunks_per_kind
    lines = [
        "INDEXING COMPLETE",
        f"Files processed:  {stats.files}      Total chunks indexed: {stats.total_chunks}",
        f"  Functions: {kinds['function']}  Methods: {kinds['method']}  "
        f"Classes: {kinds['class']}  Modules: {kinds['module']}"
        + "".join(f"  {label}: {kinds[kind]}" for kind, label in _FILE_KIND_LABELS if kinds.get(kind)),
        f"Vector DB stored at: {stats.chroma_url or db_path}   Model: {stats.model}   "
        f"Time: {stats.duration_s:.1f} s",
    ]
    if languages:
        from codelens.search.filters import language_summary

        lines.append(f"Languages: {language_summary(languages)}")
    lines.append(coverage_line(stats))
    if stats.test_coverage < 1.0:
        lines.append(pending_tests_line(stats, db_path))
    lines.extend(repository_lines(stats, db_path, check_fresh))
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


def repository_lines(stats, db_path: Path, check_fresh: bool = False) -> list[str]:
    """Each repository with its files, chunks and last update, and (`check_fresh`) how many of its
    files differ from the disk now. An index run's summary leaves out a workspace of one (the
    lines above say it all) and the freshness check (it has just read every file)."""
    from codelens.index.fresh import freshness_text, repository_status
    from codelens.workspace import Workspace

    if not check_fresh and Workspace.from_json(stats.repositories, stats.source).is_single:
        return []
    rows = repository_status(db_path, stats, check=check_fresh)
    return [f"Repositories: {len(rows)}",
            *(f"  {r['name']}: {r['files']} files, {r['chunks']} chunks, updated {r['updated_at'] or 'unknown'}"
              + (f", {freshness_text(r)}" if check_fresh else "") for r in rows)]


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


def cmd_serve(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from codelens.serve.server import serve

    settings = settings_of(args)
    if args.stop:
        from codelens.serve.lifetime import stop_server

        pid = stop_server(settings.index_dir, settings.chroma_url)
        print(f"stopped the server of {settings.index_dir} (process {pid})" if pid
              else f"no server is running for {settings.index_dir}")
        return 0
    if args.project is not None:
        settings = replace(settings, project=args.project.resolve())
    token = team_token_of(args, args.host)  # before the models load: a missing token fails at once
    serve(settings, port=args.port, on_ready=lambda line: print(line, flush=True), watch=args.watch,
          background=args.background, host=args.host, team_token=token)
    return 0


def cmd_repos(args: argparse.Namespace) -> int:
    from codelens.cli.user_indexes import list_indexes

    indexes = list_indexes()
    if args.json:
        print(json.dumps([entry.to_json() for entry in indexes], ensure_ascii=False, indent=2))
        return 0
    if not indexes:
        print("no indexes yet: run codelens search or codelens index inside a repository")
    for entry in indexes:
        print(entry.line())
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from codelens.cli.user_indexes import forget_index

    target = args.path
    if target is None:
        settings = settings_of(args)
        if settings.project is None:
            raise BadInput(f"the index here is {settings.index_dir}, not one kept in the user cache - "
                           "delete that folder yourself, or pass the repository: codelens forget PATH")
        target = settings.project
    removed = forget_index(target)
    print(f"deleted the index of {target.resolve()} ({removed})")
    return 0


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


def cmd_stats(args: argparse.Namespace) -> int:
    from codelens.index.metadata import read_stats

    settings = settings_of(args)
    stats = read_stats(settings.index_dir)
    if args.json:
        from dataclasses import asdict

        from codelens.index.fresh import repository_status
        from codelens.index.watch import read_watch_status

        status = read_watch_status(settings.index_dir)
        # the metadata's repositories, each with its counts and its freshness now (a superset)
        repositories = repository_status(settings.index_dir, stats)
        print(json.dumps({**stats.to_json(), "repositories": repositories, "watch": asdict(status) if status else None,
                          "languages": indexed_languages(settings.index_dir)}, ensure_ascii=False, indent=2))
    else:
        print(format_summary(stats, settings.index_dir, check_fresh=True, languages=indexed_languages(
            settings.index_dir)).replace("INDEXING COMPLETE", "INDEX"))
        print(watch_line(settings.index_dir))
    return 0


def indexed_languages(index_dir: Path) -> dict[str, dict[str, int]]:
    """Files and chunks per language, from the index's chunk catalog (counted when asked, not
    recorded in index_metadata.json); empty for an index written before catalogs."""
    from codelens.index.progressive import load_catalog
    from codelens.search.filters import language_counts

    try:
        return language_counts(entry.chunk for entry in load_catalog(index_dir))
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def watch_line(index_dir: Path) -> str:
    """What a watcher of this index is doing, or that none is."""
    from codelens.index.watch import read_watch_status

    status = read_watch_status(index_dir)
    if status is None:
        return "Watch: not watched (codelens serve, codelens mcp, the app and index.py --watch follow a folder)"
    return status.line().replace("watch:", "Watch:", 1)


COMMANDS = {"index": cmd_index, "search": cmd_search, "eval": cmd_eval, "stats": cmd_stats, "ask": cmd_ask,
            "serve": cmd_serve, "repos": cmd_repos, "forget": cmd_forget}
COMMANDS.update(GRAPH_COMMANDS)
COMMANDS.update(CONTEXT_COMMANDS)
COMMANDS.update(MCP_COMMANDS)
COMMANDS.update(AGENT_COMMANDS)
COMMANDS.update(SETUP_COMMANDS)
COMMANDS.update(app_commands(run_cli=lambda argv: main(argv)))


def main(argv: Sequence[str] | None = None, index_prog: str | None = None) -> int:
    args = build_parser(index_prog=index_prog).parse_args(argv)
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
        # Before `except OSError` (its base class), or this never runs. stdout goes to /dev/null so
        # the interpreter's flush at exit does not meet the closed pipe again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            raise
        print(f"error: cannot write ({exc.strerror}: {exc.filename or 'a file'}) - the index is as it was before "
              "this run and every finished batch is kept; free some space and run it again", file=sys.stderr)
        return EXIT_ERROR


def index_main(argv: Sequence[str] | None = None) -> int:
    """`python index.py [flags]`: the index command without the word, into ./chroma_db unless
    --db or CODELENS_DB says otherwise (the checkout's contract)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    from codelens.cli.common import program_name

    explicit = any(a == "--db" or a.startswith("--db=") for a in arguments) or environment_value("db_path")
    return main(["index", *([] if explicit else ["--db", DEFAULT_DB]), *arguments], index_prog=program_name())
