from __future__ import annotations

import json
from pathlib import Path

import pytest

from codelens.ingest.chunker import chunk_file, chunks_from_parsed, is_test_path, parse_with_ast
from codelens.ingest.embed_text import embedding_text, split_identifier
from codelens.ingest.treesitter import parse_with_tree_sitter
from tests.golden import FIXTURES, GOLDEN, describe


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.py")))
def test_chunker_matches_golden(name: str) -> None:
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert describe(FIXTURES / f"{name}.py") == expected


def test_nested_async_decorated_and_class_methods() -> None:
    chunks = chunk_file("svc.py", (FIXTURES / "nested.py").read_text()).chunks
    by_id = {c.chunk_id: c for c in chunks}
    assert by_id["svc.py::outer.inner"].kind == "function"
    assert by_id["svc.py::fetch"].signature.startswith("async def fetch")
    assert by_id["svc.py::Service"].kind == "class"
    assert by_id["svc.py::Service.build"].kind == "method"
    assert by_id["svc.py::Service.build"].parent == "Service"
    assert by_id["svc.py::Service.build"].decorators == ("staticmethod",)
    # a redefinition gets an ordinal, never a duplicate id
    assert "svc.py::Service.label#2" in by_id
    assert len(by_id) == len(chunks)
    # defs inside a module-level `if` are still chunks
    assert "svc.py::maybe" in by_id
    # the whole class is one chunk and holds its methods' code
    assert "def as_dict" in by_id["svc.py::Service"].code


def test_module_chunk_excludes_bare_imports() -> None:
    module = chunk_file("n.py", (FIXTURES / "nested.py").read_text()).chunks[0]
    assert module.symbol == "<module>"
    assert "TIMEOUT = 30" in module.code
    assert "import os" not in module.code


def test_imports_only_file_is_one_module_chunk_of_its_imports() -> None:
    """A re-export file (`fastapi/websockets.py`) has nothing else: its imports are what
    a search can find it by."""
    (module,) = chunk_file("m.py", (FIXTURES / "imports_only.py").read_text()).chunks
    assert (module.chunk_id, module.kind, module.start_line, module.end_line) == ("m.py::<module>", "module", 1, 4)
    assert module.line_spans == ((1, 2), (4, 4))
    assert module.code == 'import os\nfrom typing import Any\n__all__ = ["os", "Any"]'
    text = "from a import b as b\n\n\nfrom c import (\n    d,\n)\n"
    assert parse_with_tree_sitter(text) is not None
    tree_sitter_chunks = chunks_from_parsed("m.py", text, parse_with_tree_sitter(text))
    assert [(c.chunk_id, c.line_spans) for c in tree_sitter_chunks] == [("m.py::<module>", ((1, 1), (4, 6)))]


def test_pep695_file_uses_tree_sitter_with_same_contract() -> None:
    text = (FIXTURES / "pep695.py").read_text()
    assert parse_with_ast(text) is None
    ids = [c.chunk_id for c in chunk_file("g.py", text).chunks]
    assert ids == ["g.py::<module>", "g.py::Box", "g.py::Box.__init__", "g.py::Box.get", "g.py::first"]


def test_syntax_error_file_keeps_good_functions() -> None:
    result = chunk_file("b.py", (FIXTURES / "broken.py").read_text())
    ids = {c.chunk_id for c in result.chunks}
    assert {"b.py::good_before", "b.py::good_after"} <= ids


def test_unparseable_bytes_become_one_module_chunk_and_a_warning(monkeypatch) -> None:
    import codelens.ingest.treesitter as ts

    monkeypatch.setattr(ts, "parse_with_tree_sitter", lambda text: None)
    result = chunk_file("x.py", "def (((\n")
    assert [c.chunk_id for c in result.chunks] == ["x.py::<module>"]
    assert result.warning and "x.py" in result.warning


def test_ast_and_tree_sitter_agree_on_valid_code() -> None:
    text = (FIXTURES / "nested.py").read_text()
    by_ast = chunks_from_parsed("n.py", text, parse_with_ast(text))
    by_tree_sitter = chunks_from_parsed("n.py", text, parse_with_tree_sitter(text))
    assert by_ast == by_tree_sitter


def test_line_numbers_are_real() -> None:
    text = (FIXTURES / "nested.py").read_text()
    lines = text.splitlines()
    for chunk in chunk_file("n.py", text).chunks:
        if chunk.kind != "module":
            assert chunk.code.splitlines()[0] == lines[chunk.start_line - 1]
            assert chunk.code.splitlines()[-1] == lines[chunk.end_line - 1]


@pytest.mark.parametrize(("path", "expected"), [
    ("tests/unit/test_db.py", True), ("pkg/test_x.py", True), ("pkg/x_test.py", True),
    ("tests/conftest.py", True), ("pkg/testing.py", False), ("gymhero/security.py", False),
    # a `test` package in a main source set is library code (koin-test's, spring-test's); a test source set is not
    ("koin-test/src/jvmMain/kotlin/org/koin/test/verify/Verification.kt", False),
    ("spring-test/src/main/java/org/springframework/test/context/TestContext.java", False),
    ("core/src/test/java/org/acme/CartTest.java", True), ("core/src/commonTest/kotlin/org/acme/Cart.kt", True),
    ("tests/src/main/kotlin/Helper.kt", True),
    # a build's test-support module or source set is test code (okhttp's; Gradle's test fixtures)
    ("okhttp-testing-support/src/main/kotlin/okhttp3/TestValueFactory.kt", True),
    ("core/src/testFixtures/java/org/acme/Carts.java", True), ("mockwebserver/src/main/kotlin/M.kt", False),
    # Cucumber's steps at a Ruby repository's root, never a `features` folder of the application
    ("features/steps/env.rb", True), ("features/step_definitions/cart_steps.rb", True),
    ("app/models/features/flag.rb", False),
    ("packages/pinia/test-dts/store.test-d.ts", True), ("src/types.test-d.ts", True),
    # Go's test inputs in any language (urfave/cli's godoc dump); a capitalised `Test` file is a class's
    ("testdata/godoc-v3.x.txt", True), ("internal/testdata/golden.json", True),
    ("src/Carbon/Traits/Test.php", False), ("hiredis/test.c", True),
    # Go's hand-written mocks (afero's `gcsfs/gcs_mocks.go`, a `mocks/` package); a package named mock is code
    ("gcsfs/gcs_mocks.go", True), ("internal/mocks/store.go", True), ("mock/mock.go", False),
])
def test_is_test_path(path: str, expected: bool) -> None:
    assert is_test_path(path) is expected


def test_split_identifier() -> None:
    assert split_identifier("get_current_user") == ["get", "current", "user"]
    assert split_identifier("HTTPClientError") == ["http", "client", "error"]
    assert split_identifier("CRUDRepository.get_one") == ["crud", "repository", "get", "one"]


def test_embedding_text_leads_with_meaning_and_respects_budget() -> None:
    chunk = next(c for c in chunk_file("pkg/svc.py", (FIXTURES / "nested.py").read_text()).chunks
                 if c.symbol == "outer")
    text = embedding_text(chunk, budget=120)
    assert text.startswith("function outer (outer) in pkg svc")
    assert "def outer(x: int) -> int:" in text
    assert "Outer function." in text
    assert len(text) <= 120 + 1


def test_chunker_never_raises_on_odd_input() -> None:
    """Odd input gives chunks whose lines lie inside the file (or none), never an exception."""
    expected = {"": [], "\n\n": [], "x = (" * 5000: ["odd.py::<module>"],
                "def f():\n" + "    " * 2 + "pass\n": ["odd.py::f"], "\x0c\x0b": [], "é = 1": ["odd.py::<module>"]}
    for text, ids in expected.items():
        chunks = chunk_file("odd.py", text).chunks
        assert [c.chunk_id for c in chunks] == ids
        lines = max(1, len(text.splitlines()))
        assert all(1 <= c.start_line <= c.end_line <= lines for c in chunks)


def test_demo_file_paths_are_posix(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    (folder / "m.py").write_text("def f():\n    return 1\n")
    from codelens.ingest.codebase import chunk_codebase

    result = chunk_codebase(tmp_path, 1_000_000)
    assert [c.chunk_id for c in result.chunks] == ["a/b/m.py::f"]


def test_overload_stubs_and_their_implementation_are_one_function_by_either_parser() -> None:
    """typer's sixty-line `@overload` stubs of `Option` stood above the one that does the work; pydantic's
    `computed_field` the same. Stubs with no implementation after them stay functions of their own."""
    text = ('from typing import overload\n\n@overload\ndef read(x: int) -> int: ...\n@overload\n'
            'def read(x: str) -> str:\n    """Reads a value."""\ndef read(x):\n    return x\n\n'
            'class Store:\n    @typing.overload\n    def get(self) -> None: ...\n    def get(self, key=None):\n'
            '        return key\n\n@overload\ndef stub_only(x: int) -> int: ...\n')
    expected = [("m.py::read", 3, 9, "Reads a value."), ("m.py::Store", 11, 15, ""), ("m.py::Store.get", 12, 15, ""),
                ("m.py::stub_only", 17, 18, "")]
    for parsed in (parse_with_ast(text), parse_with_tree_sitter(text)):
        chunks = [c for c in chunks_from_parsed("m.py", text, parsed) if c.kind != "module"]
        assert [(c.chunk_id, c.start_line, c.end_line, c.docstring) for c in chunks] == expected
