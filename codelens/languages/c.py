"""C: functions, structs, unions, enums and typedefs; `#include`s. A `.h` is parsed with the C++
grammar (a header may be either) and is C's unless its head writes as only C++ does (`formats.header_format`:
then it is C++'s); bare macros are blanked before the parse."""

from __future__ import annotations

from codelens.languages.model import CLASS, Conventions, Grammar, LanguageRow
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

CPP_GRAMMAR = Grammar("tree-sitter-cpp", "tree_sitter_cpp")


def _standard(top: str) -> bool:
    return True  # C's headers come from no registry: none names a library


LANGUAGE = LanguageRow(
    "c", (".c", ".h"), Grammar("tree-sitter-c", "tree_sitter_c"),
    # a `.h` may be C or C++: the C++ grammar reads both, so headers are parsed with it
    grammar_by_suffix=((".h", CPP_GRAMMAR),),
    definitions=(*C_DEFINITIONS, ("class_specifier", CLASS)),
    containers=(*C_CONTAINERS, "namespace_definition", "template_declaration", "field_declaration_list",
                "friend_declaration"),  # `friend bool operator==(...) {...}` defined in its class
    doc_prefixes=C_DOCS, test_suffixes=C_TESTS, imports=("preproc_include",),
    parser_bytes=without_bare_macros, recover_bytes=first_branches_in_bodies, is_standard_import=_standard,
    graph=C_RULE,
    conventions=Conventions(throws=("abort", "exit"), constant=C_CONSTANT),
)
