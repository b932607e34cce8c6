"""Task context: from a task (an issue, a bug report) to the code an agent must read, within a budget.

Stage A: the search that exists finds the seeds (a long task is read as its first tokens there).
Stage B: a walk over the code graph from the best seeds, `MAX_HOPS` steps: what they call (and the
classes they take, return or build), the exceptions they raise, who calls them, the tests that
call them (test code is context even though search leaves it out), the configuration they read
(constants, settings fields, environment variables) and the documents that name them; across
the repositories of a workspace, since the graph's edges cross them. The packer
(answer/pack.py) then shares the budget by S(v) = ALPHA * relevance + BETA * exp(-LAMBDA * hops).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from codelens.answer import localize
from codelens.answer.context import ChunkCatalog
from codelens.answer.localize import Localizer, Lookups, dispatch_prefixes
from codelens.answer.pack import CONTEXT_RULES, Candidate, Packed, PackRules, pack, score
from codelens.answer.task_reading import TaskParts, read_task
from codelens.answer.token_count import TokenCounter
from codelens.chunk import Chunk
from codelens.errors import BadInput, CodeLensError
from codelens.graph.dispatch import DISPATCH
from codelens.graph.model import CodeGraph
from codelens.search.filters import SearchFilters

if TYPE_CHECKING:
    from codelens.graph.store import StoredGraph
    from codelens.search.searcher import Hit, Searcher

    # (text, k, filters, candidates per leg): OpenIndex.search, Searcher.search
    SearchFn = Callable[[str, int, SearchFilters, int], Sequence[Hit]]

DEFAULT_BUDGET = 8000
MIN_BUDGET = 100  # below this not even one signature with its header fits
MAX_BUDGET = 2_000_000  # the largest context windows of today; more is a typo, not a model
MAX_TASK_CHARS = 100_000  # a long issue with its logs is ~20k characters; a megabyte is a dump, not a task

TITLE_HITS = 40  # the title's own search: its first hits, as evidence beside the task's (10-100 measured)
SEARCH_HITS = 100  # the seeds: search hits and definitions the task names; a fix is often past 10, and at 27k past 30
ISSUE_38_HITS = 30  # the seeds of a context with none of the parts (NO_PARTS): search read in rank order
# candidates per leg per hit a context's searches read: the depth they were measured at, deeper than a
# question's (a short title's 40 hits read from 50 candidates lost 8k recall 0.647 -> 0.628: bench/RESULTS.md)
SEARCH_DEPTH = 4
WALKED_SEEDS = 10  # the seeds the walk starts from: the graph around weak hits is mostly noise
MAX_HOPS = 2  # farther than two calls away the code rarely bears on the task (and comes as signatures anyway)
CALLEES_PER_NODE = 8  # a node's callees walked: a long function calls many helpers, the first ones matter most
CALLERS_PER_NODE = 5  # a popular function has hundreds of callers: a few show how it is used
TESTS_PER_NODE = 4  # the tests that call a seed: enough to see how it is exercised
LINKS_PER_SEED = 3  # configuration pieces, documents, types and exceptions per seed
DISPATCHED_PER_NODE = 3  # methods reached by a built name that the task bears on, per node
SKELETON_RELEVANCE = 1.0  # the top file's skeleton first, where the budget allows it (pack.PackRules.skeleton_share)

ROLES = ("seed", "callee", "caller", "type", "exception", "configuration", "test", "document")

_RAISE = re.compile(r"\braise\s+([A-Za-z_][\w.]*)")
_CAPWORD = re.compile(r"\b([A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)\b")
_CONSTANT = re.compile(r"(?<![\w.])([A-Z][A-Z0-9_]{2,})(?!\w)")
_ENV_READ = re.compile(r"""(?:environ(?:\.get)?\s*[\[(]|getenv\s*\()\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]""")
_SETTINGS_FIELD = re.compile(r"\b(?:settings|config|conf|cfg|options)\.([A-Za-z_][A-Za-z0-9_]*)")
_DEFINES_CONSTANT = re.compile(r"^([A-Z][A-Z0-9_]{2,})\s*[:=]", re.MULTILINE)
_DOC_CODE = re.compile(r"`+([^`\n]{2,80})`+|\b([A-Za-z_][\w.]*[A-Za-z0-9_])\(")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


# ------------------------------------------------------------------ input


def check_task(task: str) -> str:
    """The task's text, stripped; BadInput when it is empty, too long or not text."""
    text = task.strip()
    if not text:
        raise BadInput("the task is empty - pass the issue's text, `-` to read it from stdin, or @FILE")
    if len(text) > MAX_TASK_CHARS:
        raise BadInput(f"the task is {len(text):,} characters; the most is {MAX_TASK_CHARS:,} - pass the issue's "
                       "text (its title and description), not a log or a dump")
    if "\x00" in text:
        raise BadInput("the task is not text (it holds NUL bytes) - pass the issue's text")
    return text


def check_budget(budget: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise BadInput(f"a budget of {budget!r} tokens is out of range - give {MIN_BUDGET:,} to {MAX_BUDGET:,} "
                       f"(default {DEFAULT_BUDGET:,})")
    return budget


# ------------------------------------------------------------------ stage A


@dataclass(frozen=True)
class Seed:
    chunk: Chunk
    relevance: float  # the hit's fused score over the best hit's: 1.0 for the first
    rank: int
    repo: str = ""


def seeds_of(hits: Sequence[Hit]) -> list[Seed]:
    """Search hits as seeds, their fused scores scaled so the best is 1 (what S's relevance reads)."""
    top = max((hit.fused_score for hit in hits), default=0.0)
    return [Seed(hit.chunk, min(1.0, max(0.0, hit.fused_score / top)) if top > 0 else 0.0, hit.rank, hit.repo)
            for hit in hits]


# ------------------------------------------------------------------ stage B


class ContextLinks:
    """Stage B over one index: the graph's edges plus the links it has no edges for (configuration,
    documents, raised and annotated classes), found by name. Built once per opened index."""

    def __init__(self, catalog: ChunkCatalog, graph: CodeGraph | StoredGraph | None,
                 repo_of: Callable[[str], str] | None = None) -> None:
        self.catalog = catalog
        self.graph = graph
        self.repo_of = repo_of or (lambda path: graph.repository_of(path) if graph is not None else "")

    @cached_property
    def _classes(self) -> dict[str, list[Chunk]]:
        found: dict[str, list[Chunk]] = {}
        for chunk in self.catalog.chunks.values():
            if chunk.kind == "class":
                found.setdefault(chunk.name, []).append(chunk)
        return found

    @cached_property
    def _configuration(self) -> tuple[dict[str, list[Chunk]], dict[str, list[Chunk]]]:
        """The configuration pieces by what they set: (a NAME as written -> the pieces writing it: an
        environment variable in a config, .env or text file, a module-level CONSTANT; a key's
        lower-cased last part -> the config pieces of that key)."""
        names: dict[str, list[Chunk]] = {}
        keys: dict[str, list[Chunk]] = {}
        for chunk in self.catalog.chunks.values():
            if chunk.kind == "config":
                keys.setdefault(chunk.symbol.rsplit(".", 1)[-1].rsplit(" > ", 1)[-1].lower(), []).append(chunk)
                written = set(_CONSTANT.findall(chunk.code))
            elif chunk.kind == "text":
                written = set(_CONSTANT.findall(chunk.code))
            elif chunk.kind == "module" and not chunk.is_test:
                written = set(_DEFINES_CONSTANT.findall(chunk.code))
            else:
                continue
            for name in written:
                names.setdefault(name, []).append(chunk)
        return names, keys

    @cached_property
    def _documents(self) -> dict[str, list[Chunk]]:
        """A name written as code in a document (in backticks, or called) -> the sections that write it."""
        found: dict[str, list[Chunk]] = {}
        for chunk in self.catalog.chunks.values():
            if chunk.kind != "doc":
                continue
            names = set()
            for quoted, called in _DOC_CODE.findall(chunk.code):
                for word in _WORD.findall(quoted or called):
                    names.add(word)
            for name in names:
                found.setdefault(name, []).append(chunk)
        return found

    def warm_up(self) -> None:
        _ = self._classes, self._configuration, self._documents, self.dispatch_prefixes

    # ---------------------------------------------------------- one node's links

    def _chunk(self, node_id: str) -> Chunk | None:
        chunk = self.catalog.get(node_id)
        return chunk if chunk is not None and chunk.is_code else None

    def callees(self, chunk: Chunk) -> list[Chunk]:
        if self.graph is None:
            return []
        edges = [e for e in self.graph.out_edges(chunk.chunk_id, ("calls", "inherits")) if e.via != DISPATCH]
        found = [self._chunk(e.target) for e in sorted(edges, key=lambda e: (e.kind != "inherits", e.line))]
        return _unique([c for c in found if c is not None and c.chunk_id != chunk.chunk_id])

    def dispatched(self, chunk: Chunk) -> list[Chunk]:
        """The methods it calls through a built name (`getattr(self, "_print_" + name)`): a family of
        hundreds, that the walk picks from by the task."""
        if self.graph is None:
            return []
        found = [self._chunk(e.target) for e in self.graph.out_edges(chunk.chunk_id, ("calls",)) if e.via == DISPATCH]
        return [c for c in found if c is not None]

    @cached_property
    def dispatch_prefixes(self) -> list[str]:
        """The name prefixes of the graph's dispatch families (`_print_`, `visit_`)."""
        if self.graph is None:
            return []
        families: dict[str, list[str]] = {}
        for edge in self.graph.edges_via(DISPATCH):
            if edge.kind == "calls":
                families.setdefault(edge.source, []).append(edge.target.rsplit("::", 1)[-1].rsplit(".", 1)[-1])
        return dispatch_prefixes(families)

    def callers(self, chunk: Chunk) -> list[Chunk]:
        if self.graph is None:
            return []
        found = [self._chunk(e.source) for e in self.graph.in_edges(chunk.chunk_id, ("calls",))]
        # the nearest callers in the tree first: they show how its own package uses it
        return _unique(sorted((c for c in found if c is not None and c.chunk_id != chunk.chunk_id),
                              key=lambda c: (-_shared_prefix(c.path, chunk.path), c.path, c.start_line)))

    def call_targets(self, chunk: Chunk) -> frozenset[str]:
        """The chunk ids it calls: what the packer puts before it."""
        if self.graph is None:
            return frozenset()
        return frozenset(e.target for e in self.graph.out_edges(chunk.chunk_id, ("calls",)))

    def raised(self, chunk: Chunk) -> list[Chunk]:
        return self._named_classes((name.rsplit(".", 1)[-1] for name in _RAISE.findall(chunk.code)), chunk)

    def types(self, chunk: Chunk) -> list[Chunk]:
        """Classes its signature names (parameters and return)."""
        names = [n for n in _CAPWORD.findall(chunk.signature) if n != chunk.name]
        return self._named_classes(names, chunk)

    def configuration(self, chunk: Chunk) -> list[Chunk]:
        """What it reads: environment variables and CONSTANTS where they are set, settings fields as
        configuration keys (or as their environment variable, FIELD in upper case)."""
        names, keys = self._configuration
        fields = _SETTINGS_FIELD.findall(chunk.code)
        written = [*_ENV_READ.findall(chunk.code), *_CONSTANT.findall(chunk.code), *(f.upper() for f in fields)]
        found = [c for name in dict.fromkeys(written) for c in names.get(name, ())]
        found += [c for field in dict.fromkeys(fields) for c in keys.get(field.lower(), ())]
        return [c for c in _unique(found) if c.chunk_id != chunk.chunk_id][:LINKS_PER_SEED]

    def documents(self, chunk: Chunk) -> list[Chunk]:
        if chunk.kind == "module":
            return []
        return _unique(self._documents.get(chunk.name, ()))[:LINKS_PER_SEED]

    def members(self, chunk: Chunk) -> tuple[Chunk, ...]:
        """A class's own methods, in line order: its outline."""
        if chunk.kind != "class":
            return ()
        return tuple(c for c in self.catalog.in_file(chunk.path) if c.parent == chunk.symbol and c.kind == "method")

    def _named_classes(self, names: Iterable[str], near: Chunk) -> list[Chunk]:
        """Each name's class, the one nearest `near` in the tree when several share it."""
        found = []
        for name in dict.fromkeys(names):
            classes = self._classes.get(name, [])
            if classes:
                found.append(max(classes, key=lambda c: (_shared_prefix(c.path, near.path), -len(c.path))))
        return [c for c in found if c.chunk_id != near.chunk_id][:LINKS_PER_SEED]


# ------------------------------------------------------------------ the walk


@dataclass(frozen=True)
class _Reached:
    chunk: Chunk
    role: str
    hops: int
    origin: Chunk


def walk(seeds: Sequence[Seed], links: ContextLinks, include_tests: bool = True,
         also_seen: Iterable[str] = (), relevance: Callable[[str], float] | None = None) -> list[_Reached]:
    """Breadth-first from the seeds, MAX_HOPS steps: each chunk at its shortest distance, with its role
    (`also_seen`: chunks already candidates, the other seeds, not walked again). With `relevance` (a
    chunk id's own relevance to the task) a node's neighbours are taken most relevant first, and the
    methods it dispatches to by a built name are walked too, those the task bears on."""
    reached: list[_Reached] = []
    seen = {seed.chunk.chunk_id for seed in seeds} | set(also_seen)
    frontier = [seed.chunk for seed in seeds]
    for hops in range(1, MAX_HOPS + 1):
        next_frontier: list[Chunk] = []
        for chunk in frontier:
            for role, found in _relations(chunk, links, first_step=hops == 1, include_tests=include_tests,
                                          relevance=relevance):
                if found.chunk_id in seen:
                    continue
                seen.add(found.chunk_id)
                reached.append(_Reached(found, role, hops, chunk))
                if role in ("callee", "caller", "type"):
                    next_frontier.append(found)
        frontier = next_frontier
    return reached


def _relations(chunk: Chunk, links: ContextLinks, first_step: bool, include_tests: bool,
               relevance: Callable[[str], float] | None = None) -> list[tuple[str, Chunk]]:
    """(role, chunk) of one node's neighbours; configuration and documents only next to a seed."""
    raised = links.raised(chunk) if chunk.is_code else []
    raised_ids = {c.chunk_id for c in raised}
    related: list[tuple[str, Chunk]] = [("exception", c) for c in raised]
    first = (lambda chunks: sorted(chunks, key=lambda c: -relevance(c.chunk_id))) if relevance else list
    if chunk.is_code:
        for callee in first(links.callees(chunk))[:CALLEES_PER_NODE]:
            if callee.chunk_id not in raised_ids:
                related.append(("type" if callee.kind == "class" else "callee", callee))
        if relevance is not None:
            dispatched = [c for c in first(links.dispatched(chunk)) if relevance(c.chunk_id) > 0]
            related.extend(("callee", c) for c in dispatched[:DISPATCHED_PER_NODE])
        related.extend(("type", c) for c in links.types(chunk))
        callers = first(links.callers(chunk))
        related.extend(("caller", c) for c in [c for c in callers if not c.is_test][:CALLERS_PER_NODE])
        if include_tests:
            related.extend(("test", c) for c in [c for c in callers if c.is_test][:TESTS_PER_NODE])
    if first_step:
        related.extend(("configuration", c) for c in links.configuration(chunk))
        related.extend(("document", c) for c in links.documents(chunk))
    return related


# ------------------------------------------------------------------ the whole


@dataclass(frozen=True)
class ContextParts:
    """The parts of task context beyond a search and a walk, each switchable (bench/swebench.py
    measures each on its own): `reading` reads the task into its parts (answer/task_reading.py) and
    looks up its names, frames and paths; `files_first` ranks files, then the definitions inside the
    best; `dispatch` walks the graph's dispatch edges and looks up the task's types among the
    dispatch families; `scoring` gives every candidate its own relevance (a walked node's from the
    task, not 0), so a callee the task names beats the thirtieth search hit."""

    reading: bool = True
    files_first: bool = True
    dispatch: bool = True
    scoring: bool = True


ALL_PARTS = ContextParts()
NO_PARTS = ContextParts(reading=False, files_first=False, dispatch=False, scoring=False)


def task_candidates(hits: Sequence[Hit], links: ContextLinks, include_tests: bool = True,
                    localizer: Localizer | None = None, parts: ContextParts = ALL_PARTS) -> list[Candidate]:
    """The seeds (the localizer's best definitions, or the search's hits) and Stage B's walk as the
    packer's candidates."""
    if localizer is None:
        seeds = seeds_of(hits)
    else:
        seeds = [Seed(r.chunk, localizer.relevance(r.chunk.chunk_id), rank, links.repo_of(r.chunk.path))
                 for rank, r in enumerate(localizer.ranked(SEARCH_HITS), start=1)]
    relevance = {seed.chunk.chunk_id: seed.relevance for seed in seeds}
    own = localizer.relevance if localizer is not None and parts.scoring else None
    walk_relevance = own if own is not None else (localizer.relevance if localizer is not None and parts.dispatch
                                                  else None)
    candidates = top_file_skeleton(localizer, links) + [
        Candidate(seed.chunk, "seed", 0, seed.relevance, note=_seed_note(seed, localizer),
                  repo=seed.repo or links.repo_of(seed.chunk.path), callees=links.call_targets(seed.chunk),
                  members=links.members(seed.chunk))
        for seed in seeds
    ]
    for found in walk(seeds[:WALKED_SEEDS], links, include_tests, also_seen=relevance, relevance=walk_relevance):
        chunk = found.chunk
        hops = f"{found.hops} hop{'s' if found.hops > 1 else ''}"
        candidates.append(Candidate(
            chunk, found.role, found.hops, own(chunk.chunk_id) if own is not None else 0.0,
            note=f"{found.role}, {_VIA[found.role]} `{found.origin.symbol}`, {hops}",
            repo=links.repo_of(chunk.path), callees=links.call_targets(chunk), members=links.members(chunk)))
    return candidates


def top_file_skeleton(localizer: Localizer | None, links: ContextLinks) -> list[Candidate]:
    """The best file's definitions as one outline piece, anchored on the file (its graph node's id) and
    packed first while it costs at most a tenth of the budget: a map of where the fix likely is, for the
    reader to ask for what the budget left out. Its classes and the definitions the task bears on come
    first when it is cut. None without files first, or for a file of one definition."""
    if localizer is None or not localizer.files_first or not localizer.kept_files:
        return []
    path = localizer.kept_files[0]
    definitions = [c for c in links.catalog.in_file(path) if c.is_code and c.kind != "module"]
    if len(definitions) < 2:
        return []
    definitions.sort(key=lambda c: (c.kind != "class" and localizer.relevance(c.chunk_id) == 0, c.start_line))
    file = Chunk(chunk_id=path, path=path, symbol="<module>", kind="module", start_line=1,
                 end_line=max(c.end_line for c in definitions), code="")
    return [Candidate(file, "seed", 0, SKELETON_RELEVANCE, note="the best file for the task",
                      repo=links.repo_of(path), members=tuple(definitions), skeleton=True)]


def _seed_note(seed: Seed, localizer: Localizer | None) -> str:
    why = localizer.why(seed.chunk.chunk_id) if localizer is not None else ""
    return f"seed {seed.rank}, " + (f"found by {why}" if why else "found by the search")


_VIA = {"callee": "called by", "caller": "calls", "type": "used by", "exception": "raised by",
        "configuration": "read by", "test": "tests", "document": "names"}


def context_candidates(task: str, search: SearchFn, links: ContextLinks,
                       filters: SearchFilters | None = None, lookups: Lookups | None = None,
                       parts: ContextParts = ALL_PARTS) -> list[Candidate]:
    """Stage A (the task read, searched, localized) and Stage B (the walk): the packer's candidates."""
    text = check_task(task)
    if parts == NO_PARTS:  # issue 38's context, as it was
        hits = search(text, ISSUE_38_HITS, filters or SearchFilters(), SEARCH_DEPTH * ISSUE_38_HITS)
        return task_candidates(hits, links, parts=parts)
    read = read_task(text)
    scope = filters or SearchFilters()
    hits = search(text, SEARCH_HITS, scope, SEARCH_DEPTH * SEARCH_HITS)
    # the title on its own: what the reporter says is wrong, as a short question the dense leg reads whole
    titled = (search(read.title, TITLE_HITS, scope, SEARCH_DEPTH * TITLE_HITS)
              if parts.reading and localize.TITLE_SEARCH_WEIGHT > 0 and read.title and read.title != text.strip()
              else [])
    lookups = lookups or Lookups()
    if not parts.reading:  # the search's hits alone, ranked by file when files_first
        read, lookups = TaskParts(text, read.title, read.prose, (), (), (), (), ()), Lookups(accept=lookups.accept)
    localizer = Localizer(read, links.catalog, [hit.chunk for hit in hits], lookups,
                          links.dispatch_prefixes if parts.dispatch and parts.reading else (),
                          files_first=parts.files_first, title_hits=[hit.chunk for hit in titled])
    return task_candidates(hits, links, localizer=localizer, parts=parts)


def task_context(task: str, search: SearchFn, links: ContextLinks,
                 counter: TokenCounter, budget: int = DEFAULT_BUDGET,
                 filters: SearchFilters | None = None, lookups: Lookups | None = None,
                 parts: ContextParts = ALL_PARTS, rules: PackRules = CONTEXT_RULES) -> Packed:
    """The packed context of a task: Stage A, Stage B (`links`), the packer (budget counted by `counter`)."""
    check_task(task)
    check_budget(budget)
    return pack(context_candidates(task, search, links, filters, lookups, parts), budget, counter, rules)


def task_lookups(searcher: Searcher, filters: SearchFilters | None) -> Lookups:
    """The searcher's BM25 over chunks and files, its scope and the graph's hub files: what reading a task
    looks names up in.
    A path prefix no file has is left to the search to refuse."""
    try:
        accept = searcher.scope(filters or SearchFilters()).accepts
    except CodeLensError:
        accept = Lookups().accept
    return Lookups(searcher.lexical, searcher.file_words, accept, searcher.file_hubs)


def ranked(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates in the packer's order (S best first, nearest first among equals), each chunk once,
    the file's skeleton left out (a map, not a definition): what `func@k` reads (bench/swebench.py)."""
    definitions = [(i, c) for i, c in enumerate(candidates) if not c.skeleton]
    order = sorted(definitions, key=lambda item: (-score(item[1].relevance, item[1].hops), item[1].hops, item[0]))
    seen: set[str] = set()
    return [c for _, c in order if not (c.chunk.chunk_id in seen or seen.add(c.chunk.chunk_id))]


def to_markdown(packed: Packed | dict, task: str = "") -> str:
    """The pieces as Markdown, one block each (its header says where, what, why and how far), then a
    line of totals; from the packed context or its JSON (a server's answer)."""
    data = packed.to_dict() if isinstance(packed, Packed) else packed
    title = " ".join(task.split())[:100]
    head = [f"## Context for: {title}" if title else "## Context", ""]
    pieces = data["pieces"]
    tail = f"{len(pieces)} pieces, {data['tokens']:,} of {data['budget']:,} tokens ({data.get('tokenizer', '')})"
    return "\n".join(head) + "\n\n".join(p["text"] for p in pieces) + ("\n\n" if pieces else "") + tail


# ------------------------------------------------------------------ helpers


def _unique(chunks: Iterable[Chunk]) -> list[Chunk]:
    return list({c.chunk_id: c for c in chunks}.values())


def _shared_prefix(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        count += 1
    return count


__all__ = ["ALL_PARTS", "DEFAULT_BUDGET", "MAX_BUDGET", "MAX_TASK_CHARS", "MIN_BUDGET", "NO_PARTS", "ROLES",
           "ContextLinks", "ContextParts", "Seed", "check_budget", "check_task", "context_candidates", "ranked",
           "seeds_of", "task_candidates", "task_context", "to_markdown", "walk"]
