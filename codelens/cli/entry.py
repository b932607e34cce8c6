"""The one entry function: the `codelens` console script and `python -m codelens` run `main`.

A `search` that a running `codelens serve` can answer is answered before the full CLI (and
numpy, ChromaDB, the models) is imported; anything else goes to the full CLI (cli/main.py).
A command a user waits on then ends its process at once (`end_process`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Sequence

# Commands a user waits on: they read an index (a search may bring it up to date first, and
# closes what it wrote before it answers). Index runs, servers and the app end as usual.
WAITED_ON = frozenset({"search", "context", "impact", "callers", "callees", "deps", "map", "stats", "repos", "ask"})


def main(argv: Sequence[str] | None = None) -> int:
    from codelens.cli.search import search_through_server

    arguments = list(sys.argv[1:] if argv is None else argv)
    status = search_through_server(arguments)
    if status is None:
        from codelens.cli.main import main as full_cli

        status = full_cli(arguments)
    if arguments and arguments[0] in WAITED_ON:
        end_process(status)
    return status


def end_process(status: int) -> None:
    """Exit now, without the interpreter's teardown: it frees an opened index object by object
    (a SymPy index's 47k chunks, their fields, the keyword index: ~0.3 s of a fresh `context`),
    memory the system takes back whole. The exit handlers run first, and the output is flushed.
    Returns (the process then ends as usual) while another non-daemon thread runs: Python waits
    for it, and so must this."""
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)  # CPython's; elsewhere the usual exit
    working = any(not t.daemon and t is not threading.main_thread() for t in threading.enumerate())  # alive ones
    if run_exit_handlers is None or working:
        return
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            stream.flush()
    os._exit(status)
