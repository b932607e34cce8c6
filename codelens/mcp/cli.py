"""The `mcp` command (wired into codelens.cli.main); the SDK loads only when the command runs."""

from __future__ import annotations

import argparse

from codelens.cli.access import add_access_arguments, team_token_of
from codelens.cli.common import add_location_arguments, settings_of


def add_mcp_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "mcp", help="serve the index to coding agents and editors over MCP (stdio, or --http PORT)",
        description="A Model Context Protocol server over the index: search, get_chunk, callers, callees, "
                    "deps, code_map, index_status, and ask when an LLM endpoint is configured. Read-only "
                    "unless --allow-reindex.")
    add_location_arguments(parser)
    parser.add_argument("--http", type=_port, default=None, metavar="PORT",
                        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address for --http (default 127.0.0.1: this machine only)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="with --host: a host name or address clients use to reach this server (repeatable); "
                             "requests naming any other host are refused (DNS-rebinding protection)")
    parser.add_argument("--allow-reindex", action="store_true",
                        help="add a reindex tool; it re-indexes only the source recorded in the index")
    add_access_arguments(parser)
    parser.add_argument("--no-watch", dest="watch", action="store_false",
                        help="do not follow changes to the indexed folder (watched by default; a zip never is)")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {text!r}")
    return value


def cmd_mcp(args: argparse.Namespace) -> int:
    from codelens.mcp.server import serve

    # over stdio nobody else can reach the server: a token matters only for --http
    token = team_token_of(args, args.host) if args.http is not None else None
    return serve(settings_of(args), http_port=args.http, host=args.host, allow_reindex=args.allow_reindex,
                 allowed_hosts=tuple(args.allow_host), watch=args.watch, team_token=token)


MCP_COMMANDS = {"mcp": cmd_mcp}
