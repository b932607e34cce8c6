"""Zig: functions, and types declared as constants (`pub const Server = struct {...}`, enums, unions,
opaques) with their functions; a file is a struct of its own top level, named by the file where it has
fields (`Conn.zig`: `Conn.parse`). `@import("router.zig")` is the file beside; `@import("std")` and the
build's named modules are libraries."""

from __future__ import annotations

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

RULE = GraphRule(
    "zig", (("call_expression", "function"),), (("struct_initializer", "first"),), (), "zig", self_words=("self",),
    # a bare `taxed(price)` in a struct's function is its sibling's (the file's, where the file is the struct)
    implicit_self=True,
    # what the standard library's containers, allocators and writers have: never matched by name alone
    library_methods=("init", "deinit", "append", "appendSlice", "get", "put", "getOrPut", "remove", "contains",
                     "alloc", "free", "create", "destroy", "dupe", "realloc", "print", "write", "writeAll",
                     "writeByte", "read", "readAll", "format", "toOwnedSlice", "iterator", "next", "lock",
                     "unlock", "reset", "clearRetainingCapacity", "ensureTotalCapacity", "close", "writer", "reader",
                     "flush", "allocator", "random"),
)


def test_id(path: str, owner: str, name: str) -> str:
    """`src/router.zig --test-filter "route with params"` (`zig test` runs a file; a filter picks its tests by
    name): a test's chunk is named `test <its name>`, whose dots read as an owner's."""
    named = f"{owner}.{name}" if owner else name
    _, marked, test = named.partition("test ")
    return f'{path} --test-filter "{test if marked else name}"' if name else path


LANGUAGE = LanguageRow(
    "zig", (".zig",), Grammar("tree-sitter-zig", "tree_sitter_zig"),
    # `const Server = struct {...}`: a declaration whose value is a type's body is that type
    definitions=(("function_declaration", FUNCTION), ("variable_declaration", CLASS), ("test_declaration", FUNCTION)),
    inline_tests=("test_declaration",), file_type_members=("container_field",),
    type_values=("struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration"),
    doc_prefixes=("//",), test_suffixes=("_test.zig",), graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("return error", "@panic", "unreachable"),
                            # a constant of a literal value; the rest (`const std = @import("std")`) is no constant
                            constant=r"^\s*(?:pub\s+)?const\s+(?P<name>\w+)\s*(?::[^=]+)?=\s*(?:-?\d|\"|'|true\b|false\b)"),
)
