"""Kotlin: classes, objects, companion objects, functions (`fun Foo.bar()` under Foo)."""

from __future__ import annotations

from codelens.languages.java import JVM_STANDARD
from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow, class_and_method
from codelens.languages.shared import C_STYLE_DOCS, JVM_BUILTINS, JVM_METHODS

RULE = GraphRule(
    "jvm", (("call_expression", "first"),), (), ("delegation_specifiers",), "kotlin",
    implicit_self=True, package_scope=True, builtins=JVM_BUILTINS, library_methods=JVM_METHODS,
    packages=("package_header",),
    typed=(("variable_declaration", "", ""), ("class_parameter", "", ""), ("parameter", "", "")),
    assigned=(("property_declaration", "", ""),),
)

LANGUAGE = LanguageRow(
    "kotlin", (".kt", ".kts"), Grammar("tree-sitter-kotlin", "tree_sitter_kotlin"),
    definitions=(("class_declaration", CLASS), ("object_declaration", CLASS), ("companion_object", CLASS),
                 ("function_declaration", FUNCTION), ("secondary_constructor", FUNCTION),
                 # `val P = plugin {...}` (lambda_values); `val N = object : Comparator<Int> {...}`: a class
                 ("property_declaration", FUNCTION)),
    instance_bodies=(("property_declaration", "class_body"),), lambda_values=("property_declaration",),
    containers=("class_body", "enum_class_body"),
    preamble=("package_header",), comments=("line_comment", "block_comment"),
    doc_prefixes=C_STYLE_DOCS, test_suffixes=("Test.kt", "Tests.kt", "Spec.kt"),
    imports=("import", "import_header"), receiver_before_name=True, keyword_named=("secondary_constructor",),
    standard_libraries=(*JVM_STANDARD, "kotlin", "kotlinx"), reversed_domains=True, graph=RULE,
    conventions=Conventions(test_id=class_and_method("#"), throws=("throw",),
                            constant=r"^\s*(?:(?:private|internal|public)\s+)?const\s+val\s+(?P<name>\w+)"),
)
