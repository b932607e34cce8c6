"""Code in every language of codelens/languages.py, chunked by its syntax tree (ingest/syntax.py).

Golden-style: per language a small realistic file (tests/fixtures/languages/) with the exact chunk
ids, kinds, lines, parents and doc comments expected; then test, generated and vendored files, bad
input, and a mixed TypeScript + Go + Python folder indexed and searched in English and Russian.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codelens.chunk import Chunk
from codelens.errors import SourceError
from codelens.index.build import build_index
from codelens.ingest import syntax
from codelens.ingest.chunker import chunk_file, is_test_path
from codelens.ingest.codebase import chunk_one_file, chunk_source
from codelens.ingest.embed_text import embedding_text
from codelens.ingest.formats import chunk_other_file, file_format
from codelens.ingest.lines import source_lines
from codelens.ingest.source import list_source_files
from codelens.ingest.syntax import chunk_code_file
from codelens.languages import LANGUAGES, Grammar, grammar_of, language_of, row_named
from codelens.search.searcher import Searcher
from tests.conftest import examples, settings_for, zip_folder

FIXTURES = Path(__file__).parent / "fixtures" / "languages"

# (symbol, kind, first line, last line, parent, the doc comment's first words or "")
EXPECTED: dict[str, list[tuple[str, str, int, int, str, str]]] = {
    "client.ts": [
        ("<module>", "module", 3, 3, "", ""),
        ("ApiClient", "class", 5, 23, "", "Talks to the users API."),
        ("ApiClient.constructor", "method", 11, 13, "ApiClient", ""),
        ("ApiClient.fetchUser", "method", 15, 18, "ApiClient", "Fetches one user by id."),
        ("ApiClient.onError", "method", 20, 22, "ApiClient", ""),
        ("User", "class", 25, 28, "", ""),
        ("User.displayName", "method", 27, 27, "User", ""),
        ("chunkText", "function", 30, 35, "", "Splits a source file into chunks of at most `size` characters."),
        ("createClient", "function", 37, 39, "", ""),
    ],
    "app.js": [
        ("<module>", "module", 1, 3, "", ""),
        ("res.status", "method", 5, 12, "res", "Set the HTTP status code."),
        ("createApplication", "function", 14, 16, "", ""),
        ("Router", "class", 18, 20, "", ""),
        ("Router.handle", "method", 19, 19, "Router", ""),
    ],
    "server.go": [
        ("<module>", "module", 8, 8, "", ""),
        ("Server", "class", 10, 14, "", "Server answers HTTP requests.\nIt owns its listener."),
        ("Handler", "class", 16, 19, "", "Handler serves one route."),
        ("Server.Start", "method", 21, 25, "Server", "Start listens on the server's address."),
        ("NewServer", "function", 27, 32, "", ""),
    ],
    "PayService.java": [
        ("PayService", "class", 5, 23, "", "Charges customers."),
        ("PayService.PayService", "method", 12, 14, "PayService", ""),
        ("PayService.handle", "method", 16, 20, "PayService", "Handles one payment request."),
        ("PayService.Status", "class", 22, 22, "", ""),
    ],
    "lib.rs": [
        ("Parser", "class", 3, 7, "", "A parser over a byte slice."),
        ("Parser.parse", "method", 10, 14, "Parser", "Parses the next token."),
        ("Parser.fmt", "method", 18, 20, "Parser", ""),
        ("Visitor", "class", 23, 25, "", ""),
        ("Visitor.visit", "method", 24, 24, "Visitor", ""),
        ("tokenize", "function", 27, 29, "", ""),
    ],
    "Session.kt": [
        ("Session", "class", 5, 11, "", "A client session: requests share its cookies."),
        ("Session.send", "method", 7, 10, "Session", "Sends a request and returns the response body."),
        ("Sessions", "class", 13, 15, "", ""),
        ("Sessions.open", "method", 14, 14, "Sessions", ""),
        ("String.toRequest", "method", 17, 17, "String", ""),
    ],
    "PayService.cs": [
        ("PayService", "class", 5, 15, "", "Charges customers."),
        ("PayService.PayService", "method", 8, 8, "PayService", ""),
        ("PayService.Handle", "method", 10, 14, "PayService", "Handles one payment."),
        ("IPayService", "class", 17, 20, "", ""),
        ("IPayService.Handle", "method", 19, 19, "IPayService", ""),
    ],
    "loop.c": [
        ("<module>", "module", 8, 8, "", ""),
        ("uv_loop_t", "class", 3, 6, "", "The event loop's state."),
        ("uv_run", "function", 10, 14, "", "Runs the loop until no handle is active."),
    ],
    "format.cpp": [
        ("formatter", "class", 5, 13, "", "Formats values of type T."),
        ("formatter.reset", "method", 9, 9, "formatter", ""),
        ("formatter.parse", "method", 15, 18, "formatter", ""),
        ("vformat", "function", 20, 23, "", "Formats the arguments into a string."),
    ],
    "base.rb": [
        ("<module>", "module", 1, 1, "", ""),
        # `module Sinatra` around the class alone is its namespace: no chunk of the whole file beside the class's
        ("Sinatra.Base", "class", 4, 14, "", "The application's base class."),
        ("Sinatra.Base.get", "method", 6, 9, "Sinatra.Base", "Defines a GET route."),
        ("Sinatra.Base.call", "method", 11, 13, "Sinatra.Base", ""),
    ],
    "StreamHandler.php": [
        ("StreamHandler", "class", 7, 17, "", "Writes records to a stream."),
        ("StreamHandler.write", "method", 12, 16, "StreamHandler", "Writes one record."),
        ("stream_handler", "function", 19, 22, "", ""),
    ],
    "Session.swift": [
        ("Session", "class", 3, 9, "", "Creates and manages requests."),
        ("Session.request", "method", 5, 8, "Session", "Makes a data request."),
        ("Session.cancelAll", "method", 12, 12, "Session", ""),
        ("makeSession", "function", 15, 17, "", ""),
    ],
    "Functor.scala": [
        ("Functor", "class", 3, 6, "", "A type class of things that can be mapped over."),
        ("Functor.map", "method", 5, 5, "Functor", ""),
        ("Functor#2", "class", 8, 11, "", ""),
        ("Functor.apply", "method", 9, 10, "Functor", "Summons the instance."),
    ],
    "session.dart": [
        ("Session", "class", 3, 13, "", "A client session: requests share its cookies."),
        ("Session.send", "method", 9, 12, "Session", "Sends a request and returns the body."),
        ("openSession", "function", 15, 17, "", ""),
    ],
    "conn.ex": [
        ("Plug.Conn", "class", 1, 10, "", "The connection."),  # its `@moduledoc`
        ("Plug.Conn.send_resp", "method", 4, 7, "Plug.Conn", "Sends a response with the given status and body."),
        ("Plug.Conn.put_status", "method", 9, 9, "Plug.Conn", ""),
    ],
    "stack.hs": [
        ("Stack", "class", 5, 6, "", "A last-in, first-out stack."),
        ("push", "function", 8, 10, "", "Pushes an element."),
        ("size", "function", 12, 14, "", ""),  # its type signature and both equations: one chunk
        ("Container", "class", 16, 18, "", ""),
        ("Container.empty", "method", 17, 17, "Container", ""),
        ("Container.insert", "method", 18, 18, "Container", ""),
        # an instance's values are its type's, as a Rust impl's functions are: `empty = Stack []`
        ("Stack.empty", "method", 21, 21, "Stack", ""),
        ("Stack.insert", "method", 22, 22, "Stack", ""),
    ],
    "util.lua": [
        ("<module>", "module", 1, 12, "", ""),
        ("M.join", "method", 3, 6, "M", "Joins the parts with a separator."),
        ("trim", "function", 8, 10, "", ""),
    ],
}


def chunks_of(name: str) -> tuple[list[Chunk], list[str]]:
    return chunk_code_file(name, (FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_language_is_chunked_by_its_syntax_tree(name: str) -> None:
    chunks, warnings = chunks_of(name)
    assert warnings == []
    got = [(c.symbol, c.kind, c.start_line, c.end_line, c.parent, c.docstring) for c in chunks]
    assert got == EXPECTED[name]
    assert all(c.chunk_id == f"{name}::{c.symbol}" for c in chunks)
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    for chunk in chunks:
        if not chunk.line_spans:  # the stored code is exactly the chunk's lines
            assert chunk.code == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.language == language_of(name) and chunk.is_code


def test_every_row_with_a_grammar_loads_and_names_its_package() -> None:
    for row in LANGUAGES:
        if row.grammar is not None:
            assert syntax.load_parser(row.grammar) is not None, row.name
            assert row.grammar.package.startswith("tree-sitter-")


def test_the_id_contract_of_design_md() -> None:
    """`web/src/api/client.ts::ApiClient.fetchUser`, `cmd/server/main.go::Server.Start`,
    `src/main/java/com/acme/PayService.java::PayService.handle`, `src/lib.rs::Parser.parse`."""
    cases = {
        "web/src/api/client.ts": ("client.ts", "ApiClient.fetchUser"),
        "cmd/server/main.go": ("server.go", "Server.Start"),
        "src/main/java/com/acme/PayService.java": ("PayService.java", "PayService.handle"),
        "src/lib.rs": ("lib.rs", "Parser.parse"),
    }
    for rel_path, (fixture, symbol) in cases.items():
        chunks, _ = chunk_code_file(rel_path, (FIXTURES / fixture).read_text(encoding="utf-8"))
        assert f"{rel_path}::{symbol}" in {c.chunk_id for c in chunks}


def test_tsx_is_read_with_its_own_grammar() -> None:
    text = "export function Button({ label }: Props) {\n  return <button>{label}</button>;\n}\n"
    chunks, warnings = chunk_code_file("web/Button.tsx", text)
    assert grammar_of(row_named("typescript"), "web/Button.tsx").function == "language_tsx"
    assert warnings == [] and [c.symbol for c in chunks] == ["Button"]


def test_a_header_is_read_with_the_cpp_grammar() -> None:
    text = "namespace fmt {\ntemplate <typename T> class buffer {\n public:\n  void clear() { size_ = 0; }\n};\n}\n"
    chunks, warnings = chunk_code_file("include/fmt/base.h", text)
    assert warnings == [] and [c.symbol for c in chunks] == ["buffer", "buffer.clear"]


def test_a_constant_made_by_a_call_handed_a_function_is_that_function() -> None:
    """zod's `export const $ZodString = core.$constructor("$ZodString", (inst, def) => {...})`."""
    text = ('export const $ZodString = /*@__PURE__*/ core.$constructor("$ZodString", (inst, def) => {\n'
            '  inst.pattern = def.pattern;\n});\n'
            'export const defaults = { strict: true };\n')
    chunks, _ = chunk_code_file("schemas.ts", text)
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("<module>", "module", 4, 4), ("$ZodString", "function", 1, 3)]


def test_a_typescript_object_type_is_a_class_and_a_one_line_alias_a_statement() -> None:
    text = ("type Id = string;\n/** Options of a router. */\nexport type RouterOptions = {\n"
            "  strict: boolean;\n  onError(e: Error): void;\n};\n")
    chunks, _ = chunk_code_file("router.ts", text)
    assert [(c.symbol, c.kind, c.start_line, c.end_line, c.docstring) for c in chunks] == [
        ("<module>", "module", 1, 1, ""), ("RouterOptions", "class", 2, 6, "Options of a router."),
        ("RouterOptions.onError", "method", 5, 5, "")]


def test_a_kotlin_constructor_marked_on_the_line_below_its_class_at_no_indent_keeps_the_class() -> None:
    """okio's `actual open class ByteString\ninternal actual constructor(` lost ByteString's every method on three
    platforms to <module> windows."""
    text = ("package okio\n\nactual open class ByteString\ninternal actual constructor(\n"
            "  internal val data: ByteArray,\n) {\n  /** The bytes as hex. */\n"
            "  actual open fun hex(): String = data.toString()\n}\n")
    chunks, warnings = chunk_code_file("okio/src/jvmMain/kotlin/okio/ByteString.kt", text)
    assert warnings == [] and [(c.symbol, c.start_line, c.end_line) for c in chunks] == [
        ("ByteString", 3, 9), ("ByteString.hex", 7, 8)]


def test_a_package_doc_quoting_a_comment_opener_is_still_the_files_doc() -> None:
    """mux's doc.go is a 300-line `/* ... */` package doc that quotes `"/static/*"`: the scan up for its opening
    stopped there, and the file (no statement but `package mux`) was no chunk at all."""
    text = ('/*\nPackage mux routes requests.\n\n\tr.PathPrefix("/static/").Handler("/static/*")\n\n'
            "Subrouters group routes.\n*/\npackage mux\n")
    chunks, _ = chunk_code_file("doc.go", text)
    assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("<module>", 1, 7)]
    assert chunks[0].docstring.startswith("Package mux routes requests.") and "Subrouters" in chunks[0].docstring


def test_a_method_named_by_a_computed_key_keeps_the_key_whole() -> None:
    """got's `[Symbol.for('nodejs.util.inspect.custom')](depth)` was `Options.custom')]`: the dots in the key are
    no owner's."""
    text = ("export class Options {\n  [Symbol.for('nodejs.util.inspect.custom')](depth: number) {\n"
            "    return depth;\n  }\n}\n")
    chunks, _ = chunk_code_file("source/core/options.ts", text)
    assert [(c.symbol, c.parent) for c in chunks] == [
        ("Options", ""), ("Options.[Symbol.for('nodejs.util.inspect.custom')]", "Options")]


def test_a_long_javascript_closure_holds_chunks_of_its_own_and_a_short_one_does_not() -> None:
    """immer's 400-line `enablePatches` plugin hid `applyPatches_` and a dozen helpers in one chunk; a short
    function's inner helper stays its text."""
    filler = "".join(f"  const step{n} = {n};\n" for n in range(160))
    text = ("export function enablePatches() {\n" + filler
            + "  /** Applies the patches to a draft. */\n  function applyPatches_(draft, patches) {\n"
              "    return patches.length;\n  }\n  class PatchList {\n    size() { return 0; }\n  }\n"
              "  const getPath = (state) => state.path;\n  loadPlugin(applyPatches_);\n}\n\n"
              "export function short() {\n  function helper() {\n    return 1;\n  }\n  return helper();\n}\n")
    chunks, warnings = chunk_code_file("src/patches.ts", text)
    assert warnings == [] and [(c.symbol, c.kind, c.docstring) for c in chunks] == [
        ("enablePatches", "function", ""),
        ("enablePatches.applyPatches_", "function", "Applies the patches to a draft."),
        ("enablePatches.PatchList", "class", ""), ("enablePatches.PatchList.size", "method", ""),
        ("enablePatches.getPath", "function", ""), ("short", "function", "")]


def test_a_lua_module_that_returns_its_factory_holds_the_functions_defined_in_it() -> None:
    """busted's core.lua is `return function(busted) ... end`: every `busted.*` function was in <module> windows
    cut mid-function; the factory is the module's function, and a long one holds chunks of its own."""
    filler = "".join(f"  local step{n} = {n}\n" for n in range(160))
    text = ("local util = require('busted.utils')\n\nreturn function(busted)\n" + filler
            + "  -- The trace of an error, trimmed to the test file.\n  function busted.getTrace(info, level)\n"
              "    return util.trim(info, level)\n  end\n\n  busted.fail = function(msg)\n    error(msg)\n  end\n\n"
              "  return busted\nend\n")
    chunks, warnings = chunk_code_file("busted/core.lua", text)
    assert warnings == [] and [(c.symbol, c.kind, c.docstring) for c in chunks] == [
        ("<module>", "module", ""), ("core", "function", ""),
        ("core.getTrace", "function", "The trace of an error, trimmed to the test file."),
        ("core.fail", "function", "")]
    assert is_test_path("spec/cl_failing_support.lua") and not is_test_path("lua/spec.lua")


def test_a_long_module_is_cut_into_parts_each_embedded_whole() -> None:
    cases = "".join(f'it("case {n}", () => {{\n  expect(parse("{n}")).toBe({n});\n}});\n\n' for n in range(200))
    chunks, _ = chunk_code_file("src/parse.test.ts", cases)
    assert all(c.kind == "module" and c.is_test for c in chunks) and len(chunks) > 3
    assert [c.symbol for c in chunks[:3]] == ["<module>", "<module> (2)", "<module> (3)"]
    assert all(len(c.code) <= syntax.MODULE_PART_CHARS for c in chunks)
    lines = cases.split("\n")  # every line of the file is in exactly one part
    covered = [n for c in chunks for s, e in (c.line_spans or ((c.start_line, c.end_line),)) for n in range(s, e + 1)]
    assert sorted(covered) == sorted(set(covered)) and {lines[n - 1] for n in covered} >= {
        line for line in lines if line.strip()}


def test_the_embedded_text_of_other_languages_has_no_python_in_it() -> None:
    chunks, _ = chunks_of("client.ts")
    by_symbol = {c.symbol: c for c in chunks}
    method = embedding_text(by_symbol["ApiClient.fetchUser"])
    assert method.startswith("method api client fetch user (ApiClient.fetchUser) in client\n")
    assert "Fetches one user by id." in method and "return this.http.get" in method
    assert "/**" not in method  # the doc comment is in the header once, not again from the code
    outline = embedding_text(by_symbol["ApiClient"])
    # a class is embedded as its outline: member signatures, not their bodies
    assert "async fetchUser(id: UserId): Promise<User> {" in outline and "this.http = http" not in outline


def test_python_keeps_its_own_path() -> None:
    text = 'class A:\n    """Doc."""\n\n    def run(self):\n        return 1\n'
    assert [c.chunk_id for c in chunk_file("a.py", text).chunks] == ["a.py::A", "a.py::A.run"]
    assert embedding_text(chunk_file("pkg/a.py", text).chunks[1]).startswith(
        "method a run (A.run) in pkg a\ndef run(self):")


def test_documents_and_configuration_keep_their_embedded_text() -> None:
    """Only code in other languages is embedded differently: a TOML piece's closing `]` stays."""
    chunk = chunk_other_file("pyproject.toml", '[tool.x]\nexclude = [\n  "a",\n]\n', "toml")[0]
    assert embedding_text(chunk).endswith('exclude = [\n"a",\n]')


@pytest.mark.parametrize(("path", "is_test"), [
    ("cmd/server/main_test.go", True), ("cmd/server/main.go", False),
    ("web/src/client.test.ts", True), ("web/src/client.spec.ts", True), ("web/src/__tests__/a.ts", True),
    ("web/src/client.ts", False), ("src/test/java/com/acme/PayServiceTest.java", True),
    ("src/main/java/com/acme/PayService.java", False), ("Dapper.Tests/ProviderTests.cs", True),
    ("spec/base_spec.rb", True), ("lib/sinatra/base.rb", False), ("Tests/SessionTests.swift", True),
    ("core/src/main/scala/cats/Functor.scala", False), ("core/src/test/scala/cats/FunctorSuite.scala", True),
    # Kotlin Multiplatform's and Gradle's test source sets; a C suite in a file named `test`
    ("koin-core/src/commonTest/kotlin/org/koin/ScopeAPI.kt", True), ("app/src/androidUnitTest/kotlin/A.kt", True),
    ("koin-core/src/commonMain/kotlin/org/koin/Scope.kt", False), ("test.c", True), ("latest.c", False),
    ("src/Tests/a.kt", True), ("src/abtests/Flag.kt", False),
    # a fuzzer's harnesses (cJSON's `fuzzing/afl.c`, cargo-fuzz's `fuzz/fuzz_targets/`); `fuzzy.c` is code
    ("fuzzing/afl.c", True), ("fuzz/fuzz_targets/parse.rs", True), ("src/fuzzy.c", False),
    # .NET's test projects by their folders' names (AutoMapper's `src/UnitTests/`); a contest is no test
    ("src/UnitTests/InterfaceMapping.cs", True), ("src/IntegrationTests/Db.cs", True),
    ("src/Contest/Entry.cs", False),
    # a suffix never in a main source set: kotlinpoet's FunSpec.kt is the library (Kotest's specs are in src/test/)
    ("kotlinpoet/src/jvmMain/kotlin/com/squareup/kotlinpoet/FunSpec.kt", False),
    ("src/test/kotlin/acme/CartSpec.kt", True), ("lib/CartSpec.kt", True),
    # integration tests' folders (ecto_sql's), a test's setup or helper by its name; a word starting so is code
    ("integration_test/sql/migration.exs", True), ("integration-tests/api.go", True), ("testes/sort.lua", True),
    ("test-setup.mjs", True), ("test/test_helper.rb", True), ("src/testing.ts", False), ("lib/tester.rb", False),
    # a file of no language by its folder (scriban's test project's expected outputs); a test crate's folder
    ("src/Scriban.Tests/TestFiles/410-array.out.txt", True), ("src/test/resources/app.properties", True),
    ("src/main/resources/app.properties", False), ("docs/tests.md", False),
    ("test_max_level_features/src/main.rs", True), ("test_max_level_features/Cargo.toml", True),
    # Python's answers are what they were
    ("tests/test_a.py", True), ("pkg/a_test.py", True), ("pkg/spec/a.py", False), ("pkg/a.py", False),
])
def test_test_code_is_recognised_per_language(path: str, is_test: bool) -> None:
    assert is_test_path(path) is is_test


def test_code_of_every_language_is_read() -> None:
    assert {file_format(f"x{ext}") for ext in (".ts", ".go", ".java", ".rs", ".h", ".sh", ".zig")} == {
        "typescript", "go", "java", "rust", "c", "bash", "zig"}
    assert file_format("dist/app.min.js") is None


def _write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


GO_FUNC = "package x\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"


def test_generated_and_vendored_code_is_skipped_with_one_warning_per_folder(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {
        "add.go": GO_FUNC,
        "api.pb.go": GO_FUNC,
        "mock.go": "// Code generated by mockgen. DO NOT EDIT.\n" + GO_FUNC,
        # stringer's output says what it is; urfave/cli's hand-written flag_string.go is code
        "kind_string.go": '// Code generated by "stringer -type=Kind"; DO NOT EDIT.\n' + GO_FUNC,
        "flag_string.go": GO_FUNC,
        # a generator writes the mark into what it generates: a string of its code, no mark of its own (spf13/cast's)
        "generator/main.go": 'package main\n\nfunc main() {\n\tf.HeaderComment("Code generated. DO NOT EDIT.")\n}\n',
        "vendor/github.com/a/b/b.go": GO_FUNC, "vendor/github.com/a/c/c.go": GO_FUNC,
        "target/debug/build.rs": "fn main() {}\n",
        "include/lib/fmt/bundled/format.h": "int format(int a);\n", "deps/lua/lapi.c": "int lua_call(void);\n",
        "ignored/vendor/v.go": GO_FUNC, ".gitignore": "ignored/\n",
        "bin/tool.py": "def main():\n    return 0\n",  # a Python repository's scripts: kept
        "api_pb2_grpc.py": "class GreeterStub:\n    pass\n",  # protoc's, without a DO NOT EDIT mark
        "web/bundle.js": "var a=1;" * 2000 + "\n",
        "zip/shaded_org_apache_zip/Zip.java": "class Zip { }\n",  # a shaded copy of another library
        "src/Guard/ThirdParty/Annotations.cs": "class NotNullAttribute { }\n",  # .NET's spelling of third_party
        # a library's release unpacked below the root (yaml-cpp's googletest); a root folder so named is the project
        "tests/googletest-1.16.0/gtest.cc": "int RUN_ALL_TESTS() { return 0; }\n",
        "tool-2.1/main.go": GO_FUNC,
        "core/src-2.12/compat.go": GO_FUNC,  # the project's own sources for one version of its language (upickle's)
        # `build/` is output at the root and beside a build's manifest; a package so named is code (luarocks')
        "build/gen.go": GO_FUNC, "app/build.gradle": "", "app/build/Gen.java": "class Gen { }\n",
        "src/rocks/build/builtin.lua": "local function run(rockspec)\n  return true\nend\n",
        # a package named as a vendored folder is the project's own (javalin's bundled plugins)
        "app/src/main/java/io/app/bundled/Cors.java": "class Cors { void allow() { } }\n",
        # a header-only library's headers in one file, beside them (toml11's); alone, the only copy (kept)
        "toml/include/toml/parser.hpp": "int parse(int a);\n", "toml/single_include/toml.hpp": "int parse(int a);\n",
        "one/single_include/one.hpp": "int one(int a);\n",
        "website/versioned_docs/version-2.0/api.md": "# API\n\nOld docs.\n",  # a release's copy of the docs
        "website/version-overrides/2.11.10/dates.mdx": "# Dates\n\nOld docs.\n",  # and Humanizer's by version
        # a tool's mark in lower case (fastify's schema validator, 1,146 lines of one function)
        # or on the next line (unstorage's registry of drivers)
        "src/_drivers.ts": "// Auto-generated using scripts/gen-drivers.\n// Do not manually edit!\n\n"
                           "export function drivers() { return [] }\n",
        "lib/config-validator.js": "// This file is autogenerated by build/build-validation.js, do not edit\n"
                                   "function validate10(data) { return true; }\n",
        # written apart (Bogus's 769-line character map), and C#'s generators by name (source generators, designers)
        "Source/CharMap.cs": "// AUTO GENERATED FILE. DO NOT MODIFY.\nclass Map { }\n",
        "Source/Resources.Designer.cs": "class Resources { }\n", "obj/Api.g.cs": "class Api { }\n",
    })
    result = chunk_source(project, 1_000_000)
    assert sorted({c.path for c in result.chunks}) == [
        "add.go", "app/src/main/java/io/app/bundled/Cors.java", "bin/tool.py", "core/src-2.12/compat.go",
        "flag_string.go", "generator/main.go", "one/single_include/one.hpp", "src/rocks/build/builtin.lua",
        "toml/include/toml/parser.hpp", "tool-2.1/main.go"]
    assert sorted(result.warnings) == [
        "Source/CharMap.cs: skipped, generated (a DO NOT EDIT / @generated mark)",
        "Source/Resources.Designer.cs: skipped, generated (by its name)",
        "api.pb.go: skipped, generated (by its name)",
        "api_pb2_grpc.py: skipped, generated (by its name)",
        "deps/: skipped, vendored or build output (other people's or generated code)",
        "include/lib/fmt/bundled/: skipped, vendored or build output (other people's or generated code)",
        "kind_string.go: skipped, generated (a DO NOT EDIT / @generated mark)",
        "lib/config-validator.js: skipped, generated (a DO NOT EDIT / @generated mark)",
        "mock.go: skipped, generated (a DO NOT EDIT / @generated mark)",
        "obj/: skipped, vendored or build output (other people's or generated code)",
        "src/Guard/ThirdParty/: skipped, vendored or build output (other people's or generated code)",
        "src/_drivers.ts: skipped, generated (a DO NOT EDIT / @generated mark)",
        "target/: skipped, vendored or build output (other people's or generated code)",
        "tests/googletest-1.16.0/: skipped, vendored or build output (other people's or generated code)",
        "toml/single_include/: skipped, vendored or build output (other people's or generated code)",
        "vendor/: skipped, vendored or build output (other people's or generated code)",
        "web/bundle.js: skipped, minified or generated (lines too long to be written by hand)",
        "website/version-overrides/2.11.10/: skipped, vendored or build output (other people's or generated code)",
        "website/versioned_docs/: skipped, vendored or build output (other people's or generated code)",
        "zip/shaded_org_apache_zip/: skipped, vendored or build output (other people's or generated code)",
    ]


def test_a_net_bin_folder_without_python_is_build_output(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {"App.cs": "class App { }\n", "bin/Debug/App.cs": "class App { }\n"})
    assert [f.rel_path for f in list_source_files(project)] == ["App.cs"]


def test_a_bin_folder_of_shell_scripts_is_the_repositorys_own(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {"lib/util.bash": "util() { :; }\n", "bin/deploy.sh": "deploy() { util; }\n"})
    assert [f.rel_path for f in list_source_files(project)] == ["bin/deploy.sh", "lib/util.bash"]


def test_a_doc_comment_loses_its_markup_and_keeps_its_placeholders_and_types() -> None:
    """C#'s `<summary>` and Javadoc's `<p>` are markup; a usage line's `<command>` and a `List<String>` are
    words of the doc (rbenv's "Usage: rbenv exec <command>" lost "command")."""
    text = ("class Runner {\n    /**\n     * Runs <command> with its arguments.<p>\n"
            "     * @return a List<String> of lines\n     */\n    List<String> run(String c) { return null; }\n}\n")
    chunks, _ = chunk_code_file("src/Runner.java", text)
    doc = next(c.docstring for c in chunks if c.symbol == "Runner.run")
    assert doc == "Runs <command> with its arguments.\n@return a List<String> of lines"
    text = ("class A {\n    /// <summary>Runs the <paramref name=\"job\"/> now.</summary>\n"
            "    void Run(int job) { }\n}\n")
    chunks, _ = chunk_code_file("A.cs", text)
    assert next(c.docstring for c in chunks if c.symbol == "A.Run") == "Runs the  now."


def test_a_file_of_comments_alone_is_its_module_chunk() -> None:
    """conform.nvim's `types.lua` is 118 lines of `---@class` and `---@field` annotations, the options every
    formatter takes: no statement, and it was no chunk at all."""
    text = "---@class conform.FormatterInfo\n---@field name string\n---@field available boolean\n"
    chunks, warnings = chunk_code_file("lua/conform/types.lua", text)
    assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("<module>", 1, 3)]
    assert "---@field available boolean" in chunks[0].code and warnings == []
    assert chunk_code_file("lua/empty.lua", "\n\n")[0] == []


def test_a_file_the_grammar_cannot_fully_parse_keeps_what_it_recovers() -> None:
    text = ("package x\n\nfunc Good() int {\n\treturn 1\n}\n\nfunc Broken() {\n\tx := := 1\n}\n\n"
            "// Later is after the damage.\nfunc Later() {}\n")
    chunks, warnings = chunk_code_file("x/broken.go", text)
    assert [(c.symbol, c.start_line, c.docstring) for c in chunks] == [
        ("Good", 3, ""), ("Broken", 7, ""), ("Later", 11, "Later is after the damage.")]
    assert warnings == ["x/broken.go: the go grammar could not parse all of it (the widest error: line 8); kept the 3 "
                        "definitions it recovered"]  # where it gave up: the rest of a file may be lost under one error


def test_other_encodings_binaries_and_huge_files_each_warn_and_lose_nothing_else(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {
        "ok.go": GO_FUNC,
        "latin1.go": "package x\n\n// Café brews.\nfunc Cafe() {}\n".encode("latin-1"),
        "utf16.ts": "export function hello(): string { return 'hi'; }\n".encode("utf-16"),
        "binary.go": b"\x7fELF\x00\x00\x01garbage",
        "huge.go": "// Code generated by a tool. DO NOT EDIT.\n" + "var x = 1\n" * 600_000,
    })
    result = chunk_source(project, 1_000_000)
    assert {c.chunk_id for c in result.chunks} >= {"ok.go::Add", "latin1.go::Cafe", "utf16.ts::hello"}
    assert next(c for c in result.chunks if c.chunk_id == "latin1.go::Cafe").docstring == "Café brews."
    assert sorted(result.warnings) == [
        "binary.go: skipped, binary content (NUL bytes)",
        "huge.go: skipped, 6000042 bytes is over the 1000000-byte limit",
        "latin1.go: read as Latin-1 (not UTF-8)",
        "utf16.ts: read as UTF-16 (not UTF-8)",
    ]


def test_a_symlink_loop_is_not_followed(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {"pkg/a.go": GO_FUNC})
    os.symlink(project / "pkg", project / "pkg" / "loop")
    result = chunk_source(project, 1_000_000)
    assert [c.chunk_id for c in result.chunks] == ["pkg/a.go::Add"]


def test_a_grammar_that_fails_to_load_names_its_package_and_the_rest_still_index(
        tmp_path: Path, monkeypatch) -> None:
    missing = Grammar("tree-sitter-nosuchlang", "tree_sitter_nosuchlang")
    real = syntax.grammar_of
    monkeypatch.setattr(syntax, "grammar_of", lambda row, path: missing if path.endswith(".go") else real(row, path))
    project = _write(tmp_path / "repo", {"a.go": GO_FUNC, "b.go": GO_FUNC, "c.ts": "export function c() {}\n"})
    result = chunk_source(project, 1_000_000)
    assert "c.ts::c" in {c.chunk_id for c in result.chunks}
    go_chunks = [c for c in result.chunks if c.path.endswith(".go")]
    assert go_chunks and all(c.kind == "text" for c in go_chunks)  # plain text, never nothing
    assert len(result.warnings) == 1  # once for the language, not once per file
    assert "the go grammar is unavailable" in result.warnings[0]
    assert "pip install tree-sitter-nosuchlang" in result.warnings[0]


def test_a_source_without_code_in_any_language_is_refused(tmp_path: Path) -> None:
    project = _write(tmp_path / "docs", {"README.md": "# Hello\n\nWords.\n"})
    with pytest.raises(SourceError, match=r"no code found .* nor any in typescript, javascript, go"):
        chunk_source(project, 1_000_000)


def test_a_go_repository_in_a_zip_is_indexed(tmp_path: Path) -> None:
    project = _write(tmp_path / "repo", {"cmd/server/main.go": (FIXTURES / "server.go").read_text()})
    chunks = chunk_source(zip_folder(project, tmp_path / "repo.zip"), 1_000_000).chunks
    assert "cmd/server/main.go::Server.Start" in {c.chunk_id for c in chunks}


def test_one_changed_file_is_chunked_as_an_index_run_does(tmp_path: Path) -> None:
    path = _write(tmp_path / "repo", {"web/client.ts": (FIXTURES / "client.ts").read_text()}) / "web/client.ts"
    one = chunk_one_file(path, "web/client.ts", 1_000_000)
    assert "web/client.ts::ApiClient.fetchUser" in {c.chunk_id for c in one.chunks} and one.warnings == []


def test_a_mixed_workspace_is_searched_in_english_and_russian(tmp_path: Path, embedder) -> None:
    project = _write(tmp_path / "mixed", {
        "web/src/api/client.ts": (FIXTURES / "client.ts").read_text(),
        "cmd/server/main.go": (FIXTURES / "server.go").read_text(),
        "backend/billing.py": 'def send_invoice(customer):\n    """Email an invoice to the customer."""\n',
        "README.md": "# Mixed\n\nA front end, a Go service and a Python back end.\n",
    })
    settings = settings_for(tmp_path / "db")
    build_index(project, settings, embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    questions = {
        "start the HTTP server listening on its address": "cmd/server/main.go::Server.Start",
        "запустить HTTP сервер на его адресе": "cmd/server/main.go::Server.Start",
        "fetch one user by id from the users API": "web/src/api/client.ts::ApiClient.fetchUser",
        "получить пользователя по идентификатору": "web/src/api/client.ts::ApiClient.fetchUser",
    }
    for question, expected in questions.items():
        hits = [hit.chunk.chunk_id for hit in searcher.search(question, k=3)]
        assert expected in hits, (question, hits)


def test_lines_end_where_the_chunks_say_whatever_the_line_breaks() -> None:
    """Old Mac `\r`, Windows `\r\n` and `\n` in one file: tree-sitter's rows are the chunks' lines."""
    text = "package x\r\rfunc A() {\r}\r\n\r\nfunc B() {}\n"
    chunks, _ = chunk_code_file("a.go", text)
    assert [(c.symbol, c.start_line, c.end_line, c.code) for c in chunks] == [
        ("A", 3, 4, "func A() {\n}"), ("B", 6, 6, "func B() {}")]


FRAGMENTS = ["class A {", "}", "{", "func (s *S) M() {", "fn f() {", "impl X {", "def f", "end", "/** doc */",
             "// note", "export const f = () => {", "namespace N {", "template <typename T>", "FMT_EXPORT",
             "#[derive(X)]", "extension S {", "x = 1;", "return;", "'unterminated", "\"str\"", "@Override", "\r",
             "\t", "é", "\u2028", "\x0c"]
FUZZ = settings(max_examples=examples(150), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(sorted({row.extensions[0] for row in LANGUAGES if row.grammar})),
       st.lists(st.sampled_from(FRAGMENTS), max_size=40),
       st.lists(st.sampled_from(["\n", " ", "", "\r", "\r\n"]), max_size=40))
def test_any_text_in_any_language_chunks_without_raising(extension: str, fragments: list[str],
                                                         glue: list[str]) -> None:
    text = "".join(f + (glue[i] if i < len(glue) else "\n") for i, f in enumerate(fragments))
    chunks, _ = chunk_code_file(f"src/x{extension}", text)
    lines = source_lines(text)
    last = max(1, len(source_lines(text.rstrip("\r\n"))))
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids))
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= last
        assert chunk.code == "\n".join("\n".join(lines[start - 1 : end])
                                       for start, end in chunk.line_spans or ((chunk.start_line, chunk.end_line),))
        if chunk.is_code and chunk.kind != "module":  # the lines are the definition's: its name is in them
            assert chunk.name.split("#")[0] in chunk.code


def test_a_zig_files_test_fixture_is_test_code() -> None:
    """http.zig keeps its tests inline, and the fixtures they use beside them (`TestDummyHandler`, `testRoute1`):
    test code, and so is what they hold; a name that merely starts so, in a file with no tests, is code."""
    text = ('const std = @import("std");\n\npub fn route(path: []const u8) u8 {\n    return path[0];\n}\n\n'
            'test "routes a path" {\n    try std.testing.expect(route("/") == 47);\n}\n\n'
            "const TestHandler = struct {\n    fn handle() void {}\n};\n\nfn testRoute1() void {}\n")
    chunks, _ = chunk_code_file("src/router.zig", text)
    assert {c.symbol: c.is_test for c in chunks if c.kind != "module"} == {
        "route": False, "test routes a path": True, "TestHandler": True, "TestHandler.handle": True,
        "testRoute1": True}
    chunks, _ = chunk_code_file("src/testing.zig", "pub fn testAllocator() void {}\n")
    assert [c.is_test for c in chunks if c.kind != "module"] == [False]


def test_a_ruby_namespace_is_one_unless_its_own_doc_describes_it() -> None:
    """roda's `module RodaPlugins` around a plugin and its `register_plugin(:halt, Halt)` line is a namespace (a
    whole-file chunk of each plugin file before, then a `<module>` chunk of that line in the top 5), and its
    `module Halt`, whose comment is the plugin's manual, is a definition though it holds only modules; a
    license's lines above a module are no doc of it."""
    from codelens.ingest.syntax import chunk_code_file

    plugin = ("class Roda\n  module RodaPlugins\n    # The halt plugin stops a request at once,\n"
              "    # with the response's status, headers or body:\n    #\n    #   r.halt(403)\n"
              "    module Halt\n      module RequestMethods\n        def halt(*res)\n          throw :halt, res\n"
              "        end\n      end\n    end\n\n    register_plugin(:halt, Halt)\n  end\nend\n")
    chunks = {c.symbol: (c.kind, c.start_line, c.end_line) for c in chunk_code_file("lib/halt.rb", plugin)[0]}
    # the registering line is the namespace's record of its plugin, as an export is: no `<module>` chunk of a line
    assert chunks == {"Roda.RodaPlugins.Halt": ("class", 3, 13),
                      "Roda.RodaPlugins.Halt.RequestMethods": ("class", 8, 12),
                      "Roda.RodaPlugins.Halt.RequestMethods.halt": ("method", 9, 11)}
    licensed = ("# Copyright (c) 2024 The Authors\n# Released under the MIT License.\n# See LICENSE.\n"
                "module Shop\n  class Cart\n    def total\n      0\n    end\n  end\nend\n")
    assert [c.symbol for c in chunk_code_file("lib/cart.rb", licensed)[0]] == ["Shop.Cart", "Shop.Cart.total"]
