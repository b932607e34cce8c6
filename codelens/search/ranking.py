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
- `path`: a chunk whose file name (or folder) holds words of the question gains: in English a share
  of the top score as large as the share of the question's words its path holds; through the
  word bridge (a Russian question, or Russian-named code) a share of its own score.
- `named-file`: a question that names, in two to four consecutive words, the class or function a file is
  named after ("JSON element hierarchy" -> `JsonElement` in JsonElement.java) lifts that definition by
  0.3 x the top score: the file's subject, not its small methods nor other classes' overrides.
- In `file-words`, `file-meaning` and `path` a file's first chunk in the list gains 1.5 x what its file
  earns (`LEAD`), its later chunks 1 x: the file rises by its best chunk, and its other methods do not
  fill the list on the file's account.
- `hub-files`: a question that asks how something works ("how are routers nested") lifts the chunks of the
  files that mechanism runs through: a chunk gains 0.4 x its score x its file's hub score (the code graph's:
  used by many files and using many, graph/hubs.py), so the router's core outranks one of its users.
- `kind-prior`: code first: a piece of a document, configuration or build file keeps a share
  of its score, so it outranks code only when it answers the question clearly better (how to
  run, configure, deploy); an index of code alone is untouched. A SQL file's tables, views and
  functions are code; the statements between a schema's definitions keep less than a document. A
  question about running, building, configuring or deploying the project ("which port does the test
  database listen on", «как запустить тесты») lets every piece keep its score.
- `tests-below`: a chunk of a test file, of an example or benchmark program (`examples/`, `_examples/`,
  `samples/`, `demo/`, `playground/`, `benches/`), of a change log or of the licence (`LICENSE.txt`, `NOTICE`)
  keeps 0.3 of its score, one of the UI's
  texts or the documentation in some language (`messages_ru.properties`, `locales/`, `docs/zh/`) 0.1, unless
  the question asks about them, so the code comes before the tests, examples and texts that repeat its words.
- `legacy-below`: a chunk under a folder kept for an older version (`src/v3/` beside `src/v4/`,
  `legacy/`, `deprecated/`) keeps a share of its score unless the question names that folder, so
  the current version answers where both define the same names.
- `declarations-below`: a definition that only declares what other code implements (an interface's or an
  abstract method, an interface, a TypeScript type alias, a `.d.ts` file's definitions: its language's
  conventions say which) keeps 0.7 of its score for a question that is no identifier, so the implementation
  answers what code does. Rust, Scala and Swift declare none: their traits and protocols are what a question
  asks about.
- `object-methods-below`: a method every object of its language has, overridden (`toString`, `hashCode`,
  `__repr__`, Go's `String`, Rust's `fmt`: its language's conventions list them), keeps 0.5 of its score unless
  the question writes its name or asks how things read as text, compare, hash or copy, so a class's small
  overrides do not answer for the code that does the work ("how are enums converted to JSON strings").
- `accessors-below`: a property's getter or setter, where its language marks one (JavaScript's and TypeScript's
  `get x()`, `set x(v)`) or names one (Java's, PHP's and C#'s `getMaxCount()` whose body only returns or stores
  a field), keeps 0.7 of its score unless the question writes its name in code form: it returns or stores a
  field and carries the option's doc, not the mechanism.
- `constructors-below`: a constructor that only stores its arguments or hands them to its base (its language's
  conventions name its constructors: `constructor`, `__construct`, `initialize`, `init`, or the class's own name
  in Java, C# and C++) keeps 0.7 of its score unless the question writes its name: its parameters repeat the
  question's words, the code that uses them is elsewhere. Never Python's `__init__`, which often does the work.
- `forwarders-below`: a function or method whose body only calls another definition of its file (viper's
  package-level `GetString(key)` calling `v.GetString(key)`, an overload calling the full one, Carbon's `ago()`
  calling `diffForHumans()`), that one among the results: it takes the forwarder's place and the forwarder
  keeps 0.7 of its score below it, so the code answers, once.
- `diverse-close`: a chunk's score is multiplied by `decay` for every better chunk of the same
  file already listed (a definition holding it not counted: a class above its method shows it in part),
  so one class and its methods cannot fill the list; in the first four
  places only a chunk close to the top score (70% of it) may be lifted that way (without that
  guard semble's file-level benchmarks gain and the chunk-level floors lose: bench/RESULTS.md); a chunk
  within 75% of the top score is multiplied once at most, however many of its file's are above it.
- `symbol`: a question that is an identifier (`Response`, `Session.send`, `Sinatra::Helpers`) puts
  that name's definitions first (exact case before any case, classes before functions before methods;
  a qualifier is the enclosing definitions, the module, or the folder: a package or namespace);
  a question that contains a code-shaped identifier (`ClientSession`, `model_post_init`), or a
  Russian question's Latin name (`Serialize` in «определения трейта Serialize», in its own case)
  lifts that name's definitions to the top of the list as well, unless more than eight files define it (a
  sentence's `toString` or `flatMap` is the concept, not one of its overrides). A name reaches its `$` variant
  too (`ZodType` -> `$ZodType`), after the name itself. Definitions of one rank go current version
  before legacy, then file-named-after-them, shallower-path, better-scored order. A code-shaped name the
  index defines nowhere (axum's `IntoResponse`, a dependency's trait) puts first the file statements that
  import or re-export it.

The stages live by job: ranking_symbols.py (`symbol` and the definitions it looks up),
ranking_files.py (what a chunk gains from its file: `graph-files`, `file-words`, `file-meaning`,
`path`, `named-file`, `hub-files`), ranking_order.py (the list reordered chunk by chunk: `kind-prior`,
`tests-below`, `legacy-below`, `declarations-below`, `object-methods-below`, `accessors-below`,
`constructors-below`, `forwarders-below`, `diverse-close`, `copies`, and `rescore`; file_roles.py
tells the tests, examples, benchmarks, change logs, licences and translations `tests-below` sinks); this module
is their registry: the names, what a stage is built from (StageContext) and the shipped order.

Only what the Searcher runs lives in these modules. The other settings of these stages that were measured
(other weights, a file's first chunks let through, grouping by top-level definition, a head
kept as fused, pinning bare identifiers only) and the ideas that did not ship are
bench/variants.py's: subclasses of these stages and its own registry of names.
"""


from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from codelens.search.bridge import WordBridge
from codelens.search.file_vectors import FileVectors
from codelens.search.lexical import LexicalIndex
from codelens.search.query import Stage
from codelens.search.ranking_files import CallFiles, FileMeaning, FileWords, GraphFiles, HubFiles, NamedFile, PathSignal
from codelens.search.ranking_order import (
    AccessorsBelow,
    CodeBeforeTests,
    ConstructorsBelow,
    Copies,
    DeclarationsBelow,
    FileDiversity,
    ForwardersBelow,
    KindPrior,
    LegacyBelow,
    ObjectMethodsBelow,
)
from codelens.search.ranking_symbols import RankingIndex, SymbolIntent

# Measured on semble_py_dev and semble_langs_dev (bench/RESULTS.md): each of these lifts them.
SHIPPED_RANKING: tuple[str, ...] = ("graph-files", "file-words", "file-meaning", "path", "named-file", "kind-prior",
                                    "tests-below", "legacy-below", "hub-files", "declarations-below",
                                    "object-methods-below", "accessors-below", "constructors-below", "forwarders-below",
                                    "diverse-close", "symbol")


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
    hubs: Mapping[str, float] = field(default_factory=dict)  # the code graph's hub score per file (graph/hubs.py)
    # In a workspace of several repositories: a file's repository (workspace.Workspace.repo_of); else None
    repo_of: Callable[[str], str] | None = None


StageFactory = Callable[[StageContext], Stage]
# The shipped stages by name (SHIPPED_RANKING orders them); bench/variants.py has its own registry
# with these and the variants it compares.
STAGES: Mapping[str, StageFactory] = {
    "symbol": lambda c: SymbolIntent(c.index, c.accept, c.repo_of),
    "diverse-close": lambda c: FileDiversity(c.index.chunks, close=0.7, guarded=4, strong=0.75),
    "tests-below": lambda c: CodeBeforeTests(c.index.chunks),
    "path": lambda c: PathSignal(c.index.chunks, bridge=c.bridge),
    "named-file": lambda c: NamedFile(c.index, c.accept),
    # A partial index's file vectors come from the chunks embedded so far: trusted as much.
    "file-meaning": lambda c: FileMeaning(c.index.chunks, c.files, weight=0.2 * c.coverage),
    "file-words": lambda c: FileWords(c.index.chunks, c.file_words, bridge=c.bridge),
    "graph-files": lambda c: GraphFiles(c.index.chunks, c.call_files),
    "hub-files": lambda c: HubFiles(c.index.chunks, c.hubs),
    "kind-prior": lambda c: KindPrior(c.index.chunks, c.index.sql_schemas, c.index.code_beside_sql),
    "legacy-below": lambda c: LegacyBelow(c.index),
    "declarations-below": lambda c: DeclarationsBelow(c.index),
    "object-methods-below": lambda c: ObjectMethodsBelow(c.index.chunks),
    "accessors-below": lambda c: AccessorsBelow(c.index.chunks),
    "constructors-below": lambda c: ConstructorsBelow(c.index.chunks),
    "forwarders-below": lambda c: ForwardersBelow(c.index.chunks),
    "copies": lambda c: Copies(c.index.chunks),
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
