"""The symbol stage (`symbol`, codelens/search/ranking.py): a question that is, or names, an
identifier puts that name's definitions first; RankingIndex, the definitions by name it looks up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from codelens.chunk import CODE_KINDS, MODULE_SYMBOL, Chunk
from codelens.ingest.sql import is_sql_definition
from codelens.search.query import Fused, Query
from codelens.search.terms import without_code_suffix

SIGIL = "$"
_KIND_ORDER = {"class": 0, "function": 1, "method": 2}
# How many definitions of one name a bare-identifier question may pin to the top.
MAX_PINNED = 3
# A name a question writes inside a sentence that this many files define (`toString`, `equals`, `parse`) is the
# concept, not one definition: none of them is pinned.
COMMON_NAME_FILES = 8


@dataclass(frozen=True)
class RankingIndex:
    """What the stages look up, built once per opened index: definitions by name, and the SQL files
    that define something (a schema, not a migration of statements alone)."""

    chunks: Mapping[str, Chunk]
    by_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # exact name -> chunk ids
    by_lower: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # lowercased name -> chunk ids
    sql_schemas: frozenset[str] = frozenset()  # paths of .sql files with a table, view or function
    code_beside_sql: bool = False  # more code in other languages than SQL definitions: an application's schema
    legacy_folders: frozenset[str] = frozenset()  # `src/v3/` beside `src/v4/`, `legacy/`: legacy_folders()
    # A file's subject: the classes and functions named as their file is, by that name in lower case without
    # `_` and `-` (`JsonElement` in JsonElement.java, `JsonElement` in json_element.py -> `jsonelement`)
    by_file_subject: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def build(cls, chunks: Mapping[str, Chunk]) -> RankingIndex:
        """Built by every fresh process before its first search (SymPy's 24k chunks): one pass, the file's
        facts read once per path."""
        by_name: dict[str, list[str]] = {}
        by_lower: dict[str, list[str]] = {}
        subjects: dict[str, list[str]] = {}
        schemas: set[str] = set()
        sql_files: dict[str, bool] = {}
        definitions = code = 0
        for chunk in chunks.values():
            path = chunk.path
            sql = sql_files.get(path)
            if sql is None:
                sql = sql_files[path] = path.lower().endswith(".sql")
            if sql and is_sql_definition(chunk):
                schemas.add(path)
                definitions += 1
            if chunk.kind not in CODE_KINDS:
                continue
            code += 1
            if chunk.symbol == MODULE_SYMBOL:  # definitions are code
                continue
            name = chunk.symbol.rsplit(".", 1)[-1].split("#", 1)[0]
            by_name.setdefault(name, []).append(chunk.chunk_id)
            by_lower.setdefault(name.lower(), []).append(chunk.chunk_id)
            if chunk.kind in _SUBJECT_KINDS and (subject := file_subject(chunk)) is not None:
                subjects.setdefault(subject, []).append(chunk.chunk_id)
        return cls(chunks, {k: tuple(v) for k, v in by_name.items()}, {k: tuple(v) for k, v in by_lower.items()},
                   frozenset(schemas), 0 < definitions < code, legacy_folders(sql_files),
                   {k: tuple(v) for k, v in subjects.items()})

    def legacy_folder(self, path: str) -> str | None:
        """The legacy folder (`src/v3/`) the file lies under, or None."""
        if not self.legacy_folders:
            return None
        parts = path.split("/")[:-1]
        return next((folder for i in range(1, len(parts) + 1)
                     if (folder := "/".join(parts[:i]) + "/") in self.legacy_folders), None)

    def definitions(self, identifier: str, exact_case: bool = True,
                    scores: Mapping[str, float] | None = None) -> list[str]:
        """Chunk ids defining `identifier` (`Name` or a qualified `Outer.Name`), best first
        (`_definition_order`; `scores`: the fused list's, which order definitions of one rank)."""
        last = identifier.rsplit(".", 1)[-1]
        names = self.by_name if exact_case else self.by_lower
        key = last if exact_case else last.lower()
        # JavaScript's `$` prefix marks a variant of the same name (zod's core `$ZodType` behind `ZodType`)
        pool = names.get(key, ()) + (names.get(SIGIL + key, ()) if not key.startswith(SIGIL) else ())
        if "." in identifier:
            wanted = identifier if exact_case else identifier.lower()
            pool = tuple(c for c in pool if _qualified_match(self.chunks[c], wanted, exact_case))
        scores = scores or {}

        def order(chunk_id: str) -> tuple:
            chunk = self.chunks[chunk_id]
            legacy = self.legacy_folder(chunk.path) is not None
            return _definition_order(chunk, scores.get(chunk_id, 0.0), legacy, chunk.name.startswith(SIGIL))

        return sorted(pool, key=order)


_SUBJECT_KINDS = ("class", "function")


def file_subject(chunk: Chunk) -> str | None:
    """A class or function named as its file is, outside tests: that name folded (`jsonelement`); else None.
    Names of three letters or fewer are no subject a question names in words."""
    if chunk.kind not in _SUBJECT_KINDS or chunk.is_test:
        return None
    stem = chunk.path.rsplit("/", 1)[-1].split(".", 1)[0]
    key = _folded(stem)
    return key if len(key) > 3 and _folded(chunk.name) == key else None


def _folded(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


_VERSION = re.compile(r"v(\d+(?:\.\d+)*)", re.IGNORECASE)  # `v3`, `v1.7`: jq's manual per release
# and where a project keeps retired code it no longer builds (wai's `warp/attic/`: its old test programs ranked 5th)
_LEGACY_NAMES = frozenset({"legacy", "deprecated", "attic", "obsolete"})


def legacy_folders(paths: Iterable[str]) -> frozenset[str]:
    """Folders of code kept for an older version: `src/v3/` where the same folder holds `v4/`
    (zod's v3 beside v4, an API's `v1/` beside `v2/`, jq's `manual/v1.7/` beside `v1.8/`), and folders
    named `legacy` or `deprecated`."""
    versions: dict[str, dict[tuple[int, ...], str]] = {}  # parent folder -> version -> the folder
    legacy: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        for i, part in enumerate(parts):
            folder = "/".join(parts[: i + 1]) + "/"
            if part.lower() in _LEGACY_NAMES:
                legacy.add(folder)
            elif match := _VERSION.fullmatch(part):
                number = tuple(int(n) for n in match.group(1).split("."))
                versions.setdefault("/".join(parts[:i]), {})[number] = folder
    for by_number in versions.values():
        newest = max(by_number)
        legacy.update(folder for number, folder in by_number.items() if number < newest)
    return frozenset(legacy)


def _qualified_match(chunk: Chunk, wanted: str, exact_case: bool) -> bool:
    """`wanted` ends the chunk's symbol (`Sinatra.Helpers`), its module's name and symbol
    (`requests.sessions.Session`), or its folder's and symbol: a package or namespace named as the
    folder it lives in (`com.google.gson.JsonElement` in com/google/gson/JsonElement.java, C++'s
    `fmt::format` in include/fmt/, Python's `fastapi.FastAPI` re-exported from fastapi/)."""
    symbol = chunk.symbol.split("#", 1)[0]
    module = without_code_suffix(chunk.path).replace("/", ".")
    names = [symbol, f"{module}.{symbol}"]
    if "." in module:
        names.append(f"{module.rsplit('.', 1)[0]}.{symbol}")
    if not exact_case:
        names = [name.lower() for name in names]
    return any(name == wanted or name.endswith("." + wanted) for name in names)


def _definition_order(chunk: Chunk, score: float = 0.0, legacy: bool = False, variant: bool = False) -> tuple:
    """Code before tests; the current version's before a legacy folder's (zod's v4 `ZodType` before
    its v3 one: RankingIndex.legacy_folders), and the name itself before its `$` variant; classes,
    then functions, then methods; top-level before nested; then the
    definition in a file named after it (DynamicParameters.cs before DynamicParameters.ParamInfo.cs),
    the one fewer folders deep (pydantic/main.py before pydantic/v1/main.py), and the one the search
    legs score higher (fmtlib's `formatter`, specialised in ten headers: format.h's, which the question's
    words point at, not the shortest path's)."""
    return (chunk.is_test, legacy, variant, _KIND_ORDER.get(chunk.kind, 3), chunk.symbol.count("."),
            not _named_after(chunk), chunk.path.count("/"), -score, len(chunk.path), chunk.chunk_id)


def _named_after(chunk: Chunk) -> bool:
    """The chunk's file is named after its definition (`DynamicParameters.cs`, `json_reader.rs` for
    `JsonReader`), case, `_` and `-` aside."""
    stem = chunk.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    name = chunk.name.split("#", 1)[0]
    return _bare(stem) == _bare(name)


def _bare(name: str) -> str:
    return name.replace("_", "").replace("-", "").lower()


@dataclass(frozen=True)
class SymbolIntent:
    """Definitions of the identifier a question is (or names) go first; a code-shaped name no definition has,
    the file statements that import or re-export it."""

    index: RankingIndex
    accept: Callable[[str], bool] | None = None
    # In a workspace of several repositories, a file's repository: each repository defining the
    # name gets its best definition pinned before any gets a second (a bare `Request` is the web
    # framework's or the HTTP client's: the question does not say which).
    repo_of: Callable[[str], str] | None = None
    # A Russian question's Latin names (`Serialize`) count as code-shaped identifiers.
    russian_names: bool = True

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        pinned = self._pinned(query, {f.chunk_id: f.score for f in fused})
        if not pinned:
            return fused
        top = fused[0].score if fused else 1.0
        known = {f.chunk_id: f for f in fused}
        head = [replace(known.get(c, Fused(c, 0.0)), score=top + (len(pinned) - i) * 1e-3)
                for i, c in enumerate(pinned)]
        return head + [f for f in fused if f.chunk_id not in set(pinned)]

    def _names(self, query: Query) -> list[tuple[str, bool]]:
        """(name, any case too): the identifier the question is, else the code-shaped ones inside
        it, then a Russian question's Latin names (their exact case only: `Visitor` is the trait,
        not every `visitor` variable's function)."""
        if query.identifier:
            return [(query.identifier, True)]
        names = [(name, True) for name in query.code_identifiers]
        if self.russian_names:
            names += [(name, False) for name in query.written_names if name not in query.code_identifiers]
        return names

    def _pinned(self, query: Query, scores: Mapping[str, float]) -> list[str]:
        pinned: list[str] = []
        for name, any_case in self._names(query):
            found = self.index.definitions(name, scores=scores)
            if not found and any_case:
                found = self.index.definitions(name, exact_case=False, scores=scores)
            found = [c for c in found if self.accept is None or self.accept(c)]
            found = _one_per_file(found, self.index.chunks)
            if not query.identifier and "." not in name and len(found) > COMMON_NAME_FILES:
                continue  # a name every class overrides (`toString`), written in a sentence, names the concept
            if self.repo_of is not None:
                found = _each_repository_first(found, self.index.chunks, self.repo_of)
            pinned += [c for c in found[:MAX_PINNED] if c not in pinned]
        if not pinned and query.identifier:
            pinned = self._named_by_statements(query.identifier.rsplit(".", 1)[-1], scores)
        return pinned

    def _named_by_statements(self, name: str, scores: Mapping[str, float]) -> list[str]:
        """A code-shaped name the index defines nowhere (a dependency's, a sibling package's): the best file
        statements that name it, where the code imports or re-exports it (axum's `pub use
        axum_core::response::{IntoResponse, ...}` in response/mod.rs). A plain word ("response") is a
        concept as much as a name: left to the other stages."""
        if (name == name.lower() and "_" not in name) or self.index.definitions(name, exact_case=False):
            return []
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
        best = max((c for c in scores if (chunk := self.index.chunks.get(c)) is not None and chunk.kind == "module"
                    and chunk.is_code and (self.accept is None or self.accept(c)) and word.search(chunk.code)),
                   key=scores.__getitem__, default=None)
        return [best] if best is not None else []


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
