import sys

from codelens.cli.search import search_through_server

# `search` with a running `codelens serve` answers before the full CLI (and numpy) is imported.
status = search_through_server(sys.argv[1:])
if status is None:
    from codelens.cli.main import main

    status = main()
raise SystemExit(status)
