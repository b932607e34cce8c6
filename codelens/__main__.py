"""`python -m codelens ...`: the same entry as the `codelens` command."""

from codelens.cli.entry import main

if __name__ == "__main__":
    raise SystemExit(main())
