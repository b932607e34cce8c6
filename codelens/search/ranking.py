"""Ranking stages after fusion: pure functions of the fused list, the chunks and the question.

Each stage is one idea, measured on its own with `bench/retrieval.py --semble DIR` (numbers in
bench/RESULTS.md); `SHIPPED_RANKING` names the ones kept. Stages never drop a candidate the
fusion found; results stay chunks.

- `graph-files`: the files the first results call, or are called from, belong to the same
  mechanism: their chunks gain a share of those results' scores (the code graph's calls).
- `file-words`: for a question in English (the code's language), a chunk gains a share of how
  well its whole file matches the question's words (BM25 with the file as one document).
- `file-meaning`: a chunk gains a share of how close its whole file (the mean e5 vector of its
  chunks) is to the question.
- `path`: a chunk whose file name (or folder) is a word of the question gains a share.
- `kind-prior`: code first: a piece of a document, configuration or build file keeps a share
  of its score, so it outranks code only when it answers the question clearly better (how to
  run, configure, deploy); an index of code alone is untouched.
- `diverse-close`: a chunk's score is multiplied by `decay` for every better chunk of the same
  file already listed, so one class and its methods cannot fill the list; in the first four
  places only a chunk close to the top score (70% of it) may be lifted that way.
- `symbol`: a question that is an identifier (`Response`, `Session.send`) puts that name's
  definitions first (exact case before any case, classes before functions before methods);
  a question that contains a code-shaped identifier (`ClientSession`, `model_post_init`)
  lifts that name's definitions to the top of the list as well.

Only what the Searcher runs lives here. The other settings of these stages that were measured
(other weights, a file's first chunks let through, grouping by top-level definition, a head
kept as fused, pinning bare identifiers only) and the ideas that did not ship are
bench/variants.py's: subclasses of these stages and its own registry of names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.ingest.embed_text import split_identifier
from codelens.search.bridge import WordBridge, bridged_terms, crossed
from codelens.search.file_vectors import FileVectors
from codelens.search.fusion import minmax
from codelens.search.lexical import LexicalIndex
from codelens.search.query import Fused, Query, Stage
from codelens.search.terms import index_term, without_code_suffix

# Measured one at a time on semble_py_dev (bench/RESULTS.md): each of these lifts it alone.
SHIPPED_RANKING: tuple[str, ...] = ("graph-files", "file-words", "file-meaning", "path", "kind-prior", "diverse-close",
                                    "symbol")
# chunk ids -> for each, the files of the code it calls and of the code calling it
CallFiles = Callable[[Sequence[str]], Mapping[str, frozenset[str]]]

_KIND_ORDER = {"class": 0, "function": 1, "method": 2}
# How many definitions of one name a bare-identifier question may pin to the top.
MAX_PINNED = 3


@dataclass(frozen=True)
class RankingIndex:
    """What the stages look up, built once per opened index: definitions by name."""

    chunks: Mapping[str, Chunk]
    by_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # exact name -> chunk ids
    by_lower: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # lowercased name -> chunk ids

    @classmethod
    def build(cls, chunks: Mapping[str, Chunk]) -> RankingIndex:
        by_name: dict[str, list[str]] = {}
        by_lower: dict[str, list[str]] = {}
        for chunk in chunks.values():
            if chunk.symbol == MODULE_SYMBOL or not chunk.is_code:  # definitions are code
                continue
            name = chunk.name.split("#", 1)[0]
            by_name.setdefault(name, []).append(chunk.chunk_id)
            by_lower.setdefault(name.lower(), []).append(chunk.chunk_id)
        return cls(chunks, {k: tuple(v) for k, v in by_name.items()}, {k: tuple(v) for k, v in by_lower.items()})

    def definitions(self, identifier: str, exact_case: bool = True) -> list[str]:
        """Chunk ids defining `identifier` (`Name` or a qualified `Outer.Name`), best first."""
        last = identifier.rsplit(".", 1)[-1]
        pool = self.by_name.get(last, ()) if exact_case else self.by_lower.get(last.lower(), ())
        if "." in identifier:
            wanted = identifier if exact_case else identifier.lower()
            pool = tuple(c for c in pool if _qualified_match(self.chunks[c], wanted, exact_case))
        return sorted(pool, key=lambda c: _definition_order(self.chunks[c]))


def _qualified_match(chunk: Chunk, wanted: str, exact_case: bool) -> bool:
    symbol = chunk.symbol.split("#", 1)[0]
    dotted = f"{without_code_suffix(chunk.path).replace('/', '.')}.{symbol}"
    if not exact_case:
        symbol, dotted = symbol.lower(), dotted.lower()
    return any(name == wanted or name.endswith("." + wanted) for name in (symbol, dotted))


def _definition_order(chunk: Chunk) -> tuple:
    """Classes, then functions, then methods; top-level before nested; code before tests."""
    return (chunk.is_test, _KIND_ORDER.get(chunk.kind, 3), chunk.symbol.count("."), len(chunk.path), chunk.chunk_id)


def _file_of(chunks: Mapping[str, Chunk], item: Fused) -> str:
    """The path of a listed chunk ("" for a snippet without one, or a chunk the index lacks)."""
    chunk = chunks.get(item.chunk_id)
    return chunk.path if chunk is not None else ""


def rescore(fused: Sequence[Fused], scores: Mapping[str, float]) -> list[Fused]:
    rescored = [replace(f, score=scores[f.chunk_id]) if scores[f.chunk_id] != f.score else f for f in fused]
    return sorted(rescored, key=lambda f: (-f.score, f.chunk_id))


# ---------------------------------------------------------------- stages


@dataclass(frozen=True)
class SymbolIntent:
    """Definitions of the identifier a question is (or names) go first."""

    index: RankingIndex
    accept: Callable[[str], bool] | None = None
    # In a workspace of several repositories, a file's repository: each repository defining the
    # name gets its best definition pinned before any gets a second (a bare `Request` is the web
    # framework's or the HTTP client's: the question does not say which).
    repo_of: Callable[[str], str] | None = None

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        pinned = self._pinned(query)
        if not pinned:
            return fused
        top = fused[0].score if fused else 1.0
        known = {f.chunk_id: f for f in fused}
        head = [replace(known.get(c, Fused(c, 0.0)), score=top + (len(pinned) - i) * 1e-3)
                for i, c in enumerate(pinned)]
        return head + [f for f in fused if f.chunk_id not in set(pinned)]

    def _names(self, query: Query) -> list[str]:
        """The identifier the question is, else the code-shaped ones inside it."""
        return [query.identifier] if query.identifier else list(query.code_identifiers)

    def _pinned(self, query: Query) -> list[str]:
        pinned: list[str] = []
        for name in self._names(query):
            found = self.index.definitions(name) or self.index.definitions(name, exact_case=False)
            found = [c for c in found if self.accept is None or self.accept(c)]
            found = _one_per_file(found, self.index.chunks)
            if self.repo_of is not None:
                found = _each_repository_first(found, self.index.chunks, self.repo_of)
            pinned += [c for c in found[:MAX_PINNED] if c not in pinned]
        return pinned


def _one_per_file(chunk_ids: Iterable[str], chunks: Mapping[str, Chunk]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for chunk_id in chunk_ids:
        path = chunks[chunk_id].path
        if path not in seen:
            seen.add(path)
            kept.append(chunk_id)
    return kept


def _each_repository_first(chunk_ids: Sequence[str], chunks: Mapping[str, Chunk],
                           repo_of: Callable[[str], str]) -> list[str]:
    """The same ids, each repository's first before any repository's second (a stable round robin)."""
    seen: dict[str, int] = {}
    turns = []
    for chunk_id in chunk_ids:
        repo = repo_of(chunks[chunk_id].path)
        turns.append(seen.get(repo, 0))
        seen[repo] = turns[-1] + 1
    return [chunk_id for _, chunk_id in sorted(zip(turns, chunk_ids, strict=True), key=lambda pair: pair[0])]


@dataclass(frozen=True)
class FileDiversity:
    """Greedy re-ranking: each chunk's score x decay^(chunks of its file already placed above it).
    Chunks without a path (snippet corpora) are never grouped.

    `close`: in the first `guarded` places, only a chunk scoring at least `close` x the top
    score may be lifted above a better one, so a question about one file keeps that file's
    chunks together unless another file comes close to it; below those places, any may."""

    chunks: Mapping[str, Chunk]
    decay: float = 0.5
    window: int = 50  # only the head of the list is re-ranked; the tail keeps its order
    close: float = 0.0
    guarded: int = 0

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        bar = self.close * fused[0].score if fused else 0.0
        return self._place([], fused[: self.window], bar) + fused[self.window :]

    def _place(self, placed: Sequence[Fused], head: Sequence[Fused], bar: float) -> list[Fused]:
        """`placed` (already listed: their files count) followed by `head` re-ranked greedily;
        `bar` is the score a chunk needs to be lifted into the first `guarded` places."""
        placed, head = list(placed), list(head)
        per_file: dict[str, int] = {}
        for item in placed:
            path = self._group(item)
            if path:
                per_file[path] = per_file.get(path, 0) + 1
        while head:
            # head stays in fused order: its first item is the best not yet placed
            eligible = range(len(head))
            if len(placed) < self.guarded:
                eligible = [i for i in eligible if i == 0 or head[i].score >= bar]
            best = max(eligible, key=lambda i: (self._score(head[i], per_file), -i))
            item = head.pop(best)
            placed.append(item)
            path = self._group(item)
            if path:
                per_file[path] = per_file.get(path, 0) + 1
        return placed

    def _group(self, item: Fused) -> str:
        """What a chunk's listed neighbours share to count against it: its file ("" for none)."""
        return _file_of(self.chunks, item)

    def _score(self, item: Fused, per_file: Mapping[str, int]) -> float:
        return item.score * self.decay ** per_file.get(self._group(item), 0)


@dataclass(frozen=True)
class RepositoryCopies:
    """In a workspace, a chunk whose code is the same as a better chunk's of another repository (a
    fork, a vendored copy, the same project twice) goes below the head: the list shows that code
    once, and the place goes to another answer. Equal code has equal vectors and scores, so the
    copies tie; `prefer_repository` (ties.py) has already put the repository you are in first."""

    chunks: Mapping[str, Chunk]
    repo_of: Callable[[str], str] | None
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.repo_of is None:
            return fused
        seen: dict[str, str] = {}  # code -> the repository of its best chunk
        kept, copies = [], []
        for item in fused[: self.window]:
            chunk = self.chunks.get(item.chunk_id)
            if chunk is None:
                kept.append(item)
                continue
            repo = self.repo_of(chunk.path)
            first = seen.setdefault(chunk.code, repo)
            (copies if first != repo else kept).append(item)
        return kept + copies + fused[self.window :] if copies else fused


@dataclass(frozen=True)
class PathSignal:
    """A chunk whose file name or folder is a word of the question gains `bonus` x its score.
    A Russian question's words count through the word bridge («куки» -> cookie -> cookies.py)."""

    chunks: Mapping[str, Chunk]
    bonus: float = 0.2
    bridge: WordBridge | None = None

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        asked = set(query.terms)
        if self.bridge is not None and query.russian:
            asked |= set(bridged_terms(crossed(query, self.bridge), query.words))
        if not asked:
            return fused
        scores = {}
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            hit = chunk is not None and chunk.path and asked & _path_terms(chunk.path)
            scores[item.chunk_id] = item.score * (1.0 + self.bonus) if hit else item.score
        return rescore(fused, scores)


@dataclass(frozen=True)
class FileMeaning:
    """A chunk gains `weight` x how close its whole file is to the question (the file's mean e5
    vector against the question's, min-max scaled over the head of the list): the file that is
    about the question lifts its chunks above a lone look-alike elsewhere. The gain is on the
    scale of convex fusion's scores (each leg min-max scaled, summed by weight: about 0-1.5)."""

    chunks: Mapping[str, Chunk]
    files: FileVectors | None
    weight: float = 0.2
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.files is None or query.vector is None or not fused:
            return fused
        head = fused[: self.window]
        paths = [_file_of(self.chunks, f) for f in head]
        return add_file_gain(fused, self.files.similarity(query.vector, paths), self.weight)


@dataclass(frozen=True)
class FileWords:
    """A chunk gains `weight` x how well its whole file matches the question's words (BM25 over
    files, min-max scaled over the head of the list): the module where the question's terms
    gather lifts its chunks above a lone chunk that repeats one term. English questions only:
    a Russian question's words reach the code through the bridge's loose neighbours, which
    lift the wrong files when a whole file is scored (bench/RESULTS.md)."""

    chunks: Mapping[str, Chunk]
    files: LexicalIndex | None
    weight: float = 0.3
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.files is None or not fused or query.russian:
            return fused
        terms = {t: 1.0 for t in query.terms if t in self.files.vocabulary}
        if not terms:
            return fused
        by_path = dict(zip(self.files.chunk_ids, self.files.scores(terms), strict=True))
        matched = [by_path.get(_file_of(self.chunks, f), np.nan) for f in fused[: self.window]]
        return add_file_gain(fused, np.asarray(matched, dtype=np.float64), self.weight)


def add_file_gain(fused: list[Fused], file_scores: np.ndarray, weight: float) -> list[Fused]:
    """The head of the list (as long as file_scores, one per chunk: its file's score, NaN when
    its file has none) gains weight x the scores min-max scaled over the head; fewer than two
    known scores leave the list as it is."""
    known = ~np.isnan(file_scores)
    if known.sum() < 2:
        return fused
    scaled = np.zeros(len(file_scores), dtype=np.float64)
    scaled[known] = minmax(file_scores[known].astype(np.float64))
    scores = {f.chunk_id: f.score for f in fused}
    for item, gain in zip(fused[: len(file_scores)], scaled, strict=True):
        scores[item.chunk_id] = item.score + weight * float(gain)
    return rescore(fused, scores)


@dataclass(frozen=True)
class GraphFiles:
    """The files the first `seeds` results call, or are called from, hold the rest of the
    mechanism the question is about: each chunk of such a file (other than that result's own
    file) gains bonus / seeds x that result's score, summed over the seeds, but never rises
    above the first result. "How is a response serialized" then reaches the encoder the
    route handler calls, not only the handler."""

    chunks: Mapping[str, Chunk]
    call_files: CallFiles | None
    bonus: float = 0.3
    seeds: int = 3
    window: int = 50

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.call_files is None or len(fused) < 2:
            return fused
        seeds = fused[: self.seeds]
        linked = self.call_files([seed.chunk_id for seed in seeds])
        if not linked:
            return fused
        head = fused[: self.window]
        scores = {f.chunk_id: f.score for f in fused}
        for seed in seeds:
            files = linked.get(seed.chunk_id, frozenset()) - {_file_of(self.chunks, seed)}
            for item in head:
                if _file_of(self.chunks, item) in files:
                    scores[item.chunk_id] += self.bonus / self.seeds * seed.score
        top = fused[0].score
        for item in head[1:]:
            scores[item.chunk_id] = min(scores[item.chunk_id], float(np.nextafter(top, -np.inf)))
        return rescore(fused, scores)


@dataclass(frozen=True)
class KindPrior:
    """A chunk that is not Python code keeps `weight` of its score: where a document and the
    code it describes answer about as well, the code comes first."""

    chunks: Mapping[str, Chunk]
    weight: float = 0.85

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        factors = {f.chunk_id: self._factor(c) for f in fused
                   if (c := self.chunks.get(f.chunk_id)) is not None and not c.is_code}
        if not factors:
            return fused
        return rescore(fused, {f.chunk_id: f.score * factors.get(f.chunk_id, 1.0) for f in fused})

    def _factor(self, chunk: Chunk) -> float:
        """The share of its score a piece that is not code keeps."""
        return self.weight


@lru_cache(maxsize=65_536)
def _path_terms(path: str) -> frozenset[str]:
    """Stemmed words of a file's name and its folder: `httpx/_auth.py` -> {auth, httpx}
    (remembered per path: every search asks it of each fused candidate)."""
    parts = without_code_suffix(path).split("/")[-2:]
    return frozenset(index_term(w) for part in parts for w in split_identifier(part) if len(w) > 1)


# ---------------------------------------------------------------- by name

@dataclass(frozen=True)
class StageContext:
    """What a stage may be built from: the index's definitions, the search filter, the word bridge."""

    index: RankingIndex
    accept: Callable[[str], bool] | None = None
    bridge: WordBridge | None = None
    files: FileVectors | None = None
    coverage: float = 1.0  # share of chunks with a dense vector (below 1 in a partial index)
    file_words: LexicalIndex | None = None  # BM25 over whole files
    call_files: CallFiles | None = None  # the code graph's call neighbours, by file
    # In a workspace of several repositories: a file's repository (workspace.Workspace.repo_of); else None
    repo_of: Callable[[str], str] | None = None


StageFactory = Callable[[StageContext], Stage]
# The shipped stages by name (SHIPPED_RANKING orders them); bench/variants.py has its own registry
# with these and the variants it compares.
STAGES: Mapping[str, StageFactory] = {
    "symbol": lambda c: SymbolIntent(c.index, c.accept, c.repo_of),
    "diverse-close": lambda c: FileDiversity(c.index.chunks, close=0.7, guarded=4),
    "path": lambda c: PathSignal(c.index.chunks, bridge=c.bridge),
    # A partial index's file vectors come from the chunks embedded so far: trusted as much.
    "file-meaning": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.2 * c.coverage),
    "file-words": lambda c: FileWords(c.index.chunks, c.file_words),
    "graph-files": lambda c: GraphFiles(c.index.chunks, c.call_files),
    "kind-prior": lambda c: KindPrior(c.index.chunks),
    "repo-copies": lambda c: RepositoryCopies(c.index.chunks, c.repo_of),
}


def stages_by_name(context: StageContext, names: Sequence[str] = SHIPPED_RANKING,
                   registry: Mapping[str, StageFactory] = STAGES) -> tuple[Stage, ...]:
    """The named stages of `registry` in order; an unknown name is a ValueError naming the known ones."""
    unknown = [n for n in names if n not in registry]
    if unknown:
        raise ValueError(f"unknown ranking stage(s) {unknown}: choose from {sorted(registry)}")
    return tuple(registry[name](context) for name in names)


def ranking_stages(index: RankingIndex, names: Sequence[str], accept: Callable[[str], bool] | None = None,
                   bridge: WordBridge | None = None, files: FileVectors | None = None,
                   coverage: float = 1.0, file_words: LexicalIndex | None = None,
                   call_files: CallFiles | None = None) -> tuple[Stage, ...]:
    """The named shipped stages in order over one index (see STAGES)."""
    return stages_by_name(StageContext(index, accept, bridge, files, coverage, file_words, call_files), names)
