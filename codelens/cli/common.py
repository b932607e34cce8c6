"""What every command shares: the index flags, the Settings they make, the exit-code help, a hit's line."""

from __future__ import annotations

import argparse
import sys
from pathlib import PurePath

from codelens.locations import locate_index
from codelens.search.matched import relevance_text
from codelens.settings import DEFAULT_DB, DEFAULT_MODEL, Settings

EXIT_CODES_HELP = """exit codes: 0 ok, 1 error, 2 no index, 3 bad source, 4 bad --db,
5 model mismatch, 6 bad input file or unknown name, 7 LLM endpoint failed, 64 usage error"""


def program_name(argv0: str | None = None) -> str:
    """The program as it was started, for usage lines: `codelens` (the console script),
    `python -m codelens` (the module: argv[0] is its `__main__.py`), `index.py` (a script)."""
    path = PurePath(sys.argv[0] if argv0 is None else argv0)
    if path.name == "__main__.py":
        return f"python -m {path.parent.name}"
    return path.name or "codelens"


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
    """One search hit (`Hit.to_row()`, or a row from `codelens serve`) as the CLI prints it: its
    relevance, or (no vector: no relevance) how it was found. A server of an older version sends
    neither language nor matched."""
    found = relevance_text(hit.get("relevance"), hit.get("matched", ""))
    language = f"{hit['language']}, " if hit.get("language") and hit["language"] != hit["kind"] else ""
    return (f"{hit['rank']}. {hit['path']}:{hit['start_line']}-{hit['end_line']}  {hit['symbol']}  "
            f"[{language}{hit['kind']}]  {found}")


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
