"""Swift: classes, structs, enums, protocols and their functions; an `extension`'s functions under
its type; a module is imported by name (`import Store`): its target's folder."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import C_STYLE_DOCS

RULE = GraphRule(
    "swift", (("call_expression", "first"),), (), ("inheritance_specifier",), "swift",
    self_words=("self", "Self"), implicit_self=True, package_scope=True,
    library_methods=("map", "filter", "append", "contains", "first", "last", "description",
                     "compactMap", "flatMap", "forEach", "reduce", "removeAll", "insert", "remove",
                     "resume", "cancel", "sorted", "joined", "dataTask", "downloadTask",
                     "uploadTask", "async", "sync"),
)


def test_id(path: str, owner: str, name: str) -> str:
    """`CartTests/testAddsItem` (XCTest's `swift test --filter`): the test case class and the method."""
    return f"{owner}/{name}" if owner else name


LANGUAGE = LanguageRow(
    "swift", (".swift",), Grammar("tree-sitter-swift", "tree_sitter_swift"),
    definitions=(("class_declaration", CLASS), ("protocol_declaration", CLASS),
                 ("function_declaration", FUNCTION), ("init_declaration", FUNCTION),
                 ("deinit_declaration", FUNCTION), ("protocol_function_declaration", FUNCTION),
                 ("subscript_declaration", FUNCTION), ("property_declaration", FUNCTION)),
    bodied=(("property_declaration", "computed_value"),),  # `var client: Client { ... }`: computed, a function
    containers=("class_body", "protocol_body", "enum_class_body"), keyword_named=("deinit_declaration",),
    doc_prefixes=C_STYLE_DOCS, comments=("comment", "multiline_comment"),
    test_suffixes=("Tests.swift", "Test.swift"), imports=("import_declaration",),
    # `#if canImport(UIKit)` / `#else` / `#endif` around a file's imports: how it compiles, no statement of its own
    # (SnapKit's forty `<module>` chunks of those lines alone ranked on vague and Russian questions)
    preamble=("directive",),
    standard_libraries=("Foundation", "UIKit", "AppKit", "Combine", "Dispatch", "os", "SwiftUI", "XCTest"),
    graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("throw", "fatalError"),
                            constant=r"^\s*(?:(?:public|private|internal|fileprivate|static)\s+)*let\s+(?P<name>\w+)",
                            describing=("description", "debugDescription"), comparing=("==", "hash"),
                            constructors=("init",)),
)
