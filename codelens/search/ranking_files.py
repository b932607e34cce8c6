"""Ranking stages where a chunk gains from its file (codelens/search/ranking.py names them): the
files the first results call or are called from (`graph-files`), the file's words (`file-words`)
and meaning (`file-meaning`) against the question's, its name or folder in the question (`path`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from codelens.chunk import Chunk
from codelens.ingest.embed_text import split_identifier
from codelens.search.bridge import WordBridge, bridged_terms, crossed
from codelens.search.file_vectors import FileVectors
from codelens.search.fusion import minmax
from codelens.search.lexical import LexicalIndex
from codelens.search.query import Fused, Query
from codelens.search.ranking_order import asks_for_setup, file_of, rescore
from codelens.search.ranking_symbols import RankingIndex
from codelens.search.terms import STOP_WORDS, has_cyrillic, index_term, without_code_suffix

# A file's first chunk in the list takes this multiple of the gain its file earns (with_gains)
LEAD = 1.5
# chunk ids -> for each, the files of the code it calls and of the code calling it
CallFiles = Callable[[Sequence[str]], Mapping[str, frozenset[str]]]


@dataclass(frozen=True)
class PathSignal:
    """A chunk whose file name or folder holds words of the question gains. An English question:
    `share` x the top score x the share of the question's terms its path holds (`streaming JSON
    reader` -> JsonReader.java holds 2 of 4), so the file named by most of the question comes first.
    A Russian question's words count through the word bridge («куки» -> cookie -> cookies.py), and an
    English one's where the code is Russian-named (version -> версиями -> РаботаСВерсиями.os): a
    bridged word in the path gains `bonus` x the chunk's score, once (the bridge's loose neighbours
    are no share of anything). A file's first chunk in the list gains `lead` x as much (with_gains)."""

    chunks: Mapping[str, Chunk]
    bonus: float = 0.2
    bridge: WordBridge | None = None
    share: float = 0.5
    lead: float = LEAD

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not fused:
            return fused
        # A Russian question's own words count only where the code is named in Russian (1C): the
        # English names it mentions ("... в Exposed") name the project more often than a file.
        asked = set() if query.russian else set(query.terms)
        through_bridge = {t for t in query.terms if has_cyrillic(t)} if query.russian else set()
        if self.bridge is not None:  # a Russian question's code words; an English one's Russian words (1C's)
            bridged = crossed(query, self.bridge)
            if query.russian or bridged.bridged:
                through_bridge |= set(bridged_terms(bridged, query.words)) - asked
        if not asked and not through_bridge:
            return fused
        top = fused[0].score
        gains = []
        for item in fused:
            chunk = self.chunks.get(item.chunk_id)
            words = path_terms(chunk.path) if chunk is not None and chunk.path else frozenset()
            gain = self.share * top * len(asked & words) / len(asked) if asked else 0.0
            if through_bridge & words:
                gain += self.bonus * item.score
            gains.append(gain)
        return with_gains(fused, [file_of(self.chunks, f) for f in fused], gains, self.lead)


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
    lead: float = LEAD

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.files is None or query.vector is None or not fused:
            return fused
        paths = [file_of(self.chunks, f) for f in fused[: self.window]]
        return add_file_gain(fused, paths, self.files.similarity(query.vector, paths), self.weight, self.lead)


@dataclass(frozen=True)
class FileWords:
    """A chunk gains `weight` x how well its whole file matches the question's words (BM25 over
    files, min-max scaled over the head of the list): the module where the question's terms
    gather lifts its chunks above a lone chunk that repeats one term. A Russian question counts
    only the names it writes in Latin letters (`path_router`, `Query`): its Russian words reach
    the code through the word bridge, whose neighbours, the glossary's too, lift the wrong files
    when a whole file is scored (bench/RESULTS.md, sessions 5 and 42). An English question's words
    crossed to Russian-named code (1C's собрать for build) count with its own: they are the only
    words such a file has."""

    chunks: Mapping[str, Chunk]
    files: LexicalIndex | None
    weight: float = 0.3
    window: int = 50
    lead: float = LEAD
    bridge: WordBridge | None = None

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.files is None or not fused:
            return fused
        terms = {t: 1.0 for t in self._asked(query) if t in self.files.vocabulary}
        if not terms:
            return fused
        by_path = dict(zip(self.files.chunk_ids, self.files.scores(terms), strict=True))
        paths = [file_of(self.chunks, f) for f in fused[: self.window]]
        matched = np.asarray([by_path.get(path, np.nan) for path in paths], dtype=np.float64)
        return add_file_gain(fused, paths, matched, self.weight, self.lead)

    def _asked(self, query: Query) -> list[str]:
        """The question's terms a whole file is scored by (the class's doc says which)."""
        if query.russian:
            return [t for t in query.terms if not has_cyrillic(t)]
        if self.bridge is None:
            return list(query.terms)
        return [*query.terms, *bridged_terms(crossed(query, self.bridge), query.words)]


def add_file_gain(fused: list[Fused], paths: Sequence[str], file_scores: np.ndarray, weight: float,
                  lead: float = LEAD) -> list[Fused]:
    """The head of the list (as long as `paths`, its chunks' files, and `file_scores`, each file's
    score, NaN when it has none) gains weight x the scores min-max scaled over the head (a file's
    first chunk `lead` x that); fewer than two known scores leave the list as it is."""
    known = ~np.isnan(file_scores)
    if known.sum() < 2:
        return fused
    scaled = np.zeros(len(file_scores), dtype=np.float64)
    scaled[known] = minmax(file_scores[known].astype(np.float64))
    return with_gains(fused, paths, [weight * float(gain) for gain in scaled], lead)


def with_gains(fused: list[Fused], paths: Sequence[str], gains: Sequence[float], lead: float) -> list[Fused]:
    """The list re-sorted after its head (as long as `gains`) gains them, the first chunk of each
    file (`paths`: the head's files, "" for none) `lead` x its gain: the file's evidence lifts the
    file's best chunk above another file's, and its other chunks less, so one file's methods do not
    fill the list on the file's account (semble_langs_dev 0.832 -> 0.845: bench/RESULTS.md)."""
    scores = {f.chunk_id: f.score for f in fused}
    seen: set[str] = set()
    for item, path, gain in zip(fused, paths, gains, strict=False):
        first = bool(path) and path not in seen
        seen.add(path)
        scores[item.chunk_id] = item.score + (lead if first else 1.0) * gain
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
            files = linked.get(seed.chunk_id, frozenset()) - {file_of(self.chunks, seed)}
            for item in head:
                if file_of(self.chunks, item) in files:
                    scores[item.chunk_id] += self.bonus / self.seeds * seed.score
        top = fused[0].score
        for item in head[1:]:
            scores[item.chunk_id] = min(scores[item.chunk_id], float(np.nextafter(top, -np.inf)))
        return rescore(fused, scores)


# A question about how something works («как устроен ...»): answered in a mechanism's hub as often as in its users
_HOW = re.compile(r"\s*(?:how|как|каким\s+образом)\b", re.IGNORECASE)


@dataclass(frozen=True)
class HubFiles:
    """A question that asks how something works ("how are routers nested", «как экстракторы реализуют
    FromRequest») is answered in the file that mechanism runs through, more often than in one of the many
    files that use it or that it uses: a chunk gains `weight` x its score x its file's hub score (the
    graph's, graph/hubs.py: used by many files and using many). A question that names something
    ("the Contravariant functor") or is an identifier is left alone."""

    chunks: Mapping[str, Chunk]
    hubs: Mapping[str, float]
    weight: float = 0.4

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not self.hubs or query.identifier or not _HOW.match(query.text) or asks_for_setup(query.text):
            return fused
        return rescore(fused, {f.chunk_id: f.score * (1.0 + self.weight * self.hubs.get(file_of(self.chunks, f), 0.0))
                               for f in fused})


@lru_cache(maxsize=65_536)
def path_terms(path: str) -> frozenset[str]:
    """Stemmed words of a file's name and its folder: `httpx/_auth.py` -> {auth, httpx}
    (remembered per path: every search asks it of each fused candidate)."""
    parts = without_code_suffix(path).split("/")[-2:]
    return frozenset(index_term(w) for part in parts for w in split_identifier(part) if len(w) > 1)


_LATIN_WORD = re.compile(r"[a-z0-9]+")


def question_words(query: Query) -> list[str]:
    """The question's content words in order, lower case (a Russian one's through its code words)."""
    text = query.pseudo_english if query.russian and query.pseudo_english else query.text
    return [w for w in _LATIN_WORD.findall(text.lower()) if w not in STOP_WORDS]


@dataclass(frozen=True)
class NamedFile:
    """The question names, in two to four consecutive words, the class or function a file is named after
    ("JSON element hierarchy" -> `JsonElement` in JsonElement.java; a Russian question through its code
    words): that definition gains `weight` x the top score, and joins the list if fusion missed it. The
    words name that file's subject, where the file's many small methods and other classes' same-named
    overrides only repeat them. A subject more than one file has (`Column` in two modules) gains nothing."""

    index: RankingIndex
    accept: Callable[[str], bool] | None = None
    weight: float = 0.3
    longest: int = 4

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not fused or not self.index.by_file_subject:
            return fused
        words = question_words(query)
        found: set[str] = set()
        for size in range(2, self.longest + 1):
            for start in range(len(words) - size + 1):
                chunk_ids = self.index.by_file_subject.get("".join(words[start : start + size]), ())
                if len({self.index.chunks[c].path for c in chunk_ids}) == 1:
                    found.update(c for c in chunk_ids if self.accept is None or self.accept(c))
        if not found:
            return fused
        top = fused[0].score
        listed = [*fused, *(Fused(c, 0.0) for c in found - {f.chunk_id for f in fused})]
        return rescore(listed, {f.chunk_id: f.score + (self.weight * top if f.chunk_id in found else 0.0)
                                for f in listed})
