"""What every command shares: the index flags, the Settings they make, the exit-code help, a hit's line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from codelens.locations import locate_index
from codelens.search.matched import relevance_text
from codelens.settings import Settings, setting_row

EXIT_CODES_HELP = """exit codes: 0 ok, 1 error, 2 no index, 3 bad source, 4 bad --db,
5 model mismatch, 6 bad input file or unknown name, 7 LLM endpoint failed, 64 usage error"""


def program_name(argv0: str | None = None) -> str:
    """The program as it was started, for usage lines: `codelens` (the console script),
    `python -m codelens` (the module: argv[0] is its `__main__.py`), `index.py` (a script)."""
    path = PurePath(sys.argv[0] if argv0 is None else argv0)
    if path.name == "__main__.py":
        return f"python -m {path.parent.name}"
    return path.name or "codelens"


def add_setting_arguments(parser: argparse.ArgumentParser, *names: str,
                          extra: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """The flags of these settings as their rows declare them (settings.SETTING_ROWS); `extra`:
    more argparse options by setting (the English models' keys, known above the settings)."""
    for name in names:
        row = setting_row(name)
        parser.add_argument(row.flag, **{"default": None, **row.options, **(extra or {}).get(name, {})},
                            help=row.help)


def add_location_arguments(parser: argparse.ArgumentParser) -> None:
    add_setting_arguments(parser, "db_path", "collection", "chroma_url")


def hit_line(hit: dict) -> str:
    """One search hit (`Hit.to_row()`, or a row from `codelens serve`) as the CLI prints it: its
    relevance, or (no vector: no relevance) how it was found. A server of an older version sends
    neither language nor matched."""
    found = relevance_text(hit.get("relevance"), hit.get("matched", ""))
    language = f"{hit['language']}, " if hit.get("language") and hit["language"] != hit["kind"] else ""
    return (f"{hit['rank']}. {hit['path']}:{hit['start_line']}-{hit['end_line']}  {hit['symbol']}  "
            f"[{language}{hit['kind']}]  {found}")


def add_model_argument(parser: argparse.ArgumentParser) -> None:
    add_setting_arguments(parser, "model")


def add_common(parser: argparse.ArgumentParser) -> None:
    """The flags of every command that opens an index: where it is, and which model."""
    add_location_arguments(parser)
    add_model_argument(parser)


def settings_of(args: argparse.Namespace) -> Settings:
    """Defaults, then the environment, then the flags that were given (Settings.resolve). The
    index is the one codelens/locations.py finds: --db, CODELENS_DB, ./chroma_db, else the project
    around the working directory."""
    location = locate_index(getattr(args, "db", None))
    return Settings.resolve(vars(args)).with_overrides(db_path=location.index_dir, project=location.project)
