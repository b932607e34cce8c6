"""The team token: where a server gets it, when it must have one, how a request's is checked.

On loopback only this machine's users reach `serve`, `mcp --http` and the app; on any other
address anyone on the network does, so there every request must carry
`Authorization: Bearer <token>`, the token an operator made once and handed to the team
(`--token-file FILE`, or the environment's CODELENS_TOKEN). A server that would listen on the
network without one refuses to start. Tokens are compared in constant time and never printed:
messages name the file or the variable, not what is in it.

Standard library only: `serve`'s client side and the app's gate import this without numpy or a model.
"""

from __future__ import annotations

import hmac
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from codelens.errors import EXIT_USAGE, CodeLensError
from codelens.exposure import is_loopback
from codelens.settings import setting_row

TOKEN_VARIABLE = "CODELENS_TOKEN"
TOKEN_FILE_VARIABLE = setting_row("token_file").env  # the app's way to a file (streamlit takes no flags of ours)
MIN_TOKEN_CHARS = 16  # secrets.token_urlsafe(32) makes 43; a short word is a password, not a token
HOW_TO_MAKE = ('python -c "import secrets; print(secrets.token_urlsafe(32))" > token && chmod 600 token, '
               "then pass --token-file token (or set CODELENS_TOKEN) and give the token to the team")
UNAUTHORIZED = "unauthorized"  # everything a request without the right token is told


class TokenError(CodeLensError):
    """No usable team token where one is required: a usage error (exit 64), with how to make one."""

    exit_code = EXIT_USAGE


def token_required(host: str, require: bool = False) -> bool:
    """Every non-loopback address needs a token; `require` (--require-token) asks for one on loopback too."""
    return require or not is_loopback(host)


def load_token(token_file: Path | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The token from `token_file`, else from CODELENS_TOKEN, else None. TokenError for a file
    others can read or write, an unreadable file, or a token too short or not one word of ASCII."""
    env = os.environ if environ is None else environ
    if token_file is not None:
        return _check(_read_token_file(Path(token_file)), str(token_file))
    if env.get(TOKEN_VARIABLE, "").strip():
        return _check(env[TOKEN_VARIABLE].strip(), TOKEN_VARIABLE)
    return None


def team_token(host: str, require: bool = False, token_file: Path | None = None,
               environ: Mapping[str, str] | None = None) -> str | None:
    """The token a server on `host` checks every request against, or None when it needs none (loopback,
    nothing asked). A token file given on loopback is still enforced: the operator asked for it."""
    needed = token_required(host, require) or token_file is not None
    token = load_token(token_file, environ) if needed else None
    if needed and token is None:
        where = "this machine (--require-token)" if is_loopback(host) else f"{host} (reachable from the network)"
        raise TokenError(f"a server on {where} needs a team token: make one with {HOW_TO_MAKE}")
    return token


def same_token(given: str | bytes | None, expected: str) -> bool:
    """Constant time in the token's content (hmac.compare_digest): a wrong guess says nothing about how
    close it came. Anything that is not text, or not encodable, is simply wrong."""
    if given is None or not expected:
        return False
    try:
        given_bytes = given if isinstance(given, bytes) else given.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return hmac.compare_digest(given_bytes, expected.encode("utf-8"))


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 6750), else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def _read_token_file(path: Path) -> str:
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IROTH | stat.S_IWOTH):  # refused, not warned: a server's warning scrolls away
            raise TokenError(f"{path} can be read or written by every user of this machine: run chmod 600 {path} "
                             "(and make a new token if others may have read it)")
        return path.read_text(encoding="utf-8").strip()
    except TokenError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(f"cannot read the token file {path} ({type(exc).__name__}): make one with "
                         f"{HOW_TO_MAKE}") from None


def _check(token: str, where: str) -> str:
    if len(token) < MIN_TOKEN_CHARS or not all("!" <= char <= "~" for char in token):
        raise TokenError(f"the token in {where} must be one word of at least {MIN_TOKEN_CHARS} printable ASCII "
                         f"characters: make one with {HOW_TO_MAKE}")
    return token
