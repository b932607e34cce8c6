"""Is the index still what the folder holds? The check a CLI search runs before it answers.

A watcher follows a folder while something runs (serve, MCP, the app); a plain `codelens
search` in a repository has none, yet must never answer from files that changed since. So it
compares the folder with the index first: every file an index run would read is stat()ed, and
only a file whose size or mtime differs from what was recorded is read and hashed against the
manifest. Unchanged, that costs a walk of the folder and a stat per file (tens of ms on
pydantic); changed, the files that differ go to the watcher's incremental update (update.py).

What was seen to match is kept beside the index (layout.py `file_stats`): a file whose content
matches the manifest (or that the last update settled) is recorded with its size and mtime. The
record is a cache: lost or damaged, the next check hashes every file once and writes it again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, file_hash
from codelens.ingest.tree import live_tree

Stat = tuple[int, int]  # (size, mtime_ns)


@dataclass(frozen=True)
class Staleness:
    changed: tuple[str, ...]  # rel paths added, changed or deleted since the index
    checked: int  # files looked at
    hashed: int  # files read because their size or mtime differed from the record


def stale_files(index_dir: Path, source: Path) -> Staleness | None:
    """What differs between the source (a folder, or a workspace file's folders: ingest/tree.py)
    and the index in `index_dir`; None when the index has no manifest to compare with (a partial
    or foreign index: nothing to check). A zip's files are never compared: they change with it."""
    manifest = Manifest.load(index_dir)
    if manifest is None:
        return None
    tree = live_tree(source)
    recorded = _load(index_dir)
    seen: dict[str, Stat] = {}
    changed: list[str] = []
    hashed = 0
    for source_file in tree.files(live_only=True):
        stat = _stat(source_file.abs_path)
        if stat is None:
            continue
        rel = source_file.rel_path
        if recorded.get(rel) == stat:
            seen[rel] = stat
            continue
        hashed += 1
        if _content_hash(source_file.abs_path) == manifest.files.get(rel):
            seen[rel] = stat
        else:
            changed.append(rel)
    # A file the index holds that the walk did not yield: deleted, or now ignored.
    on_disk = set(seen) | set(changed)
    changed.extend(rel for rel in manifest.files if rel not in on_disk and not tree.is_static(rel))
    if seen != recorded:
        _save(index_dir, seen)
    return Staleness(tuple(sorted(set(changed))), len(on_disk), hashed)


def settle(index_dir: Path, source: Path, paths: Iterable[str]) -> None:
    """After an update of `paths`: record their current size and mtime, so a file the index
    cannot take (too large, binary) is not handed to an update again and again."""
    recorded = _load(index_dir)
    tree = live_tree(source)
    for rel in paths:
        located = tree.locate(rel)
        stat = _stat(located) if located is not None else None
        if stat is None:
            recorded.pop(rel, None)
        else:
            recorded[rel] = stat
    _save(index_dir, recorded)


def _stat(path: Path) -> Stat | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _content_hash(path: Path) -> str | None:
    try:
        return file_hash(path.read_bytes())
    except OSError:
        return None


def _load(index_dir: Path) -> dict[str, Stat]:
    try:
        raw = json.loads(IndexLayout(index_dir).file_stats.read_text(encoding="utf-8"))
        return {str(rel): (int(size), int(mtime)) for rel, (size, mtime) in raw.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def _save(index_dir: Path, recorded: dict[str, Stat]) -> None:
    target = IndexLayout(index_dir).file_stats
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(recorded), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:  # a cache: the next check hashes again
        temporary.unlink(missing_ok=True)
