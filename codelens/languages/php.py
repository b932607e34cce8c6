"""PHP: classes, interfaces, traits, enums, functions and methods in namespaces; `use` declarations."""

from __future__ import annotations

from codelens.languages.model import (
    CLASS,
    FUNCTION,
    GETTER_NAMES,
    Conventions,
    Grammar,
    GraphRule,
    LanguageRow,
    class_and_method,
)
from codelens.languages.shared import C_STYLE_DOCS

RULE = GraphRule(
    "php", (("function_call_expression", "function"), ("member_call_expression", ""),
            ("scoped_call_expression", ""), ("nullsafe_member_call_expression", "")),
    (("object_creation_expression", "first"),), ("base_clause", "class_interface_clause", "use_declaration"), "php",
    self_words=("$this", "self", "static"), package_scope=True, packages=("namespace_definition",),
    typed=(("simple_parameter", "name", "type"), ("property_promotion_parameter", "name", "type"),
           ("property_declaration", "", "type")),
    assigned=(("assignment_expression", "left", "right"),),
)

LANGUAGE = LanguageRow(
    "php", (".php",), Grammar("tree-sitter-php", "tree_sitter_php", "language_php"), interpreters=("php",),
    definitions=(("class_declaration", CLASS), ("interface_declaration", CLASS), ("trait_declaration", CLASS),
                 ("enum_declaration", CLASS), ("function_definition", FUNCTION),
                 ("method_declaration", FUNCTION)),
    # `if (! function_exists('format_price')) { function format_price(...) {...} }`: a helper file's functions
    containers=("namespace_definition", "compound_statement", "declaration_list", "enum_declaration_list",
                "if_statement"),
    preamble=("php_tag", "text", "namespace_definition", "declare_statement"),
    doc_prefixes=(*C_STYLE_DOCS, "//", "#"), test_suffixes=("Test.php",),
    imports=("namespace_use_declaration",), graph=RULE,
    # `CartTest::testAddsItem` (PHPUnit's --filter)
    conventions=Conventions(getter=GETTER_NAMES, test_id=class_and_method("::"), throws=("throw",),
                            constant=r"^\s*(?:(?:public|private|protected|final)\s+)*const\s+(?:\w+\s+)?(?P<name>[A-Z]\w*)\s*=",
                            bodiless=True, contract=r"\s*interface\s", describing=("__toString",),
                            constructors=("__construct",)),
)
