"""Rust: functions, structs, enums, traits, macros; an `impl`'s functions under its type; modules by
`mod` and their files (`a.rs`, `a/mod.rs`)."""

from __future__ import annotations

import re
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


# `cfg_rt! {` alone on a line: a macro called with a body, at the level of items
# its name maybe by its crate's path (tower's `pin_project_lite::pin_project! {`)
_ITEM_MACRO = re.compile(rb"^([ \t]*)((?:[A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)![ \t]*(\{)[ \t]*\r?$", re.M)
# what an item starts with, past its attributes and doc comments, whole (possessive: never a word inside a
# comment, "This impl requires..."), never `static ref` or `<'a, T> Serialize for &'a T`
_ITEM_START = re.compile(
    rb"(?:\s|#!?\[[^\]\n]*\]|//[^\n]*+)*+(?:pub\b|fn\b|async\b|unsafe\b|struct\b|enum\b|union\b|impl\b|trait\b"
    rb"|mod\b|use\b|type\b|const\b|extern\b|macro_rules!)")


def _closing_brace(source: bytes, opening: int) -> int:
    """The offset of the `}` that closes the `{` at opening (strings, characters and comments skipped),
    -1 when the file ends first."""
    depth, i, size = 0, opening, len(source)
    while i < size:
        char = source[i]
        if char == 0x7B:  # {
            depth += 1
        elif char == 0x7D:  # }
            depth -= 1
            if depth == 0:
                return i
        elif char == 0x2F and source[i + 1:i + 2] == b"/":  # a line comment
            end = source.find(b"\n", i)
            i = size if end < 0 else end
            continue
        elif char == 0x2F and source[i + 1:i + 2] == b"*":
            end = source.find(b"*/", i + 2)
            i = size if end < 0 else end + 2
            continue
        elif char == 0x22:  # a string, raw (`r#"..."#`) or not
            hashes = 0
            j = i - 1
            while j >= 0 and source[j] == 0x23:
                hashes, j = hashes + 1, j - 1
            if j >= 0 and source[j] == 0x72 and (j == 0 or not (chr(source[j - 1]).isalnum() or source[j - 1] == 0x5F)):
                end = source.find(b'"' + b"#" * hashes, i + 1)
                i = size if end < 0 else end + 1 + hashes
                continue
            i += 1
            while i < size and source[i] != 0x22:
                i += 2 if source[i] == 0x5C else 1
        elif char == 0x27:  # a character (`'x'`, `'\n'`), not a lifetime (`'a`)
            if source[i + 1:i + 2] == b"\\":
                end = source.find(b"'", i + 2)
                i = size if end < 0 else end + 1
                continue
            if source[i + 2:i + 3] == b"'":
                i += 3
                continue
        i += 1
    return -1


def without_item_macros(source: bytes) -> bytes:
    """The bytes the grammar parses: a macro called on its own line with a body of items (tokio's
    `cfg_rt! { pub fn spawn(...) {...} }`, `pin_project! { pub struct Map {...} }`), at the top level or
    at its items' level inside another, has its call and its closing brace blanked: the grammar reads a
    macro's body as tokens, which left those items in no chunk and no call in the graph."""
    if b"!" not in source:
        return source
    out = bytearray(source)
    _blank_item_macros(source, out, 0, len(source), b"")
    return bytes(out)


def _blank_item_macros(source: bytes, out: bytearray, start: int, end: int, indent: bytes) -> None:
    """Blanks the item macros of source[start:end] whose line starts with indent, then those inside them."""
    for match in _ITEM_MACRO.finditer(source, start, end):
        if match.group(1) != indent or match.group(2) == b"macro_rules":
            continue
        opening = match.start(3)
        body = _ITEM_START.match(source, opening + 1, end)  # before the body is scanned for its end
        closing = _closing_brace(source, opening) if body is not None else -1
        if closing < 0 or body.end() > closing:
            continue
        out[match.start(2):opening + 1] = b" " * (opening + 1 - match.start(2))
        out[closing] = 0x20
        first = source[opening + 1:body.end()]
        inner = first[first.rfind(b"\n") + 1:]
        _blank_item_macros(source, out, opening + 1, closing, inner[:len(inner) - len(inner.lstrip())])


def test_id(path: str, owner: str, name: str) -> str:
    """`store::tests::saves` (cargo test's filter): the file's module path, the test module, the test. A unit
    test beside the code of `src/` is in its file's `mod tests` (cargo's convention; the chunk's name has no
    module: `#[cfg(test)] mod tests` is read through)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if parts and parts[0] == "src" and not owner:
        owner = "tests"
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
    # the unit tests beside the code (`#[cfg(test)] mod tests`), a test function anywhere (`#[tokio::test]`)
    test_attributes=r"#\[\s*(?:cfg\s*\(\s*test\s*\)|(?:\w+::)*test\b)",
    comments=("line_comment", "block_comment"), doc_prefixes=("///", "//!", "/**", "*", "*/"),
    test_dirs=("benches",), imports=("use_declaration",), reexport_marks=("visibility_modifier",),
    standard_libraries=("std", "core", "alloc", "crate", "self", "super"), parser_bytes=without_item_macros,
    graph=RULE,
    conventions=Conventions(test_id=test_id, throws=("panic!", "unreachable!", "todo!"),
                            constant=r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const|static)\s+(?P<name>\w+)\s*:",
                            describing=("fmt",), comparing=("clone", "eq", "ne", "hash", "cmp", "partial_cmp")),
)
