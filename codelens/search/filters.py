"""What a search may return: kinds, languages, a path prefix, and whether test code counts.

Every leg applies a filter exactly: one boolean mask over its own rows before it cuts its list
to n (`ChunkScope.mask`), so a narrow filter still gets the n best chunks inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from codelens.chunk import FILE_KINDS, Chunk
from codelens.errors import BadInput
from codelens.ingest.sql import is_sql_definition
from codelens.languages import language_names, language_of
from codelens.search.query import Candidate, LegResult, top_n

# How many of the folders (and files) that do exist a "no such path" message lists.
_NEAR_PREFIXES = 8


@dataclass(frozen=True)
class SearchFilters:
    kinds: tuple[str, ...] = ()  # empty: every kind
    path_prefix: str = ""
    include_tests: bool = False
    repos: tuple[str, ...] = ()  # repository names of a workspace (codelens/workspace.py); empty: every one
    languages: tuple[str, ...] = ()  # `chunk_language` names (python, typescript, doc...); empty: every one

    @property
    def prefix(self) -> str:
        return self.path_prefix.removeprefix("./")

    def accepts(self, chunk: Chunk) -> bool:
        if self.kinds and chunk.kind not in self.kinds:
            return False
        if self.languages and chunk_language(chunk) not in self.languages:
            return False
        if chunk.is_test and not self.include_tests:
            return False
        return chunk.path.startswith(self.prefix) if self.path_prefix else True


def chunk_language(chunk: Chunk) -> str:
    """The `language` a hit carries: its file's code language (`web/src/api/client.ts` ->
    typescript, whichever chunker read it; a script's by its `#!` line), else its kind (doc, config, text)."""
    return chunk.script_language or _path_language(chunk.path) or chunk.kind


@lru_cache(maxsize=65_536)
def _path_language(path: str) -> str | None:
    # remembered per path: a language filter asks it of every chunk of the index once per scope
    return language_of(path)


def filter_languages() -> tuple[str, ...]:
    """What `--lang` takes: the code languages of codelens/languages/, then the kinds of the
    other files (the `language` their hits carry)."""
    return (*language_names(), *FILE_KINDS)


def language_counts(chunks: Iterable[Chunk]) -> dict[str, dict[str, int]]:
    """Files and chunks per `chunk_language`, most chunks first (stats, MCP index_status, the
    app's index tab): `{"python": {"files": 77, "chunks": 350}, "doc": {...}}`."""
    paths: dict[str, set[str]] = {}
    chunk_counts: dict[str, int] = {}
    for chunk in chunks:
        language = chunk_language(chunk)
        paths.setdefault(language, set()).add(chunk.path)
        chunk_counts[language] = chunk_counts.get(language, 0) + 1
    order = sorted(chunk_counts, key=lambda name: (-chunk_counts[name], name))
    return {name: {"files": len(paths[name]), "chunks": chunk_counts[name]} for name in order}


def language_summary(counts: Mapping[str, Mapping[str, int]]) -> str:
    """`python 77 files / 350 chunks, doc 9 files / 19 chunks`: the counts on one line (stats, index_status)."""
    return ", ".join(f"{name} {row['files']} files / {row['chunks']} chunks" for name, row in counts.items())


class UnknownLanguage(BadInput):
    """A `--lang` name that is neither a code language nor a kind of other file: said, with the names."""


def language_filter(names: Iterable[str]) -> tuple[str, ...]:
    """`--lang` names as the filter holds them (lower case, each once, in order); UnknownLanguage
    for a name CodeLens does not know, listing the ones it does."""
    wanted = tuple(dict.fromkeys(name.strip().lower() for name in names))
    known = filter_languages()
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise UnknownLanguage(f"unknown language {unknown[0]!r} - choose from {', '.join(known)}")
    return wanted


class ChunkScope:
    """The chunks a search may return under one filter, by id: `accepts(chunk_id)`, and the same
    answer as a boolean mask over any sequence of chunk ids (a leg's rows), computed once per
    sequence while the scope lives (the Searcher keeps one scope per filter per opened index)."""

    def __init__(self, filters: SearchFilters, chunks: Mapping[str, Chunk],
                 repo_of: Callable[[str], str] | None = None) -> None:
        self.filters = filters
        self.chunks = chunks
        # A chunk's repository from its path: what `filters.repos` keeps (the Searcher's workspace)
        self._repo_of = repo_of if filters.repos and repo_of is not None else None
        self._masks: dict[int, tuple[Sequence[str], np.ndarray]] = {}
        self._code_masks: dict[int, tuple[Sequence[str], np.ndarray]] = {}
        # Each chunk decided once: a leg's mask is then a set lookup per row (a fresh process makes
        # one per leg over every chunk).
        self._accepted = frozenset(chunk_id for chunk_id, chunk in chunks.items() if self._accepts(chunk))
        self._code = frozenset(chunk_id for chunk_id in self._accepted if _is_code(chunks[chunk_id]))
        # Code and other files (documents, configuration) both inside the scope: the legs then rank code
        # on its own and merge the other files in on the code's scale (`code_first`), when there is code
        # enough to fill the leg (`mixed_scope`): a script or two beside documents is no scale for them.
        self.mixed = 0 < len(self._code) < len(self._accepted)
        self.code_count = len(self._code)

    def _accepts(self, chunk: Chunk) -> bool:
        if not self.filters.accepts(chunk):
            return False
        return self._repo_of is None or self._repo_of(chunk.path) in self.filters.repos

    def accepts(self, chunk_id: str) -> bool:
        return chunk_id in self._accepted

    __call__ = accepts

    def mask(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """accepts() of each id, in order (cached by the sequence's identity: legs keep theirs)."""
        cached = self._masks.get(id(chunk_ids))
        if cached is not None and cached[0] is chunk_ids:
            return cached[1]
        mask = np.fromiter(map(self._accepted.__contains__, chunk_ids), dtype=bool, count=len(chunk_ids))
        self._masks[id(chunk_ids)] = (chunk_ids, mask)
        return mask

    def is_code(self, chunk_id: str) -> bool:
        if chunk_id in self._accepted:  # decided once (a leg asks of thousands of rows a search)
            return chunk_id in self._code
        chunk = self.chunks.get(chunk_id)
        return chunk is not None and _is_code(chunk)

    def code_mask(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The accepted Python code among chunk_ids, as a mask (cached like `mask`)."""
        cached = self._code_masks.get(id(chunk_ids))
        if cached is not None and cached[0] is chunk_ids:
            return cached[1]
        mask = np.fromiter(map(self._code.__contains__, chunk_ids), dtype=bool, count=len(chunk_ids))
        self._code_masks[id(chunk_ids)] = (chunk_ids, mask)
        return mask


Accept = Callable[[str], bool]


def _is_code(chunk: Chunk) -> bool:
    """Code in any language, a schema's SQL definitions (a table, a view, a function) too."""
    return chunk.is_code or is_sql_definition(chunk)


def chunk_mask(accept: Accept | None, chunk_ids: Sequence[str]) -> np.ndarray | None:
    """The filter as a mask over chunk_ids (None: no filter); a ChunkScope's is cached."""
    if accept is None:
        return None
    if isinstance(accept, ChunkScope):
        return accept.mask(chunk_ids)
    return np.fromiter(map(accept, chunk_ids), dtype=bool, count=len(chunk_ids))


def mixed_scope(accept: Accept | None, n: int) -> ChunkScope | None:
    """The scope when it holds both code and other files and code enough for a leg of n (the legs then
    rank code first), else None: fewer code chunks (a schema's or a documentation's script or two) are no
    scale for the rest, which they would keep out of the leg."""
    return accept if isinstance(accept, ChunkScope) and accept.mixed and accept.code_count >= n else None


def split_top_n(scores: np.ndarray, n: int, accept: Accept | None, chunk_ids: Sequence[str]) -> np.ndarray:
    """Rows of the n best accepted chunks; in a mixed scope, of the n best code chunks and the
    n best other ones (`code_first` then keeps the others that reach the code's n-th score)."""
    scope = mixed_scope(accept, n)
    if scope is None:
        return top_n(scores, n, chunk_mask(accept, chunk_ids))
    code = scope.code_mask(chunk_ids)
    return np.concatenate([top_n(scores, n, code), top_n(scores, n, scope.mask(chunk_ids) & ~code)])


def code_first(name: str, candidates: Sequence[Candidate], n: int, accept: Accept | None,
               weight: float = 1.0) -> LegResult:
    """A leg's answer from its scored candidates: the n best, best first. In a mixed scope, the
    n best code chunks, plus the other files' chunks that score at least the n-th code chunk, with
    the code's score range as the leg's scale: fusion then normalises code exactly as in an index
    of code alone, and a document lands where its raw score puts it on that scale (above 1 when
    it beats every piece of code). Without this, documents took the code's places among the
    candidates and moved its min-max range (Flask Hit@5 0.833 -> 0.812, bench/RESULTS.md)."""
    ranked = sorted(candidates, key=lambda c: (-c.score, c.chunk_id))
    scope = mixed_scope(accept, n)
    code = [c for c in ranked if scope.is_code(c.chunk_id)][:n] if scope is not None else []
    if not code:
        return LegResult(name, tuple(ranked[:n]), weight)
    low, high = code[-1].score, code[0].score
    others = [c for c in ranked if not scope.is_code(c.chunk_id) and c.score >= low][:n]
    merged = sorted([*code, *others], key=lambda c: (-c.score, c.chunk_id))
    return LegResult(name, tuple(merged), weight, scale=(low, high))


class UnknownPathPrefix(BadInput):
    """A path prefix that no indexed file has: said, with the prefixes that do exist."""


def check_path_prefix(prefix: str, paths: Iterable[str]) -> None:
    """UnknownPathPrefix when no path starts with prefix: its message names the deepest folder
    of the prefix that exists, what lies under it, and the prefix with its leading folders
    dropped when that one exists (a zip whose single top folder the index stripped: `src/flask/`
    is indexed as `flask/`)."""
    prefix = prefix.removeprefix("./")
    paths = sorted(set(paths))
    if not prefix or any(p.startswith(prefix) for p in paths):
        return
    folder = _deepest_folder(prefix, paths)
    under = _next_parts(folder, paths)
    listed = ", ".join(under[:_NEAR_PREFIXES]) + (", ..." if len(under) > _NEAR_PREFIXES else "")
    where = f"indexed paths under {folder!r} are: " if folder else "indexed paths start with: "
    message = f"no indexed path starts with {prefix!r} - {where}{listed or 'none'}"
    shorter = _without_leading_folders(prefix, paths)
    if shorter:
        message += f" (did you mean {shorter!r}?)"
    raise UnknownPathPrefix(message)


def _deepest_folder(prefix: str, paths: Sequence[str]) -> str:
    """The longest `a/b/` that prefix begins with and some path lies under ("" for the root)."""
    parts = prefix.split("/")[:-1]
    for depth in range(len(parts), 0, -1):
        folder = "/".join(parts[:depth]) + "/"
        if any(p.startswith(folder) for p in paths):
            return folder
    return ""


def _next_parts(folder: str, paths: Sequence[str]) -> list[str]:
    """The folders (with a slash) and files directly under folder, folders first."""
    names = {p[len(folder):].split("/", 1)[0] + ("/" if "/" in p[len(folder):] else "")
             for p in paths if p.startswith(folder)}
    return sorted(names, key=lambda n: (not n.endswith("/"), n))


def _without_leading_folders(prefix: str, paths: Sequence[str]) -> str:
    parts = prefix.split("/")
    for start in range(1, len(parts)):
        shorter = "/".join(parts[start:])
        if shorter and any(p.startswith(shorter) for p in paths):
            return shorter
    return ""
