"""The walk of one file's syntax tree that finds its definitions, the rest of its top level, and the
text around each definition (its signature and the doc comment above it).

Internal to `codelens.ingest.syntax`. Only the top level, containers (namespaces, `export`, class
bodies) and class bodies are walked: function bodies are never visited, so chunking costs the parse
and little more. The walk is the same for every language, steered by its row of
`codelens.languages`; what each language calls a definition is `codelens.ingest.syntax_names`.
"""

from __future__ import annotations

import re
import textwrap

from codelens.chunk import Definition
from codelens.ingest.syntax_names import DefinitionNames, file_root, registering_call
from codelens.languages import CLASS, FUNCTION, LanguageRow

_FIXTURE_NAME = re.compile(r"(?:Test|test)[A-Z0-9_]")
_MAX_DEPTH = 64  # nesting of containers and classes walked (a deeper one is the enclosing chunk's code)
# Where a definition's body starts: its signature is what comes before
_BODY_TYPES = frozenset({
    "block", "statement_block", "compound_statement", "class_body", "interface_body", "enum_body",
    "declaration_list", "field_declaration_list", "body_statement", "template_body", "function_body",
    "enum_class_body", "protocol_body", "constructor_body", "enum_variant_list", "object_type",
    "enum_member_declaration_list", "enum_declaration_list", "do_block", "extension_body",
})
# `export`, `template <...>`: a wrapper whose definition starts where the wrapper does
_WRAPPERS = frozenset({"export_statement", "template_declaration", "ambient_declaration"})
# C#'s `/// <summary>` XML doc tags and Javadoc's HTML; not a usage line's `<command>` nor a type's `<String>`
_TAG = re.compile(r"</?(?:summary|remarks|param|typeparam|paramref|typeparamref|returns|value|exception|see|seealso"
                  r"|inheritdoc|include|example|code|c|para|list|listheader|item|term|description|p|br|hr|pre|tt"
                  r"|b|i|u|em|strong|a|ul|ol|li|dl|dt|dd|h[1-6]|table|tr|td|th|blockquote|span|div|img|sup|sub)"
                  r"\b[^<>]*>", re.I)
# `-- |`: Haddock; `---`: LuaDoc; Pascal's `{ ... }` and `(* ... *)`
_DOC_MARKERS = ("/**", "/*!", "/*", "*/", "///", "//!", "//", "-- |", "-- ^", "---", "--", "#", "*", "(*", "{")
_DOC_CLOSERS = {"(*": "*)", "{": "}"}
_INNER_DOC = "//!"  # Rust's doc of the file it is in
_LICENSE = re.compile(r"(?i)\bcopyright\b|\blicen[cs]e[ds]?\b|spdx-license")
# a comment that tells a tool what to do with the next line (superagent's `// eslint-disable-next-line complexity`
# between `RequestBase.send`'s 40-line JSDoc and the method: its doc was in no chunk), no doc of its own
_DIRECTIVE = re.compile(r"^(?://|#)\s*(?:eslint-|@ts-(?:ignore|expect-error|nocheck)|prettier-ignore|istanbul\s|c8\s|"
                        r"tslint:|biome-ignore|deno-lint-ignore|NOLINT|nolint|noinspection|rubocop:|pylint:|noqa|"
                        r"phpcs:|@phpstan-|swiftlint:|ktlint-|@__NO_SIDE_EFFECTS__|[@#]__PURE__|#?(?:end)?region\b|MARK:)")
NAMESPACE_DOC_LINES = 3  # a namespace documented at this length says what it is: a definition of its own


class DefinitionWalk:
    """One file's walk: the row, the source bytes and lines every rule reads, its definitions' names."""

    def __init__(self, row: LanguageRow, source: bytes, lines: list[str], component: str = "",
                 parsed: bytes | None = None) -> None:
        self.row = row
        self.source = source
        self.parsed = parsed if parsed is not None else source  # what the grammar read: macros blanked
        self.lines = lines
        self.kinds = dict(row.definitions)
        self.defining_calls = dict(row.defining_calls)
        self.skipped = frozenset(row.comments) | frozenset(row.imports) | frozenset(row.preamble)
        self.line_docs = tuple(p for p in row.doc_prefixes if p not in ("/**", "/*!", "/*", "*", "*/"))
        self.block_docs = any(p in ("/**", "/*!", "/*") for p in row.doc_prefixes)
        self.names = DefinitionNames(row, source, component)
        self._declared: dict[int, set[str]] = {}  # a block's node id -> the names its statements declare

    # ------------------------------------------------------------ walking

    def top_level(self, root) -> tuple[list[Definition], list[tuple[int, int]], list[tuple[int, int]]]:
        definitions: list[Definition] = []
        spans: list[tuple[int, int]] = []
        imports: list[tuple[int, int]] = []
        as_type = any(c.type in self.row.file_type_members for c in root.named_children)
        self._members(root, definitions, spans, imports, depth=0, outer=None,
                      owner=self.names.component if as_type else "")
        return definitions, spans, imports

    def module_doc(self, root, definitions: list[Definition]) -> tuple[tuple[int, int], str] | None:
        """(lines, words) of the file's own doc comment, where the language says a file has one: the
        run directly above its package clause (Go's `// Package chi is ...`, a Java package-info's
        Javadoc, Dart's `library`), or Rust's `//!` run above its first statement; a license is none.
        A JavaScript or C file's top comment is not read as its doc: it is a license, a lint switch or
        the same adapter note in every file as often as a description."""
        first = next((c for c in root.named_children if c.type not in self.row.comments), None)
        if first is None:
            return None
        start = _lines_of(first)[0]
        # a definition first (`export function f`, Lua's `local f = function`): the comment is f's doc; a node of
        # a definition's type that is none (Lua's `local M = {}`) leaves it the file's
        if any(d.start_line <= start <= d.end_line for d in definitions):
            return None
        # the row's preamble (Rust's `#![deny(missing_docs)]`: how the file compiles) may come before its `//!` run
        body = next((c for c in root.named_children if c.type not in self.row.comments
                     and c.type not in self.row.preamble), first)
        inner = [i + 1 for i in range(_lines_of(body)[0] - 1) if self.lines[i].lstrip().startswith(_INNER_DOC)]
        if inner:  # Rust's `//!` run, a blank line or attributes below it
            end = next((n for n in inner if n + 1 not in inner), inner[0])
            doc_start, doc_end = inner[0], end
            docstring = _clean_doc(self.lines[doc_start - 1:doc_end], self.row.lead_prefixes)
        elif first.type in self.row.preamble:
            above = first.prev_named_sibling  # past Haskell's `{-# LANGUAGE CPP #-}` lines between doc and header
            while above is not None and above.type == "pragma":
                start, above = _lines_of(above)[0], above.prev_named_sibling
            (doc_start, docstring), doc_end = self._doc_comment(start), start - 1
        elif self.row.head_doc:
            doc_start, doc_end = self._head_comment(start)
            docstring = _clean_doc(self.lines[doc_start - 1:doc_end]) if doc_end >= doc_start else ""
        else:
            return None
        if not docstring or _LICENSE.search(docstring):
            return None
        return (doc_start, doc_end), docstring

    def _members(self, node, definitions: list[Definition], spans: list[tuple[int, int]],
                 imports: list[tuple[int, int]], depth: int, outer, owner: str = "", in_test: bool = False) -> None:
        """The definitions directly in node (through its containers); the rest as statement spans. `in_test`:
        node is test code (a test attribute marked it or what holds it), and so is every definition in it."""
        own_name = node.child_by_field_name("name")  # a namespace's name is no statement of it
        condition = node.child_by_field_name("condition")  # nor an `if defined?(X)` container's condition
        taken_until = -1  # a definition that spans its next siblings (Dart's body, Haskell's equations)
        marked = False  # a test attribute stands above the next item
        for child in node.named_children:
            kind = child.type
            if child.start_byte < taken_until:
                continue
            if kind in self.row.preamble and self.row.test_attributes:
                marked = marked or self._test_attribute(child)
                continue
            test = in_test or marked
            marked = marked and kind in self.row.comments  # a doc comment between the attribute and its item
            if kind in self.row.scope_statements and self._body(child) is None:  # Perl's `package Foo;`
                owner = self.names.owner_name(child)
                continue
            if _directive(child):
                continue
            if kind == "export_statement" and _exports_names_only(child, self._declared_in(node)):  # `export { a };`
                imports.append(_lines_of(child))  # the names' own chunks hold them; a file of nothing else shows it
                continue
            if depth > 0 and registering_call(child):  # roda's `register_plugin(:halt, Halt)` in its namespace:
                imports.append(_lines_of(child))  # as an export, no `<module>` line of its own above the plugin
                continue
            if kind in self.skipped and kind not in self.row.containers:
                if kind in self.row.imports:
                    imports.append(_lines_of(child))
                    if any(c.type in self.row.reexport_marks for c in child.children):  # `pub use a::B;`
                        spans.append(_lines_of(child))
                continue
            if depth < _MAX_DEPTH and (namespace := self.names.namespace(child)) is not None and (
                    not self._described(child)):
                # its types are named through it, in a type too (`class Thor; module Shell; class Basic`)
                before = len(definitions)
                self._members(child.child_by_field_name("body"), definitions, spans, imports, depth + 1, None, owner,
                              test)
                for inner in definitions[before:]:
                    inner.name = f"{namespace}.{inner.name}"
                continue
            if depth < _MAX_DEPTH and self.names.is_owner(child):
                body = self._body(child)
                if body is None or body.type in self.kinds:  # Scala 3's `extension`: each method is a `body`
                    body = child
                self._members(body, definitions, [], imports, depth + 1, None, self.names.owner_name(child), test)
                continue
            found = self._definition(child, depth, outer if outer is not None else child, owner, test)
            if found is not None:
                definitions.append(found)
                taken_until = self.names.last_part(child).end_byte
            elif depth < _MAX_DEPTH and (kind in self.row.containers or kind == "ERROR" or (
                    self.row.conditional_calls and self.names.called_word(child) in self.row.conditional_calls)):
                before = len(definitions)
                inner_spans: list[tuple[int, int]] = []
                wrapper = kind in _WRAPPERS
                self._members(child, definitions, inner_spans, imports, depth + 1, child if wrapper else None, owner,
                              test)
                if wrapper:  # `export function f(a): A` over `export function f(a) {...}`: one definition
                    taken_until = max([taken_until] + [self.names.last_part(inner).end_byte
                                                       for inner in child.named_children])
                if len(definitions) == before:
                    if kind not in self.skipped and not test:  # PHP's `namespace X;`: a preamble, no statement
                        spans.append(_lines_of(child))
                elif not wrapper:  # `export class`, `template <...> class`: the definition is the statement
                    spans.extend(inner_spans)
            elif not test and not any(part is not None and child.id == part.id for part in (own_name, condition)):
                # `var x = 1`: a statement; never a test's (Rust's `find!(same, "a", "a");` in a `#[cfg(test)]`
                # module is no statement of the code's `<module>`)
                spans.append(self._documented(_lines_of(child)))

    def _documented(self, lines: tuple[int, int]) -> tuple[int, int]:
        """A statement's lines with the doc comment directly above it (sqlx's `// NameMapper is used to map column
        names to struct field names. By default, it uses strings.ToLower` over `var NameMapper = strings.ToLower`):
        the `<module>` chunk says what its values are for. A license above the first statement is no doc."""
        first, doc = self._own_doc(lines[0])
        return (first, lines[1]) if doc else lines

    def _described(self, node) -> bool:
        """Its doc comment describes it, NAMESPACE_DOC_LINES lines or more and no license: roda's `module Halt`, whose
        comment is the plugin's manual, around only its `module RequestMethods`, is a definition, not a namespace."""
        start = _lines_of(node)[0]
        first, doc = self._own_doc(start)
        return bool(doc) and start - first >= NAMESPACE_DOC_LINES

    def _own_doc(self, start_line: int) -> tuple[int, str]:
        """`_doc_comment`, a license none: (start_line, "") then."""
        first, doc = self._doc_comment(start_line)
        return (first, doc) if doc and not _LICENSE.search(doc) else (start_line, "")

    def _declared_in(self, block) -> set[str]:
        """The names a block's statements declare (`_top_level_names`), read once per block."""
        if block.id not in self._declared:
            self._declared[block.id] = _top_level_names(block)
        return self._declared[block.id]

    def _test_fixture(self, node, name: str, depth: int) -> bool:
        """Zig: a top-level definition named for the tests (`TestDummyHandler`, `testRoute1`) in a file that holds
        its tests inline (`test "..." {}`): their fixture, test code (http.zig's took first places beside the code)."""
        if not self.row.inline_tests or depth > 0 or not _FIXTURE_NAME.match(name):
            return False
        return any(c.type in self.row.inline_tests for c in file_root(node).named_children)

    def _test_attribute(self, node) -> bool:
        text = self.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")
        return re.match(self.row.test_attributes, text) is not None

    def _definition(self, node, depth: int, outer, owner: str, in_test: bool = False) -> Definition | None:
        kind = self.kinds.get(node.type)
        if kind is not None and self.row.defining_calls:  # Elixir: `def`, `defmodule` are calls
            kind = self.defining_calls.get(self.names.called_word(node))
        if kind is None:
            return None
        named = self.names.name(node)
        if named is None:
            return None
        name, own = named
        if self.names.instance_body(node) is not None:  # `const api = { get() {...} }` holds its functions
            kind = CLASS
        in_test = in_test or self._test_fixture(node, name, depth)  # and so is what it holds
        children: list[Definition] = []
        if kind == CLASS and depth < _MAX_DEPTH and node.type != "type_definition":
            self._members(self.names.instance_body(node) or node, children, [], [], depth + 1, None, "", in_test)
        elif (kind == FUNCTION and depth < _MAX_DEPTH and self.row.inner_definitions_over
              and node.end_point[0] - node.start_point[0] > self.row.inner_definitions_over
              and (block := _statement_block(node)) is not None):
            self._members(block, children, [], [], depth + 1, None, "", in_test)
        if node.type == "pair" and kind == CLASS and len(children) == 1 and len(
                self.names.instance_body(node).named_children) == 1:
            # `xor: { method(...peers) {...} }`: the one function is the object, named through it
            only = children[0]
            only.name = f"{name}.{only.name}"
            return only
        end = self._last_line(self.names.last_part(node))
        start = _lines_of(outer)[0]
        # a member on its class's line (`class A { m() {} }`) has no comment of its own above it
        starts_line = not self.lines[start - 1][: outer.start_point[1]].strip() or self._line_begin(outer) != (
            outer.start_byte)
        doc_start, docstring = self._doc_comment(start) if starts_line else (start, "")
        if not docstring and (self.row.doc_attributes or self.row.class_doc_attribute):
            doc_start, docstring = self._doc_attribute(outer, kind, doc_start)
        return Definition(
            kind=kind, name=name, start_line=doc_start, end_line=end,
            signature=self._signature(node, outer), docstring=docstring, children=children,
            # a file's top-level test is the file's, not the type the file is (Zig's `test "parse"` in Conn.zig)
            owner=own or ("" if depth == 0 and node.type in self.row.inline_tests else owner),
            is_test=in_test or node.type in self.row.inline_tests,
        )

    # ------------------------------------------------------------ names

    # ------------------------------------------------------------ text around a definition

    def _last_line(self, node) -> int:
        """node's last line of its own text: Scala's indented body takes in the comments after it (the
        next definition's doc) and the indentation of the next statement."""
        last = node
        while last.child_count:
            inner = [c for c in last.children if c.type not in self.row.comments and c.end_byte > c.start_byte]
            if not inner:
                break
            last = inner[-1]
        return _lines_of(last)[1]

    def _body(self, node):
        instance = self.names.instance_body(node)
        if instance is not None:  # `X = new Comparator<>() {...}`: the anonymous class's body
            return instance
        body = node.child_by_field_name("body")
        if body is not None:
            return body
        return next((c for c in node.named_children if c.type in _BODY_TYPES), None)

    def _line_begin(self, outer) -> int:
        """Where a definition's text begins: its first token, or its line's start where only a macro the grammar
        did not read stands before it (`FMT_API void f()`, `CJSON_PUBLIC(cJSON *) f(`: blanked for the grammar,
        the definition's own words)."""
        line_start = self.parsed.rfind(b"\n", 0, outer.start_byte) + 1
        if line_start < outer.start_byte and self.source[line_start:outer.start_byte].strip() and (
                not self.parsed[line_start:outer.start_byte].strip()):
            return line_start
        return outer.start_byte

    def _signature(self, node, outer) -> str:
        """From the definition's first token (its `export`, `template <...>`) up to its body."""
        # a function's own body, not the type it returns (Zig's generic `fn List(T: type) type {...}`)
        body = (node.child_by_field_name("body") if self.kinds.get(node.type) != CLASS else None) or self._body(node)
        end = body.start_byte if body is not None else node.end_byte
        header = node.child_by_field_name("header") if node.type == "defProc" else None
        end = header.end_byte if header is not None else end  # Pascal: its `var` section is no signature
        # Ruby: a comment between the header and the body is no part of the signature
        end = min([end] + [c.start_byte for c in node.named_children
                           if c.type in self.row.comments and c.start_byte > outer.start_byte])
        header = self.source[self._line_begin(outer):end].decode("utf-8", errors="replace")
        if body is None:
            header = header.split("\n", 1)[0]
        return " ".join(header.split()).rstrip("{ =").strip()

    def _doc_attribute(self, node, kind: str, start: int) -> tuple[int, str]:
        """(first line, text) of an attribute's doc: Elixir's `@doc "..."` above a function, past its
        `@spec`, `@impl` and `@doc since: ...` (the function starts there), or a module's `@moduledoc` among its
        statements before its first definition (a Mix task's comes after its `use Mix.Task`, `@shortdoc` and
        `@switches`). A function whose attributes say no doc (`@doc false`) or none is documented by the comment
        above them (ecto_sql's `format_table`: its example in `#` lines above `@doc false` and its `@spec`)."""
        if kind == CLASS:
            body = self._body(node)
            for statement in body.named_children if body is not None else ():
                if self.defining_calls.get(self.names.called_word(statement)):
                    break
                named = self._attribute(statement)
                if named is not None and named[0] == self.row.class_doc_attribute:
                    return start, named[1]
            return start, ""
        sibling, top = node.prev_named_sibling, start
        while sibling is not None and (named := self._attribute(sibling)) is not None:
            if self.defining_calls.get(self.names.called_word(sibling)):  # a `@callback` above: its own doc
                break
            if named[0] in self.row.doc_attributes and named[1]:  # `@doc since: "1.0"` is the doc's metadata
                return _lines_of(sibling)[0], named[1]
            top = _lines_of(sibling)[0]
            written = self.source[sibling.start_byte:sibling.end_byte]
            if named[0] in self.row.doc_attributes and written.rstrip().endswith(b"false"):
                break  # `@doc false`: it has none
            sibling = sibling.prev_named_sibling
        if top < start:
            first, comment = self._doc_comment(top)
            if comment:
                return first, comment
        return start, ""

    def _attribute(self, node) -> tuple[str, str] | None:
        """(name, the text of its string) of a `@name "..."` attribute (`@doc false`: no text), else None."""
        if not self.names.is_attribute(node):
            return None
        call = node.named_children[0] if node.named_children else None
        if call is None or call.type != "call" or not call.named_children:
            return None
        name = self.source[call.named_children[0].start_byte:call.named_children[0].end_byte].decode()
        arguments = next((c for c in call.named_children if c.type == "arguments"), None)
        value = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if value is None or value.type not in ("string", "sigil"):  # `@doc ~S"""...`: a sigil's text as a string's
            return name, ""
        text = "".join(self.source[c.start_byte:c.end_byte].decode("utf-8", "replace")
                       for c in value.named_children if c.type == "quoted_content")
        return name, textwrap.dedent(text).strip()

    def _head_comment(self, before: int) -> tuple[int, int]:
        """(first, last line) of the comment run a file opens with, below its `#!` line and above line
        `before`; last < first when there is none."""
        first = 2 if self.lines and self.lines[0].startswith("#!") else 1
        while first < before and not self.lines[first - 1].strip():
            first += 1
        last = first - 1
        while last + 1 < before and self.lines[last].lstrip().startswith(self.line_docs):
            last += 1
        return first, last

    def _doc_comment(self, start_line: int) -> tuple[int, str]:
        """(first line, text) of the comment run directly above a definition (no blank line between)."""
        index = start_line - 2  # the line above, 0-based
        first = start_line
        if self.block_docs and index >= 1 and not self.lines[index].strip() and (
                self.lines[index - 1].strip().endswith("*/")):
            index -= 1  # JSDoc a blank line above (express): still the definition's
        while index >= 0:
            stripped = self.lines[index].strip()
            if _DIRECTIVE.match(stripped):  # a linter's switch between the doc and its definition
                index -= 1
                continue
            if self.block_docs and stripped.endswith("*/"):
                top = index
                # up to the line the comment opens on; a `"/static/*"` quoted in its text (mux's package doc) opens
                # nothing, one after code (`x = 1; /* ...`) is no doc (below)
                while top >= 0 and not self.lines[top].lstrip().startswith("/*") and (
                        "/*" not in self.lines[top] or '"' in self.lines[top]):
                    top -= 1
                if top < 0 or not self.lines[top].strip().startswith("/*"):
                    break
                first, index = top + 1, top - 1
            elif (stripped and self.line_docs and stripped.startswith(self.line_docs)) or (
                    self.row.lead_prefixes and stripped.startswith(self.row.lead_prefixes)):  # Rust's `#[derive]`
                first, index = index + 1, index - 1
            else:
                break
        if first == start_line and self.row.doc_marks:
            first = self._marked_doc(start_line)
        if first == start_line:
            return start_line, ""
        doc = [line for line in self.lines[first - 1 : start_line - 1] if not _DIRECTIVE.match(line.strip())]
        return first, _clean_doc(doc, self.row.lead_prefixes)

    def _marked_doc(self, start_line: int) -> int:
        """The first line of a comment run that says it documents what follows (Haddock's `-- |`), blank
        lines between it and the definition; start_line when there is none."""
        index = start_line - 2
        while index >= 0 and not self.lines[index].strip():
            index -= 1
        top = index
        while top >= 0 and self.lines[top].lstrip().startswith(self.line_docs):
            top -= 1
        while top + 1 < index and _RULE_LINE.match(self.lines[top + 1]):  # hakyll's `-----` above each doc
            top += 1
        opening = self.lines[top + 1].lstrip() if top < index else ""
        return top + 2 if opening.startswith(self.row.doc_marks) else start_line


_RULE_LINE = re.compile(r"^\s*-{4,}\s*$")  # a line that only separates: no comment's first line


def _clean_doc(lines: list[str], lead_prefixes: tuple[str, ...] = ()) -> str:
    """The words of a doc comment: markers, XML tags and attribute lines (`#[derive]`, 1C's `&НаСервере`) gone."""
    kept = []
    for line in lines:
        text = line.strip()
        if text.startswith(("#[", *lead_prefixes)):
            continue
        for marker in _DOC_MARKERS:
            if text.startswith(marker):
                text = text[len(marker):].removesuffix(_DOC_CLOSERS.get(marker, ""))
                break
        text = _TAG.sub("", text.removesuffix("*/")).strip()
        if text or kept:
            kept.append(text)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)


def _exports_names_only(node, defined: set[str]) -> bool:
    """JavaScript's `export { a, b };` or `export default a;` of names the file defines (`defined`): no code of its
    own (alone in a `<module>` chunk, react-hook-form's `export { jsonToFormData };` ranked above `jsonToFormData`).
    Names it imports are re-exported (zod's `export { defaultErrorMap };`): the file's statement, as `export ...
    from` is."""
    if any(node.child_by_field_name(field) is not None for field in ("declaration", "source")):
        return False
    value = node.child_by_field_name("value")
    names = [value] if value is not None and value.type == "identifier" else []
    for part in node.named_children:
        if part.type == "export_clause":
            names += [s.child_by_field_name("name") for s in part.named_children if s.type == "export_specifier"]
        elif part.type != "comment" and part not in names:
            return False
    return bool(names) and all(name is not None and name.text.decode("utf-8", "replace") in defined for name in names)


def _top_level_names(root) -> set[str]:
    """The names a file's top level declares: its functions, classes and variables (`export` or not)."""
    names: set[str] = set()
    for child in root.named_children:
        declaration = child.child_by_field_name("declaration") if child.type == "export_statement" else child
        if declaration is None:
            continue
        own = declaration.child_by_field_name("name")
        if own is not None:
            names.add(own.text.decode("utf-8", "replace"))
        for declarator in declaration.named_children:
            named = declarator.child_by_field_name("name") if declarator.type == "variable_declarator" else None
            if named is not None:
                names.add(named.text.decode("utf-8", "replace"))
    return names


def _lines_of(node) -> tuple[int, int]:
    """1-based first and last line; a node whose text ends with its line break ends on that line."""
    end_row, end_column = node.end_point
    if end_column == 0 and end_row > node.start_point[0]:
        end_row -= 1
    return node.start_point[0] + 1, end_row + 1


def _directive(node) -> bool:
    """A statement that is a string alone: JavaScript's `'use strict';`, `"use client";` (how the file runs, a
    `<module>` chunk of that line in every CommonJS file otherwise)."""
    return node.type == "expression_statement" and node.named_child_count == 1 and (
        node.named_children[0].type == "string")


def _statement_block(node, depth: int = 0):
    """A function's body block (`function f() {...}`, `const f = () => {...}`, Lua's `function(b) ... end`), its
    nearest `statement_block` (Lua's `block`)."""
    for child in node.named_children:
        if child.type in ("statement_block", "block"):
            return child
        if depth < 3 and child.type not in ("formal_parameters", "type_annotation", "type_parameters"):
            found = _statement_block(child, depth + 1)
            if found is not None:
                return found
    return None
