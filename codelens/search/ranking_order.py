"""Ranking stages that reorder the list chunk by chunk (codelens/search/ranking.py names them):
one file's chunks spread out (`diverse-close`), equal code in another file listed once
(`copies`), code before documents (`kind-prior`), code before its tests (`tests-below`),
implementations before the declarations they implement (`declarations-below`), the work before every
object's `toString` (`object-methods-below`), before a property's getter and setter (`accessors-below`),
before a constructor that only stores (`constructors-below`) and before a function that only calls another of
its file (`forwarders-below`); and what every stage uses to rescore.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from codelens.chunk import Chunk
from codelens.ingest.sql import is_sql_definition, is_sql_statements
from codelens.languages import CLASS, FUNCTION, Conventions, row_named
from codelens.languages.model import forwarded_call
from codelens.search.file_roles import (
    EXAMPLES,
    HISTORY,
    LEGAL,
    TESTS,
    TRANSLATIONS,
    asks_for,
    is_example_path,
    is_history_path,
    is_legal_path,
    is_translation_path,
)
from codelens.search.query import Fused, Query
from codelens.search.ranking_symbols import RankingIndex


def file_of(chunks: Mapping[str, Chunk], item: Fused) -> str:
    """The path of a listed chunk ("" for a snippet without one, or a chunk the index lacks)."""
    chunk = chunks.get(item.chunk_id)
    return chunk.path if chunk is not None else ""


def rescore(fused: Sequence[Fused], scores: Mapping[str, float]) -> list[Fused]:
    rescored = [replace(f, score=scores[f.chunk_id]) if scores[f.chunk_id] != f.score else f for f in fused]
    return sorted(rescored, key=lambda f: (-f.score, f.chunk_id))


def sink(fused: list[Fused], below: set[str], factor: float) -> list[Fused]:
    """The list with the chunks in `below` keeping `factor` of their scores (the list as it was: none)."""
    if not below:
        return fused
    return rescore(fused, {f.chunk_id: f.score * factor if f.chunk_id in below else f.score for f in fused})


@dataclass(frozen=True)
class FileDiversity:
    """Greedy re-ranking: each chunk's score x decay^(chunks of its file already placed above it), a
    definition holding it not counted: valtio's `proxySet` (262 lines) above its `add` is the function in
    part, not another answer from the file (105 asked sets: Hit@5 0.769 -> 0.774; bench/RESULTS.md).
    Chunks without a path (snippet corpora) are never grouped. A chunk close to the top score (`strong`) is
    decayed once at most: hyper's `Bdp.calculate` at 75% of the top, below its file's module doc and struct,
    fell from 3rd to 7th, uvicorn's `StatReload.should_restart` from 8th to 26th.

    `close`: in the first `guarded` places, only a chunk scoring at least `close` x the top
    score may be lifted above a better one, so a question about one file keeps that file's
    chunks together unless another file comes close to it; below those places, any may."""

    chunks: Mapping[str, Chunk]
    decay: float = 0.5
    window: int = 50  # only the head of the list is re-ranked; the tail keeps its order
    close: float = 0.0
    guarded: int = 0
    # a chunk scoring at least this share of the top score is decayed once at most, however many of its
    # file's chunks are listed above it (0: never spared)
    strong: float = 0.0

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        bar = self.close * fused[0].score if fused else 0.0
        spared = self.strong * fused[0].score if fused and self.strong else float("inf")
        return self._place([], fused[: self.window], bar, spared) + fused[self.window :]

    def _place(self, placed: Sequence[Fused], head: Sequence[Fused], bar: float,
               spared: float = float("inf")) -> list[Fused]:
        """`placed` (already listed: their files count) followed by `head` re-ranked greedily;
        `bar` is the score a chunk needs to be lifted into the first `guarded` places, `spared` the score
        from which a chunk is decayed once at most."""
        placed, head = list(placed), list(head)
        per_file: dict[str, list[Fused]] = {}
        for item in placed:
            path = self._group(item)
            if path:
                per_file.setdefault(path, []).append(item)
        while head:
            # head stays in fused order: its first item is the best not yet placed
            eligible = range(len(head))
            if len(placed) < self.guarded:
                eligible = [i for i in eligible if i == 0 or head[i].score >= bar]
            best = max(eligible, key=lambda i: (self._score(head[i], per_file, spared), -i))
            item = head.pop(best)
            placed.append(item)
            path = self._group(item)
            if path:
                per_file.setdefault(path, []).append(item)
        return placed

    def _group(self, item: Fused) -> str:
        """What a chunk's listed neighbours share to count against it: its file ("" for none)."""
        return file_of(self.chunks, item)

    def _score(self, item: Fused, per_file: Mapping[str, Sequence[Fused]], spared: float = float("inf")) -> float:
        above = len(self._counted(item, per_file.get(self._group(item), ())))
        return item.score * self.decay ** (min(above, 1) if item.score >= spared else above)

    def _counted(self, item: Fused, listed: Sequence[Fused]) -> list[Fused]:
        """The listed chunks of its file that count against it: not a definition holding it (a class above
        its method, a function above the one it nests), which shows it in part, not another answer."""
        inner = self.chunks.get(item.chunk_id)
        if inner is None:
            return list(listed)
        return [other for other in listed if not _holds(self.chunks.get(other.chunk_id), inner)]


def _holds(outer: Chunk | None, inner: Chunk) -> bool:
    """`outer` is a definition whose lines hold `inner`'s, and more."""
    return (outer is not None and outer.kind != "module" and outer.path == inner.path
            and outer.start_line <= inner.start_line and inner.end_line <= outer.end_line
            and outer.end_line - outer.start_line > inner.end_line - inner.start_line)


@dataclass(frozen=True)
class Copies:
    """A chunk whose code is the same as a better chunk's of another file goes below the head: the list
    shows that code once, and the place goes to another answer. In one repository, code kept once per module
    or release (sttp's akka and pekko compressors, retrofit's call adapters in three modules, a manual copied
    per release); in a workspace, a fork, a vendored copy, the same project twice. Equal code has equal
    vectors and scores, so the copies tie, and the one listed is the better placed: in a workspace
    `prefer_repository` (ties.py) has already put the repository you are in first. A few characters alike
    (`return self.name`) are no copy."""

    chunks: Mapping[str, Chunk]
    window: int = 50
    min_chars: int = 40

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        seen: dict[str, str] = {}  # code -> the file of its best chunk
        kept, copies = [], []
        for item in fused[: self.window]:
            chunk = self.chunks.get(item.chunk_id)
            code = chunk.code.strip() if chunk is not None else ""
            if len(code) < self.min_chars:
                kept.append(item)
                continue
            first = seen.setdefault(code, chunk.path)
            (copies if first != chunk.path else kept).append(item)
        return kept + copies + fused[self.window :] if copies else fused


@dataclass(frozen=True)
class KindPrior:
    """A chunk that is not code keeps `weight` of its score: where a document and the code it
    describes answer about as well, the code comes first. A SQL definition (a table, a view, a
    function) is code; in a file of such definitions (a schema), the runs of other statements
    between them keep less (pagila's `ATTACH PARTITION` runs name `payment` a dozen times, above its
    `CREATE TABLE`). A migration's statements are its content: they keep `weight`. A question about
    running, building, configuring or deploying the project asks for those pieces as much as for the
    code: then nothing sinks ("which port does the test database listen on", «как запустить тесты»).
    Beside code in another language (`code_beside_sql`: a Spring application's `schema.sql` and
    `data.sql`, once per database) the SQL is the application's data, not how it works: its
    definitions and statements keep `statements_weight`, unless the question asks about the database
    ("which table holds the owners", «какие столбцы у таблицы питомцев»)."""

    chunks: Mapping[str, Chunk]
    sql_schemas: frozenset[str] = frozenset()  # RankingIndex.sql_schemas
    code_beside_sql: bool = False  # RankingIndex.code_beside_sql
    weight: float = 0.85
    statements_weight: float = 0.6
    listens: bool = True  # False: whatever the question (until session 25)

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if self.listens and asks_for_setup(query.text):
            return fused
        data = self.code_beside_sql and not (self.listens and _ASKS_FOR_DATABASE.search(query.text))
        factors = {f.chunk_id: self._factor(c, data) for f in fused
                   if (c := self.chunks.get(f.chunk_id)) is not None and not c.is_code}
        if not factors:
            return fused
        return rescore(fused, {f.chunk_id: f.score * factors.get(f.chunk_id, 1.0) for f in fused})

    def _factor(self, chunk: Chunk, sql_is_data: bool) -> float:
        """The share of its score a piece that is not code keeps."""
        if is_sql_definition(chunk):  # a table, a view, a function: a schema's code
            return self.statements_weight if sql_is_data else 1.0
        if is_sql_statements(chunk) and (sql_is_data or chunk.path in self.sql_schemas):
            return self.statements_weight  # `OWNER TO`, `ATTACH PARTITION`, `GRANT`; an application's seed rows
        return self.weight


# A question about the database itself: its tables, columns, schema («база» only as a noun: «базовый класс» is code).
_ASKS_FOR_DATABASE = re.compile(
    r"\b(?:tables?|columns?|schemas?|sql|databases?|db|foreign|"
    r"таблиц\w*|столб\w*|колон\w*|схем\w*|баз(?:а|ы|е|у|ой|ах)|бд)\b", re.IGNORECASE)


# A question about running, building, configuring or deploying the project, or its versions: its answer
# is in the configuration, build files and documents as often as in the code. Not the words code questions
# use as often: dependencies ("dependency injection"), hooks, compile, «установить» (set), «сборка» (garbage).
_ASKS_FOR_SETUP = re.compile(
    r"\b(?:config\w*|settings?|setup|environments?|env|ports?|docker\w*|compose"
    r"|kubernetes|k8s|helm|deploy\w*|install\w*|versions?|build|ci|pipelines?|workflows?"
    r"|lint\w*|formatters?|pre-commit|coverage|makefile|migrations?|licen[cs]e|readme|docs?|documentation"
    r"|properties|yaml|yml|toml|xml|pom|gradle|maven|terraform|plugins?|profiles?|run|running|launch"
    r"|настро\w*|конфиг\w*|окружени\w*|порт\w*|докер\w*|развер\w*|депло\w*"
    r"|верси\w*|запуск\w*|запуст\w*|миграц\w*|лиценз\w*|документац\w*"
    r"|плагин\w*|линтер\w*|покрыти\w*)\b", re.IGNORECASE)


def asks_for_setup(question: str) -> bool:
    """The question is about running, building, configuring or deploying the project."""
    return _ASKS_FOR_SETUP.search(question) is not None


@dataclass(frozen=True)
class CodeBeforeTests:
    """A chunk of a test file, of an example or benchmark program, or of a change log keeps `factor`
    of its score, one of the UI's texts in some language `translations_factor`, unless the question
    asks about them (file_roles.py): the tests
    that exercise a mechanism and the examples that use it repeat its words and names, and would
    otherwise outrank the code that implements it (gson's CustomSerializerTest above
    GsonBuilder.registerTypeAdapter, chi's `_examples/` routers above mux.go); a Russian message
    bundle holds the words of every Russian question (spring-petclinic's `messages_ru.properties`
    above PetValidator for «валидация владельца питомца»). 0.3 (0.5 until session 29: the same on the
    Python sets, gson, chi, Zig and Lua a little higher at 0.3, bench/RESULTS.md)."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.3
    examples: bool = True
    translations: bool = True
    translations_factor: float = 0.1  # a bundle holds every word of a question in its language: sunk further
    history: bool = True

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        tests = not asks_for(TESTS, query.text)
        examples = self.examples and not asks_for(EXAMPLES, query.text)
        translations = self.translations and not asks_for(TRANSLATIONS, query.text)
        history = self.history and not asks_for(HISTORY, query.text)
        legal = not asks_for(LEGAL, query.text)
        below = {f.chunk_id for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                 and ((tests and c.is_test) or (examples and is_example_path(c.path, c.is_code))
                      or (history and is_history_path(c.path)) or (legal and is_legal_path(c.path)))}
        texts = {f.chunk_id for f in fused if translations and (c := self.chunks.get(f.chunk_id)) is not None
                 and is_translation_path(c.path)}
        return sink(sink(fused, below - texts, self.factor), texts, self.translations_factor)


@dataclass(frozen=True)
class LegacyBelow:
    """A chunk under a folder of code kept for an older version (`src/v3/` beside `src/v4/`, a
    `legacy/` folder: RankingIndex.legacy_folders) keeps `factor` of its score unless the question
    names that folder ("the v3 error types"): where the old and the current version define the same
    names, the current one answers (zod's v3 `ZodType` above v4's)."""

    index: RankingIndex
    factor: float = 0.7

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if not self.index.legacy_folders:
            return fused
        asked = {w.lower() for w in _FOLDER_WORD.findall(query.text)}
        below = {f.chunk_id for f in fused if (c := self.index.chunks.get(f.chunk_id)) is not None
                 and (folder := self.index.legacy_folder(c.path)) is not None
                 and folder.rstrip("/").rsplit("/", 1)[-1].lower() not in asked}
        return sink(fused, below, self.factor)


_FOLDER_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class DeclarationsBelow:
    """A definition that only declares what other code implements keeps `factor` of its score: an interface's
    or an abstract method, an interface, a TypeScript type alias (its language's Conventions.declares_only).
    A question about what code does is answered where it is done: "how is a request sent asynchronously" by
    guzzle's `Client.sendAsync` before `ClientInterface.sendAsync`, "how are retries performed" by ky's
    `Ky.#retry` before its `RetryOptions` type. An identifier is the symbol stage's, and a question about
    running or configuring the project is left alone. Languages whose traits and protocols are the answer
    (Rust, Scala, Swift) declare no contracts. A TypeScript interface merged with a value of its name in its
    file (zod's `interface ZodString` beside `const ZodString = $constructor(...)`) types that value, its own
    API: it and its members keep their scores. A TypeScript declaration file (`.d.ts`) only declares."""

    index: RankingIndex
    factor: float = 0.7

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if query.identifier or asks_for_setup(query.text):
            return fused
        return sink(fused, {f.chunk_id for f in fused if (c := self.index.chunks.get(f.chunk_id)) is not None
                            and declares_only(c) and not self._typed_value(c)}, self.factor)

    def _typed_value(self, chunk: Chunk) -> bool:
        """The declaration is (or is a member of) a type that shares its name with a value of its file that does
        something (a function, a constant made by a call). An abstract class's abstract method is not: its class
        declares nothing; nor is an interface merged into a class of its name (yup's `interface StringSchema`
        beside `class StringSchema`: about 80 one-line signatures of overloads, above the methods that run)."""
        owner = chunk.symbol.split("#", 1)[0] if chunk.kind == CLASS else chunk.parent
        if not owner:
            return False
        named = [other for chunk_id in self.index.by_name.get(owner.rsplit(".", 1)[-1], ())
                 if (other := self.index.chunks.get(chunk_id)) is not None and other.path == chunk.path
                 and other.symbol.split("#", 1)[0] == owner]
        return any(map(declares_only, named)) and any(c.kind != CLASS and not declares_only(c) for c in named)


# a question about how an object reads as text, or how objects compare, hash or copy (then those methods answer)
_DESCRIBES = re.compile(r"represent|display|print|debug|descri|\brepr|render|readable|message|format|serializ|"
                        r"представлени|отображ|печат|вывод|формат|сообщени|сериализ", re.IGNORECASE)
_COMPARES = re.compile(r"equal|compar|hash|sort|order|identi|clone|cop(?:y|ie)|dedup|duplicat|"
                       r"равен|равенств|сравн|хеш|хэш|сортир|порядк|копи|клон|дубл", re.IGNORECASE)
_WRITTEN = re.compile(r"[\w?=<>]+")


@dataclass(frozen=True)
class ObjectMethodsBelow:
    """A method every object of its language has, overridden (`toString`, `hashCode`, `__repr__`, Go's `String`,
    Rust's `fmt`: its language's Conventions.describing and comparing), keeps `factor` of its score unless the
    question writes its name or asks about what it does (how a thing reads as text, how things compare, hash
    or copy): moshi's `EnumJsonAdapter.toString` answered "how are enums converted to and from JSON strings", and
    a class's small overrides of them come before the class that does the work."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.5

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if query.identifier:
            return fused
        written = set(_WRITTEN.findall(query.text))
        describes, compares = bool(_DESCRIBES.search(query.text)), bool(_COMPARES.search(query.text))
        return sink(fused, {f.chunk_id for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                            and c.kind == "method" and _object_method(c, written, describes, compares)}, self.factor)


def _object_method(chunk: Chunk, written: set[str], describes: bool, compares: bool) -> bool:
    conventions = _conventions(chunk)
    name = _bare(chunk)
    if conventions is None or name in written:
        return False
    return (name in conventions.describing and not describes) or (name in conventions.comparing and not compares)


@dataclass(frozen=True)
class _PlainMethodsBelow:
    """A method that `plain` finds keeps `factor` of its score unless the question writes its name in code form
    (or is an identifier): it carries the docs of what it stores, the mechanism is elsewhere."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.7

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        if query.identifier:
            return fused
        written = {name.rsplit(".", 1)[-1] for name in query.code_identifiers}
        return sink(fused, {f.chunk_id for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                            and c.kind == "method" and _bare(c) not in written and self.plain(c)},
                    self.factor)

    def plain(self, chunk: Chunk) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class AccessorsBelow(_PlainMethodsBelow):
    """A property's getter or setter, where its language marks them (JavaScript's and TypeScript's `get x()`,
    `set x(v)`: Conventions.accessor), that only returns or stores a field (a few lines: Conventions.plain_accessor):
    it carries the option's doc: got's `Options.followRedirect` getters and setters filled "how are redirects
    followed" above the code that follows them. One that computes (koa's `set body` choosing the content type) is
    code like any other. Python's `@property` often computes what it returns, and sinking it lost (bench/RESULTS.md,
    session 32)."""

    def plain(self, chunk: Chunk) -> bool:
        return _accessor(chunk)


@dataclass(frozen=True)
class ConstructorsBelow(_PlainMethodsBelow):
    """A constructor that only stores its arguments or hands them to its base (Conventions.plain_constructor): its
    parameters repeat the question's words (Polly's `AdvancedCircuitBehavior(failureRatio, minimumThroughput, ...)`
    above the `OnActionFailure` that trips the circuit on them), its code does nothing with them. Not Python's
    `__init__`, which often does the work (the Python floors are tuned with it as it is)."""

    def plain(self, chunk: Chunk) -> bool:
        return _plain_constructor(chunk)


@dataclass(frozen=True)
class ForwardersBelow:
    """A function or method whose body only calls another definition of its file (languages/model.py's
    forwarded_call), that one among the results: the callee takes the forwarder's place (the forwarder carries its
    doc, the callee the code) and the forwarder keeps `factor` of its score below it. viper's package-level
    `SetEnvPrefix(in)` is `{ v.SetEnvPrefix(in) }` under the method's doc word for word and filled the first
    places twice over; a Java or C# overload that calls the full one (Polly's `Bulkhead(maxParallelization)`)
    repeats its parameters; Carbon's `ago()` and `since()` copy the docblock of the `diffForHumans` they call.
    A callee in another file may be anything of that name (httpx's `HTTPTransport.close` calls its pool's
    `close`, not `Response.close`): the forwarder keeps its place. Not a constructor (Swift's `init(argument:)`
    calling `self.init(argument)`): every type has one of that name."""

    chunks: Mapping[str, Chunk]
    factor: float = 0.7

    def __call__(self, query: Query, fused: list[Fused]) -> list[Fused]:
        listed = [(f, c) for f in fused if (c := self.chunks.get(f.chunk_id)) is not None
                  and c.is_code and c.kind in (FUNCTION, "method")]
        calls = {f.chunk_id: callee for f, c in listed
                 if (callee := _forwarded(c.signature, c.code)) is not None and not _constructor(c)}
        # one forwarding outside the results of its file does the work it is asked for (cpr's `SetUserAgent` calls
        # curl's `curl_easy_setopt`): the callee of its own forwarders (`SetOption(const UserAgent&)`)
        listed_names = {(c.path, _bare(c)) for _, c in listed}
        beside: dict[tuple[str, str], Fused] = {}  # a name's best definition that does more, by file
        for f, c in listed:
            if (f.chunk_id not in calls or (c.path, calls[f.chunk_id]) not in listed_names) and (
                    (best := beside.get((c.path, _bare(c)))) is None or f.score > best.score):
                beside[(c.path, _bare(c))] = f
        paired = [(f, callee) for f, c in listed
                  if f.chunk_id in calls and (callee := beside.get((c.path, calls[f.chunk_id]))) is not None]
        if not paired:
            return fused
        scores = {f.chunk_id: f.score for f in fused}
        for f, callee in paired:
            scores[callee.chunk_id] = max(scores[callee.chunk_id], f.score)
            scores[f.chunk_id] = min(f.score * self.factor, scores[callee.chunk_id] * 0.99)
        return rescore(fused, scores)


@lru_cache(maxsize=1 << 16)
def _forwarded(signature: str, code: str) -> str | None:
    """forwarded_call, once per definition in a process (a server asks of the same candidates again)."""
    return forwarded_call(signature, code)


def _constructor(chunk: Chunk) -> bool:
    """A constructor, whose namesakes are every other type's: one calling `self.init(...)` forwards to none."""
    conventions = _conventions(chunk)
    return conventions is not None and conventions.is_constructor(_bare(chunk), chunk.parent)


def _bare(chunk: Chunk) -> str:
    return chunk.name.split("#", 1)[0]


def _plain_constructor(chunk: Chunk) -> bool:
    conventions = _conventions(chunk)
    return conventions is not None and conventions.plain_constructor(_bare(chunk), chunk.parent,
                                                                     chunk.code)


def _accessor(chunk: Chunk) -> bool:
    conventions = _conventions(chunk)
    return conventions is not None and conventions.plain_accessor(chunk.signature, chunk.code, _bare(chunk))


def declares_only(chunk: Chunk) -> bool:
    """A code chunk whose language says it only declares (codelens/languages/model.py's Conventions), or one
    of a TypeScript declaration file (winston's `index.d.ts` `declare class Container` beside container.js)."""
    if not chunk.is_code or chunk.kind not in (CLASS, FUNCTION, "method"):
        return False
    if chunk.path.endswith(_DECLARATION_FILES):
        return True
    conventions = _conventions(chunk)
    return conventions is not None and conventions.declares_only(
        chunk.kind, chunk.code, conventions.is_constructor(_bare(chunk), chunk.parent))


_DECLARATION_FILES = (".d.ts", ".d.mts", ".d.cts")


def _conventions(chunk: Chunk) -> Conventions | None:
    """What the chunk's language means beyond its syntax (codelens/languages/); None for documents and the rest."""
    row = row_named(chunk.language or "")
    return row.conventions if row is not None else None
