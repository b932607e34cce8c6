"""Command line: `python -m codelens COMMAND ...`; `python index.py` is `index`.

The parser of every command group (each module of codelens/cli/ adds its commands and names their
handlers), and `main`, which runs one: library exceptions become one-line messages and exit codes
here, at the edge.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import codelens.search.sidecars  # noqa: F401  (registers the index's sidecars before any command runs)
from codelens.cli.agents import AGENT_COMMANDS, add_agent_command
from codelens.cli.app import add_app_command, app_commands
from codelens.cli.ask import add_ask_command, cmd_ask
from codelens.cli.common import EXIT_CODES_HELP
from codelens.cli.context import CONTEXT_COMMANDS, add_context_commands
from codelens.cli.graph import GRAPH_COMMANDS, add_graph_commands
from codelens.cli.indexing import INDEX_COMMANDS, add_index_command, add_stats_command
from codelens.cli.search import SEARCH_COMMANDS, add_eval_command, add_search_command
from codelens.cli.serve import SERVE_COMMANDS, add_serve_command
from codelens.cli.setup import SETUP_COMMANDS, add_setup_command
from codelens.cli.user_indexes import USER_INDEX_COMMANDS, add_user_index_commands
from codelens.errors import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CodeLensError
from codelens.mcp.cli import MCP_COMMANDS, add_mcp_command
from codelens.settings import DEFAULT_DB, environment_value

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
    add_index_command(commands, index_prog)
    add_search_command(commands)
    add_eval_command(commands)
    add_serve_command(commands)
    add_user_index_commands(commands)
    add_stats_command(commands)
    add_ask_command(commands)
    add_graph_commands(commands)
    add_context_commands(commands)
    add_mcp_command(commands)
    add_agent_command(commands)
    add_setup_command(commands)
    add_app_command(commands)
    return parser


COMMANDS = {**INDEX_COMMANDS, **SEARCH_COMMANDS, **SERVE_COMMANDS, **USER_INDEX_COMMANDS, "ask": cmd_ask,
            **GRAPH_COMMANDS, **CONTEXT_COMMANDS, **MCP_COMMANDS, **AGENT_COMMANDS, **SETUP_COMMANDS,
            **app_commands(run_cli=lambda argv: main(argv))}


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
