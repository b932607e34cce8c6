"""The indexes kept in the user cache (codelens/locations.py): `codelens repos` lists them,
`codelens forget PATH` deletes one with everything beside it (lock, caches, status, log)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

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
