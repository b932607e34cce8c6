"""TypeScript (`.tsx` by its own grammar): JavaScript's definitions and graph rule, and its types."""

from __future__ import annotations

from codelens.languages.model import LanguageRow
from codelens.languages.shared import (
    C_STYLE_DOCS,
    JS_CLASSES,
    JS_CONTAINERS,
    JS_CONVENTIONS,
    JS_FUNCTIONS,
    JS_IMPORTS,
    JS_INSTANCES,
    JS_RULE,
    JS_TEST_DIRS,
    JS_TESTS,
    TS,
    TSX,
    is_node_builtin,
)

LANGUAGE = LanguageRow(
    "typescript", (".ts", ".mts", ".cts", ".tsx"), TS, grammar_by_suffix=((".tsx", TSX),),
    definitions=JS_CLASSES + JS_FUNCTIONS, containers=JS_CONTAINERS, doc_prefixes=C_STYLE_DOCS,
    instance_bodies=JS_INSTANCES,
    test_suffixes=JS_TESTS, test_dirs=JS_TEST_DIRS, imports=JS_IMPORTS, is_standard_import=is_node_builtin,
    graph=JS_RULE, conventions=JS_CONVENTIONS,
)
