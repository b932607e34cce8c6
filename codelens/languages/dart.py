"""Dart: classes, mixins, extensions, enums; a function is its signature and the body beside it."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import C_STYLE_DOCS, JS_METHODS, jest_style

RULE = GraphRule(
    "dart", (("selector", "previous"),), (("new_expression", "first"),),
    ("superclass", "interfaces", "mixins"), "dart", implicit_self=True,
    typed=(("formal_parameter", "name", ""),), library_methods=(*JS_METHODS, "toList", "length"),
    noise=("print", "assert", "identical"),
)

LANGUAGE = LanguageRow(
    "dart", (".dart",), Grammar("tree-sitter-dart", "tree_sitter_dart"),
    # a Dart function is its signature and the function_body beside it (the chunker joins them)
    definitions=(("class_definition", CLASS), ("mixin_declaration", CLASS), ("extension_declaration", CLASS),
                 ("enum_declaration", CLASS), ("function_signature", FUNCTION), ("method_signature", FUNCTION)),
    containers=("class_body", "extension_body", "enum_body"), preamble=("function_body", "library_name"),
    comments=("comment", "documentation_comment"), doc_prefixes=("///", *C_STYLE_DOCS),
    lead_prefixes=("@",),  # `@override` between a member's doc and its signature
    test_suffixes=("_test.dart",), generated_suffixes=(".g.dart", ".freezed.dart", ".pb.dart"),
    imports=("import_or_export",), reexport_marks=("library_export",), named_inside=("method_signature",),
    body_beside=("function_signature", "method_signature"), graph=RULE,
    # `test/cart_test.dart > Cart > adds an item` (package:test's group and test names)
    conventions=Conventions(test_id=jest_style, throws=("throw", "rethrow"),
                            constant=r"^\s*(?:static\s+)?const\s+(?:\w+\s+)?(?P<name>\w+)\s*=",
                            describing=("toString",), comparing=("operator==", "hashCode")),
)
