"""The `serve` command: a resident search process for one index (on 127.0.0.1, or a team's
address with its token), the one a search in a repository starts in the background, and --stop.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from codelens.cli.access import add_access_arguments, team_token_of
from codelens.cli.common import add_common, settings_of


def add_serve_command(commands: argparse._SubParsersAction) -> None:
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


def add_watch_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-watch", dest="watch", action="store_false",
                        help="do not follow changes to the indexed folder (watched by default; a zip never is)")


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


SERVE_COMMANDS = {"serve": cmd_serve}
