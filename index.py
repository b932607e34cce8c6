"""Index a codebase: `python index.py [--source ZIP_OR_DIR] [--db PATH]`."""

from codelens.cli.main import index_main

if __name__ == "__main__":
    raise SystemExit(index_main())
