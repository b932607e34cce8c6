"""How questions and code become terms, the same way on both sides.

Every word is lowercased; an identifier yields itself and its snake_case / camelCase parts
(`create_access_token` -> create_access_token, create, access, token), so both the name and
"access token" match; so does a Cyrillic one (`ПолучитьДанныеКлиента` -> получить, данные,
клиента). Words in any script are kept (Cyrillic docstrings match Cyrillic
questions); English and Russian stop words and one-letter names are dropped; words are
Snowball-stemmed (PyStemmer), so "users" meets `user` and «пароля» meets «пароль».
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from codelens.errors import CodeLensError
from codelens.ingest.embed_text import split_identifier
from codelens.languages import PYTHON, language_row

_TOKEN = re.compile(r"\w+", re.UNICODE)
# `Session.send`, and `Sinatra::Helpers`, `fmt::format` (Ruby, C++, Rust, PHP): qualified either way
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")
# A capitalised Latin word, not an acronym: `Serialize`, `HttpClient`, not `SQL`
_NAME_WORD = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)*\b")
_CAMEL = re.compile(r"(?:[A-Z][a-z0-9]+|[a-z][a-z0-9]*)(?:[A-Z][a-z0-9]+)+")
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
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


def without_code_suffix(path: str) -> str:
    """A code file's path without its language's extension (`api/client.ts` -> `api/client`):
    the path words the lexical leg and the ranking read. Documents and configuration keep
    theirs (`README.md`); `.py` goes exactly as it always did."""
    row = language_row(path)
    if row is None or row.name == PYTHON:
        return path.removesuffix(".py")
    dot = path.rfind(".")
    return path[:dot] if dot > path.rfind("/") and path[dot:].lower() in row.extensions else path


def has_cyrillic(text: str) -> bool:
    """A Russian question: it routes around the English-only legs and counts as "ru" in benchmarks."""
    return _CYRILLIC.search(text) is not None


def bare_identifier(text: str) -> str | None:
    """The identifier a question is made of (`Response`, `Session.send`, `Depends()`), or None;
    qualified with `.` however the question wrote it (`Sinatra::Helpers` -> `Sinatra.Helpers`)."""
    stripped = text.strip().strip("`").removesuffix("()")
    return _dotted(stripped) if _IDENTIFIER.fullmatch(stripped) else None


def code_identifiers(text: str) -> list[str]:
    """Identifiers inside a sentence that can only be code: snake_case, dotted names, and
    camelCase / CamelCase joining capitalised words (`ClientSession`, `getUser`). Plain words
    (`Field`, `routing`) and acronym-style names (`OpenAPI`, `OAuth2`, `FastAPI`: products and
    standards that questions name as words) are not."""
    found = []
    for match in _IDENTIFIER.finditer(text):
        word = match.group()
        if "." in word or ":" in word or "_" in word.strip("_") or _CAMEL.fullmatch(word):
            found.append(_dotted(word))
    return list(dict.fromkeys(found))


def written_names(text: str) -> list[str]:
    """The Latin words of a Russian question written as names (`Serialize`, `Visitor`, `Query`):
    capitalised, not acronyms (`SQL`, `HTTP`). Among Cyrillic words an English word is the code's
    name or the product's («определения трейтов Serialize и Serializer»)."""
    if not has_cyrillic(text):
        return []
    return list(dict.fromkeys(m.group() for m in _NAME_WORD.finditer(text) if len(m.group()) > 2))


def _dotted(identifier: str) -> str:
    """A qualified name the way chunk symbols are written (`Outer.Name`)."""
    return identifier.replace("::", ".")


def tokenize(text: str) -> list[str]:
    """Identifier-aware terms of code or of a question, in order, repeats kept (BM25 counts them)."""
    return [term for _, term in analyze(text)]


def analyze(text: str) -> list[tuple[str, str]]:
    """(word as written, lowercased; its index term) pairs. Whole compound identifiers are
    terms as they are; their parts and plain words are stemmed."""
    pairs: list[tuple[str, str]] = []
    for token in _TOKEN.findall(text):  # the matches' text only: no match object per word
        pairs.extend(_token_pairs(token))
    return pairs


@lru_cache(maxsize=200_000)
def _token_pairs(token: str) -> tuple[tuple[str, str], ...]:
    """One token's pairs, remembered: code repeats its words (`self`, `x`, its own names) so often
    that splitting each occurrence anew was most of tokenizing SymPy's 38,000 chunks."""
    word = token.strip("_")
    if not word or word.isdigit():
        return ()
    # 1C's `ПолучитьДанныеКлиента`: its Russian words (other non-ASCII words stay whole)
    parts = split_identifier(word) if word.isascii() or has_cyrillic(word) else [word.lower()]
    whole = word.lower()
    pairs = [(whole, whole)] if len(parts) > 1 and whole not in STOP_WORDS else []
    pairs.extend((p, _stem(p)) for p in parts if len(p) > 1 and not p.isdigit() and p not in STOP_WORDS)
    return tuple(pairs)


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
