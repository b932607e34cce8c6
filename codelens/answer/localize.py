"""Where a task's code is: files first, then the definitions inside them. Pure over what it is handed
(the chunk catalog, BM25 over chunks and over whole files, one search's hits).

Each definition gathers evidence from the task's parts (answer/task_reading.py):
- the search of the task's prose (its rank: 1 for the first hit, 1/2 for the fifth...), and the search
  of its title alone, its first line (what the reporter says is wrong, which the dense leg then reads
  whole), counted the same way;
- the names the task quotes, looked up exactly among the index's definitions, each weighted by how
  rare it is in the repository (BM25's document frequency), by how it was written (called, quoted,
  in the title) and split among the definitions sharing it;
- BM25 over the task's code-shaped names alone (each weighted by its rarity: not `from x import *`),
  BM25 over its prose alone (no code pasted in, no logs) and over its title alone (what the reporter
  says is wrong, in a line), each counted by rank;
- the lines a traceback frame, a diff hunk or "line N of path" points at, which decide;
- the code that holds the words of the error the task shows (`Imaginary coordinates are not
  permitted`): the literal part of a message is where the program raises it, in any language.
Files are ranked by their best definitions, whole-file BM25 of those names, and the paths the task
names, scaled up for the code graph's hubs (the files a mechanism runs through: graph/hubs.py); the
best few are kept and their definitions go first. `ranked()` is the order task context
seeds from; `relevance(chunk_id)` is any chunk's own evidence, so the graph walk can score what it
reaches by the task too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from codelens.answer.context import ChunkCatalog
from codelens.answer.task_reading import Frame, Name, TaskParts
from codelens.chunk import Chunk
from codelens.search.terms import analyze

if TYPE_CHECKING:  # only its type: the CLI's path to a running server imports no numpy
    import numpy as np

    from codelens.search.lexical import LexicalIndex

SEARCH_WEIGHT = 1.0  # the search's first hit: the strongest single piece of evidence but a frame
RANK_DECAY = 4.0  # rank r counts 1 / (1 + (r - 1) / RANK_DECAY): the fifth hit half the first
NAME_WEIGHT = 1.0  # a rare name the task calls, defined once in the repository
WORDS_WEIGHT = 0.6  # the first of BM25's ranking by the task's names alone
PROSE_WEIGHT = 0.4  # the first of BM25's ranking by the task's prose alone (no code, no logs)
TITLE_SEARCH_WEIGHT = 1.0  # the first hit of a search for the task's title alone (its first line), as the whole task's
TITLE_WEIGHT = 0.4  # the first of BM25's ranking by the task's title alone: what the reporter says is wrong
WORDS_KEPT = 100  # chunks BM25 of the names may add
FRAME_WEIGHT = 2.0  # a traceback's deepest frame inside the repository, or a diff's hunk
POINTED_WEIGHT = 1.0  # the other frames, and "line N of path"
FILE_KEEP = 4  # files whose definitions go first
FILE_SHARE = 0.5  # a kept file's score (over the best file's) added to each of its definitions
OUTSIDE = 0.6  # evidence of a definition outside the kept files is scaled by this
FILE_WORDS_WEIGHT = 0.6
# a file's score x (1 + this x its hub score, graph/hubs.py): a fix lands in the code a mechanism runs
# through more often than in its users (77 SymPy tasks: 1, 2 and 4 alike, each above 0 at every budget)
FILE_HUB_WEIGHT = 2.0
PATH_NAMED_WEIGHT = 1.0
RAISED_WEIGHT = 1.0  # the definition holding the task's error message, split among the few that do
RAISED_MAX = 4  # a message more definitions hold is a common phrase, not a raise site
RAISED_COMMON = 500  # a message whose rarest word this many chunks hold is not looked up
BIG_CLASS_LINES = 150  # a class longer than this is read as its outline, not whole
BIG_CLASS_SCALE = 0.5
HOW = {"called": 1.0, "quoted": 0.9, "in_code": 0.7, "prose": 0.6}
TITLE_BONUS = 0.2


@dataclass(frozen=True)
class Lookups:
    """What localizing asks of an open index beside its catalog: BM25 over its chunks and over its
    files (the lexical leg's own indexes), and which chunks the search's filters allow."""

    chunk_words: LexicalIndex | None = None
    file_words: LexicalIndex | None = None
    accept: Callable[[str], bool] = field(default=lambda chunk_id: True)
    hubs: Mapping[str, float] = field(default_factory=dict)  # the code graph's hub score per file


@dataclass(frozen=True)
class Ranked:
    chunk: Chunk
    score: float
    why: str


class Localizer:
    """One task over one index: evidence per definition, files ranked, definitions ranked."""

    def __init__(self, parts: TaskParts, catalog: ChunkCatalog, hits: Sequence[Chunk], lookups: Lookups,
                 dispatch_prefixes: Iterable[str] = (), files_first: bool = True,
                 title_hits: Sequence[Chunk] = ()) -> None:
        self.parts = parts
        self.catalog = catalog
        self.hits = list(hits)
        self.title_hits = list(title_hits)
        self.lookups = lookups
        self.dispatch_prefixes = tuple(dispatch_prefixes)
        self.files_first = files_first
        self._evidence: dict[str, float] = {}
        self._why: dict[str, str] = {}
        self._gather()

    # ---------------------------------------------------------- evidence

    def _add(self, chunk: Chunk | None, amount: float, why: str) -> None:
        if chunk is None or amount <= 0 or not chunk.is_code or not self.lookups.accept(chunk.chunk_id):
            return
        self._evidence[chunk.chunk_id] = self._evidence.get(chunk.chunk_id, 0.0) + amount
        if amount >= 0.3 * self._evidence[chunk.chunk_id] and why not in self._why.get(chunk.chunk_id, ""):
            self._why[chunk.chunk_id] = ", ".join(p for p in (self._why.get(chunk.chunk_id), why) if p)

    def _gather(self) -> None:
        for hits, weight, why in ((self.hits, SEARCH_WEIGHT, "search hit"),
                                  (self.title_hits, TITLE_SEARCH_WEIGHT, "the title's search hit")):
            for rank, chunk in enumerate(hits, start=1):
                self._add(chunk, weight / (1 + (rank - 1) / RANK_DECAY), f"{why} {rank}")
        for name in self.parts.names:
            if not name.defined:
                self._names(name)
        self._words()
        self._pointed()
        self._raised()

    def rarity(self, word: str) -> float:
        """0-1: log-scaled inverse document frequency of the word's term among the chunks."""
        index = self.lookups.chunk_words
        if index is None:
            return 0.5
        pairs = analyze(word.rsplit(".", 1)[-1])
        if not pairs:
            return 0.0
        total = max(2, len(index.chunk_ids))
        frequency = index.document_frequency(pairs[0][1])
        return math.log(1 + total / (1 + frequency)) / math.log(1 + total)

    def _names(self, name: Name) -> None:
        how = max(HOW["called"] if name.called else 0, HOW["quoted"] if name.quoted else 0,
                  HOW["in_code"] if name.in_code else 0, HOW["prose"]) + (TITLE_BONUS if name.in_title else 0)
        defined = self._definitions(name.text)
        weight = NAME_WEIGHT * how * self.rarity(name.text) ** 2
        if defined:
            share = weight / math.sqrt(len(defined))
            for chunk in defined:
                self._add(chunk, share, f"named `{name.text}`")
        last = name.text.rsplit(".", 1)[-1]
        for prefix in self.dispatch_prefixes if last[:1].isupper() else ():  # `Subs`: the printers' `_print_Subs`
            family = self._definitions(prefix + name.text.rsplit(".", 1)[-1])
            for chunk in family:
                self._add(chunk, 0.6 * weight / math.sqrt(len(family)), f"`{prefix}{name.text}` dispatched")

    def _definitions(self, text: str) -> list[Chunk]:
        """Definitions named `text` exactly (`A.b`, or `b`), or by a dotted name's module path
        (`sympy.Symbol` -> `sympy/.../symbol.py::Symbol`) or its last part."""
        found = [c for c in self.catalog.named(text) if c.symbol.split("#")[0].endswith(text)]
        if found or "." not in text:
            return found[:12]
        head, last = text.rsplit(".", 1)
        candidates = self.catalog.named(last)
        package = head.replace(".", "/")
        inside = [c for c in candidates if c.path.startswith(package.split("/")[0] + "/")
                  and (package in c.path or c.parent.endswith(head.rsplit(".", 1)[-1]))]
        return (inside or (candidates if len(candidates) <= 3 else []))[:12]

    def _terms(self) -> dict[str, float]:
        """BM25 terms of the task's names (their whole index term), weighted by how each was written."""
        weighted: dict[str, float] = {}
        for name in self.parts.names:
            if name.defined:
                continue
            how = max(HOW["called"] if name.called else 0, HOW["quoted"] if name.quoted else 0,
                      HOW["in_code"] if name.in_code else 0, HOW["prose"])
            for part in name.text.split("."):
                pairs = analyze(part)
                if pairs:
                    term = pairs[0][1]
                    weighted[term] = max(weighted.get(term, 0.0), how * self.rarity(part))
        return weighted

    def _words(self) -> None:
        """BM25 of the task's names alone, and of its prose alone: each its own ranking, counted by rank."""
        index = self.lookups.chunk_words
        if index is None:
            return
        for terms, weight, why in ((self._terms(), WORDS_WEIGHT, "the task's names"),
                                   (_plain_terms(self.parts.prose), PROSE_WEIGHT, "the task's prose"),
                                   (_plain_terms(self.parts.title), TITLE_WEIGHT, "the task's title")):
            if not terms:
                continue
            scores = index.scores(terms)
            rank = 0
            for i in _best(scores, WORDS_KEPT * 2):
                if scores[i] <= 0 or rank >= WORDS_KEPT:
                    break
                chunk = self.catalog.get(index.chunk_ids[i])
                if chunk is not None and chunk.is_code and self.lookups.accept(chunk.chunk_id):
                    rank += 1
                    self._add(chunk, weight / (1 + (rank - 1) / RANK_DECAY), why)

    def _pointed(self) -> None:
        inside = [(frame, path) for frame in self.parts.frames
                  if (path := self.catalog.resolve_path(frame.path)) is not None]
        for number, (frame, path) in enumerate(inside):
            weight = FRAME_WEIGHT if number == len(inside) - 1 else POINTED_WEIGHT
            self._add(self._frame_chunk(frame, path), weight, f"traceback frame {path}:{frame.line}")
        for written, line in self.parts.path_lines:
            path = self.catalog.resolve_path(written)
            if path is not None:
                self._add(self._frame_chunk(Frame(path, line), path), POINTED_WEIGHT,
                          f"the task points at {path}:{line}")

    def _raised(self) -> None:
        """The definitions whose code holds a literal part of an error message the task shows (its
        words between the values: `Imaginary coordinates are not permitted.` of `ValueError: Imaginary
        coordinates are not permitted.`), the innermost one where a class holds its method."""
        index = self.lookups.chunk_words
        if index is None:
            return
        for fragment in dict.fromkeys(f for error in self.parts.errors for f in message_fragments(error)):
            terms = [term for _, term in analyze(fragment)]
            if not terms:
                continue
            frequency, rarest = min((index.document_frequency(term), term) for term in terms)
            if frequency > RAISED_COMMON:
                continue
            scores = index.scores({rarest: 1.0})
            holding = [chunk for i in scores.nonzero()[0]
                       if (chunk := self.catalog.get(index.chunk_ids[i])) is not None and chunk.is_code
                       and fragment in chunk.code]
            innermost = [c for c in holding if not any(o is not c and o.path == c.path and c.start_line <= o.start_line
                                                       and o.end_line <= c.end_line for o in holding)]
            if 0 < len(innermost) <= RAISED_MAX:
                for chunk in innermost:
                    self._add(chunk, RAISED_WEIGHT / len(innermost), "holds the task's error message")

    def _frame_chunk(self, frame: Frame, path: str) -> Chunk | None:
        """The definition holding the frame's line, or (the code moved since) the one named so in its file."""
        at = self.catalog.at_lines(path, frame.line)
        if at is not None and at.kind != "module" and (not frame.function or at.name == frame.function):
            return at
        named = [c for c in self.catalog.in_file(path) if frame.function and c.name == frame.function]
        if named:
            return min(named, key=lambda c: abs(c.start_line - frame.line))
        return at

    # ---------------------------------------------------------- files, then definitions

    @cached_property
    def file_scores(self) -> dict[str, float]:
        """Each file's score: its best definitions, whole-file BM25 of the task's names, named paths; a hub's
        scaled up."""
        by_file: dict[str, list[float]] = {}
        for chunk_id, amount in self._evidence.items():
            by_file.setdefault(self.catalog.chunks[chunk_id].path, []).append(amount)
        scores = {path: sorted(values, reverse=True) for path, values in by_file.items()}
        scores = {path: v[0] + 0.25 * sum(v[1:3]) for path, v in scores.items()}
        files = self.lookups.file_words
        terms = self._terms()
        if files is not None and terms:
            values = files.scores(terms)
            top = float(values.max()) if len(values) else 0.0
            if top > 0:
                for i in _best(values, 20):
                    path = files.chunk_ids[i]
                    if values[i] > 0 and self._has_code(path):
                        scores[path] = scores.get(path, 0.0) + FILE_WORDS_WEIGHT * float(values[i]) / top
        for written in self.parts.paths:
            path = self.catalog.resolve_path(written)
            if path is not None and self._has_code(path):
                scores[path] = scores.get(path, 0.0) + PATH_NAMED_WEIGHT
        hubs = self.lookups.hubs
        return {path: score * (1 + FILE_HUB_WEIGHT * hubs.get(path, 0.0)) for path, score in scores.items()}

    def _has_code(self, path: str) -> bool:
        return any(c.is_code and self.lookups.accept(c.chunk_id) for c in self.catalog.in_file(path))

    @cached_property
    def kept_files(self) -> list[str]:
        return sorted(self.file_scores, key=lambda p: -self.file_scores[p])[:FILE_KEEP]

    @cached_property
    def _scores(self) -> dict[str, float]:
        own = {chunk_id: self._shown_whole(chunk_id, amount) for chunk_id, amount in self._evidence.items()}
        if not self.files_first:
            return own
        kept = self.kept_files
        best = self.file_scores[kept[0]] if kept else 1.0
        share = {path: FILE_SHARE * self.file_scores[path] / best for path in kept}
        return {chunk_id: amount + share[path] if (path := self.catalog.chunks[chunk_id].path) in share
                else amount * OUTSIDE for chunk_id, amount in own.items()}

    def _shown_whole(self, chunk_id: str, amount: float) -> float:
        """A class too big to be read whole points at its file (its evidence counted there) more than
        at itself: its own rank is scaled down, so its methods with evidence come first."""
        chunk = self.catalog.chunks[chunk_id]
        big = chunk.kind == "class" and chunk.end_line - chunk.start_line > BIG_CLASS_LINES
        return amount * BIG_CLASS_SCALE if big else amount

    def ranked(self, limit: int) -> list[Ranked]:
        """The definitions best first."""
        order = sorted(self._scores, key=lambda c: (-self._scores[c], c))[:limit]
        return [Ranked(self.catalog.chunks[c], self._scores[c], self._why.get(c, "")) for c in order]

    @cached_property
    def _top(self) -> float:
        return max(self._scores.values(), default=0.0)

    def relevance(self, chunk_id: str) -> float:
        """0-1: a chunk's evidence over the best one's (0 for a chunk the task gave nothing to)."""
        top = self._top
        return min(1.0, self._scores.get(chunk_id, 0.0) / top) if top > 0 else 0.0

    def why(self, chunk_id: str) -> str:
        return self._why.get(chunk_id, "")


_MESSAGE_VALUE = re.compile(r"""'[^'\n]*'|"[^"\n]*"|`[^`\n]*`|\S*[\d\[\]{}()<>=/\\|]\S*""")


def _best(scores: np.ndarray, n: int) -> np.ndarray:
    """Rows of the n highest scores, best first, ties in corpus order (search/query.top_n: a partition,
    not a sort of every chunk's score)."""
    from codelens.search.query import top_n  # here: reading a task imports no numpy (see TYPE_CHECKING)

    return top_n(scores, n)


def message_fragments(error: str) -> list[str]:
    """The literal parts of an error line's message (`ValueError: Dimension of "x" is V, but it should
    be 1` -> `Dimension of`, `is V, but it should be`): the runs between its quoted values, numbers and
    expressions, of two words and ten characters at least."""
    _, _, message = error.partition(":")
    fragments = []
    for piece in _MESSAGE_VALUE.split(message):
        piece = piece.strip(" \t:,;.")
        if len(piece) >= 10 and len(piece.split()) >= 2:
            fragments.append(piece)
    return fragments


def _plain_terms(text: str) -> dict[str, float]:
    """A part of the task as BM25 terms, each once and weighed alike."""
    return dict.fromkeys((term for _, term in analyze(text)), 1.0)


def dispatch_prefixes(family_names: Mapping[str, Sequence[str]]) -> list[str]:
    """The prefixes of the dispatch families (dispatcher -> member names): the members' common start."""
    found = []
    for names in family_names.values():
        prefix = _common_prefix(names)
        if len(prefix) >= 3 and prefix not in found:
            found.append(prefix)
    return found


def _common_prefix(names: Sequence[str]) -> str:
    if not names:
        return ""
    first, last = min(names), max(names)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]


__all__ = ["Localizer", "Lookups", "Ranked", "dispatch_prefixes"]
