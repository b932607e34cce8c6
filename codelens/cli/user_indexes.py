"""The `repos` and `forget` commands: the indexes kept in the user cache (codelens/locations.py),
which `codelens repos` lists and `codelens forget PATH` deletes one of, with everything beside it
(lock, caches, status, log)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from codelens.cli.common import settings_of
from codelens.errors import BadInput
from codelens.locations import METADATA_NAME, cache_root, has_index, index_for, indexes_root, project_root


@dataclass(frozen=True)
class KnownIndex:
    index_dir: str
    source: str  # the repository, folder or zip it indexes
    files: int
    chunks: int
    size_bytes: int
    last_update: str  # ISO time the index was last written
    served_by: int  # pid of its running server, 0 when none
    exists: bool  # whether the source is still on disk

    def to_json(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        gone = "" if self.exists else "  (source gone: codelens forget it)"
        served = f"  served by pid {self.served_by}" if self.served_by else ""
        return (f"{self.source}\n    {self.files} files, {self.chunks} chunks, {_size(self.size_bytes)}, "
                f"updated {self.last_update}{served}{gone}\n    {self.index_dir}")


def list_indexes() -> list[KnownIndex]:
    """Every index under the user cache, by source path."""
    from codelens.serve.lifetime import holder_pid

    root = indexes_root()
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not has_index(folder):
            continue
        try:
            meta = json.loads((folder / METADATA_NAME).read_text(encoding="utf-8"))
            written = (folder / METADATA_NAME).stat().st_mtime
        except (OSError, ValueError):
            continue
        source = str(meta.get("source", ""))
        found.append(KnownIndex(
            index_dir=str(folder), source=source, files=int(meta.get("files", 0) or 0),
            chunks=int(meta.get("total_chunks", 0) or 0), size_bytes=_folder_size(folder),
            last_update=datetime.fromtimestamp(written, UTC).isoformat(timespec="seconds"),
            served_by=holder_pid(folder) or 0, exists=bool(source) and Path(source).exists()))
    return sorted(found, key=lambda entry: entry.source)


def forget_index(path: Path) -> str:
    """Delete the user-cache index of the project at (or around) `path`; what was deleted."""
    from codelens.serve.lifetime import stop_server

    index_dir = _index_of(path)
    stop_server(index_dir)
    side = [p for p in index_dir.parent.glob(f".{index_dir.name}.*")]
    log = cache_root() / "logs" / f"{index_dir.name}.serve.log"
    for entry in [index_dir, *side, log]:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return str(index_dir)


def _index_of(path: Path) -> Path:
    for candidate in (index_for(path), index_for(project_root(path))):
        if candidate.exists():
            return candidate
    # a source that is gone: its recorded path still names the index
    given = Path(path).expanduser()
    wanted = {str(given.absolute()), str(given.resolve())}  # index runs record the resolved path
    for entry in list_indexes():
        if entry.source in wanted:
            return Path(entry.index_dir)
    raise BadInput(f"no index of {path} in {indexes_root()} - `codelens repos` lists the indexes")


def _folder_size(folder: Path) -> int:
    total = 0
    for base, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                continue
    return total


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count} B"


def add_user_index_commands(commands: argparse._SubParsersAction) -> None:
    repos = commands.add_parser("repos", help="list the indexes on this machine (repository, size, last update)",
                                description="Every index kept in the user cache: the repository or folder it "
                                            "indexes, its size on disk, when it was last updated, whether a "
                                            "server is running for it.")
    repos.add_argument("--json", action="store_true")
    forget = commands.add_parser("forget", help="delete the index of a repository (stops its server first)",
                                 description="Delete the index kept in the user cache for PATH (default: the "
                                             "repository around the working directory).")
    forget.add_argument("path", nargs="?", type=Path, default=None)


def cmd_repos(args: argparse.Namespace) -> int:
    indexes = list_indexes()
    if args.json:
        print(json.dumps([entry.to_json() for entry in indexes], ensure_ascii=False, indent=2))
        return 0
    if not indexes:
        print("no indexes yet: run codelens search or codelens index inside a repository")
    for entry in indexes:
        print(entry.line())
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    target = args.path
    if target is None:
        settings = settings_of(args)
        if settings.project is None:
            raise BadInput(f"the index here is {settings.index_dir}, not one kept in the user cache - "
                           "delete that folder yourself, or pass the repository: codelens forget PATH")
        target = settings.project
    removed = forget_index(target)
    print(f"deleted the index of {target.resolve()} ({removed})")
    return 0


USER_INDEX_COMMANDS = {"repos": cmd_repos, "forget": cmd_forget}
