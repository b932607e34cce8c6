"""The team-access flags `serve` and `mcp --http` share, and the token they make (codelens/tokens.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from codelens.tokens import TOKEN_VARIABLE, team_token


def add_access_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token-file", type=Path, default=None, metavar="FILE",
                        help=f"the team token (one line; env {TOKEN_VARIABLE} instead): required on any address "
                             "but loopback, where every request must then send 'Authorization: Bearer <token>'; "
                             "the file must not be readable by other users")
    parser.add_argument("--require-token", action="store_true",
                        help="require the team token on loopback too (a machine shared with other users)")


def team_token_of(args: argparse.Namespace, host: str) -> str | None:
    """The token the server checks, or None (loopback, none asked); TokenError (exit 64) says how to make one."""
    return team_token(host, require=args.require_token, token_file=args.token_file)
