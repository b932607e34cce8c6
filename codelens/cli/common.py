"""What every command shares: the index flags, the Settings they make, the exit-code help, a hit's line."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from codelens.locations import locate_index
from codelens.settings import Settings, setting_row

EXIT_CODES_HELP = """exit codes: 0 ok, 1 error, 2 no index, 3 bad source, 4 bad --db,
5 model mismatch, 6 bad input file or unknown name, 7 LLM endpoint failed, 64 usage error"""


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
    """One search hit (`Hit.to_row()`, or a row from `codelens serve`) as the CLI prints it."""
    return (f"{hit['rank']}. {hit['path']}:{hit['start_line']}-{hit['end_line']}  {hit['symbol']}  "
            f"[{hit['kind']}]  {hit['relevance']:.1f}%")


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
