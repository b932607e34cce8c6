"""Java: classes, interfaces, enums, records and their methods; a package by its declaration."""

from __future__ import annotations

from codelens.languages.model import (
    CLASS,
    CLASS_NAMED,
    FUNCTION,
    GETTER_NAMES,
    Conventions,
    Grammar,
    GraphRule,
    LanguageRow,
    class_and_method,
)
from codelens.languages.shared import C_STYLE_DOCS, JVM_BUILTINS, JVM_METHODS

JVM_STANDARD = ("java", "javax")
# `public static final int LIMIT = 3;`
JVM_CONSTANT = (r"^\s*(?:(?:public|protected|private)\s+)?(?:static\s+final|final\s+static)\s+"
                r"[\w<>\[\], ?]+\s+(?P<name>\w+)\s*=")

RULE = GraphRule(
    "jvm", (("method_invocation", ""),), (("object_creation_expression", "type"),),
    ("superclass", "super_interfaces", "extends_interfaces"), "java", implicit_self=True,
    package_scope=True, builtins=JVM_BUILTINS, library_methods=JVM_METHODS,
    packages=("package_declaration",),
    typed=(("local_variable_declaration", "declarator", "type"),
           ("field_declaration", "declarator", "type"), ("formal_parameter", "name", "type")),
    assigned=(("variable_declarator", "name", "value"),),
)

LANGUAGE = LanguageRow(
    "java", (".java",), Grammar("tree-sitter-java", "tree_sitter_java"),
    definitions=(("class_declaration", CLASS), ("interface_declaration", CLASS), ("enum_declaration", CLASS),
                 ("record_declaration", CLASS), ("annotation_type_declaration", CLASS),
                 ("method_declaration", FUNCTION), ("constructor_declaration", FUNCTION),
                 ("compact_constructor_declaration", FUNCTION),
                 # `static final TypeAdapter<Class> CLASS = new TypeAdapter<>() {...}`, `IDENTITY {...}`
                 ("field_declaration", CLASS), ("constant_declaration", CLASS), ("enum_constant", CLASS)),
    instance_bodies=(("field_declaration", "class_body"), ("constant_declaration", "class_body"),
                     ("enum_constant", "class_body")),
    containers=("class_body", "interface_body", "enum_body", "enum_body_declarations",
                "annotation_type_body"),
    preamble=("package_declaration",), comments=("line_comment", "block_comment"),
    doc_prefixes=C_STYLE_DOCS, test_suffixes=("Test.java", "Tests.java", "IT.java", "TestCase.java"),
    imports=("import_declaration",), standard_libraries=JVM_STANDARD, reversed_domains=True, graph=RULE,
    # `CartTest#addsItem` (JUnit, `mvn -Dtest=CartTest#addsItem`)
    conventions=Conventions(getter=GETTER_NAMES, test_id=class_and_method("#"), throws=("throw",),
                            constant=JVM_CONSTANT, bodiless=True,
                            contract=r"\s*(?:(?:public|protected|private|abstract|static|sealed|non-sealed|strictfp)\s+)*"
                                     r"@?interface\s",
                            describing=("toString",), comparing=("equals", "hashCode", "compareTo", "clone"),
                            constructors=(CLASS_NAMED,)),
)
