"""Flags every command that reads or writes an index shares, and the Settings they make."""

from __future__ import annotations

import argparse

from codelens.settings import DEFAULT_DB, Settings


def add_location_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, help=f"index folder (default {DEFAULT_DB}, env CODELENS_DB)")
    parser.add_argument("--collection", default=None,
                        help="a named index in --db, for several codebases side by side "
                             "(env CODELENS_COLLECTION; default: the --db folder itself)")
    parser.add_argument("--chroma-url", default=None,
                        help="keep the vectors on a `chroma run` server, e.g. http://127.0.0.1:8000 "
                             "(env CODELENS_CHROMA_URL)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Environment first, then the flags that were given."""
    return Settings.from_env().with_overrides(
        db_path=getattr(args, "db", None), collection=getattr(args, "collection", None),
        chroma_url=getattr(args, "chroma_url", None),
    )
