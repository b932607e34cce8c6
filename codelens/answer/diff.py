"""Reading a change: a unified diff (git's or diff -u's) parsed into files and hunks, `git diff`
run read-only in the indexed repository (the working tree against HEAD, a revision, A..B or the
staged change), and which repository of a workspace the change is in and where git runs for it.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from codelens.errors import BadInput
from codelens.workspace import Workspace

GIT_TIMEOUT_S = 60

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_REVISION = re.compile(r"^[\w./~^@{}:+-]+$")


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[str, ...]  # each with its prefix: " " context, "-" removed, "+" added


@dataclass(frozen=True)
class FileDiff:
    old_path: str | None  # None: the file is new
    new_path: str | None  # None: the file was deleted
    hunks: tuple[Hunk, ...]


class _DiffReader:
    """Reads a unified diff line by line; a hunk's own counts say where it ends, so a removed
    line that reads `--- x` is not taken for the next file's header."""

    def __init__(self) -> None:
        self.files: list[FileDiff] = []
        self.paths: list[str | None] | None = None  # [old, new] of the file being read
        self.hunks: list[Hunk] = []
        self.lines: list[str] = []
        self.left = [0, 0]  # old and new lines the current hunk still has

    def read(self, line: str) -> None:
        if self.left[0] > 0 or self.left[1] > 0:
            self._hunk_line(line)
        elif line.startswith("--- "):
            self._close()
            self.paths = [_diff_path(line[4:]), None]
        elif line.startswith("+++ ") and self.paths is not None and not self.hunks:
            self.paths[1] = _diff_path(line[4:])
        elif self.paths is not None and (match := _HUNK.match(line)):
            self._close_hunk()
            counts = [int(match.group(2) or 1) if match.group(2) != "0" else 0,
                      int(match.group(4) or 1) if match.group(4) != "0" else 0]
            self.hunks.append(Hunk(int(match.group(1)), counts[0], int(match.group(3)), counts[1], ()))
            self.left = counts

    def _hunk_line(self, line: str) -> None:
        tag = line[:1] or " "
        if tag == "\\":  # "\ No newline at end of file"
            return
        if tag not in " -+":
            raise BadInput(f"the diff is cut short: a hunk of {self._path()} ends early at {line[:60]!r}")
        self.lines.append(tag + line[1:])
        if tag != "+":
            self.left[0] -= 1
        if tag != "-":
            self.left[1] -= 1

    def _path(self) -> str:
        return next((p for p in self.paths or () if p), "a file")

    def _close_hunk(self) -> None:
        if self.hunks and not self.hunks[-1].lines and self.lines:
            last = self.hunks[-1]
            self.hunks[-1] = Hunk(last.old_start, last.old_count, last.new_start, last.new_count, tuple(self.lines))
        self.lines = []

    def _close(self) -> None:
        self._close_hunk()
        if self.paths is not None:
            self.files.append(FileDiff(self.paths[0], self.paths[1], tuple(self.hunks)))
        self.paths, self.hunks = None, []

    def finish(self) -> list[FileDiff]:
        if self.left[0] > 0 or self.left[1] > 0:
            raise BadInput(f"the diff is cut short: the last hunk of {self._path()} misses lines")
        self._close()
        return self.files


def parse_diff(text: str) -> list[FileDiff]:
    """The files and hunks of a unified diff (git's or diff -u's); BadInput when it is not one."""
    reader = _DiffReader()
    for line in text.splitlines():
        reader.read(line)
    files = reader.finish()
    if not files and text.strip():
        raise BadInput("this is not a unified diff (no `--- a/file` / `+++ b/file` lines) - "
                       "pass `git diff` output")
    return [f for f in files if f.hunks or f.old_path is None or f.new_path is None]


def _diff_path(field: str) -> str | None:
    path = field.split("\t", 1)[0].strip()
    if path == "/dev/null":
        return None
    if path.startswith('"') and path.endswith('"'):
        path = path[1:-1]
    return path[2:] if path[:2] in ("a/", "b/") else path


# ------------------------------------------------------------------ git


def git_diff(root: Path, revision: str | None = None, staged: bool = False) -> str:
    """`git diff` in the indexed repository (read-only): the working tree against HEAD, REV, A..B or
    the staged change. BadInput when it is not a repository or the revision does not exist."""
    if revision is not None and (not _REVISION.match(revision) or revision.startswith("-")):
        raise BadInput(f"{revision!r} is not a revision - give a commit, a branch, a tag or A..B")
    command = ["git", "-C", str(root), "-c", "core.quotepath=false", "diff", "--no-color", "--no-ext-diff",
               "--no-renames"]
    if staged:
        command.append("--cached")
    if revision:
        command.extend(revision.split("..", 1) if ".." in revision and "..." not in revision else [revision])
    command.append("--")
    try:
        done = subprocess.run(command, capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise BadInput("git is not installed - pass the change as a file: --diff FILE") from None
    except subprocess.TimeoutExpired:
        raise BadInput(f"git diff took more than {GIT_TIMEOUT_S} s in {root} - pass the change with --diff") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = said[0] if said else f"exit status {done.returncode}"
        raise BadInput(f"git diff failed in {root}: {reason} - is the revision {revision or 'HEAD'!r} in this "
                       "repository?")
    return done.stdout.decode("utf-8", "replace")


def repository_label(workspace: Workspace, name: str | None) -> str:
    """The path label of the repository a change is in ("" for an index of one repository); BadInput
    when a workspace's repository is not named, or the name is not one of them."""
    repositories = workspace.repositories
    if name is None:
        if len(repositories) > 1:
            names = ", ".join(r.name for r in repositories)
            raise BadInput(f"this index is a workspace of {len(repositories)} repositories - say which one the "
                           f"change is in: --repo NAME ({names})")
        return repositories[0].label if repositories else ""
    for repo in repositories:
        if repo.name == name:
            return repo.label
    raise BadInput(f"no repository named {name!r} in this index - `codelens stats` lists them")


def repository_root(source: str, workspace: Workspace, label: str) -> Path:
    """Where git runs: the indexed folder, or the workspace's repository in it."""
    for repo in workspace.repositories:
        if repo.label == label and repo.path:
            return Path(repo.path)
    root = Path(source) / label if label else Path(source)
    if not root.is_dir():
        raise BadInput(f"the index was built from {source}, not a folder git can diff - pass the change as a diff")
    return root
