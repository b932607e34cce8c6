"""C++: C's definitions and classes, in namespaces and templates; C's graph rule (a header may be either)."""

from __future__ import annotations

from codelens.languages.c import CPP_GRAMMAR
from codelens.languages.model import CAPITALISED_GETTER_NAMES, CLASS, CLASS_NAMED, Conventions, LanguageRow
from codelens.languages.shared import (
    C_CONSTANT,
    C_CONTAINERS,
    C_DEFINITIONS,
    C_DOCS,
    C_RULE,
    C_TESTS,
    first_branches_in_bodies,
    without_bare_macros,
)


def _standard(top: str) -> bool:
    return True  # as C's: no header names a library


def test_id(path: str, owner: str, name: str) -> str:
    """`CartTest.AddsItem` (GoogleTest's --gtest_filter): the suite and the test."""
    return f"{owner}.{name}" if owner else name


LANGUAGE = LanguageRow(
    "cpp", (".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp", ".inl"), CPP_GRAMMAR,
    definitions=(*C_DEFINITIONS, ("class_specifier", CLASS)),
    containers=(*C_CONTAINERS, "namespace_definition", "template_declaration", "field_declaration_list",
                "friend_declaration"),  # `friend bool operator==(...) {...}` defined in its class
    doc_prefixes=C_DOCS, test_suffixes=C_TESTS, imports=("preproc_include", "using_declaration"),
    parser_bytes=without_bare_macros, recover_bytes=first_branches_in_bodies, is_standard_import=_standard,
    graph=C_RULE,
    # bodiless: an empty body is a no-op (yaml-cpp's `NullEventHandler.OnAlias(...) override {}` above the parser)
    conventions=Conventions(getter=CAPITALISED_GETTER_NAMES, test_id=test_id, throws=("throw",), constant=C_CONSTANT,
                            describing=("operator<<",), bodiless=True,
                            comparing=("operator==", "operator!=", "operator<", "operator<=", "operator>", "operator>=",
                                       "operator<=>", "operator="),
                            constructors=(CLASS_NAMED,)),
)
