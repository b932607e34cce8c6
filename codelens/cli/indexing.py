"""The index commands: `index` (build or update an index from a zip, a folder or a workspace file,
then with --watch follow the folder) and `stats` (what an index holds: its files and chunks by kind
and language, its repositories and their freshness, its watcher, an index run under way), and the
summary both print.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from codelens.cli.common import add_common, add_setting_arguments, settings_of
from codelens.errors import BadInput
from codelens.models import ENGLISH_MODEL_KEYS
from codelens.settings import Settings, default_source


def add_index_command(commands: argparse._SubParsersAction, index_prog: str | None = None) -> None:
    """`index`; `index_prog`: its own program name (`index.py`, which is that command without its word)."""
    add_index_arguments(commands.add_parser(
        "index", help="index a codebase (zip or folder) into --db", **({"prog": index_prog} if index_prog else {}),
        description="Chunk every function, method, class and module block, and the docs, configuration "
                    "and build files, embed, store."))


def add_index_arguments(parser: argparse.ArgumentParser, positional: bool = True) -> None:
    if positional:
        parser.add_argument("path", nargs="?", type=Path, default=None,
                            help="the repository, folder, zip or workspace file (a .toml with [workspace]: "
                                 "docs/repositories.md) to index (the same as --source)")
    parser.add_argument("--source", type=Path, default=None,
                        help="zip file or folder to index (default: the repository around the working "
                             "directory; for index.py and an index in --db or ./chroma_db: the source it "
                             "was built from, else ./codebase_python.zip, else ../shared/codebase_python.zip, "
                             "else CodeLens's own codelens/ package)")
    parser.add_argument("--full", action="store_true",
                        help="rebuild from scratch instead of updating only what changed")
    add_setting_arguments(parser, "batch_size", "max_file_bytes", "show_progress", "ray_address", "ray_worker_cpus",
                          "english_model", extra={"english_model": {"choices": ENGLISH_MODEL_KEYS}})
    parser.add_argument("--watch", action="store_true",
                        help="after indexing, keep the index fresh: every save under a folder source is "
                             "searchable within seconds (Ctrl-C stops)")
    add_common(parser)


def cmd_index(args: argparse.Namespace) -> int:
    from codelens.index.build import build_index
    from codelens.workspace_file import is_workspace_file

    given = getattr(args, "path", None)
    if given is not None and args.source is not None and given != args.source:
        raise BadInput(f"two sources: {given} and --source {args.source} - give one")
    args.source = args.source or given
    settings = settings_of(args)
    if settings.project is not None:  # no --db: the index of the project being indexed
        settings = _project_index_settings(settings, args.source)
        source = args.source or settings.project
    else:
        source = args.source or default_source()
    if source is None:  # a clone anywhere else: CodeLens's own package is the demo
        from codelens.app.self_demo import own_source

        source = own_source()
        print(f"No codebase_python.zip here or in ../shared: indexing CodeLens's own source ({source}) "
              "as the demo - search CodeLens itself. Pass --source ZIP_OR_FOLDER for your code.", flush=True)
    if args.watch and not Path(source).is_dir() and not is_workspace_file(Path(source)):
        raise BadInput(f"--watch needs a folder source or a workspace file, {source} is a zip - pass --source FOLDER")
    stats = build_index(source, settings, full=args.full)
    if settings.project is not None and is_workspace_file(Path(source)):  # searches in its repositories find it
        from codelens.locations import remember_workspace_file
        from codelens.workspace_file import load_workspace_file

        remember_workspace_file(Path(source), [entry.path for entry in load_workspace_file(Path(source)).folders])
    print(format_summary(stats, settings.index_dir), flush=True)
    if args.watch:
        watch_forever(settings, Path(source))
    return 0


def _project_index_settings(settings: Settings, source: Path | None) -> Settings:
    """`codelens index [PATH]` with no --db: PATH's own index in the user cache (or the index of
    the project around the working directory), never a home folder or / by accident."""
    from dataclasses import replace

    from codelens.locations import index_for, is_too_broad

    project = Path(source).expanduser().resolve() if source is not None else settings.project
    if source is None and is_too_broad(project):
        raise BadInput(f"{project} is not inside a repository - cd into one, or run: codelens index PATH")
    return replace(settings, db_path=index_for(project), project=project)


_FILE_KIND_LABELS = (("doc", "Docs"), ("config", "Config"), ("text", "Text"))


def watch_forever(settings: Settings, source: Path) -> None:
    """`index.py --watch`: follow the folder just indexed (not a path an earlier run recorded)
    until Ctrl-C, one line per update."""
    from codelens.index.watch import watcher_for

    watcher, line = watcher_for(settings, on_update=lambda result: print(update_line(result), flush=True),
                                source=source)
    print(f"{line} - Ctrl-C stops", flush=True)
    if watcher is not None:
        watcher.run()


def update_line(result) -> str:
    if result.mode == "unchanged":
        return "up to date: nothing changed"
    line = (f"{result.mode}: {result.files} files in {result.duration_s:.1f} s (updated {result.upserted}, "
            f"deleted {result.deleted}, embedded {result.embedded})")
    return line + "".join(f"\n  warning: {w}" for w in result.warnings)


def format_summary(stats, db_path: Path, check_fresh: bool = False, languages: dict | None = None) -> str:
    """What an index holds; `check_fresh` (stats) lists every repository, with its freshness now;
    `languages` (stats: `language_counts`) its files and chunks per language."""
    from codelens.index.progressive import coverage_line
    from codelens.index.test_vectors import pending_tests_line

    kinds = stats.chunks_per_kind
    lines = [
        "INDEXING COMPLETE",
        f"Files processed:  {stats.files}      Total chunks indexed: {stats.total_chunks}",
        f"  Functions: {kinds['function']}  Methods: {kinds['method']}  "
        f"Classes: {kinds['class']}  Modules: {kinds['module']}"
        + "".join(f"  {label}: {kinds[kind]}" for kind, label in _FILE_KIND_LABELS if kinds.get(kind)),
        f"Vector DB stored at: {stats.chroma_url or db_path}   Model: {stats.model}   "
        f"Time: {stats.duration_s:.1f} s",
    ]
    if languages:
        from codelens.search.filters import language_summary

        lines.append(f"Languages: {language_summary(languages)}")
    lines.append(coverage_line(stats))
    if stats.test_coverage < 1.0:
        lines.append(pending_tests_line(stats, db_path))
    lines.extend(repository_lines(stats, db_path, check_fresh))
    run = stats.run or {}
    if run:
        lines.append(f"Run: {run.get('mode')}  embedded: {run.get('embedded', 0)}  "
                     f"updated: {run.get('upserted', 0)}  deleted: {run.get('deleted', 0)}  "
                     f"unchanged: {run.get('unchanged', 0)}")
    if stats.secrets_masked:
        masked = ", ".join(f"{kind} {count}" for kind, count in stats.secrets_masked.items())
        lines.append(f"Secrets masked: {sum(stats.secrets_masked.values())} ({masked})")
    if stats.warnings:
        lines.append(f"Warnings: {len(stats.warnings)} (see index_metadata.json)")
        lines.extend(f"  - {w}" for w in stats.warnings[:10])
    return "\n".join(lines)


def repository_lines(stats, db_path: Path, check_fresh: bool = False) -> list[str]:
    """Each repository with its files, chunks and last update, and (`check_fresh`) how many of its
    files differ from the disk now. An index run's summary leaves out a workspace of one (the
    lines above say it all) and the freshness check (it has just read every file)."""
    from codelens.index.fresh import freshness_text, repository_status
    from codelens.workspace import Workspace

    if not check_fresh and Workspace.from_json(stats.repositories, stats.source).is_single:
        return []
    rows = repository_status(db_path, stats, check=check_fresh)
    return [f"Repositories: {len(rows)}",
            *(f"  {r['name']}: {r['files']} files, {r['chunks']} chunks, updated {r['updated_at'] or 'unknown'}"
              + (f", {freshness_text(r)}" if check_fresh else "") for r in rows)]


def add_stats_command(commands: argparse._SubParsersAction) -> None:
    stats = commands.add_parser("stats", help="show what the index holds")
    stats.add_argument("--json", action="store_true")
    add_common(stats)


def cmd_stats(args: argparse.Namespace) -> int:
    from codelens.index.metadata import read_stats
    from codelens.index.progress import read_run_progress
    from codelens.locations import IndexNotFound

    settings = settings_of(args)
    running = read_run_progress(settings.index_dir)  # an index run under way: its stage, share and time left
    try:
        stats = read_stats(settings.index_dir)
    except IndexNotFound:
        if running is None:
            raise
        # a first run before its first swap: there is no index yet, only the run building it
        print(json.dumps({"index_run": running.to_json()}, indent=2) if args.json else
              f"No index in {settings.index_dir} yet.\n{running.line()}")
        return 0
    if args.json:
        from dataclasses import asdict

        from codelens.index.fresh import repository_status
        from codelens.index.watch import read_watch_status

        status = read_watch_status(settings.index_dir)
        # the metadata's repositories, each with its counts and its freshness now (a superset)
        repositories = repository_status(settings.index_dir, stats)
        print(json.dumps({**stats.to_json(), "repositories": repositories, "watch": asdict(status) if status else None,
                          "languages": indexed_languages(settings.index_dir),
                          "index_run": running.to_json() if running else None}, ensure_ascii=False, indent=2))
    else:
        print(format_summary(stats, settings.index_dir, check_fresh=True, languages=indexed_languages(
            settings.index_dir)).replace("INDEXING COMPLETE", "INDEX"))
        print(watch_line(settings.index_dir))
        if running is not None:
            print(running.line())
    return 0


def indexed_languages(index_dir: Path) -> dict[str, dict[str, int]]:
    """Files and chunks per language, from the index's chunk catalog (counted when asked, not
    recorded in index_metadata.json); empty for an index written before catalogs."""
    from codelens.index.progressive import load_catalog
    from codelens.search.filters import language_counts

    try:
        return language_counts(entry.chunk for entry in load_catalog(index_dir))
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def watch_line(index_dir: Path) -> str:
    """What a watcher of this index is doing, or that none is."""
    from codelens.index.watch import read_watch_status

    status = read_watch_status(index_dir)
    if status is None:
        return "Watch: not watched (codelens serve, codelens mcp, the app and index.py --watch follow a folder)"
    return status.line().replace("watch:", "Watch:", 1)


INDEX_COMMANDS = {"index": cmd_index, "stats": cmd_stats}
