"""A room per language: every language of `codelens/languages/` has a fixture folder in
tests/languages/<name>/ (a small project: a few source files and `expected.json`), read here by one
parametrised test with the real chunker, the real grammar and the real code graph, and a
completeness test that fails when a registered language misses a part.

`expected.json` holds what the language's code means, checked by hand:
- `chunks`: every chunk of the folder, `[chunk id, kind, first line, last line]`, in the chunker's order;
- `edges`: every calls, imports and inherits edge of the folder's graph, `[source, target, kind, via]`;
- `test_id`: `[[path, class, test], id]`: the id the language's test runner gives that test;
- `constants`: the names the language's constant form finds in the folder's lines, in order;
- `throws`: which of the language's throwing words the folder's code uses;
- `declares`: the chunks that only declare what other code implements (an interface, an abstract
  method, a type alias: the language's Conventions.declares_only), which sink below implementations.

`python tests/test_language_rooms.py <name>` prints what the code says of a folder today, in that
format: a start for a new language's `expected.json`, to be read line by line before it is kept.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from codelens.graph.model import build_graph
from codelens.graph.syntax_imports import READERS
from codelens.graph.syntax_modules import locator_styles
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.formats import code_language, header_format
from codelens.ingest.grammars import load_language, new_parser
from codelens.languages import GRAPH_RULES, LANGUAGES, PYTHON, LanguageRow, language_of, row_named
from codelens.languages.kotlin import readable_bytes
from codelens.languages.shared import first_branches_in_bodies, without_bare_macros
from codelens.search.ranking_order import declares_only

ROOMS = Path(__file__).parent / "languages"
MAX_FILE_BYTES = 1_000_000
NAMES = [row.name for row in LANGUAGES]


def observed(name: str) -> dict:
    """What the chunker, the graph and the language's conventions say of its fixture folder."""
    row = row_named(name)
    assert row is not None
    folder = ROOMS / name
    chunked = chunk_codebase(folder, MAX_FILE_BYTES)
    graph = build_graph(chunked.chunks, chunked.sources)
    edges = sorted([e.source, e.target, e.kind, e.via] for e in graph.edges if e.kind != "contains")
    lines = [line for path in sorted(chunked.sources) if language_of(path) == name
             for line in chunked.sources[path].splitlines()]
    constants = [found for line in lines if (found := row.conventions.constant_name(line))]
    code = "\n".join(lines)
    throws = [word for word in row.conventions.throws
              if re.search(rf"(?<![\w@]){re.escape(word)}(?!\w)" if word[0].isalnum() else re.escape(word), code)]
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8")) \
        if (folder / "expected.json").exists() else {}
    test_args = expected.get("test_id", [["", "", ""], ""])[0]
    return {
        "chunks": [[c.chunk_id, c.kind, c.start_line, c.end_line] for c in chunked.chunks
                   if c.path != "expected.json"],
        "edges": edges,
        "test_id": [test_args, row.conventions.test_id(*test_args)],
        "constants": constants,
        "throws": throws,
        "declares": [c.chunk_id for c in chunked.chunks if declares_only(c)],
    }


def _expected(name: str) -> dict:
    return json.loads((ROOMS / name / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_a_language_room_says_what_its_code_means(name: str) -> None:
    expected, found = _expected(name), observed(name)
    assert found["chunks"] == expected["chunks"]
    assert found["edges"] == sorted(expected["edges"])
    assert found["test_id"] == expected["test_id"]
    assert found["constants"] == expected["constants"]
    assert found["throws"] == expected["throws"]
    assert found["declares"] == expected["declares"]


# ------------------------------------------------------------------ completeness


def _grammars(row: LanguageRow):
    return [row.grammar, *(g for _, g in row.grammar_by_suffix)] if row.grammar is not None else []


def _missing_node_types(row: LanguageRow) -> list[str]:
    """The node types the row and its graph rule name that none of its grammars knows (a typo, a
    grammar upgrade that renamed them)."""
    languages = [load_language(g) for g in _grammars(row)]
    rule = row.graph
    named = {*dict(row.definitions), *row.containers, *row.owners, *row.imports, *row.scope_statements,
             *row.reexport_marks, *row.keyword_named, *(t for pair in row.instance_bodies for t in pair)}
    if rule is not None:
        named |= {*dict(rule.calls), *dict(rule.constructs), *rule.bases, *rule.implementers,
                  *READERS.get(rule.imports, (None, frozenset()))[1]}
    return sorted(t for t in named if not any(lang.id_for_node_kind(t, True) for lang in languages))


# Node types a row names that its pinned grammar does not have, kept as they were (the rows read
# every grammar version the wheel ever had; a type absent is never matched, so it changes nothing).
# A new entry here is a decision, never a way to make this test pass.
_TS_ONLY = frozenset({
    "abstract_class_declaration", "abstract_method_signature", "ambient_declaration", "enum_declaration",
    "extends_clause", "extends_type_clause", "function_signature", "implements_clause", "interface_body",
    "interface_declaration", "internal_module", "method_signature", "module", "object_type",
    "public_field_definition", "type_alias_declaration",
})
KNOWN_ABSENT: dict[str, frozenset[str]] = {
    # JavaScript and TypeScript (and the components' scripts, read as TypeScript) share one table
    # (codelens/languages/shared.py): TypeScript's types are no JavaScript node, JavaScript's class
    # field is TypeScript's `public_field_definition`
    "javascript": _TS_ONLY,
    "typescript": frozenset({"field_definition"}),
    "vue": frozenset({"field_definition"}),
    "svelte": frozenset({"field_definition"}),
    "kotlin": frozenset({"import_header"}),  # an older tree-sitter-kotlin's name for `import`
}
# Languages whose imports the chunker knows and the graph does not read yet, and why.
IMPORTS_NOT_READ = {
    # `uses SysUtils, Tax;`: reading it adds import edges to the Delphi fixture of
    # tests/test_graph_languages.py, whose edges this change keeps as they are
    "pascal": "declUses",
}


def test_every_language_has_a_room_and_every_room_a_language() -> None:
    rooms = {p.name for p in ROOMS.iterdir() if p.is_dir()}
    assert rooms == set(NAMES)
    for name in NAMES:
        assert (ROOMS / name / "expected.json").is_file(), name
        assert any(language_of(str(p.relative_to(ROOMS / name))) == name for p in (ROOMS / name).rglob("*")), name


@pytest.mark.parametrize("name", [n for n in NAMES if n != PYTHON])
def test_every_language_with_a_grammar_is_complete(name: str) -> None:
    """A grammar loads; its calls are read by a graph rule; every node type named is the grammar's;
    an import style has both its reader and its locator, and the room shows an import resolved."""
    row = row_named(name)
    assert row is not None and row.grammar is not None, f"{name}: only Python is read without a grammar"
    assert row.graph is not None and GRAPH_RULES[name] is row.graph, f"{name}: no graph rule"
    assert _missing_node_types(row) == sorted(KNOWN_ABSENT.get(name, ())), name
    rule = row.graph
    if rule.imports:
        assert rule.imports in READERS, f"{name}: import style {rule.imports!r} has no reader"
        assert rule.imports in locator_styles(), f"{name}: import style {rule.imports!r} has no locator"
        resolved = [e for e in _expected(name)["edges"] if e[2] == "imports" and not e[1].startswith("ext:")]
        assert resolved, f"{name}: the room shows no import resolved to a file"
    elif row.imports and IMPORTS_NOT_READ.get(name) not in row.imports:
        pytest.fail(f"{name}: the chunker knows its imports ({row.imports}) but the graph reads none")
    assert any(e[2] == "calls" and not e[1].startswith("ext:") for e in _expected(name)["edges"]), name


@pytest.mark.parametrize("name", NAMES)
def test_every_language_says_how_it_throws_names_tests_and_declares_constants(name: str) -> None:
    row = row_named(name)
    assert row is not None
    conventions = row.conventions
    assert conventions.throws, f"{name}: no throwing word"
    assert _expected(name)["throws"], f"{name}: the room throws nothing"
    test_args, test_id = _expected(name)["test_id"]
    assert test_id and all(part in test_id for part in test_args[2:]), name
    if conventions.constant:
        assert "name" in re.compile(conventions.constant).groupindex, name
        assert _expected(name)["constants"], f"{name}: the room declares no constant"


@pytest.mark.parametrize(("chunk_id", "test_id"), [
    ("tests/test_cart.py::TestCart.Nested.test_add#2", "tests/test_cart.py::TestCart::Nested::test_add"),
    ("tests/test_cart.py::test_total", "tests/test_cart.py::test_total"),
    ("cart/cart_test.go::TestAdd", "cart.TestAdd"),
    ("src/test/java/com/acme/CartTest.java::CartTest.addsAPrice", "CartTest#addsAPrice"),
    ("tests/Unit/CartTest.php::CartTest.testAdd", "CartTest::testAdd"),
    ("spec/cart_spec.rb::<module>", "spec/cart_spec.rb"),
    ("src/router.zig::test a route.with params", 'src/router.zig --test-filter "a route.with params"'),
])
def test_impact_names_a_test_as_its_language_runs_it(chunk_id: str, test_id: str) -> None:
    """`impact`'s tests to run carry the id the language's runner takes (`Conventions.test_id`)."""
    from codelens.answer.impact import runner_test_id
    from tests.conftest import make_chunk

    assert runner_test_id(make_chunk(chunk_id, "x", is_test=True)) == test_id


def test_the_chunking_key_reads_the_language_modules() -> None:
    """An index run rechunks when the code that chunks changes: the languages' modules are part of that
    code, and the key is never "" (which would rechunk every run) for want of a file."""
    from codelens.index.plan import chunking_key
    from codelens.settings import Settings

    assert len(chunking_key(Settings())) == 32


def test_the_checks_see_a_missing_part() -> None:
    """The completeness checks on made-up rows: a typo in a node type, an import style without its
    locator."""
    from dataclasses import replace

    go = row_named("go")
    assert go is not None and go.graph is not None
    assert _missing_node_types(replace(go, containers=("no_such_node",))) == ["no_such_node"]
    assert "no-such-style" not in locator_styles() and "go" in locator_styles()


def as_json(found: dict) -> str:
    """`expected.json`'s layout: one chunk or edge a line, so a change reads as a one-line diff."""
    parts = []
    for key, value in found.items():
        if key in ("chunks", "edges"):
            rows = ",\n".join("    " + json.dumps(row, ensure_ascii=False) for row in value)
            parts.append(f'  "{key}": [\n{rows}\n  ]')
        else:
            parts.append(f'  "{key}": {json.dumps(value, ensure_ascii=False)}')
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    sys.stdout.write(as_json(observed(sys.argv[1])))


def test_a_test_written_beside_the_code_is_a_test() -> None:
    """Zig's `test "..." {}` sits in the file it tests: its chunk is a test's (left out of a search by default,
    a test to run for `impact`), and so is the fixture named for the tests beside it; the file's other definitions
    are not."""
    chunks = chunk_codebase(ROOMS / "zig", MAX_FILE_BYTES).chunks
    tests = {c.symbol for c in chunks if c.is_test}
    assert tests == {"test a cart totals its prices with tax", "test a receipt adds the tax", "TestShop",
                     "TestShop.withPrices"}
    assert {c.symbol for c in chunks if c.path == "shop/cart.zig"} > {"Cart.add", "Status.isFinal"}


def test_rust_s_unit_tests_beside_the_code_are_tests(tmp_path: Path) -> None:
    """reqwest's 102 unit tests in `#[cfg(test)] mod tests` of its `src/` files were code (`test_redirect_policy_limit`
    answered how redirects are limited); a `#[test]` or `#[tokio::test]` marks a function wherever it is, and
    `#[cfg(not(test))]` marks nothing; a test module's statements are no code's. cargo names a unit test by its file's
    module and `tests`."""
    from codelens.answer.impact import runner_test_id

    chunks = {c.symbol: c for c in chunk_codebase(ROOMS / "rust", MAX_FILE_BYTES).chunks}
    assert {s for s, c in chunks.items() if c.is_test} == {"cart_of", "adds_a_price", "rounds_to_cents", "taxes"}
    # a test a macro writes (`taxes!(one, 1.0, 1.2);`) is no statement of the code's <module> (ripgrep's `find!`)
    invocation = (ROOMS / "rust" / "src" / "tax.rs").read_text().splitlines().index("    taxes!(one, 1.0, 1.2);") + 1
    assert all(c.end_line < invocation for c in chunk_codebase(ROOMS / "rust", MAX_FILE_BYTES).chunks
               if c.path == "src/tax.rs" and c.symbol == "<module>")
    assert not chunks["rounded"].is_test and runner_test_id(chunks["adds_a_price"]) == "cart::tests::adds_a_price"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text(
        "#[test]\nfn alone() {}\n\n#[derive(Debug)]\n#[cfg_attr(test, derive(Clone))]\npub struct Rates;\n\n"
        "/// Doc between.\n#[async_std::test]\n// a comment\nasync fn awaited() {}\n")
    marked = {c.symbol: c.is_test for c in chunk_codebase(tmp_path, MAX_FILE_BYTES).chunks if c.symbol != "<module>"}
    assert marked == {"alone": True, "Rates": False, "awaited": True}


def test_elixir_documents_with_attributes() -> None:
    """Elixir's docs are attributes: a function's `@doc` above it (past its `@spec`) is its docstring and its
    chunk's first line, a module's `@moduledoc` the module's; no attribute is a call in the graph; a
    function's consecutive clauses are one chunk."""
    chunks = {c.symbol: c for c in chunk_codebase(ROOMS / "elixir", MAX_FILE_BYTES).chunks}
    total, cart = chunks["Shop.Cart.total"], chunks["Shop.Cart"]
    assert (total.docstring, total.start_line) == ("The total of the prices, with tax, as money.", 13)
    assert cart.docstring == "A cart of prices."
    assert chunks["Shop.Cart.add"].docstring == ""
    tax = chunks["Shop.Tax.tax"]  # a function is all its clauses, `def tax(0)` and `def tax(amount)`
    assert (tax.start_line, tax.end_line, tax.docstring) == (7, 9, "The tax of an amount: none on nothing.")
    # a Mix task's `@moduledoc` after its `use`, `@shortdoc` and `@switches`; a `~S"""` sigil's text; the comment
    # above `@doc false` and a `@spec` (ecto_sql's `format_table`: its example there, lost before)
    assert chunks["Mix.Tasks.Shop.Report"].docstring == "Prints the shop's sales report for the last days."
    run = chunks["Mix.Tasks.Shop.Report.run"]
    assert (run.start_line, run.docstring) == (13, "Runs the report with the command line's `--days`.")
    rows = chunks["Mix.Tasks.Shop.Report.format_rows"]
    assert rows.start_line == 21 and rows.docstring.startswith("Formats the rows as a text table:")


def test_a_line_comment_run_above_a_definition_documents_it() -> None:
    """A `//` run directly above a JavaScript function is its doc, as Go's and C's are (the words that say what
    it does were in no chunk); a bundler's annotation among them is not doc text."""
    chunks = {c.chunk_id: c for c in chunk_codebase(ROOMS / "javascript", MAX_FILE_BYTES).chunks}
    floor = chunks["lib/util.js::floor"]
    assert floor.start_line == 27
    assert floor.docstring == ("Rounds down to whole units: a `//` run directly above a definition documents it,\n"
                               "a bundler's annotation below it (no doc) left out.")
    # an editor's region marker or Swift's `// MARK:` above the doc is no doc text either
    from codelens.ingest.syntax import chunk_code_file

    ts, _ = chunk_code_file("src/cart.ts", "// #region totals\n// Sums the prices.\n"
                            "export function total(p: number[]) {\n  return p.reduce((a, b) => a + b, 0);\n}\n")
    assert [c.docstring for c in ts if c.symbol == "total"] == ["Sums the prices."]
    swift, _ = chunk_code_file("Cart.swift", "// MARK: - Totals\n/// Sums the prices.\n"
                               "func total(_ p: [Int]) -> Int {\n    return p.reduce(0, +)\n}\n")
    assert [c.docstring for c in swift if c.symbol == "total"] == ["Sums the prices."]


def test_a_haskell_function_is_its_signature_its_equations_and_its_haddock() -> None:
    """A value's binding (`rate = 0.2`) and the equations past a pragma (`{-# INLINE withTax #-}`) join their
    signature; a `-- |` comment documents the definition below it across a blank line, and the module's Haddock
    above its header, past a `-----` rule and the `{-# LANGUAGE CPP #-}` lines, is the file's doc."""
    chunks = {c.chunk_id: c for c in chunk_codebase(ROOMS / "haskell", MAX_FILE_BYTES).chunks}
    rate = chunks["src/Shop/Tax.hs::rate"]
    assert (rate.start_line, rate.end_line) == (7, 8)
    with_tax = chunks["src/Shop/Tax.hs::withTax"]
    assert (with_tax.start_line, with_tax.end_line, with_tax.docstring) == (10, 14, "The amount with its tax.")
    module_doc = chunks["src/Shop/Tax.hs::<module>"].docstring
    assert module_doc == "Tax rules of the shop: the rate, and how amounts are rounded."


def test_a_files_head_comment_is_its_modules_doc_above_a_statement_of_a_definitions_type() -> None:
    """The `---` run a Lua file opens with documents the module, though `local M = {}` below it is of the node type
    Lua's `local f = function` definitions have; Zig's `//!` above `const std = @import("std")` too."""
    lua = {c.chunk_id: c for c in chunk_codebase(ROOMS / "lua", MAX_FILE_BYTES).chunks}
    assert lua["shop/tax.lua::<module>"].docstring == "Tax rules of the shop: the rate and how amounts are rounded."
    assert lua["shop/cart.lua::<module>"].docstring == ""
    zig = {c.chunk_id: c for c in chunk_codebase(ROOMS / "zig", MAX_FILE_BYTES).chunks}
    assert zig["shop/tax.zig::<module>"].docstring == "Tax rules for the shop."


def test_kotlin_parses_guards_annotated_accessors_and_keyword_names_from_bytes_of_the_same_lines() -> None:
    """What tree-sitter-kotlin 1.1.0 cannot read (each turned a whole file into one ERROR: Exposed's dialects) is
    blanked or ended with a `;`, byte for byte; ordinary `if`s, arrows and `where` clauses stay as they are."""
    source = b"""fun f(x: Any, where: Op?): Int {
    val bit = 1 shl id
    set = set or bit
    where?.let { y() }
    in1.close()
    val sum = a +
        where.size
    val g = if (a) { n: Int -> n } else h
    return when (x) {
        is Int if x > 0 -> 1
        is Long if (
            x > 0L
            ) -> 2
        else -> if (b) 3 else 4
    }
}
val taxed: Double
    @OptIn(X::class)
    get() = 1.0
fun <T> g(): Int where T : Comparable<T> = 1
inline fun <reified T : (A1) -> R, R, A1,
> invoke(arg1: A1, f: (Int, Int,) -> Int): T? = listOf(1, 2,).let { a, b, -> null }
@Target(AnnotationTarget.FUNCTION)
fun routes() {
    val users = listOf("John")
    get("/api/users") { it.json(users) }
}
"""
    read = readable_bytes(source)
    assert len(read) == len(source) and read.count(b"\n") == source.count(b"\n")
    lines = read.decode().split("\n")
    assert lines[2:5] == ["   ;set = set or bit", "   ;where?.let { y() }", "   ;in1.close()"]
    assert lines[6] == "        where.size"  # an expression going on over lines: no `;`
    assert lines[7] == "    val g = if (a) { n: Int -> n } else h"
    assert lines[9] == "        is Int" + " " * 10 + "-> 1" and lines[10].rstrip() == "        is Long"
    assert not lines[11].strip() and lines[12].strip() == "-> 2"
    assert lines[13] == "        else -> if (b) 3 else 4"
    assert not lines[17].strip() and lines[18] == "    get() = 1.0"
    assert lines[19] == "fun <T> g(): Int where T : Comparable<T> = 1"
    assert lines[20] == "inline fun <reified T : (A1) -> R, R, A1 "  # a type list's trailing comma (ktlint's)
    assert lines[21] == "> invoke(arg1: A1, f: (Int, Int,) -> Int): T? = listOf(1, 2,).let { a, b, -> null }"
    assert not lines[22].strip()  # the top level's line of annotations, blanked (lead_prefixes read it back)
    assert lines[25] == "   ;get(\"/api/users\") { it.json(users) }"  # a call, not a getter
    parser = new_parser(row_named("kotlin").grammar)
    assert parser.parse(source).root_node.has_error and not parser.parse(read).root_node.has_error


def test_c_family_attribute_macros_after_a_declarator_are_blanked_and_values_are_not() -> None:
    """`API_AVAILABLE(...)` after a property or a method's selector (AFNetworking's session manager: 29 of its
    84 methods recovered before, 83 after) goes; a macro that is a value, a type or a directive's text stays."""
    source = b"""@property (nonatomic, strong) NSURLSessionTaskMetrics *metrics API_AVAILABLE(ios(10), macosx(10.12));
- (void)collect:(NSURLSessionTaskMetrics *)metrics API_AVAILABLE(ios(10))
{
- (instancetype)init NS_DESIGNATED_INITIALIZER;
auto size() const FMT_NOEXCEPT {
    return UV_EINVAL;
p = (void*) CMSG_DATA(cmsg);
typedef NS_ENUM(NSInteger, State) {
#define E_V(str) { L##str }
"""
    read = without_bare_macros(source)
    assert len(read) == len(source)
    lines = read.decode().split("\n")
    assert lines[0].endswith(";")
    assert lines[0].rstrip(" ;") == "@property (nonatomic, strong) NSURLSessionTaskMetrics *metrics"
    assert lines[1].rstrip() == "- (void)collect:(NSURLSessionTaskMetrics *)metrics"
    assert lines[3].rstrip(" ;") == "- (instancetype)init" and lines[4].rstrip(" {") == "auto size() const"
    assert lines[5:9] == [line.decode() for line in source.split(b"\n")[5:9]]


def test_a_header_is_told_objective_c_cpp_or_c_by_its_head() -> None:
    """AFNetworking's headers were parsed as C (their `@interface`s lost to ERROR, nothing recovered); spdlog's
    and fmt's classes were C in results and filters."""
    objc = "// Cart.h\n#import <Foundation/Foundation.h>\n\n@interface Cart : NSObject\n- (double)total;\n@end\n"
    assert header_format("Shop/Cart.h", objc) == "objc" and code_language("Shop/Cart.h", objc) == "objc"
    assert header_format("Shop/Cart.h", "@class Cart, Item;\n") == "objc"
    assert header_format("Shop/Cart.m", objc) is None  # a .m is Objective-C by its name
    cpp = "/*!\n  @class Buffer\n  @brief A growing buffer.\n*/\n#include <vector>\nclass Buffer {};\n"
    assert header_format("fmt/buffer.h", cpp) == "cpp" and code_language("fmt/buffer.h", cpp) == "cpp"
    assert header_format("spdlog/sink.h", "namespace spdlog {\nclass sink {\n public:\n};\n}\n") == "cpp"
    c = '#include <stdio.h>\n#ifdef __cplusplus\nextern "C" {\n#endif\n/* like std::strtod */\nint parse(void);\n'
    assert header_format("ffc.h", c) is None and code_language("ffc.h", c) == "c"  # extern "C", std:: in a comment
    chunks = chunk_codebase(ROOMS / "objc", MAX_FILE_BYTES).chunks
    assert {c.language for c in chunks if c.path == "Shop/Tax.h"} == {"objc"}


def test_typescript_reads_variance_annotations_and_keeps_in_as_an_operator() -> None:
    """zod's `$ZodTypeInternals<out O = unknown, out I = unknown>`: TypeScript 4.7's variance, which the grammar
    cannot read; `in` as an operator or in a mapped type stays."""
    from codelens.languages.typescript import readable_bytes as typescript_bytes

    source = (b"export interface Internals<out O = unknown, in out I = string> extends Base { o: O }\n"
              b"for (const key in object) { use(key) }\ntype Copy<T> = { [K in keyof T]: T[K] }\n")
    read = typescript_bytes(source)
    assert len(read) == len(source)
    lines = read.decode().split("\n")
    assert lines[0] == "export interface Internals<    O = unknown,        I = string> extends Base { o: O }"
    assert lines[1:3] == [line.decode() for line in source.split(b"\n")[1:3]]
    parser = new_parser(row_named("typescript").grammar)
    assert parser.parse(source).root_node.has_error and not parser.parse(read).root_node.has_error


def test_c_keeps_a_bodys_first_branch_and_every_top_level_definition() -> None:
    """libuv's `uv_available_parallelism` (a platform per `#elif`, declarations and a `return` in each) was lost to
    `<module>` text, and 15 functions of its `win/tty.c` with it. The chunker's second reading of such a file
    (`recover_bytes`) blanks a function body's later branches (they stay in its chunk), never the top level's
    (each platform's `cpu_limit` is a chunk); the graph reads every branch."""
    source = without_bare_macros((ROOMS / "c" / "src" / "cpus.c").read_bytes())
    assert row_named("c").recover_bytes is first_branches_in_bodies
    read = first_branches_in_bodies(source)
    assert len(read) == len(source)
    parser = new_parser(row_named("c").grammar)
    assert parser.parse(source).root_node.has_error and not parser.parse(read).root_node.has_error
    lines = read.decode().split("\n")
    assert "count = linux_cpus();" in lines[6] and not lines[7].strip() and not lines[22].strip()
    # the body's `#endif` goes with the branches it closes; the top level's directives stay
    assert not lines[31].strip() and lines[36:39] == ["int cpu_limit(void) { return 64; }", "#else",
                                                        "int cpu_limit(void) { return 1024; }"]
