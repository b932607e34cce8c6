"""TypeScript (`.tsx` by its own grammar): JavaScript's definitions and graph rule, and its types."""

from __future__ import annotations

import re

from codelens.languages.model import LanguageRow
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
    NAME_OR_CLOSE,
    TS,
    TSX,
    is_node_builtin,
    semicolons_before,
)

# An interface's generic call signature on a line of its own (Hono's `<Key extends keyof E>(key: Key): E[Key]`, its
# type parameters maybe on the lines below a lone `<`): without a `;` after the member above, the grammar reads
# the `<` as that member's comparison and loses the rest of the file
_GENERIC_SIGNATURE = re.compile(
    rb"^[ \t]*([ \t])<(?=\s*[A-Za-z_$][\w$]*\s+extends\b|\s*[A-Za-z_$][\w$]*\s*(?:,|=|>\s*\())", re.M)
# a type parameter's variance (TypeScript 4.7: zod's `$ZodTypeInternals<out O = unknown, out I = unknown>`)
_VARIANCE = re.compile(rb"(?<=[<,])(\s*)((?:in\s+)?out|in)(?=\s+[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b))")
_MEMBER_ENDS = NAME_OR_CLOSE | frozenset(b">$")  # a name, a bracket, a generic's `>` (never `=>`)
# a types-only re-export (TypeScript 5.0: got's `export type * from './types.js'`): the grammar lost the file
_TYPE_STAR = re.compile(rb"^([ \t]*export[ \t]+)(type)(?=[ \t]+\*)", re.M)


def readable_bytes(source: bytes) -> bytes:
    """The bytes the grammar parses: a type parameter's `in`/`out` blanked, and a `;` in the indentation
    of a generic call signature whose line above ends a member (a name, a bracket; never `=>`, `=`, `,`
    or an operator that goes on), the `type` of `export type * from` blanked: the same length."""
    if b"export type" in source:
        source = _TYPE_STAR.sub(lambda m: m.group(1) + b"    ", source)
    if b"<" not in source:
        return source
    if b"out " in source or b"in " in source:
        source = _VARIANCE.sub(lambda m: m.group(1) + b" " * len(m.group(2)), source)
    return semicolons_before(source, _GENERIC_SIGNATURE, _MEMBER_ENDS, not_after=(b"=>",))


LANGUAGE = LanguageRow(
    "typescript", (".ts", ".mts", ".cts", ".tsx"), TS, grammar_by_suffix=((".tsx", TSX),),
    definitions=JS_CLASSES + JS_FUNCTIONS, containers=JS_CONTAINERS, doc_prefixes=C_STYLE_DOCS,
    inner_definitions_over=INNER_DEFINITIONS_OVER,
    instance_bodies=JS_NESTED_INSTANCES,
    test_suffixes=JS_TESTS, test_dirs=JS_TEST_DIRS, imports=JS_IMPORTS, is_standard_import=is_node_builtin,
    graph=JS_RULE, conventions=JS_CONVENTIONS, parser_bytes=readable_bytes,
    overloads=("function_signature", "method_signature"),
)
