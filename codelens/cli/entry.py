"""The one entry function: the `codelens` console script and `python -m codelens` run `main`.

A `search` that a running `codelens serve` can answer is answered before the full CLI (and
numpy, ChromaDB, the models) is imported; anything else goes to the full CLI (cli/main.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from codelens.cli.search import search_through_server

    arguments = list(sys.argv[1:] if argv is None else argv)
    status = search_through_server(arguments)
    if status is not None:
        return status
    from codelens.cli.main import main as full_cli

    return full_cli(arguments)
