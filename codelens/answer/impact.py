"""Change impact: a diff -> the definitions it touches -> who depends on them, which tests to run.

Pure but for `git_diff` (git run read-only on the indexed repository). A unified diff is parsed
into files and hunks; each file is matched to the index on the side its lines agree with (the
index may hold the code before the change, as in review, or after it, as in a working tree),
and each changed line is mapped to the innermost chunk holding it. The graph then walks
upstream from those chunks: callers and subclasses to `depth`, across the repositories of a
workspace. Tests are the test chunks that walk reaches (as pytest ids), and the test files nearest
in the tree that import a changed file or call any of its definitions (dynamic dispatch,
`getattr(self, "_print_" + name)`, leaves no call edge to the changed one). Documents and
configuration pieces that name a changed definition are listed too.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codelens.answer.context import ChunkCatalog
from codelens.answer.task_context import ContextLinks
from codelens.chunk import MODULE_SYMBOL, Chunk, span_segments
from codelens.errors import BadInput
from codelens.graph.model import CodeGraph
from codelens.graph.query import dependencies
from codelens.workspace import Workspace

DEFAULT_DEPTH = 2
MAX_DEPTH = 10  # beyond this the walk is the whole codebase
FILE_TESTS_PER_FILE = 2  # a changed file's tests (importing or calling it): the nearest two (a core one has hundreds)
MAX_DIFF_BYTES = 20_000_000  # a diff bigger than this is a vendored tree, not a change to review
GIT_TIMEOUT_S = 60

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_REVISION = re.compile(r"^[\w./~^@{}:+-]+$")


# ------------------------------------------------------------------ diffs


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


# ------------------------------------------------------------------ diff -> chunks


def changed_chunks(files: Sequence[FileDiff], catalog: ChunkCatalog, prefix: str = "") -> list[Chunk]:
    """The innermost chunk of every changed line, on the side of each file the index holds;
    BadInput when the diff touches no indexed file or does not match what the index holds."""
    changed: dict[str, Chunk] = {}
    indexed = 0
    mismatched: list[str] = []
    for file in files:
        chunks = _file_chunks(file, catalog, prefix)
        if chunks is None:
            continue
        indexed += 1
        if chunks is False:
            mismatched.append(file.old_path or file.new_path or "")
            continue
        for chunk in chunks:
            changed.setdefault(chunk.chunk_id, chunk)
    if mismatched and not changed:
        raise BadInput(f"the diff does not apply to the index: {', '.join(mismatched[:3])} differ from what was "
                       "indexed - update the index (codelens index) or diff against the indexed code")
    if not indexed:
        raise BadInput("the diff touches no indexed file - is it a change to this index's repository "
                       "(--repo NAME in a workspace)?")
    return sorted(changed.values(), key=lambda c: (c.path, c.start_line, c.chunk_id))


def _file_chunks(file: FileDiff, catalog: ChunkCatalog, prefix: str) -> list[Chunk] | bool | None:
    """The chunks one file's change touches; None when the file is not indexed; False when neither
    side of its change matches the indexed lines."""
    old = _indexed(file.old_path, catalog, prefix)
    new = _indexed(file.new_path, catalog, prefix)
    if old is None and new is None:
        return None
    if file.new_path is None and old is not None:  # deleted: all of it
        return catalog.in_file(old)
    if file.old_path is None and new is not None:  # added, and the index has it already
        return catalog.in_file(new)
    for path, side in ((old, "old"), (new, "new")):
        if path is not None and _matches(file.hunks, catalog.in_file(path), side):
            return [_holding(catalog, path, line) for line in _changed_lines(file.hunks, side)]
    return False


def _holding(catalog: ChunkCatalog, path: str, line: int) -> Chunk:
    """The innermost chunk holding the line; for a line between definitions (a blank line, a def
    added after a class's last method), the file's module block, else the definition just before it."""
    found = catalog.at_lines(path, line)
    if found is not None:
        return found
    chunks = catalog.in_file(path)
    module = [c for c in chunks if c.symbol == MODULE_SYMBOL]
    if module:
        return module[0]
    before = [c for c in chunks if c.end_line < line] or chunks
    return max(before, key=lambda c: (c.end_line, c.start_line))


def _indexed(path: str | None, catalog: ChunkCatalog, prefix: str) -> str | None:
    if path is None:
        return None
    full = f"{prefix}/{path}" if prefix else path
    return full if catalog.in_file(full) else None


def _side(hunk: Hunk, side: str) -> list[tuple[int, str, str]]:
    """(line number, prefix, text) of the lines of one side of a hunk."""
    number = hunk.old_start if side == "old" else hunk.new_start
    skip = "+" if side == "old" else "-"
    found = []
    for line in hunk.lines:
        if line[:1] == skip:
            continue
        found.append((number, line[:1], line[1:]))
        number += 1
    return found


def _matches(hunks: Sequence[Hunk], chunks: Sequence[Chunk], side: str) -> bool:
    """Whether every line of this side that an indexed chunk shows is the line the chunk holds."""
    known = _known_lines(chunks)
    compared = 0
    for hunk in hunks:
        for number, _, text in _side(hunk, side):
            if number in known:
                if known[number].rstrip() != text.rstrip():
                    return False
                compared += 1
    return compared > 0 or all(not _side(h, side) for h in hunks)


def _known_lines(chunks: Sequence[Chunk]) -> dict[int, str]:
    known: dict[int, str] = {}
    for chunk in chunks:
        if chunk.kind == "module" and chunk.line_spans:
            for segment, first in span_segments(chunk.code, chunk.line_spans):
                known.update(enumerate(segment.splitlines(), start=first))
        elif chunk.symbol != MODULE_SYMBOL:
            known.update(enumerate(chunk.code.splitlines(), start=chunk.start_line))
    return known


def _changed_lines(hunks: Sequence[Hunk], side: str) -> list[int]:
    """The lines this side changes; where it only gains lines on the other side, the line before
    the insertion (the definition it lands in)."""
    mark, other = ("-", "+") if side == "old" else ("+", "-")
    lines: list[int] = []
    for hunk in hunks:
        start, count = (hunk.old_start, hunk.old_count) if side == "old" else (hunk.new_start, hunk.new_count)
        number, marked, anchor = start, [], None
        for line in hunk.lines:
            tag = line[:1]
            if tag == mark:
                marked.append(number)
                number += 1
            elif tag == other:
                if anchor is None:  # git's start is the line before an insertion when the side has no lines
                    anchor = start if count == 0 else number - 1
            else:
                number += 1
        lines.extend(marked or ([max(anchor, 1)] if anchor is not None else []))
    return lines


# ------------------------------------------------------------------ impact


@dataclass(frozen=True)
class Affected:
    chunk: Chunk
    hops: int
    via: str  # the chunk id it was reached from
    repo: str = ""

    def to_dict(self) -> dict:
        return {"chunk_id": self.chunk.chunk_id, "path": self.chunk.path, "repo": self.repo, "hops": self.hops,
                "via": self.via}


@dataclass(frozen=True)
class SuggestedTest:
    path: str
    test_id: str  # `tests/test_x.py::test_name` (`::Class::test_name` for a method); "" for a whole file
    hops: int

    def to_dict(self) -> dict:
        return {"path": self.path, "test_id": self.test_id, "hops": self.hops}


@dataclass(frozen=True)
class Impact:
    changed: tuple[Chunk, ...]
    affected: tuple[Affected, ...]
    tests: tuple[SuggestedTest, ...]
    documents: tuple[Chunk, ...]

    @property
    def test_files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(test.path for test in self.tests))

    def to_dict(self) -> dict:
        """The `codelens impact --json` object (DESIGN.md, Impact)."""
        return {"changed": [c.chunk_id for c in self.changed],
                "affected": [a.to_dict() for a in self.affected],
                "tests": [t.to_dict() for t in self.tests],
                "documents": [{"chunk_id": c.chunk_id, "path": c.path, "kind": c.kind} for c in self.documents]}


def check_depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise BadInput(f"a depth of {depth!r} is out of range - give 1 to {MAX_DEPTH} (default {DEFAULT_DEPTH})")
    return depth


def impact_of(diff_text: str, catalog: ChunkCatalog, graph: CodeGraph | None, links: ContextLinks,
              depth: int = DEFAULT_DEPTH, prefix: str = "") -> Impact:
    """What a diff changes and what that reaches; `prefix`: the repository label of a workspace's
    repository the diff's paths are relative to."""
    check_depth(depth)
    if len(diff_text.encode("utf-8", "replace")) > MAX_DIFF_BYTES:
        raise BadInput(f"the diff is over {MAX_DIFF_BYTES // 1_000_000} MB - pass a change to review, not a tree")
    if "\x00" in diff_text:
        raise BadInput("the diff is not text (it holds NUL bytes) - pass `git diff` output")
    files = parse_diff(diff_text)
    if not files:  # nothing changed: nothing to run (CI asks this of every commit)
        return Impact((), (), (), ())
    changed = changed_chunks(files, catalog, prefix)
    affected, tests = _upstream(changed, catalog, graph, links, depth)
    documents = [d for c in changed for d in links.documents(c)]
    return Impact(tuple(changed), tuple(affected), tuple(tests), tuple(_unique_chunks(documents)))


def _upstream(changed: Sequence[Chunk], catalog: ChunkCatalog, graph: CodeGraph | None, links: ContextLinks,
              depth: int) -> tuple[list[Affected], list[SuggestedTest]]:
    if graph is None:
        return [], []
    changed_ids = {c.chunk_id for c in changed}
    best: dict[str, Affected] = {}
    tests: dict[str, SuggestedTest] = {}
    for chunk in changed:
        for step in dependencies(graph, chunk.chunk_id, depth, upstream=True, include_tests=True):
            found = catalog.get(step.node_id)
            if found is None or step.node_id in changed_ids:
                continue
            if found.is_test:
                test = SuggestedTest(found.path, pytest_id(found), step.depth)
                if test.test_id not in tests or tests[test.test_id].hops > test.hops:
                    tests[test.test_id] = test
            elif step.node_id not in best or best[step.node_id].hops > step.depth:
                best[step.node_id] = Affected(found, step.depth, step.parent, links.repo_of(found.path))
    called = {test.path for test in tests.values()}
    for path in dict.fromkeys(c.path for c in changed):  # dynamic dispatch leaves no call edge: the file's tests
        for test_file in _file_tests(graph, catalog, path)[:FILE_TESTS_PER_FILE]:
            if test_file not in called:
                tests.setdefault(test_file, SuggestedTest(test_file, "", 1))
    affected = sorted(best.values(), key=lambda a: (a.hops, a.chunk.path, a.chunk.start_line))
    return affected, sorted(tests.values(), key=lambda t: (t.hops, t.path, t.test_id))


def _file_tests(graph: CodeGraph, catalog: ChunkCatalog, path: str) -> list[str]:
    """Test files that import this file or call any of its definitions (the graph's edges, through
    re-exports), the nearest in the tree first (`pkg/tests/test_mod.py` before a test of another
    package that also uses it)."""
    edges = [*graph.in_edges(path, ("imports",))]
    for chunk in catalog.in_file(path):
        edges.extend(graph.in_edges(chunk.chunk_id, ("calls",)))
    found = {node.path for e in edges if (node := graph.nodes.get(e.source)) is not None and node.is_test}
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return sorted(found, key=lambda test: (-_shared_folders(test, path), stem not in test.rsplit("/", 1)[-1], test))


def _shared_folders(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        count += 1
    return count


def pytest_id(chunk: Chunk) -> str:
    """pytest's id of a test chunk: `path::test_name`, `path::TestClass::test_name`."""
    if chunk.symbol == MODULE_SYMBOL:
        return chunk.path
    return "::".join([chunk.path, *chunk.symbol.split("#")[0].split(".")])


def _unique_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    return list({c.chunk_id: c for c in chunks}.values())


def to_text(impact: Impact) -> str:
    """The impact for a person: what changed, what it reaches, the tests to run, the documents."""
    if not impact.changed:
        return "nothing changed: no definitions touched, no tests to run"
    lines = [f"Changed ({len(impact.changed)}):"]
    lines += [f"  {c.chunk_id}  {c.path}:{c.start_line}-{c.end_line}" for c in impact.changed]
    lines.append(f"\nAffected ({len(impact.affected)}):")
    lines += [f"  {a.chunk.chunk_id}  ({a.hops} hop{'s' if a.hops > 1 else ''}, via {a.via})" for a in impact.affected]
    lines.append(f"\nTests to run ({len(impact.tests)} in {len(impact.test_files)} files):")
    lines += [f"  {t.test_id or t.path}" + ("  (imports a changed file)" if not t.test_id else "")
              for t in impact.tests]
    if impact.documents:
        lines.append(f"\nDocuments and configuration naming them ({len(impact.documents)}):")
        lines += [f"  {c.chunk_id}" for c in impact.documents]
    return "\n".join(lines)
