"""Rust: functions, structs, enums, traits, macros; an `impl`'s functions under its type; modules by
`mod` and their files (`a.rs`, `a/mod.rs`)."""

from __future__ import annotations

from pathlib import PurePosixPath

from codelens.languages.model import CLASS, FUNCTION, Conventions, Grammar, GraphRule, LanguageRow

RULE = GraphRule(
    "rust", (("call_expression", "function"),), (("struct_expression", "name"),), (), "rust",
    self_words=("self", "Self"), noise=("Some", "Ok", "Err", "Box"),
    library_methods=("clone", "to_string", "to_owned", "into", "from", "fmt", "as_ref", "as_mut",
                     "is_some", "is_none", "is_ok", "is_err", "unwrap", "expect", "iter", "into_iter",
                     "len", "is_empty", "push", "get", "insert", "remove", "contains", "map",
                     "field", "finish", "debug_struct", "write_str", "borrow", "next", "collect",
                     "ok", "err", "take", "as_str", "extend", "poll", "call"),
    typed=(("parameter", "pattern", "type"), ("let_declaration", "pattern", "type"),
           ("field_declaration", "name", "type")),
    assigned=(("let_declaration", "pattern", "value"),),
    implementers=("impl_item",), imports_name_modules=True, wildcards_reexport=True,
)


def test_id(path: str, owner: str, name: str) -> str:
    """`store::tests::saves` (cargo test's filter): the file's module path, the test module, the test."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[0] in ("src", "tests"):
        parts = parts[1:]
    if parts and parts[-1] in ("lib", "main", "mod"):
        parts = parts[:-1]
    return "::".join([*parts, *([owner] if owner else []), name])


LANGUAGE = LanguageRow(
    "rust", (".rs",), Grammar("tree-sitter-rust", "tree_sitter_rust"),
    definitions=(("function_item", FUNCTION), ("function_signature_item", FUNCTION), ("struct_item", CLASS),
                 ("enum_item", CLASS), ("union_item", CLASS), ("trait_item", CLASS),
                 ("macro_definition", FUNCTION)),
    containers=("mod_item", "declaration_list"), owners=("impl_item",),
    preamble=("attribute_item", "inner_attribute_item"), lead_prefixes=("#[",),
    comments=("line_comment", "block_comment"), doc_prefixes=("///", "//!", "/**", "*", "*/"),
    test_dirs=("benches",), imports=("use_declaration",), reexport_marks=("visibility_modifier",),
    standard_libraries=("std", "core", "alloc", "crate", "self", "super"), graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("panic!", "unreachable!", "todo!"),
                            constant=r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const|static)\s+(?P<name>\w+)\s*:"),
)
