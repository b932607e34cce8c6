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
from dataclasses import asdict, dataclass
from pathlib import Path

from codelens.errors import SourceError
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest, file_hash, repository_counts
from codelens.index.metadata import IndexStats
from codelens.ingest.tree import SourceTree, live_tree
from codelens.workspace import Workspace

Stat = tuple[int, int]  # (size, mtime_ns)


@dataclass(frozen=True)
class Staleness:
    changed: tuple[str, ...]  # rel paths added, changed or deleted since the index
    checked: int  # files looked at
    hashed: int  # files read because their size or mtime differed from the record
    added: tuple[str, ...] = ()  # of `changed`: on disk, not in the index yet
    deleted: tuple[str, ...] = ()  # of `changed`: in the index, gone from the disk (or now ignored)


@dataclass(frozen=True)
class RepositoryFreshness:
    """How one repository's files on disk differ from the index now."""

    changed: int  # indexed files whose content differs
    deleted: int  # indexed files gone from the disk (or now ignored)
    new: int  # files an index run would read that the index does not hold

    @property
    def stale_files(self) -> int:
        return self.changed + self.deleted + self.new


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
    added = tuple(sorted(rel for rel in changed if rel not in manifest.files))
    deleted = tuple(sorted(rel for rel in manifest.files if rel not in on_disk and not tree.is_static(rel)))
    changed.extend(deleted)
    if seen != recorded:
        _save(index_dir, seen)
    return Staleness(tuple(sorted(set(changed))), len(on_disk), hashed, added, deleted)


def freshness_by_repository(index_dir: Path, source: Path,
                            workspace: Workspace) -> dict[str, RepositoryFreshness | None]:
    """`stale_files` split by repository (`Workspace.repo_of`): what `stats`, MCP `index_status` and
    the app show beside each repository. None for a repository whose files are not compared: a
    zip's (static: it changes only with the zip), or every one when the source is gone, is not a
    valid workspace file any more, or the index has no manifest."""
    unchecked: dict[str, RepositoryFreshness | None] = dict.fromkeys(workspace.names)
    try:
        tree = live_tree(source)
        staleness = stale_files(index_dir, source)
    except SourceError:  # a workspace file broken since: nothing to compare with
        return unchecked
    if staleness is None:
        return unchecked
    counts = {name: [0, 0, 0] for name in workspace.names if _is_live(tree, workspace, name)}
    added, deleted = set(staleness.added), set(staleness.deleted)
    for rel in staleness.changed:
        slot = 1 if rel in deleted else 2 if rel in added else 0
        counts.get(workspace.repo_of(rel), [0, 0, 0])[slot] += 1
    return unchecked | {name: RepositoryFreshness(*found) for name, found in counts.items()}


def _is_live(tree: SourceTree, workspace: Workspace, name: str) -> bool:
    """Whether a repository's files are on disk to compare (a folder that is still there)."""
    repository = next(repo for repo in workspace.repositories if repo.name == name)
    found = tree.root_of(f"{repository.label}/" if repository.label else "")
    return found is not None and found[0].live


def repository_status(index_dir: Path, stats: IndexStats, check: bool = True) -> list[dict]:
    """Each repository of the index as `stats`, MCP `index_status` and the app list it: its
    metadata record (name, label, path), files and chunks (the manifest), `updated_at` (when an index
    run or update last changed its files in the index; None: an index written before that was
    recorded) and, `check`, its freshness now: `stale_files` = `changed` + `deleted` + `new` (None
    for a repository not compared: a zip's). `check` False skips the walk (an index run's summary:
    it just read every file)."""
    workspace = Workspace.from_json(stats.repositories, stats.source)
    times = {str(item.get("name")): item.get("updated_at") or None
             for item in stats.repositories or () if isinstance(item, dict)}
    counts = {row["name"]: row for row in repository_counts(index_dir, workspace)}
    fresh = freshness_by_repository(index_dir, Path(stats.source), workspace) if check else {}
    rows = []
    for repository in workspace.repositories:
        row = {**repository.to_json(), **counts.get(repository.name, {"files": 0, "chunks": 0}),
               "updated_at": times.get(repository.name)}
        if check:
            found = fresh.get(repository.name)
            row.update({"stale_files": found.stale_files, **asdict(found)} if found is not None else
                       dict.fromkeys(("stale_files", "changed", "deleted", "new")))
        rows.append(row)
    return rows


def freshness_text(row: dict) -> str:
    """A repository's freshness in a few words (`stats`, MCP `index_status`)."""
    if "stale_files" not in row:
        return ""
    if row["stale_files"] is None:
        return "freshness n/a (a zip, or a source not on disk)"
    if not row["stale_files"]:
        return "up to date"
    parts = [f"{row[key]} {key}" for key in ("changed", "deleted", "new") if row[key]]
    return f"{row['stale_files']} stale files ({', '.join(parts)})"


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
