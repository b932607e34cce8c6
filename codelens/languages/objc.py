"""Objective-C (`.m`, `.mm`, and a `.h` whose head imports or declares as Objective-C does, read by
`ingest/formats.py`'s `header_format`; every other `.h` is C's or C++'s, parsed by the C++ grammar): an `@interface`
or `@protocol` is a class whose method declarations are its outline; an `@implementation`'s methods
go under its class (as Rust's `impl`), so `-[Cart total]` is `Cart.total`; C's functions and structs
beside them; `#import` is C's `#include`, so its graph rule is C's family."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow
from codelens.languages.shared import (
    C_CONSTANT,
    C_CONTAINERS,
    C_DEFINITIONS,
    C_DOCS,
    first_branches_in_bodies,
    without_bare_macros,
)

# `[item price]` is a message_expression: the method and the receiver in fields, as Java's call
RULE = GraphRule(
    "c", (("call_expression", "function"), ("message_expression", "")), (), (), "include",
    self_words=("self",), implicit_self=True, imports_reach_through=True,
    noise=("NSLog", "sizeof", "NSAssert", "NSParameterAssert", "NSStringFromClass", "NSStringFromSelector",
           "dispatch_async", "dispatch_once"),
    library_methods=("alloc", "init", "new", "copy", "description", "count", "objectAtIndex:", "addObject",
                     "removeObject", "objectForKey", "setObject", "length", "isEqual", "retain", "release",
                     "autorelease"),
    typed=(("declaration", "declarator", "type"), ("parameter_declaration", "declarator", "type")),
)


def _standard(top: str) -> bool:
    return True  # as C's: a header names no library of a registry


def test_id(path: str, owner: str, name: str) -> str:
    """`CartTests/testTotal` (XCTest's `-only-testing:`): the test case class and the method."""
    return f"{owner}/{name}" if owner else name


LANGUAGE = LanguageRow(
    "objc", (".m", ".mm"), Grammar("tree-sitter-objc", "tree_sitter_objc"),
    definitions=(*C_DEFINITIONS, ("class_interface", CLASS), ("protocol_declaration", CLASS),
                 ("method_definition", FUNCTION)),
    containers=(*C_CONTAINERS, "implementation_definition"), owners=("class_implementation",),
    doc_prefixes=C_DOCS, test_suffixes=("Tests.m", "Test.m"), imports=("preproc_include",),
    parser_bytes=without_bare_macros, recover_bytes=first_branches_in_bodies, is_standard_import=_standard,
    graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("@throw", "NSAssert"), constant=C_CONSTANT),
)
