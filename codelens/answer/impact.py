"""Change impact: a diff -> the definitions it touches -> who depends on them, which tests to run.

Pure. A unified diff is parsed into files and hunks (answer/diff.py, which also runs `git diff`
read-only on the indexed repository); each file is matched to the index on the side its lines
agree with, and each changed line is mapped to the innermost chunk holding it (diff_chunks.py).
The graph then walks upstream from those chunks: callers and subclasses to `depth`, across the
repositories of a workspace. Tests are the test chunks that walk reaches (as pytest ids), the test files nearest
in the tree that import a changed file or call any of its definitions (dynamic dispatch,
`getattr(self, "_print_" + name)`, leaves no call edge to the changed one), and the test files that
name the changed definitions most (a metaclass's `Mod(5, 3)` reaching `Mod.eval`, `.evalf()`
reaching `_eval_evalf`); the nearest MAX_TEST_FILES files of them. Documents and
configuration pieces that name a changed definition are listed too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from codelens.answer.context import ChunkCatalog
from codelens.answer.diff import parse_diff
from codelens.answer.diff_chunks import changed_chunks
from codelens.answer.task_context import ContextLinks
from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.errors import BadInput
from codelens.graph.model import CodeGraph
from codelens.graph.query import dependencies
from codelens.languages import Conventions, row_named

DEFAULT_DEPTH = 2
MAX_DEPTH = 10  # beyond this the walk is the whole codebase
FILE_TESTS_PER_FILE = 2  # a changed file's tests (importing or calling it): the nearest two (a core one has hundreds)
NAMED_TESTS_PER_FILE = 4  # test files naming a changed definition or its class: those that name most, nearest first
MAX_TEST_FILES = 15  # a change to a core helper reaches hundreds of test files within two calls: the nearest 15
# names too generic to say which tests exercise a definition (`eval`, `__new__`: every class has one)
_GENERIC_NAMES = frozenset({"new", "init", "eval", "call", "str", "repr", "doit", "hash", "args"})
MAX_DIFF_BYTES = 20_000_000  # a diff bigger than this is a vendored tree, not a change to review


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
    test_id: str  # its runner's id: `tests/test_x.py::Class::test_name`, `pkg.TestX` (Go); "" for a whole file
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
                test = SuggestedTest(found.path, runner_test_id(found), step.depth)
                if test.test_id not in tests or tests[test.test_id].hops > test.hops:
                    tests[test.test_id] = test
            elif step.node_id not in best or best[step.node_id].hops > step.depth:
                best[step.node_id] = Affected(found, step.depth, step.parent, links.repo_of(found.path))
    called = {test.path for test in tests.values()}
    for path in dict.fromkeys(c.path for c in changed):  # dynamic dispatch leaves no call edge: the file's tests
        for test_file in _file_tests(graph, catalog, path)[:FILE_TESTS_PER_FILE]:
            if test_file not in called:
                tests.setdefault(test_file, SuggestedTest(test_file, "", 1))
    listed = {test.path for test in tests.values()}  # by calls or by importing the file
    for path in dict.fromkeys(c.path for c in changed):  # a public API reached through a metaclass or a
        # generic method (`Mod(x, y)` -> `Mod.eval`, `.evalf()` -> `_eval_evalf`) has no call edge either
        for test_file in _naming_tests(catalog, [c for c in changed if c.path == path])[:NAMED_TESTS_PER_FILE]:
            if test_file not in listed:
                tests.setdefault(test_file, SuggestedTest(test_file, "", 2))
    affected = sorted(best.values(), key=lambda a: (a.hops, a.chunk.path, a.chunk.start_line))
    return affected, _nearest_files(list(tests.values()), [c.path for c in changed])


def _nearest_files(tests: list[SuggestedTest], changed_paths: Sequence[str]) -> list[SuggestedTest]:
    """The tests of the MAX_TEST_FILES files nearest the change (fewest hops, then sharing most folders
    with a changed file), in that order."""
    hops: dict[str, int] = {}
    for test in tests:
        hops[test.path] = min(hops.get(test.path, test.hops), test.hops)
    near = sorted(hops, key=lambda path: (hops[path], -max(_shared_folders(path, c) for c in changed_paths), path))
    rank = {path: number for number, path in enumerate(near[:MAX_TEST_FILES])}
    return sorted((t for t in tests if t.path in rank), key=lambda t: (rank[t.path], t.hops, t.test_id))


def _naming_tests(catalog: ChunkCatalog, changed: Sequence[Chunk]) -> list[str]:
    """Test files that name the changed definitions of one file as words: each definition's own name
    (as callers write it, `_eval_evalf` -> `evalf`, or as written), its class's and its top-level
    definition's. Those naming most names first, then the nearest in the tree, then those naming them
    most often."""
    path = changed[0].path
    names = set()
    for chunk in changed:
        if chunk.symbol == MODULE_SYMBOL:
            continue
        parts = chunk.symbol.split("#")[0].split(".")
        names.update(_called_as(part) for part in {parts[0], *parts[-2:]})  # `Mod.eval.doit`: Mod too
    names.discard("")
    if not names:
        return []
    # `Mod(`, `.evalf()`, `SI._collect_factor_and_dimension(`: called or as an attribute, by the name callers
    # write or the definition's own; one pass over each test for all the names
    words = re.compile(rf"(?<!\w)_*(?:eval_|print_)?({'|'.join(re.escape(n) for n in sorted(names))})(?!\w)")
    named: dict[str, list[str]] = {}
    for chunk in catalog.chunks.values():
        if chunk.is_test and any(name in chunk.code for name in names):  # most tests name none of them
            named.setdefault(chunk.path, []).extend(words.findall(chunk.code))
    kinds = {test: len(set(found)) for test, found in named.items() if found}
    return sorted(kinds, key=lambda test: (-kinds[test], -_shared_folders(test, path), -len(named[test]), test))


def _called_as(name: str) -> str:
    """The name callers write for a definition: `_eval_evalf` -> `evalf`, `__new__` and `eval` -> ``."""
    bare = re.sub(r"^_*(?:eval_|print_)?", "", name).strip("_")
    return "" if bare in _GENERIC_NAMES or len(bare) < 3 else bare


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


def runner_test_id(chunk: Chunk) -> str:
    """The id its language's test runner gives a test chunk (the language's `Conventions.test_id`):
    pytest's `path::TestClass::test_name`, Go's `pkg/folder.TestX`, JUnit's `CartTest#adds`; a test
    file's `<module>` is the file."""
    if chunk.symbol == MODULE_SYMBOL:
        return chunk.path
    owner, _, name = chunk.symbol.split("#")[0].rpartition(".")
    row = row_named(chunk.language) if chunk.language else None
    return (row.conventions if row is not None else Conventions()).test_id(chunk.path, owner, name)


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
