"""Vue single-file components: the `<script>` blocks read as TypeScript where they stand (the markup
blanked), the options object a class named after the file; the markup a `<template>` text piece."""

from __future__ import annotations

from codelens.languages.model import LanguageRow
from codelens.languages.shared import (
    C_STYLE_DOCS,
    JS_CONVENTIONS,
    JS_IMPORTS,
    JS_INSTANCES,
    JS_RULE,
    JS_TEST_DIRS,
    SFC_CONTAINERS,
    SFC_DEFINITIONS,
    SFC_TESTS,
    TS,
    only_scripts,
)

LANGUAGE = LanguageRow(
    "vue", (".vue",), TS, sfc=True, definitions=SFC_DEFINITIONS, containers=SFC_CONTAINERS,
    instance_bodies=JS_INSTANCES,
    doc_prefixes=C_STYLE_DOCS, test_suffixes=SFC_TESTS, test_dirs=JS_TEST_DIRS, imports=JS_IMPORTS,
    parser_bytes=only_scripts,
    # a component's script (its markup blanked) calls as JavaScript does
    graph=JS_RULE, conventions=JS_CONVENTIONS,
)
