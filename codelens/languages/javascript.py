"""JavaScript: functions, classes, `const f = () => ...`, `Foo.prototype.bar = function`; CommonJS
and ES imports."""

from __future__ import annotations

from codelens.languages.model import Grammar, LanguageRow
from codelens.languages.shared import (
    C_STYLE_DOCS,
    INNER_DEFINITIONS_OVER,
    JS_CLASSES,
    JS_CONTAINERS,
    JS_CONVENTIONS,
    JS_FUNCTIONS,
    JS_IMPORTS,
    JS_NESTED_INSTANCES,
    JS_RULE,
    JS_TEST_DIRS,
    JS_TESTS,
    is_node_builtin,
)

LANGUAGE = LanguageRow(
    "javascript", (".js", ".mjs", ".cjs", ".jsx"), Grammar("tree-sitter-javascript", "tree_sitter_javascript"),
    interpreters=("node", "nodejs"),
    definitions=JS_CLASSES + JS_FUNCTIONS, containers=JS_CONTAINERS, doc_prefixes=C_STYLE_DOCS,
    inner_definitions_over=INNER_DEFINITIONS_OVER,
    instance_bodies=JS_NESTED_INSTANCES,
    test_suffixes=JS_TESTS, test_dirs=JS_TEST_DIRS, imports=JS_IMPORTS, is_standard_import=is_node_builtin,
    graph=JS_RULE, conventions=JS_CONVENTIONS,
)
