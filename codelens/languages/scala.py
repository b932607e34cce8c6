"""Scala: classes, objects, traits, enums, Scala 3 givens and extensions, and their functions."""

from __future__ import annotations

from codelens.languages.java import JVM_STANDARD
from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import C_STYLE_DOCS, INNER_DEFINITIONS_OVER, JVM_METHODS

RULE = GraphRule(
    "jvm", (("call_expression", "function"),), (("instance_expression", "first"),),
    ("extends_clause",), "scala", implicit_self=True, package_scope=True,
    library_methods=(*JVM_METHODS, "fold", "getOrElse", "isDefined", "foldLeft", "foldRight"),
    packages=("package_clause",),
    typed=(("val_definition", "pattern", "type"), ("var_definition", "pattern", "type"),
           ("class_parameter", "name", "type"), ("parameter", "name", "type")),
    assigned=(("val_definition", "pattern", "value"), ("var_definition", "pattern", "value")),
)


def test_id(path: str, owner: str, name: str) -> str:
    """`CartSpec -- -z "adds an item"` (sbt testOnly): the suite and the test's name."""
    return f"{owner} {name}" if owner else name


LANGUAGE = LanguageRow(
    "scala", (".scala", ".sc"), Grammar("tree-sitter-scala", "tree_sitter_scala"),
    definitions=(("class_definition", CLASS), ("object_definition", CLASS), ("trait_definition", CLASS),
                 ("enum_definition", CLASS), ("function_definition", FUNCTION),
                 ("function_declaration", FUNCTION),
                 # `implicit val showInt: Show[Int] = new Show[Int] {...}` (a class), `implicit val booleanRead:
                 # Read[Boolean] = reads {...}` (a function: lambda_values)
                 ("val_definition", FUNCTION),
                 ("given_definition", CLASS)),  # Scala 3: `given Ordering[Price] with {...}`
    instance_bodies=(("val_definition", "template_body"),), lambda_values=("val_definition",),
    # a method longer than this holds its local `def`s as chunks (scopt's 222-line `runParser`)
    inner_definitions_over=INNER_DEFINITIONS_OVER,
    containers=("template_body", "package_object", "enum_body", "with_template_body"),
    owners=("extension_definition",),  # Scala 3: `extension (c: Cart)` holds methods of Cart
    preamble=("package_clause",), comments=("comment", "block_comment"), doc_prefixes=C_STYLE_DOCS,
    test_suffixes=("Spec.scala", "Test.scala", "Suite.scala", "Tests.scala"),
    imports=("import_declaration",), standard_libraries=(*JVM_STANDARD, "scala"), reversed_domains=True,
    graph=RULE,
    # a Scala constant is a `final val` or an upper-case `val` in an object
    conventions=Conventions(test_id=test_id, throws=("throw",),
                            constant=r"^\s*(?:(?:private|protected|final|override)\s+)*val\s+(?P<name>[A-Z]\w*)\s*[:=]",
                            describing=("toString",), comparing=("equals", "hashCode", "compare")),
)
