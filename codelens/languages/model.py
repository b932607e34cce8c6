"""The records a language module fills: its grammar, its row (what its syntax tree's nodes mean to
the chunker), its graph rule (what they mean to the code graph) and its conventions (test ids,
throwing, constants). Pure data and small pure functions; nothing here imports a grammar.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

FUNCTION = "function"  # a method when it sits in a class (or under its type: Go receiver, Rust impl)
CLASS = "class"  # classes, interfaces, structs, traits, enums, objects, modules (Ruby): what holds members


@dataclass(frozen=True)
class Grammar:
    """Where a tree-sitter grammar comes from: the wheel to install and the function that returns it."""

    package: str  # the PyPI distribution (`tree-sitter-go`): what an error tells the user to install
    module: str  # the import name (`tree_sitter_go`)
    function: str = "language"  # `tree_sitter_typescript.language_tsx`


@dataclass(frozen=True)
class GraphRule:
    """How one language's calls, instantiations, base classes and imports look in its tree."""

    family: str  # languages that call each other by plain name share one (typescript and javascript: "js")
    # call node type -> where the callee is: a field holding the callee expression; "" the call node itself
    # holds the name and receiver fields (Java's method_invocation); "first" its first named child (Kotlin, Swift)
    calls: tuple[tuple[str, str], ...]
    constructs: tuple[tuple[str, str], ...] = ()  # `new Foo()`: node type -> field ("first": first named child)
    bases: tuple[str, ...] = ()  # node types whose type names are the base classes and interfaces
    # how its import declarations read and which files they mean: a reader in graph/syntax_imports.py and a
    # locator in graph/syntax_modules.py under this name ("" for none)
    imports: str = ""
    self_words: tuple[str, ...] = ("this",)  # a receiver that means the enclosing class's own object
    implicit_self: bool = False  # a bare call may be a method of the enclosing class (Java, C#, Kotlin...)
    package_scope: bool = False  # a folder's files see each other's names without importing them (Go, Java...)
    receiver_of: str = ""  # Go: the method node whose receiver parameter names its own object
    noise: tuple[str, ...] = ()  # callee names that are builtins or keywords, never recorded
    # receivers that are the language's own objects (`console`, `System`): a call on one is external,
    # never matched to the codebase by its method's name
    builtins: tuple[str, ...] = ()
    # method names every object or collection of the language has (`toString`, `to_s`, `is_some`): a call of
    # one on a receiver of unknown type is never matched to the codebase by its name alone
    library_methods: tuple[str, ...] = ()
    # the nodes that name a file's package or namespace (`package com.acme.pay;`): its imports and
    # its package's other files are found by it, wherever the folders are
    packages: tuple[str, ...] = ()
    # calls that define rather than call (Elixir's `def run(x)`): the call they hold is a head, never a call
    definers: tuple[str, ...] = ()
    # the operator of a compile-time attribute (Elixir's `@`): nothing under it is a call (`@doc "..."`,
    # `@spec total([number]) :: String.t()`, a read of `@max_items`)
    attribute_operator: str = ""
    # what gives a variable, parameter or field its type: (node type, field of the name, field of the type);
    # "" reads the node's children (Kotlin's nodes have no fields)
    typed: tuple[tuple[str, str, str], ...] = ()
    # (node type, field of the name, field of the value): `x := &Server{}`, `const r = new Repo()`
    assigned: tuple[tuple[str, str, str], ...] = ()
    # node types that implement a type elsewhere (Rust's `impl Trait for Type`): the type inherits the trait
    implementers: tuple[str, ...] = ()
    # an imported name may be a module of its own (Rust's `use crate::routing;`): looked up as one too
    imports_name_modules: bool = False
    # a wildcard import re-exports what it reaches (Rust's `pub use a::*`, `export * from "./a"`)
    wildcards_reexport: bool = False
    # a module is found by the definition that names it before its file (Elixir's `defmodule MyApp.Repo`
    # may be in any file; `alias MyApp.Repo`, `import MyApp.Util` mean that file)
    modules_by_definition: bool = False
    # a module's functions are members of the module's own definition (Elixir's `def` in `defmodule`, Perl's
    # subs in their package), and what an import makes visible: `use Shop::Tax qw(with_tax)`
    imports_members: bool = False
    # what an imported file imports is visible too (C's `#include`: a header's headers)
    imports_reach_through: bool = False
    # the grammar's own node types that name a callee (Haskell's `variable`, Perl's `function`), and
    # that qualify one (Haskell's `M.lookup`), beside the names every grammar shares (graph/syntax_calls.py)
    name_nodes: tuple[str, ...] = ()
    member_nodes: tuple[str, ...] = ()
    # node types that hold a call's receiver just before the call node (1C's `access` in `Объект.Метод()`,
    # where the call node itself keeps no receiver)
    receiver_before: tuple[str, ...] = ()
    # each file is a module that any file calls by its name (1C's common modules: `Налоги.СНалогом()` ->
    # CommonModules/Налоги/Ext/Module.bsl; OneScript's `НастройкиOpm.Получить()` -> НастройкиOpm.os)
    file_modules: bool = False
    # a capitalised receiver that names no type of the code is a library's type (`String::new`); not where
    # variables are capitalised too (1C's `Сборщик.СобратьПакет()`)
    capitalised_types: bool = True


def pytest_style(path: str, owner: str, name: str) -> str:
    """`tests/test_a.py::TestA::test_b`: the file, its classes (`A.B` -> `A::B`), the test (pytest, and
    most runners that name a test by its file)."""
    return "::".join(part for part in (path, *owner.split("."), name) if part)


def class_and_method(separator: str) -> Callable[[str, str, str], str]:
    """`FooTest#testBar` (JUnit, Surefire's -Dtest), `FooTests.Bar` (dotnet test), `FooTest::testBar`
    (PHPUnit's --filter): the test's class (the file's stem outside one) and its method."""
    return lambda path, owner, name: f"{owner or PurePosixPath(path).stem}{separator}{name}"


def in_test_folder(rel_path: str, test_dirs: Collection[str] = ()) -> bool:
    """A file inside a test folder, whatever its language (a test project's fixtures and expected outputs too:
    scriban's `src/Scriban.Tests/TestFiles/*.txt`, in 13 of 16 top tens): a test source set (`src/test/`,
    `commonTest/`), a build's test-support module, a suite's folder (`tests/`, `Dapper.Tests/`, a fuzzer's
    `fuzzing/`), one named for a test (rust-log's `test_max_level_features/` crate), or one of `test_dirs`."""
    path = PurePosixPath(rel_path)
    if any(_TEST_SOURCE_SET.match(part) for part in path.parts[:-1]):
        return True
    # a build's test-support module or source set (okhttp's `okhttp-testing-support/src/main/`, Gradle's
    # `src/testFixtures/`): code only tests run
    if any(part == "testFixtures" or part.endswith(_TEST_SUPPORT) for part in path.parts[:-1]):
        return True
    # C#'s `Dapper.Tests/` and Swift's `Tests/`: a test project's folder; a fuzzer's harnesses (cJSON's
    # `fuzzing/afl.c::main`, `LLVMFuzzerTestOneInput` in ten of sixteen top tens) are test tooling too
    return any(part in test_dirs or part in _TEST_FOLDERS or part.endswith((".tests", ".test"))
               or part.startswith(("test_", "tests_")) for part in test_folders(path))


@dataclass(frozen=True)
class Conventions:
    """What a language's code means beyond its syntax: how its tests are named by its test runner,
    how it throws, how it declares a constant, how it declares what other code implements."""

    # (path, enclosing class or "", test function) -> the id its test runner reports and takes
    test_id: Callable[[str, str, str], str] = pytest_style
    throws: tuple[str, ...] = ()  # the words that throw or abort: `raise`, `throw`, `panic`, `die`
    # a line declaring a constant; its `name` group is the constant's name
    constant: str = ""
    # Contracts: a method or function written without a body declares one that other code implements (an
    # interface's or an abstract method, a prototype), in a language whose bodies are braces; `contract`, the
    # first line of a type that only declares (an interface, a TypeScript type alias). Neither where traits,
    # protocols and typeclasses are themselves what a question asks about (Rust, Scala, Swift, Haskell).
    bodiless: bool = False
    contract: str = ""
    # a line of a function's own code that says it only declares one other code implements (Elixir's `@callback`)
    declared_by: str = ""
    # the methods every object of the language has, overridden to describe it as text (`toString`, `__repr__`,
    # Go's `String`, Rust's `fmt`) and to compare, hash or copy it (`equals`, `__hash__`): they answer a question
    # about that, and sink below the code that does the work for any other (the search's `object-methods-below`)
    describing: tuple[str, ...] = ()
    comparing: tuple[str, ...] = ()
    # the signature of a property's getter or setter, marked so by the language (`get timeout()`, `set x(v)`):
    # one that returns or stores a field carries the option's doc, not the mechanism (the search's
    # `accessors-below`); one with more lines than `ACCESSOR_LINES` computes (koa's `set body` picks the
    # content type, its `get ips` reads the proxy's headers) and is code like any other
    accessor: str = ""
    # the name of a getter or setter by the language's naming habit, where the syntax marks none (Java's and
    # PHP's `getMaxCount()`, `isClosed()`, `setMaxCount(n)`): one whose body only returns or stores a field is
    # a plain accessor as well
    getter: str = ""
    # a constructor's names (CLASS_NAMED: the class's own, Java's and C#'s): one that only stores its arguments
    # carries their docs, not the mechanism, and sinks below the code that uses them (`constructors-below`)
    constructors: tuple[str, ...] = ()
    # the first code line of a function that hands its call to another module's and does nothing else, by the
    # language's own word for it (Elixir's `defdelegate beginning_of_week(date, day), to: Timex`): it declares
    delegating: str = ""

    def constant_name(self, line: str) -> str | None:
        """The constant a source line declares, None when it declares none (or the language has no form)."""
        match = re.match(self.constant, line) if self.constant else None
        return match.group("name") if match else None

    def plain_accessor(self, signature: str, code: str, name: str = "") -> bool:
        """A getter or setter (`accessor`) that only returns or stores: at most ACCESSOR_LINES lines of code
        between its signature and its closing brace; or a method named as one (`getter`) whose body is a line
        that returns a field (`return this.maxCount;`) or stores its argument (`this.maxCount = maxCount;`)."""
        if self.getter and name and re.match(self.getter, name):
            body = _body_lines(code)
            return len(body) == 1 and (_RETURNING.match(body[0]) is not None or _STORING.match(body[0]) is not None)
        if not self.accessor or re.match(self.accessor, signature.strip()) is None:
            return False
        return sum(1 for _ in _code_lines(code)) <= ACCESSOR_LINES + 2  # its signature's line and its `}`

    def is_constructor(self, name: str, owner: str) -> bool:
        """A method named as the language names constructors (`init`, `constructor`, or its class's name)."""
        return name in self.constructors or (CLASS_NAMED in self.constructors and name == owner.rsplit(".", 1)[-1])

    def plain_constructor(self, name: str, owner: str, code: str) -> bool:
        """A constructor that only stores its arguments (Polly's `AdvancedCircuitBehavior(failureRatio, ...)`:
        `_failureRatio = failureRatio;`) or hands them to its base: at most CONSTRUCTOR_LINES such lines."""
        if not self.is_constructor(name, owner):
            return False
        body = _body_lines(code)
        return len(body) <= CONSTRUCTOR_LINES and all(_STORING.match(line) for line in body)

    def declares_only(self, kind: str, code: str, constructor: bool = False) -> bool:
        """A definition of `kind` (FUNCTION, a method, or CLASS) that declares and does nothing: a bodiless
        method, one whose body is empty (commons-io's `TailerListenerAdapter.fileRotated() { // noop }` above the
        `Tailer.run` that rotates), or a contract type. Its comments, doc blocks, annotations and attributes are
        not its code. A constructor with an empty body is no no-op (PHP's `__construct(private float $total) {}`
        declares its fields)."""
        if kind == CLASS:
            return bool(self.contract) and re.match(self.contract, next(_code_lines(code), "")) is not None
        if self.declared_by and re.search(self.declared_by, code, re.MULTILINE) is not None:
            return True
        if self.delegating and re.match(self.delegating, next(_code_lines(code), "")) is not None:
            return True
        if not self.bodiless:
            return False
        if "{" in code or "=>" in code:  # a body, or braces in its doc comment (`{@link X}`)
            code = _BLOCK_COMMENT.sub(" ", " ".join(_code_lines(code)))
            if not constructor and code.count("{") == 1 and _EMPTY_BODY.search(code):  # a no-op (`{ // noop }`)
                return True
            if "{" in code or "=>" in code:
                return False
        code = code.rstrip()
        return code.endswith(";") or "=" not in code  # Kotlin's abstract `fun size(): Int`


def forwarded_call(signature: str, code: str) -> str | None:
    """The name a function or method hands its arguments to when its whole body is one call: viper's
    package-level `func GetString(key string) string { return v.GetString(key) }` (`GetString`, the method
    that reads the value), a Java overload `join(array, sep)` calling the full `join(array, sep, 0, n)`, Carbon's
    `ago()` returning `$this->diffForHumans(...)`. None for a body that does more, or code that does not start
    with its signature."""
    text = "\n".join(" ".join(line.split()) for line in _statements(_code_lines(code)))
    signature = " ".join(signature.split())
    # a macro before the signature the grammar never read (cJSON's `CJSON_PUBLIC(cJSON *) cJSONUtils_GetPointer(`)
    start = text.find(signature) if signature else -1
    if start < 0 or any(mark in text[:start] for mark in ("{", ";", "\n")):
        return None
    text = text[start:]
    body = _BODY_CLOSE.sub("", _BODY_OPEN.sub("", text[len(signature):], count=1)).strip()
    if "\n" in body or ";" in body.rstrip(";"):
        return None
    call = _FORWARDING.match(body.rstrip(";").strip())
    if call is None or call.group("args").count("(") != call.group("args").count(")"):
        return None
    return call.group("callee")


def _statements(lines: Iterator[str]) -> list[str]:
    """The lines joined where a statement goes on (a line ending in `(`, `,` or `.`, or starting with `.`, `)`,
    `,`): a second statement stays on a line of its own, as Kotlin and Swift write one without a `;`."""
    joined: list[str] = []
    for line in lines:
        stripped = line.strip()
        if joined and (joined[-1].endswith(_GOES_ON) or stripped.startswith((".", ")", ",", "?."))):
            joined[-1] += " " + stripped
        else:
            joined.append(stripped)
    return joined


_GOES_ON = ("(", ",", ".", "->", "=>", "=")


# what a body opens and closes with once its signature is cut off: a return type or `throws` list left on the
# signature's line (`: string`, `-> Self`, `throws IOException`), then `{`, `=>`, `=` or Python's `:`;
# `}` or Ruby's `end`
_BODY_OPEN = re.compile(r"^\s*[^{=:\n(]*?(?:\{|=>|=|:)\s*")  # never past a `(`: Ruby's body opens with none
_BODY_CLOSE = re.compile(r"\s*(?:\}\s*;?|\bend)\s*$")
# one call, maybe through a receiver (`v.`, `this.`, `self::`, `$this->`, `Foo.`), returned, awaited or tried
_FORWARDING = re.compile(r"^(?:return\s+|await\s+|try\s+)*(?:[\w$]+(?:\(\))?\s*(?:\.|::|->|\?\.)\s*)*"
                         r"(?P<callee>[\w$]+)(?:<[^()]*>)?\s*\((?P<args>.*)\)$")


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/")
_EMPTY_BODY = re.compile(r"\{\s*\}\s*$")

CLASS_NAMED = "<class>"  # in Conventions.constructors: a method named as its class
CONSTRUCTOR_LINES = 8
# a line that stores an argument (`this.ratio = ratio;`, `_ratio = ratio ?? throw ...;`, `@ratio = ratio`) or hands
# arguments on (`super(a, b);`, `: base(options)`, `Guard.NotNull(x);`): what a plain constructor's body holds
_STORING = re.compile(r"^(?:(?:this|self)\.|this->|@|\$this->)?[\w.]+\s*(?:=(?!=)|\?\?=)[^;{}]*;?$"
                      r"|^(?::\s*)?(?:super|base|this|parent::__construct)\s*\(.*\)\s*;?\s*\{?$"
                      r"|^[\w.]+\.(?:ThrowIfNull|NotNull|requireNonNull|checkNotNull)\(.*\);$")
GETTER_NAMES = r"(?:get|is|has|set)[A-Z_]"  # Java's and PHP's habit: `getMaxCount`, `isClosed`, `setLevel`
# C#'s and C++'s methods are capitalised too: `GetIdleThreadNum() { return idle_thread_num; }` (cpr), `IsClosed()`
CAPITALISED_GETTER_NAMES = r"(?:[Gg]et|[Ii]s|[Hh]as|[Ss]et)[A-Z_]"
# a line that returns a field as it is (`return this.maxCount;`, `return $this->level;`, `return closed;`, C++'s
# `return this->level;`, Go's `return db.driverName` through its receiver's name), or in another unit
# (commons-pool's `getMinEvictableIdleTimeMillis() { return minEvictableIdleDuration.toMillis(); }`)
_RETURNING = re.compile(r"^(?:return\s+)(?:this\.|this->|\$this->|self\.|[A-Za-z_]\w*\.)?[\w$]+(?:\.\w+\(\))?"
                        r"\s*;?\s*\}?$")
ACCESSOR_LINES = 3  # got's `set followRedirect(value) { assert.boolean(value); this._internals.x = value; }`

# lines that are not code: blank, line comments (`// x`, PHP's `# x`: not JavaScript's `#private()`),
# annotations (`@Override`), C#'s and PHP's attributes (`[Obsolete]`, `#[Pure]`)
_NOT_CODE = re.compile(r"\s*(?:$|//|#[\s\[]|#$|@\w|\[\w)")


def _body_lines(code: str) -> list[str]:
    """A function's code lines after its signature, braces alone left out: the signature ends at the line that
    opens the body (`setSwallowedExceptionListener(\n final SwallowedExceptionListener listener) {` wraps), or
    is the first line where no line opens one (Ruby's `def initialize(a)`); `int getX() { return x; }` is one."""
    lines = [line.strip() for line in _code_lines(code)]
    if not lines:
        return []
    opening = next((i for i, line in enumerate(lines) if "{" in line), 0)
    after = [line.strip() for line in lines[opening].split("{", 1)[1:]]  # the text after the brace, if any
    body = after + lines[opening + 1:]
    if after and len(body) == 1:  # `{ this.a = a; }` on the signature's line: its closing brace too
        body = [body[0].removesuffix(";").rstrip().removesuffix("}").rstrip()]
    return [line for line in body if line not in ("", "{", "}", "};", "{}")]


def _code_lines(code: str) -> Iterator[str]:
    """The lines of a definition's code that are code: not its comments, doc blocks (`/** ... */`, whatever
    their inner lines start with), annotations and attributes."""
    inside = False
    for line in code.splitlines():
        stripped = line.lstrip()
        if inside:
            inside = "*/" not in stripped
        elif stripped.startswith("/*"):
            inside = "*/" not in stripped[2:]
        elif not _NOT_CODE.match(stripped):
            yield line


# `commonTest`, `androidUnitTest`, .NET's `UnitTests/` and `IntegrationTests/` (AutoMapper's 400 test files): never
# `Tests` alone (a folder of that name is tests by `_TEST_FOLDERS`'s rule), nor `Contest`
_TEST_SOURCE_SET = re.compile(r"[a-zA-Z][a-zA-Z]*[a-z]Tests?$")
_MAIN_SOURCE_SET = re.compile(r"main|[a-z][a-zA-Z]*Main$")  # `src/main/`, `src/jvmMain/`, `src/commonMain/`


def test_folders(path: PurePosixPath) -> list[str]:
    """The folders of a path that may make it test code, lower-cased: all of them but those inside Maven's and
    Gradle's main source set (`src/main/`, `src/jvmMain/`), where a `test` folder is a package of library code
    (koin-test's `src/jvmMain/kotlin/org/koin/test/verify/`, spring-test's `src/main/java/.../test/`)."""
    parts = path.parts[:-1]
    main = _main_source_set(path)
    return [part.lower() for part in (parts[:main] if main is not None else parts)]


def _main_source_set(path: PurePosixPath) -> int | None:
    """Where a path's innermost main source set begins (the index of its `src` folder), None outside one."""
    parts = path.parts[:-1]
    return next((i - 1 for i in range(len(parts) - 1, 0, -1)
                 if parts[i - 1] == "src" and _MAIN_SOURCE_SET.fullmatch(parts[i])), None)


# a suite's folder; integration tests' own (ecto_sql's `integration_test/sql/*.exs`: 114 chunks of them above the
# adapters they exercise)
_TEST_FOLDERS = frozenset({"test", "tests", "fuzz", "fuzzing", "integration_test", "integration_tests",
                           "integration-test", "integration-tests", "integrationtests",
                           "testes"})  # Portuguese: Lua's own suite (`testes/sort.lua` in 12 of 16 top tens)
# a build's module of what only tests use (okhttp-testing-support), by the end of its name
_TEST_SUPPORT = ("testing-support", "test-support", "test-utils", "testutils", "test-fixtures", "-testing")



@dataclass(frozen=True)
class LanguageRow:
    """One language: how its files are recognised, what its syntax tree's node types mean, what the
    code graph reads of it (`graph`) and what its code means (`conventions`)."""

    name: str  # the `language` a hit carries and `--lang` takes: python, typescript, go...
    extensions: tuple[str, ...]  # lower-case suffixes with the dot
    grammar: Grammar | None  # None: read by Python's ast (python) or by the plain-text chunker
    file_names: tuple[str, ...] = ()  # exact lower-case file names (`rakefile`)
    # what a `#!` line runs (`bash`, `python3`, `env perl`): a script whose name has no extension
    # (`bin/asdf`, `libexec/rbenv-init`) is read as this language (ingest/formats.py's script_format)
    interpreters: tuple[str, ...] = ()
    grammar_by_suffix: tuple[tuple[str, Grammar], ...] = ()  # `.tsx` -> the TSX grammar
    # node type -> FUNCTION or CLASS: the definitions that become chunks (a CLASS holds members)
    definitions: tuple[tuple[str, str], ...] = ()
    # node types looked through for definitions: bodies, namespaces, packages, `export`, templates
    containers: tuple[str, ...] = ()
    # node types whose definitions go under a type they name, and are no chunk themselves:
    # Rust's `impl`, Swift's `extension` (the chunker reads the type's name)
    owners: tuple[str, ...] = ()
    # top-level node types that are no <module> statement: package clauses, `<?php`
    preamble: tuple[str, ...] = ()
    # a run of lines directly above a definition that start with one of these is its doc comment
    doc_prefixes: tuple[str, ...] = ()
    # a comment run that opens so documents the definition below it across blank lines (Haddock's `-- |`)
    doc_marks: tuple[str, ...] = ()
    # attributes that document the definition below them, past its other attributes (Elixir's `@doc "..."`
    # above `@spec`), and the one a class holds that documents it (`@moduledoc`)
    doc_attributes: tuple[str, ...] = ()
    class_doc_attribute: str = ""
    # a file's first comment run, below its `#!` line, is the file's doc (a shell script's usage and purpose)
    head_doc: bool = False
    lead_prefixes: tuple[str, ...] = ()  # lines above a definition that belong to it: Rust's `#[derive]`
    comments: tuple[str, ...] = ("comment",)  # node types of comments (never a <module> statement)
    # test code: file names ending so (case-sensitive), folders named so (lower-case, any depth)
    test_suffixes: tuple[str, ...] = ()
    test_dirs: tuple[str, ...] = ()
    test_roots: tuple[str, ...] = ()  # folders of tests at the repository's root only (Ruby's Cucumber `features/`)
    generated_suffixes: tuple[str, ...] = ()  # `.pb.go`: written by a tool, never read
    imports: tuple[str, ...] = ()  # node types of imports (never a <module> statement)
    # an import with a child of one of these types re-exports what it names: the module's own public
    # surface, a <module> statement as well (Rust's `pub use`)
    reexport_marks: tuple[str, ...] = ()
    # a single-file component (Vue, Svelte): only its `<script>` blocks are code, read by the grammar
    # where they stand in the file; the markup around them is its `<template>` text piece
    sfc: bool = False
    # the bytes the grammar parses, from the file's: what it cannot read blanked (C's bare macros),
    # same length and line breaks, so every offset and line stays the file's
    parser_bytes: Callable[[bytes], bytes] | None = None
    # the chunker's second reading of a file its grammar cannot parse whole (`ingest/syntax.py`): kept
    # when fewer of its lines fall under ERROR (C's function bodies read by their first `#if` branch);
    # the graph reads `parser_bytes` alone, every branch's calls on the lines of their function's chunk
    recover_bytes: Callable[[bytes], bytes] | None = None
    # naming quirks, read by `ingest/syntax_names.py` and `ingest/syntax_walk.py`:
    # definitions that are calls of a defining word (Elixir's `def`, `defmodule`): word -> FUNCTION or CLASS
    defining_calls: tuple[tuple[str, str], ...] = ()
    # node types that, at a file's top level, make the file a type of its name, its functions that type's
    # (Zig's fields: `Conn.zig` with `tag: []const u8,` is the struct `Conn`, its `parse` is `Conn.parse`)
    file_type_members: tuple[str, ...] = ()
    # node types that are a namespace, no chunk, where they define nothing but types: Ruby's `module Rack ...
    # end` around a file's one class (a chunk of the whole file beside the class's own); their name is the
    # types' owner
    namespaces: tuple[str, ...] = ()
    # calls whose blocks hold definitions as if they stood around them (Elixir's `if Code.ensure_loaded?(Finch)
    # do defmodule ... end`, a module compiled only when its optional dependency is there)
    conditional_calls: tuple[str, ...] = ()
    named_inside: tuple[str, ...] = ()  # a definition whose name is in its first child (Dart's method_signature)
    body_beside: tuple[str, ...] = ()  # a signature whose body is its next sibling, `function_body` (Dart)
    # a signature followed by its equations, siblings of the same name (Haskell's `size [] = 0`)
    equations: tuple[str, ...] = ()
    # a function longer than this many lines holds definitions of its own (its inner functions and classes),
    # chunks under its name (immer's 400-line `enablePatches` plugin, swr's 850-line `useSWRHandler` hook); 0:
    # a function's body is its own
    inner_definitions_over: int = 0
    # overload signatures: a run of them and the implementation after them, siblings of one name (or each in an
    # `export`), are one definition, the doc above the first its doc (TypeScript's `function current<T>(v:
    # Draft<T>): T` over `function current(v: any): any {...}`)
    overloads: tuple[str, ...] = ()
    # consecutive definitions of one name are one function, its clauses (Elixir's `def f(:a)`, `def f(_)`)
    clauses: bool = False
    receiver_before_name: bool = False  # `fun Foo.bar()`: the type named before the function's (Kotlin)
    # definitions named by the keyword they start with: Kotlin's `constructor(...)`, Swift's `deinit`
    keyword_named: tuple[str, ...] = ()
    # a declaration whose value is an anonymous class, a CLASS by the declared name when it holds one:
    # declaration node type -> the class body's node type (Java's `X = new Comparator<>() {...}`)
    instance_bodies: tuple[tuple[str, str], ...] = ()
    # definitions only when they hold a field: (node type, field) (Swift's computed property, a
    # `property_declaration` with its `computed_value`: `var client: Client { ... }`; a stored one is a statement)
    bodied: tuple[tuple[str, str], ...] = ()
    # node types of tests written beside the code they test (Zig's `test "name" {...}`): a function named
    # `test <name>`, a test's chunk wherever its file is
    inline_tests: tuple[str, ...] = ()
    # an attribute that makes the item below it test code, with all it holds (Rust's `#[cfg(test)] mod tests`,
    # `#[test]`, `#[tokio::test]`): a pattern its text matches; its node types are the row's `preamble`
    test_attributes: str = ""
    # the node types of a declaration's value that make the declaration a type by its declared name, its
    # members inside, functions or fields alone (Zig's `const Server = struct {...}`)
    type_values: tuple[str, ...] = ()
    # declarations whose value is a call handed a trailing lambda, over lines, are definitions by the declared
    # name: Kotlin's `val HttpCallValidator = createClientPlugin("...") { ... }`
    lambda_values: tuple[str, ...] = ()
    # a statement naming the package of the definitions after it, up to the next (Perl's `package Foo;`)
    scope_statements: tuple[str, ...] = ()
    # what its imports' libraries are: the names its own library's imports start with
    standard_libraries: tuple[str, ...] = ()
    is_standard_import: Callable[[str], bool] | None = None  # decides alone where set (Go's host-less paths)
    reversed_domains: bool = False  # `com.google.errorprone.x` names the library by three parts (JVM)
    # its code assigns bare words (a shell's `export TOKEN=abc123`): its secrets are masked as a configuration
    # file's are, unquoted values too (ingest/redaction.py's rules 5-6)
    bare_values: bool = False
    # (a type's node, the constants' node after it): Go's `type ErrorHandling int` and its `const ( ContinueOnError
    # ErrorHandling = iota ... )` below, the values of the type, are one definition (pflag's values were in `<module>`)
    typed_constants: tuple[str, str] = ()
    graph: GraphRule | None = None  # None: the code graph reads no edges from its files
    conventions: Conventions = Conventions()

    def kind_of(self, node_type: str) -> str | None:
        return dict(self.definitions).get(node_type)

    def is_test_path(self, rel_path: str) -> bool:
        """Test code by the language's conventions (`*_test.go`, `*.spec.ts`, `__tests__/`, `*Test.java`), a
        file named `test` in lower case (hiredis's `test.c`), `test-*` or `test_*`, or a test source set's folder
        (Gradle's and Kotlin Multiplatform's `commonTest/`, `jvmTest/`, `integrationTest/`); never a package folder
        named `test` in a main source set."""
        path = PurePosixPath(rel_path)
        # a suffix after a name (`CartTest.php`): Carbon's `Traits/Test.php` is its trait named Test, and so is
        # a file named `Test` in capitals; `test.c` is a test program. Never in a main source set: kotlinpoet's
        # `src/jvmMain/.../FunSpec.kt` is the library's, as Kotest's `FooSpec.kt` in `src/test/` is a test
        suffixed = any(path.name.endswith(s) and len(path.name) > len(s) for s in self.test_suffixes)
        if (suffixed and _main_source_set(path) is None) or path.stem in ("test", "tests"):
            return True
        # a test's helper or setup named so (yup's `test-setup.mjs`, minitest's `test_helper.rb`)
        if path.stem.startswith(("test-", "test_")) and _main_source_set(path) is None:
            return True
        folders = test_folders(path)
        if folders and folders[0] in self.test_roots:
            return True
        return in_test_folder(rel_path, self.test_dirs)
