"""Who can reach a CodeLens server, and what an exposed one may be asked to index.

The page shows every indexed file, and its index tab indexes any path it is given. On loopback
only this machine's users reach it; on any other address (`make run HOST=0.0.0.0`) anyone on the
network does, so there the page warns, and it indexes only the sources the operator chose: the
index's own recorded source, the demo, and the folders in CODELENS_ALLOWED_ROOTS.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from codelens.errors import BadInput
from codelens.settings import environment_value, setting_row

ALLOWED_ROOTS_VARIABLE = setting_row("allowed_roots").env
# The token's variables by name (codelens/tokens.py imports this module; tests/test_exposure.py checks the names).
EXPOSED_WARNING = ("CodeLens is listening on {address}: the page opens only with the team token (CODELENS_TOKEN_FILE "
                   "or CODELENS_TOKEN), and anyone who can reach this address and holds it can read every indexed "
                   "file. Use HOST=127.0.0.1 (the default) to keep it on this machine.")
# What `make run HOST=...` (the Makefile, in shell) and `codelens app --host` print before the page starts.
START_EXPOSED_WARNING = ("serving on {address}: the page asks for the team token (set CODELENS_TOKEN_FILE=FILE or "
                         "CODELENS_TOKEN), and anyone who can reach it and holds the token can read the indexed code")
SERVER_EXPOSED_WARNING = ("CodeLens is listening on {address}: anyone who can reach this address and holds the "
                          "team token can read every indexed file. Use --host 127.0.0.1 (the default) to keep it "
                          "on this machine.")


def is_loopback(address: str) -> bool:
    """True for addresses only this machine reaches. "" and 0.0.0.0 / :: mean every interface."""
    host = address.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name or "": not provably local
        return False


def allowed_roots(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The folders CODELENS_ALLOWED_ROOTS names (os.pathsep-separated), resolved."""
    return list(environment_value("allowed_roots", environ) or ())


def check_index_source(requested: Path, exposed: bool, configured: Iterable[Path | None],
                       roots: Iterable[Path] = ()) -> Path:
    """The source to index, resolved; BadInput when an exposed server is asked for anything but a
    configured source or a path inside an allowed root (symlinks resolved first, so a link
    inside a root cannot lead out of it)."""
    target = requested.expanduser().resolve()
    if not exposed:
        return target
    if any(source is not None and target == source.expanduser().resolve() for source in configured):
        return target
    if any(target == root or target.is_relative_to(root) for root in roots):
        return target
    raise BadInput(f"{requested}: this page is reachable from the network, so it indexes only the configured "
                   f"source or folders listed in {ALLOWED_ROOTS_VARIABLE} (separated by '{os.pathsep}')")
