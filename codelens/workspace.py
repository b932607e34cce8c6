"""Repositories and workspaces: which repository each indexed file belongs to.

A folder indexed whole is a workspace. When the folder is itself a repository, or holds no
repository at all, it is a workspace of one: its paths and chunk ids are exactly as before,
and every hit names that one repository. When its top-level folders are git repositories of
their own (`~/work/` holding `flask/`, `click/`, `httpx/`), each is a repository of the
workspace, labelled by its folder name (a workspace file, workspace_file.py, names repositories
anywhere on disk the same way): a chunk's path stays relative to the workspace root
(`flask/src/flask/app.py::Flask`, the chunk-id contract), and its repository is the label its
path starts with. Each repository keeps its own `.gitignore` (ingest/source.py).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Folder names too common to say which repository a question means ("the app", "the client").
GENERIC_NAMES = frozenset({
    "api", "app", "apps", "backend", "bin", "client", "cmd", "common", "config", "core", "data", "doc", "docs",
    "example", "examples", "frontend", "internal", "lib", "libs", "main", "models", "pkg", "project", "scripts",
    "server", "service", "services", "settings", "shared", "site", "src", "test", "tests", "tools", "util", "utils",
    "web"})


@dataclass(frozen=True)
class Repository:
    name: str  # what hits, filters and listings call it
    label: str  # the path prefix of its files inside the workspace ("" in a workspace of one)
    path: str = ""  # where it lives, for a repository of a workspace file (workspace_file.py)

    def holds(self, path: str) -> bool:
        return not self.label or path == self.label or path.startswith(f"{self.label}/")

    def to_json(self) -> dict:
        return {"name": self.name, "label": self.label, **({"path": self.path} if self.path else {})}


@dataclass(frozen=True)
class Workspace:
    repositories: tuple[Repository, ...]

    @property
    def is_single(self) -> bool:
        return len(self.repositories) == 1 and not self.repositories[0].label

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(repo.name for repo in self.repositories)

    def repo_of(self, path: str) -> str:
        """The name of the repository a file (a path relative to the workspace root) is in; ""
        for a file at the workspace's top level, outside every repository."""
        for repo in self.repositories:
            if repo.holds(path):
                return repo.name
        return ""

    def check_names(self, names: Iterable[str]) -> tuple[str, ...]:
        """The names given, each a repository of this workspace (BadInput lists them otherwise)."""
        from codelens.errors import BadInput

        wanted = tuple(dict.fromkeys(names))
        unknown = [name for name in wanted if name not in self.names]
        if unknown:
            raise BadInput(f"no repository {unknown[0]!r} in this index - its repositories: {', '.join(self.names)}")
        return wanted

    def to_json(self) -> list[dict]:
        return [repo.to_json() for repo in self.repositories]

    @classmethod
    def from_json(cls, raw: Sequence[dict] | None, source: str) -> Workspace:
        """From the index's metadata; an index written before workspaces is one repository."""
        repositories = tuple(Repository(str(item["name"]), str(item.get("label", "")), str(item.get("path", "")))
                             for item in raw or ()
                             if isinstance(item, dict) and item.get("name"))
        return cls(repositories) if repositories else single(source)


def single(source: str | Path) -> Workspace:
    """One repository, named after its folder (or zip, less the suffix)."""
    path = Path(str(source))
    name = (path.stem if path.suffix == ".zip" else path.name) or "repository"
    return Workspace((Repository(name, ""),))


def is_repository(folder: Path) -> bool:
    """A git repository's root: a `.git` folder, or the `.git` file of a worktree or submodule."""
    return (folder / ".git").exists()


def discover(root: Path, origin: str | Path | None = None) -> Workspace:
    """The workspace a folder is: its git repositories one level down when the folder is not a
    repository itself and holds at least two; else a workspace of one (named after `origin`,
    what the user passed, when the folder is a zip's extraction)."""
    root = Path(root)
    if not is_repository(root):
        try:
            children = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink() and is_repository(p))
        except OSError:
            children = []
        if len(children) >= 2:
            return Workspace(tuple(Repository(child.name, child.name) for child in children))
    return single(origin if origin is not None else root)


def count_by_repository(workspace: Workspace, file_paths: Iterable[str],
                        chunk_ids: Iterable[str]) -> dict[str, tuple[int, int]]:
    """Files and chunks per repository name, in the workspace's order."""
    counts = {name: [0, 0] for name in workspace.names}
    for path in file_paths:
        counts.setdefault(workspace.repo_of(path), [0, 0])[0] += 1
    for chunk_id in chunk_ids:
        counts.setdefault(workspace.repo_of(chunk_id.split("::", 1)[0]), [0, 0])[1] += 1
    return {name: (files, chunks) for name, (files, chunks) in counts.items()}


def changed_repositories(workspace: Workspace, before: Mapping[str, str], after: Mapping[str, str]) -> set[str]:
    """The repositories with a file whose indexed content differs between two file-hash maps
    (added, edited or deleted): those an index run or update changed, whose `updated_at` moves."""
    differing = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    return {workspace.repo_of(path) for path in differing} - {""}


def stamp_updates(repositories: Sequence[dict], recorded: Sequence[dict], changed: Collection[str] = (),
                  when: str = "") -> list[dict]:
    """The repositories' metadata records, each with `updated_at`: when an index run or update last
    changed any of its files in the index. `when` for those in `changed` and for those the index
    recorded no time for (first indexed); else the time recorded, so an unchanged repository keeps
    its own. `when` "" leaves a repository without a recorded time without one (yet)."""
    times = {str(item.get("name")): str(item.get("updated_at") or "")
             for item in recorded or () if isinstance(item, dict)}
    stamped = []
    for item in repositories:
        name = str(item.get("name"))
        at = when if name in changed or not times.get(name) else times[name]
        identity = {key: value for key, value in item.items() if key != "updated_at"}
        stamped.append({**identity, **({"updated_at": at} if at else {})})
    return stamped


def repository_packages(workspace: Workspace, paths: Iterable[str]) -> dict[str, frozenset[str]]:
    """Per repository, its top-level Python packages (`flask` of `flask/src/flask/app.py`, `httpx`
    of `httpx_full/httpx/_client.py`): the names a question may call it by besides its own."""
    found: dict[str, set[str]] = {name: set() for name in workspace.names}
    for path in paths:
        repo = workspace.repo_of(path)
        parts = repository_path(path, {repo}).split("/") if repo else []
        if repo in found and path.endswith(".py") and len(parts) >= 2:
            package = parts[1] if parts[0] == "src" and len(parts) >= 3 else parts[0]
            if package.isidentifier():
                found[repo].add(package)
    return {name: frozenset(packages) for name, packages in found.items()}


def named_repositories(question: str, packages: Mapping[str, Collection[str]]) -> tuple[str, ...]:
    """The repositories a question names, by their own name or one of their packages' ("in flask",
    "requests' Session", "как FastAPI ..."), case aside; names of three letters or fewer and
    generic folder names (app, core, utils) never count."""
    text = question.lower()
    named = []
    for repo, own in packages.items():
        names = {n.lower() for n in (repo, *own)}
        if any(len(n) > 3 and n not in GENERIC_NAMES and _names(text, n) for n in names):
            named.append(repo)
    return tuple(named)


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def repository_path(path: str, labels: Collection[str]) -> str:
    """A workspace path as its repository sees it: `flask/src/flask/app.py` -> `src/flask/app.py`
    when `flask` is one of the labels; unchanged otherwise (a workspace of one has none)."""
    head, _, rest = path.partition("/")
    return rest if rest and head in labels else path


def repository_labels(repositories: Sequence[dict]) -> tuple[str, ...]:
    """The path labels of a workspace's repositories as the metadata records them (none for a
    workspace of one): what the code graph resolves imports by."""
    labels = (str(item.get("label", "")) for item in repositories or () if isinstance(item, dict))
    return tuple(label for label in labels if label)
