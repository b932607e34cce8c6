"""Python: read by the standard library's `ast` (`ingest/chunker.py`, `graph/scopes.py`), not by a
tree-sitter grammar, so its row holds no node types the syntax chunker reads; what it says is what
the other readers need: its files, its doc comments, its generated files, its conventions."""

from __future__ import annotations

import sys

from codelens.languages.model import Conventions, LanguageRow, pytest_style

NAME = "python"


def _standard(top: str) -> bool:
    return top in sys.stdlib_module_names


LANGUAGE = LanguageRow(
    NAME, (".py",), None, interpreters=("python", "pypy"), imports=("import_statement", "import_from_statement"),
    doc_prefixes=("#",),
    generated_suffixes=("_pb2.py", "_pb2_grpc.py"),  # protoc's Python
    is_standard_import=_standard,
    # `tests/test_cart.py::TestCart::test_add` (pytest); a module constant is an UPPER_CASE assignment
    conventions=Conventions(test_id=pytest_style, throws=("raise",),
                            constant=r"^(?P<name>[A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=(?!=)",
                            describing=("__str__", "__repr__", "__format__"),
                            comparing=("__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__",
                                       "__copy__", "__deepcopy__")),
)
