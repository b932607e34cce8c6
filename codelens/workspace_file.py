"""A workspace file: repositories anywhere on disk (folders or zips), each with a name, indexed
as one workspace.

```toml
[workspace]                 # the marker: a TOML file without it is not a workspace file

[[repository]]
name = "flask"
path = "~/src/flask"        # a relative path is relative to this file
[[repository]]
name = "demo"
path = "/data/codebase_python.zip"
```

A repository's files are indexed as `<name>/<path inside it>`, so its chunk ids are those a
folder workspace holding it under that name gives (`flask/src/flask/app.py::Flask`). The file is
read with the standard library (`tomllib`): nothing heavy, the CLI's fast path may read it.
"""

from __future__ import annotations

import re
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

from codelens.errors import SourceError

MARKER = "workspace"
_TOP_KEYS = frozenset({MARKER, "repository"})
_WORKSPACE_KEYS = frozenset({"name"})
_REPOSITORY_KEYS = frozenset({"name", "path"})
_MARKER_LINE = re.compile(rb"^\s*\[\s*workspace\s*\]\s*(#.*)?$", re.MULTILINE)
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MAX_BYTES = 1_000_000
FORMAT_HINT = "see docs/repositories.md#a-workspace-file"


@dataclass(frozen=True)
class WorkspaceEntry:
    """One repository of a workspace file."""

    name: str  # its label: the first part of every path of its files
    path: Path  # the folder or zip, absolute

    @property
    def is_zip(self) -> bool:
        return self.path.is_file()


@dataclass(frozen=True)
class WorkspaceFile:
    path: Path  # the file itself, absolute
    name: str  # [workspace] name, else the file's stem
    repositories: tuple[WorkspaceEntry, ...]

    @property
    def folders(self) -> tuple[WorkspaceEntry, ...]:
        """The repositories that are folders: what a watcher follows (a zip never changes)."""
        return tuple(entry for entry in self.repositories if not entry.is_zip)


def is_workspace_file(path: Path) -> bool:
    """Whether `path` is a TOML file with a top-level `[workspace]` table (told without parsing
    it: a broken one is still a workspace file, and `load_workspace_file` says what is wrong)."""
    path = Path(path)
    if path.suffix != ".toml" or not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            return bool(_MARKER_LINE.search(handle.read(_MAX_BYTES)))
    except OSError:
        return False


def load_workspace_file(path: Path) -> WorkspaceFile:
    """The workspace file at `path`, checked; SourceError with the fix for anything wrong."""
    path = Path(path).expanduser().resolve()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SourceError(f"cannot read the workspace file {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path} is not valid TOML ({exc}) - fix it ({FORMAT_HINT})") from exc
    _check_keys(path, raw, _TOP_KEYS, "at the top level")
    header = raw.get(MARKER)
    if not isinstance(header, dict):
        raise SourceError(f"{path} has no [workspace] table - add one at the top ({FORMAT_HINT})")
    _check_keys(path, header, _WORKSPACE_KEYS, "in [workspace]")
    items = raw.get("repository", [])
    if not isinstance(items, list) or not items:
        raise SourceError(f"{path} lists no repository - add [[repository]] tables with name and path "
                          f"({FORMAT_HINT})")
    entries: list[WorkspaceEntry] = []
    for number, item in enumerate(items, start=1):
        entry = _entry(path, number, item)
        if any(seen.name == entry.name for seen in entries):
            raise SourceError(f"{path}: two repositories are named {entry.name!r} - give each its own name")
        entries.append(entry)
    name = str(header.get("name") or path.name.removesuffix(".toml"))
    return WorkspaceFile(path, name, tuple(entries))


def _entry(path: Path, number: int, item: object) -> WorkspaceEntry:
    where = f"{path}: repository {number}"
    if not isinstance(item, dict):
        raise SourceError(f"{where} is not a table - write it as [[repository]] ({FORMAT_HINT})")
    _check_keys(path, item, _REPOSITORY_KEYS, f"in repository {number}")
    missing = [key for key in ("name", "path") if not isinstance(item.get(key), str) or not item[key].strip()]
    if missing:
        raise SourceError(f"{where} needs {' and '.join(missing)} (a string) - e.g. name = \"flask\", "
                          "path = \"~/src/flask\"")
    name = item["name"].strip()
    if not _SAFE_NAME.fullmatch(name) or name in (".", ".."):
        raise SourceError(f"{where}: the name {name!r} is not a single safe path component - use letters, "
                          "digits, '.', '_' and '-' (it becomes the first part of every path of its files)")
    target = Path(item["path"]).expanduser()
    target = (target if target.is_absolute() else path.parent / target).resolve()
    if not target.exists():
        raise SourceError(f"{where} ({name}): {target} does not exist - fix its path (a relative path is "
                          f"relative to {path.parent})")
    if target.is_file() and not zipfile.is_zipfile(target):
        raise SourceError(f"{where} ({name}): {target} is neither a folder nor a zip file")
    return WorkspaceEntry(name, target)


def _check_keys(path: Path, table: dict, allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise SourceError(f"{path}: unknown key {unknown[0]!r} {where} - the keys are "
                          f"{', '.join(sorted(allowed))} ({FORMAT_HINT})")
