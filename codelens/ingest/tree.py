"""Where every file of a source lives: one folder, or the repositories of a workspace file.

An index holds paths relative to one workspace root (`flask/src/flask/app.py`). A folder or a
zip is one root: its paths are the paths below it. A workspace file (workspace_file.py) lists
repositories anywhere on disk: each is a root of its own whose paths take its name as their
first part, walked with its own `.gitignore` (ingest/source.py), so its chunk ids are what a
folder workspace holding it would give. Index runs, updates, the freshness check and the
watcher all go through a `SourceTree`, so none of them needs to know which kind of source it is.

A zip is static: an index run extracts it (safely: ingest/source.py), while updates, the
freshness check and the watcher leave its files alone (they change only with the zip, and the
next index run reads it again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from codelens.ingest.source import SourceFile, indexed_path_filter, iter_source_files, open_codebase
from codelens.workspace import Repository, Workspace, discover
from codelens.workspace_file import WorkspaceFile, is_workspace_file, load_workspace_file


@dataclass(frozen=True)
class Root:
    label: str  # the first part of its files' paths ("" for a folder or zip source)
    folder: Path  # where its files are (a zip not extracted: the zip itself)
    live: bool  # a folder on disk: updates, the freshness check and the watcher follow it

    @property
    def prefix(self) -> str:
        return f"{self.label}/" if self.label else ""


@dataclass(frozen=True)
class SourceTree:
    source: Path  # what the user passed: a folder, a zip or a workspace file
    roots: tuple[Root, ...]
    workspace: Workspace
    warnings: tuple[str, ...] = ()
    from_file: bool = False  # the source is a workspace file (the watcher follows the file too)
    _filters: dict[str, Callable[[Path], bool]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def has_static(self) -> bool:
        return any(not root.live for root in self.roots)

    @property
    def watched_folders(self) -> tuple[Path, ...]:
        return tuple(root.folder for root in self.roots if root.live)

    def files(self, live_only: bool = False, vendored: list[str] | None = None) -> list[SourceFile]:
        """Every file an index run reads (`live_only`: of the folders on disk only), by path;
        `vendored` collects the vendored and build folders left out."""
        found: list[SourceFile] = []
        for root in self.roots:
            if not root.folder.is_dir() or not (root.live or not live_only):
                continue
            skipped: list[str] = []
            found.extend(SourceFile(root.prefix + f.rel_path, f.abs_path)
                         for f in iter_source_files(root.folder, vendored=skipped))
            if vendored is not None:
                vendored.extend(sorted(root.prefix + folder for folder in skipped))
        return sorted(found, key=lambda f: f.rel_path)

    def root_of(self, rel_path: str) -> tuple[Root, str] | None:
        """The root a path of the index is in, and the path below that root."""
        for root in self.roots:
            if not root.label:
                return root, rel_path
            if rel_path.startswith(root.prefix):
                return root, rel_path[len(root.prefix):]
        return None

    def is_static(self, rel_path: str) -> bool:
        """A path of a zip's repository (or of no repository any more than one a zip held)."""
        found = self.root_of(rel_path)
        return found is not None and not found[0].live

    def locate(self, rel_path: str, live_only: bool = True) -> Path | None:
        """The file on disk a path of the index names (None: in no repository, or, live_only,
        in a zip's; an extracted zip's files are found with live_only False)."""
        found = self.root_of(rel_path)
        if found is None or (live_only and not found[0].live):
            return None
        return found[0].folder / found[1]

    def relative(self, path: Path) -> str | None:
        """The index's path of a file on disk; None when it is in no live root (the deepest
        root wins: a repository listed inside another)."""
        resolved = Path(path).resolve()
        best: tuple[int, str] | None = None
        for root in self.roots:
            if root.live and resolved.is_relative_to(root.folder):
                depth = len(root.folder.parts)
                if best is None or depth > best[0]:
                    best = (depth, root.prefix + resolved.relative_to(root.folder).as_posix())
        return best[1] if best else None

    def accepts(self, path: Path) -> bool:
        """Whether a file on disk is (or, deleted, was) one an index run reads: its root's rules."""
        resolved = Path(path).resolve()
        for root in sorted(self.roots, key=lambda r: -len(r.folder.parts)):
            if root.live and resolved.is_relative_to(root.folder):
                if root.label not in self._filters:
                    self._filters[root.label] = indexed_path_filter(root.folder)
                return self._filters[root.label](resolved)
        return False


def live_tree(source: Path) -> SourceTree:
    """The tree as it is on disk now, nothing extracted: what updates, the freshness check and
    the watcher read (a folder workspace's repositories discovered again each time)."""
    source = Path(source)
    if is_workspace_file(source):
        spec = load_workspace_file(source)
        roots = tuple(Root(e.name, e.path, live=not e.is_zip) for e in spec.repositories)
        return SourceTree(spec.path, roots, _workspace_of(spec), from_file=True)
    folder = source.resolve()
    return SourceTree(source, (Root("", folder, live=folder.is_dir()),), discover(folder, origin=source))


def open_tree(source: Path, work_dir: Path) -> SourceTree:
    """The tree an index run reads: zips (the source, or a workspace file's) extracted safely
    into work_dir."""
    source = Path(source)
    if not is_workspace_file(source):
        codebase = open_codebase(source, work_dir)
        return SourceTree(source, (Root("", codebase.root, live=source.is_dir()),),
                          discover(codebase.root, origin=source), codebase.warnings)
    spec = load_workspace_file(source)
    roots, warnings = [], []
    for entry in spec.repositories:
        if not entry.is_zip:
            roots.append(Root(entry.name, entry.path, live=True))
            continue
        opened = open_codebase(entry.path, work_dir / entry.name)
        roots.append(Root(entry.name, opened.root, live=False))
        warnings.extend(f"{entry.name}: {warning}" for warning in opened.warnings)
    return SourceTree(spec.path, tuple(roots), _workspace_of(spec), tuple(warnings), from_file=True)


def _workspace_of(spec: WorkspaceFile) -> Workspace:
    """Every repository of a workspace file, labelled by its name (even one alone: its paths
    keep the name, as the file says), with the place it lives."""
    return Workspace(tuple(Repository(e.name, e.name, str(e.path)) for e in spec.repositories))

