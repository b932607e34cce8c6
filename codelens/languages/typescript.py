"""TypeScript (`.tsx` by its own grammar): JavaScript's definitions and graph rule, and its types."""

from __future__ import annotations

import re

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

# An interface's generic call signature on a line of its own (Hono's `<Key extends keyof E>(key: Key): E[Key]`, its
# type parameters maybe on the lines below a lone `<`): without a `;` after the member above, the grammar reads
# the `<` as that member's comparison and loses the rest of the file
_GENERIC_SIGNATURE = re.compile(
    rb"^[ \t]*([ \t])<(?=\s*[A-Za-z_$][\w$]*\s+extends\b|\s*[A-Za-z_$][\w$]*\s*(?:,|=|>\s*\())", re.M)
# a type parameter's variance (TypeScript 4.7: zod's `$ZodTypeInternals<out O = unknown, out I = unknown>`)
_VARIANCE = re.compile(rb"(?<=[<,])(\s*)((?:in\s+)?out|in)(?=\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))")
_MEMBER_ENDS = frozenset(b")]}>\"'_$") | frozenset(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def readable_bytes(source: bytes) -> bytes:
    """The bytes the grammar parses: a type parameter's `in`/`out` blanked, and a `;` in the indentation
    of a generic call signature whose line above ends a member (a name, a bracket; never `=>`, `=`, `,`
    or an operator that goes on): the same length."""
    if b"<" not in source:
        return source
    if b"out " in source or b"in " in source:
        source = _VARIANCE.sub(lambda m: m.group(1) + b" " * len(m.group(2)), source)
    out = bytearray(source)
    for match in _GENERIC_SIGNATURE.finditer(source):
        before = match.start() - 1
        while before >= 0 and source[before] in b" \t\r\n":
            before -= 1
        if before >= 0 and source[before] in _MEMBER_ENDS and source[before - 1:before + 1] != b"=>":
            out[match.start(1)] = 0x3B  # ;
    return bytes(out)


LANGUAGE = LanguageRow(
    "typescript", (".ts", ".mts", ".cts", ".tsx"), TS, grammar_by_suffix=((".tsx", TSX),),
    definitions=JS_CLASSES + JS_FUNCTIONS, containers=JS_CONTAINERS, doc_prefixes=C_STYLE_DOCS,
    instance_bodies=JS_INSTANCES,
    test_suffixes=JS_TESTS, test_dirs=JS_TEST_DIRS, imports=JS_IMPORTS, is_standard_import=is_node_builtin,
    graph=JS_RULE, conventions=JS_CONVENTIONS, parser_bytes=readable_bytes,
)
