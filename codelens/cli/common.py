"""What every command shares: the index flags, the Settings they make, the exit-code help, a hit's line."""

from __future__ import annotations

import argparse

from codelens.locations import locate_index
from codelens.settings import DEFAULT_DB, DEFAULT_MODEL, Settings

EXIT_CODES_HELP = """exit codes: 0 ok, 1 error, 2 no index, 3 bad source, 4 bad --db,
5 model mismatch, 6 bad input file or unknown name, 7 LLM endpoint failed, 64 usage error"""


def add_location_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None,
                        help=f"index folder (env CODELENS_DB; default: {DEFAULT_DB} when it holds an index, "
                             "else the index of the repository around the working directory, kept in the user "
                             "cache)")
    parser.add_argument("--collection", default=None,
                        help="a named index in --db, for several codebases side by side "
                             "(env CODELENS_COLLECTION; default: the --db folder itself)")
    parser.add_argument("--chroma-url", default=None,
                        help="keep the vectors on a `chroma run` server, e.g. http://127.0.0.1:8000 "
                             "(env CODELENS_CHROMA_URL)")


def hit_line(hit: dict) -> str:
    """One search hit (`Hit.to_row()`, or a row from `codelens serve`) as the CLI prints it."""
    return (f"{hit['rank']}. {hit['path']}:{hit['start_line']}-{hit['end_line']}  {hit['symbol']}  "
            f"[{hit['kind']}]  {hit['relevance']:.1f}%")


def add_model_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default=None,
                        help=f"embedding model: {DEFAULT_MODEL} (default) or st:NAME_OR_PATH")


def add_common(parser: argparse.ArgumentParser) -> None:
    """The flags of every command that opens an index: where it is, and which model."""
    add_location_arguments(parser)
    add_model_argument(parser)


def settings_of(args: argparse.Namespace) -> Settings:
    """Defaults, then the environment, then the flags that were given. Without --db or
    CODELENS_DB the index is the one codelens/locations.py finds from the working directory."""
    location = locate_index(getattr(args, "db", None))
    settings = Settings.from_env().with_overrides(
        db_path=location.index_dir, collection=getattr(args, "collection", None),
        chroma_url=getattr(args, "chroma_url", None), project=location.project,
    )
    if getattr(args, "batch_size", None):
        settings = settings.with_overrides(batch_size=args.batch_size)
    if getattr(args, "quiet", False):
        settings = settings.with_overrides(show_progress=False)
    if getattr(args, "max_file_kb", None):
        settings = settings.with_overrides(max_file_bytes=args.max_file_kb * 1000)
    if getattr(args, "ray", None):
        settings = settings.with_overrides(ray_address=args.ray, ray_worker_cpus=args.ray_worker_cpus)
    if getattr(args, "model", None):
        settings = settings.with_overrides(model=args.model)
    if getattr(args, "english_model", None):
        settings = settings.with_overrides(english_model=args.english_model)
    return settings
