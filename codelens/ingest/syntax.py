"""Code in every language of `codelens.languages` by its syntax tree: one chunker reading the table.

A file is parsed with its row's tree-sitter grammar; the definitions the row names become the
neutral `Definition` records (classes with their members, functions, methods under their class
or, outside it, under the type they belong to: Go's receiver, Rust's `impl`, C++'s `Foo::bar`,
Swift's `extension`, Kotlin's `fun Foo.bar()`), everything else at the top level becomes the
<module> chunk, and `chunker.chunks_from_parsed` makes the chunks and ids, as for Python.

Only the top level, containers (namespaces, `export`, class bodies) and class bodies are walked:
function bodies are never visited, so chunking costs the parse and little more.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import replace
from functools import cache
from typing import NamedTuple

from codelens.chunk import MODULE_SYMBOL, Chunk, Definition, ParsedModule
from codelens.ingest.chunker import chunks_from_parsed
from codelens.ingest.formats import chunk_other_file
from codelens.ingest.lines import definition_within, source_lines, spans_within
from codelens.ingest.pieces import MAX_PIECE_CHARS, split_to_budget
from codelens.languages import CLASS, FUNCTION, Grammar, LanguageRow, grammar_for, language_row

MODULE_PART_CHARS = 2 * MAX_PIECE_CHARS  # a long <module> is cut into parts of about this size
_MAX_DEPTH = 64  # nesting of containers and classes walked (a deeper one is the enclosing chunk's code)
# Where a definition's body starts: its signature is what comes before
_BODY_TYPES = frozenset({
    "block", "statement_block", "compound_statement", "class_body", "interface_body", "enum_body",
    "declaration_list", "field_declaration_list", "body_statement", "template_body", "function_body",
    "enum_class_body", "protocol_body", "constructor_body", "enum_variant_list", "object_type",
    "enum_member_declaration_list", "enum_declaration_list", "do_block", "extension_body",
})
_IDENTIFIER_TYPES = frozenset({
    "identifier", "type_identifier", "simple_identifier", "constant", "name", "property_identifier",
    "field_identifier", "word",
})
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_ELIXIR_DEFINITIONS = {
    "defmodule": CLASS, "defprotocol": CLASS, "defimpl": CLASS,
    "def": FUNCTION, "defp": FUNCTION, "defmacro": FUNCTION, "defmacrop": FUNCTION, "defguard": FUNCTION,
    "defdelegate": FUNCTION,
}
_VALUE_WRAPPERS = frozenset({"as_expression", "satisfies_expression", "parenthesized_expression",
                             "non_null_expression", "await_expression"})
# `export`, `template <...>`: a wrapper whose definition starts where the wrapper does
_WRAPPERS = frozenset({"export_statement", "template_declaration", "ambient_declaration"})
_LONE_CR = re.compile(rb"\r(?!\n)")
_BARE_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]{2,}[ \t]*$", re.M)
# `FMT_EXPORT template <...>`, `UV_EXTERN int uv_run(...)`, `FMT_CONSTEXPR auto f()`: macros before a declaration
_IF_MACRO = re.compile(rb"(?<=\bif )[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t]*\()")  # `if FMT_CONSTEXPR20 (...)`
_PREFIX_MACROS = re.compile(rb"^[ \t]*((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)+)(?=[A-Za-z_~])", re.M)
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")  # C#'s `/// <summary>` XML doc tags
_DOC_MARKERS = ("/**", "/*!", "/*", "*/", "///", "//!", "//", "-- |", "-- ^", "--", "#", "*")  # `-- |`: Haddock


class GrammarUnavailable(Exception):
    """A row's grammar wheel is missing or broken: the message names the language and the package."""


class SyntaxResult(NamedTuple):
    parsed: ParsedModule
    warning: str | None = None


@cache
def load_parser(grammar: Grammar):
    """One parser per grammar for the process (building the Language is the costly part)."""
    try:
        from tree_sitter import Language, Parser

        module = importlib.import_module(grammar.module)
        return Parser(Language(getattr(module, grammar.function)()))
    except (ImportError, AttributeError, TypeError, ValueError, OSError) as exc:
        raise GrammarUnavailable(f"{grammar.module} could not be loaded ({exc}) - "
                                 f"pip install {grammar.package}") from exc


def parse_with_grammar(rel_path: str, text: str, row: LanguageRow, grammar: Grammar) -> SyntaxResult:
    """The definitions and <module> statements of one file; GrammarUnavailable when it cannot be parsed."""
    source = text.encode("utf-8", errors="replace")
    # tree-sitter ends rows at \n only; a lone \r ends a line for source_lines (and old Mac files):
    # read as \n (same bytes, same offsets), every row is the line it is in the chunks' text
    parsed_bytes = _LONE_CR.sub(b"\n", _without_bare_macros(source, row))
    root = load_parser(grammar).parse(parsed_bytes).root_node
    walk = _Walk(row, source, source_lines(text))
    definitions, spans, imports = walk.top_level(root)
    last = max(1, len(source_lines(text.rstrip("\r\n"))))
    parsed = ParsedModule(definitions=[definition_within(d, last) for d in definitions],
                          module_spans=spans_within(spans, last), import_spans=spans_within(imports, last))
    warning = None
    if root.has_error:
        count = _count(parsed.definitions)
        warning = (f"{rel_path}: the {row.name} grammar could not parse all of it; "
                   f"kept the {count} definitions it recovered")
    return SyntaxResult(parsed, warning)


def _without_bare_macros(source: bytes, row: LanguageRow) -> bytes:
    """C and C++: a line that is only a macro's name (`FMT_BEGIN_NAMESPACE`, `FMT_END_EXPORT`) reads
    to the grammar as the start of a declaration and swallows what follows; blanked to spaces
    (same bytes, same lines), the definitions after it parse. So are macros that open a declaration's line."""
    if row.name not in ("c", "cpp"):
        return source
    source = _BARE_MACRO.sub(lambda match: b" " * len(match.group(0)), source)
    source = _IF_MACRO.sub(lambda match: b" " * len(match.group(0)), source)
    return _PREFIX_MACROS.sub(lambda match: b" " * len(match.group(0)), source)


class _Walk:
    """One file's walk: the row, the source bytes and lines every rule reads."""

    def __init__(self, row: LanguageRow, source: bytes, lines: list[str]) -> None:
        self.row = row
        self.source = source
        self.lines = lines
        self.kinds = dict(row.definitions)
        self.skipped = frozenset(row.comments) | frozenset(row.imports) | frozenset(row.preamble)
        self.line_docs = tuple(p for p in row.doc_prefixes if p not in ("/**", "/*!", "/*", "*", "*/"))
        self.block_docs = any(p in ("/**", "/*!", "/*") for p in row.doc_prefixes)

    def text(self, node) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    # ------------------------------------------------------------ walking

    def top_level(self, root) -> tuple[list[Definition], list[tuple[int, int]], list[tuple[int, int]]]:
        definitions: list[Definition] = []
        spans: list[tuple[int, int]] = []
        imports: list[tuple[int, int]] = []
        self._members(root, definitions, spans, imports, depth=0, outer=None)
        return definitions, spans, imports

    def _members(self, node, definitions: list[Definition], spans: list[tuple[int, int]],
                 imports: list[tuple[int, int]], depth: int, outer, owner: str = "") -> None:
        """The definitions directly in node (through its containers); the rest as statement spans."""
        own_name = node.child_by_field_name("name")  # a namespace's name is no statement of it
        taken_until = -1  # a definition that spans its next siblings (Dart's body, Haskell's equations)
        for child in node.named_children:
            kind = child.type
            if child.start_byte < taken_until:
                continue
            if kind in self.skipped and kind not in self.row.containers:
                if kind in self.row.imports:
                    imports.append(_lines_of(child))
                continue
            if depth < _MAX_DEPTH and self._is_owner(child):
                self._members(self._body(child) or child, definitions, [], imports, depth + 1, None,
                              self._owner_name(child))
                continue
            found = self._definition(child, depth, outer if outer is not None else child, owner)
            if found is not None:
                definitions.append(found)
                taken_until = self._last_part(child).end_byte
            elif depth < _MAX_DEPTH and (kind in self.row.containers or kind == "ERROR"):
                before = len(definitions)
                inner_spans: list[tuple[int, int]] = []
                wrapper = kind in _WRAPPERS
                self._members(child, definitions, inner_spans, imports, depth + 1, child if wrapper else None, owner)
                if len(definitions) == before:
                    if kind not in self.skipped:  # PHP's `namespace X;`: a preamble, no statement
                        spans.append(_lines_of(child))
                elif not wrapper:  # `export class`, `template <...> class`: the definition is the statement
                    spans.extend(inner_spans)
            elif not (own_name is not None and child.id == own_name.id):  # `var x = 1`: a statement
                spans.append(_lines_of(child))

    def _definition(self, node, depth: int, outer, owner: str) -> Definition | None:
        kind = self.kinds.get(node.type)
        if kind is not None and self.row.name == "elixir":
            kind = _ELIXIR_DEFINITIONS.get(self._elixir_macro(node))
        if kind is None:
            return None
        named = self._name(node)
        if named is None:
            return None
        name, own = named
        children: list[Definition] = []
        if kind == CLASS and depth < _MAX_DEPTH and node.type != "type_definition":
            self._members(node, children, [], [], depth + 1, None)
        end = _lines_of(self._last_part(node))[1]
        start = _lines_of(outer)[0]
        # a member on its class's line (`class A { m() {} }`) has no comment of its own above it
        starts_line = not self.lines[start - 1][: outer.start_point[1]].strip()
        doc_start, docstring = self._doc_comment(start) if starts_line else (start, "")
        return Definition(
            kind=kind, name=name, start_line=doc_start, end_line=end,
            signature=self._signature(node, outer), docstring=docstring, children=children,
            owner=own or owner,
        )

    # ------------------------------------------------------------ names

    def _name(self, node) -> tuple[str, str] | None:
        """(name, owner type) of a definition node, None when it is no definition after all
        (`const x = 1`, a Go type alias, a struct named without a body)."""
        kind = node.type
        if self.row.name == "elixir":
            return self._elixir_name(node)
        if kind == "method_signature" and self.row.name == "dart":  # the name is in the signature inside
            inner = node.named_children[0] if node.named_children else None
            name = inner.child_by_field_name("name") if inner is not None else None
            return (self.text(name), "") if name is not None else None
        if kind in ("lexical_declaration", "variable_declaration"):
            return self._function_variable(node)
        if kind == "type_alias_declaration":  # TypeScript: a one-line alias is a <module> statement
            name = node.child_by_field_name("name")
            return (self.text(name), "") if name is not None and node.end_point[0] - node.start_point[0] >= 2 else None
        if kind == "expression_statement":
            return self._function_assignment(node)
        if kind in ("public_field_definition", "field_definition"):
            value = node.child_by_field_name("value")
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            return (self.text(name), "") if value is not None and value.type in _FUNCTION_VALUES and name else None
        if kind == "type_declaration":  # Go: a struct or an interface, one per declaration
            specs = [c for c in node.named_children if c.type == "type_spec"]
            shape = specs[0].child_by_field_name("type") if len(specs) == 1 else None
            if shape is None or shape.type not in ("struct_type", "interface_type"):
                return None
            return self.text(specs[0].child_by_field_name("name")), ""
        if kind == "type_definition":  # C: `typedef struct {...} name;`
            shape = node.child_by_field_name("type")
            declarator = node.child_by_field_name("declarator")
            if shape is None or shape.child_by_field_name("body") is None or declarator is None:
                return None
            return self.text(declarator), ""
        if kind in ("struct_specifier", "union_specifier", "enum_specifier", "class_specifier"):
            name = node.child_by_field_name("name")
            if name is None or node.child_by_field_name("body") is None:
                return None
            return _split_owner(_strip_templates(self.text(name)), "")
        if kind == "method_declaration" and node.child_by_field_name("receiver") is not None:
            return self._go_method(node)
        if kind == "companion_object":
            name = _first_of(node, _IDENTIFIER_TYPES)
            return (self.text(name) if name else "Companion"), ""
        name = node.child_by_field_name("name")
        if name is None and node.child_by_field_name("declarator") is not None:
            return self._declarator_name(node)
        if name is None:
            name = _first_of(node, _IDENTIFIER_TYPES)
        if name is None:
            return None
        return _split_owner(self.text(name), self._receiver_type(node, name))

    def _last_part(self, node):
        """The last sibling a definition spans: Dart's function_body after its signature; Haskell's
        equations (`size [] = 0`, `size (x:xs) = ...`) after its type signature and the first one."""
        if self.row.name == "dart" and node.type in ("function_signature", "method_signature"):
            body = node.next_named_sibling
            return body if body is not None and body.type == "function_body" else node
        if self.row.name == "haskell" and node.type in ("signature", "function"):
            name, last = self._haskell_name(node), node
            sibling = node.next_named_sibling
            while sibling is not None and sibling.type in ("function", "haddock") and (
                    sibling.type == "haddock" or self._haskell_name(sibling) == name):
                if sibling.type == "function":
                    last = sibling
                sibling = sibling.next_named_sibling
            return last
        return node

    def _haskell_name(self, node) -> str:
        name = node.child_by_field_name("name")
        return self.text(name) if name is not None else ""

    def _elixir_macro(self, node) -> str:
        target = node.child_by_field_name("target")
        return self.text(target) if target is not None and target.type == "identifier" else ""

    def _elixir_name(self, node) -> tuple[str, str] | None:
        """`defmodule Plug.Conn do`, `def send(conn, body) do`, `def helper(x) when x > 0, do:`."""
        arguments = next((c for c in node.named_children if c.type == "arguments"), None)
        head = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        if head is not None and head.type == "binary_operator":  # a guard: `f(x) when ...`
            head = head.child_by_field_name("left")
        if head is not None and head.type == "call":
            head = head.child_by_field_name("target")
        if head is None or head.type not in ("identifier", "alias"):
            return None
        return self.text(head), ""

    def _function_variable(self, node) -> tuple[str, str] | None:
        """`const fetchUser = async (id) => ...`: a function by another syntax."""
        declarators = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(declarators) != 1:
            return None
        value = declarators[0].child_by_field_name("value")
        name = declarators[0].child_by_field_name("name")
        if value is None or name is None or name.type != "identifier" or not _is_function_value(value):
            return None
        return self.text(name), ""

    def _function_assignment(self, node) -> tuple[str, str] | None:
        """JavaScript's `res.status = function status(code) {...}`, `Foo.prototype.bar = () => ...`,
        `module.exports = function createApplication() {...}`: a function (of its object)."""
        assignment = node.named_children[0] if node.named_children else None
        if assignment is None or assignment.type != "assignment_expression":
            return None
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or right.type not in _FUNCTION_VALUES:
            return None
        target = self.text(left).replace(".prototype", "")
        name, owner = _split_owner(target, "")
        if owner in ("", "module", "exports", "module.exports"):  # what the module exports: by its own name
            own = right.child_by_field_name("name")
            return (self.text(own) if own is not None and name == "exports" else name), ""
        return name, owner

    def _go_method(self, node) -> tuple[str, str] | None:
        receiver = node.child_by_field_name("receiver")
        name = node.child_by_field_name("name")
        types = [n for n in _descendants(receiver, 6) if n.type == "type_identifier"]
        if name is None:
            return None
        return self.text(name), self.text(types[0]) if types else ""

    def _declarator_name(self, node) -> tuple[str, str] | None:
        """C and C++: the name sits at the end of a chain of declarators (`*`, `&`, `f(...)`)."""
        current = node
        for _ in range(16):
            inner = current.child_by_field_name("declarator")
            if inner is None:
                break
            current = inner
        if current.type not in ("identifier", "field_identifier", "qualified_identifier", "destructor_name",
                                "operator_name", "type_identifier"):
            return None
        return _split_owner(_strip_templates(self.text(current)), "")

    def _receiver_type(self, node, name) -> str:
        """Kotlin's `fun Foo.bar()`: the type named before the function's name."""
        if node.type != "function_declaration" or self.row.name != "kotlin":
            return ""
        for child in node.named_children:
            if child.start_byte >= name.start_byte:
                break
            if child.type in ("user_type", "nullable_type"):
                return _strip_templates(self.text(child)).rstrip("?")
        return ""

    def _is_owner(self, node) -> bool:
        if node.type in self.row.owners:
            return True
        # Swift: `extension Foo { ... }` is a class_declaration that starts with `extension`
        return node.type == "class_declaration" and node.child_count > 0 and node.children[0].type == "extension"

    def _owner_name(self, node) -> str:
        shape = node.child_by_field_name("type") or node.child_by_field_name("name") or _first_of(
            node, frozenset({"user_type", "type_identifier"}))
        if shape is None:
            return ""
        return _strip_templates(self.text(shape)).split("::")[-1].strip()

    # ------------------------------------------------------------ text around a definition

    def _body(self, node):
        body = node.child_by_field_name("body")
        if body is not None:
            return body
        return next((c for c in node.named_children if c.type in _BODY_TYPES), None)

    def _signature(self, node, outer) -> str:
        """From the definition's first token (its `export`, `template <...>`) up to its body."""
        body = self._body(node)
        end = body.start_byte if body is not None else node.end_byte
        # Ruby: a comment between the header and the body is no part of the signature
        end = min([end] + [c.start_byte for c in node.named_children
                           if c.type in self.row.comments and c.start_byte > outer.start_byte])
        header = self.source[outer.start_byte:end].decode("utf-8", errors="replace")
        if body is None:
            header = header.split("\n", 1)[0]
        return " ".join(header.split()).rstrip("{ =").strip()

    def _doc_comment(self, start_line: int) -> tuple[int, str]:
        """(first line, text) of the comment run directly above a definition (no blank line between)."""
        index = start_line - 2  # the line above, 0-based
        first = start_line
        if self.block_docs and index >= 1 and not self.lines[index].strip() and (
                self.lines[index - 1].strip().endswith("*/")):
            index -= 1  # JSDoc a blank line above (express): still the definition's
        while index >= 0:
            stripped = self.lines[index].strip()
            if self.block_docs and stripped.endswith("*/"):
                top = index
                while top >= 0 and "/*" not in self.lines[top]:
                    top -= 1
                if top < 0 or not self.lines[top].strip().startswith("/*"):
                    break
                first, index = top + 1, top - 1
            elif (stripped and self.line_docs and stripped.startswith(self.line_docs)) or (
                    self.row.lead_prefixes and stripped.startswith(self.row.lead_prefixes)):  # Rust's `#[derive]`
                first, index = index + 1, index - 1
            else:
                break
        if first == start_line:
            return start_line, ""
        return first, _clean_doc(self.lines[first - 1 : start_line - 1])


def _is_function_value(value) -> bool:
    """`() => ...`, `function () {...}`, and a call handed one: `forwardRef((props) => ...)`,
    zod's `$constructor("$ZodString", (inst, def) => {...})`: what the constant is, is that function."""
    while value.type in _VALUE_WRAPPERS and value.named_children:
        value = value.named_children[0]
    if value.type in _FUNCTION_VALUES:
        return True
    arguments = value.child_by_field_name("arguments") if value.type == "call_expression" else None
    return arguments is not None and any(a.type in _FUNCTION_VALUES for a in arguments.named_children)


def _clean_doc(lines: list[str]) -> str:
    """The words of a doc comment: markers, XML tags and attribute lines gone."""
    kept = []
    for line in lines:
        text = line.strip()
        if text.startswith("#["):
            continue
        for marker in _DOC_MARKERS:
            if text.startswith(marker):
                text = text[len(marker):]
                break
        text = _TAG.sub("", text.removesuffix("*/")).strip()
        if text or kept:
            kept.append(text)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)


def _split_owner(name: str, owner: str) -> tuple[str, str]:
    """`Foo::bar` -> (bar, Foo); `Foo.bar` (Lua, Kotlin) likewise; a plain name keeps its owner."""
    for separator in ("::", ":", "."):
        if separator in name:
            head, _, tail = name.rpartition(separator)
            return tail.strip(), ".".join(part for part in head.replace("::", ".").split(".") if part)
    return name.strip(), owner


def _strip_templates(text: str) -> str:
    """`Wrapper<T>` -> `Wrapper`; `formatter<T, Char>::parse` -> `formatter::parse`."""
    if "operator" in text:  # `operator<`, `Foo::operator[]`: the brackets are the name
        return text.strip()
    out, depth = [], 0
    for char in text:
        if char in "<[":
            depth += 1
        elif char in ">]" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out).strip().lstrip("*&").strip()


def _first_of(node, types: frozenset[str]):
    return next((c for c in node.named_children if c.type in types), None)


def _descendants(node, depth: int):
    stack = [(node, 0)]
    while stack:
        current, level = stack.pop()
        yield current
        if level < depth:
            stack.extend((child, level + 1) for child in reversed(current.named_children))


def _lines_of(node) -> tuple[int, int]:
    """1-based first and last line; a node whose text ends with its line break ends on that line."""
    end_row, end_column = node.end_point
    if end_column == 0 and end_row > node.start_point[0]:
        end_row -= 1
    return node.start_point[0] + 1, end_row + 1


def _count(definitions: list[Definition]) -> int:
    return sum(1 + _count(d.children) for d in definitions)


def chunk_code_file(rel_path: str, text: str) -> tuple[list[Chunk], list[str]]:
    """The chunks of a file in a language with a grammar, and warnings; its grammar missing: the
    plain-text chunker's pieces and a warning naming the package (never nothing)."""
    row, grammar = language_row(rel_path), grammar_for(rel_path)
    if row is None or grammar is None:
        return chunk_other_file(rel_path, text, "text"), []
    try:
        result = parse_with_grammar(rel_path, text, row, grammar)
    except GrammarUnavailable as exc:
        return chunk_other_file(rel_path, text, "text"), [
            f"the {row.name} grammar is unavailable, its files are indexed as plain text: {exc}"]
    except (ValueError, RuntimeError, RecursionError) as exc:  # the parser gave up on this file
        return chunk_other_file(rel_path, text, "text"), [f"{rel_path}: not parsed ({exc}); indexed as plain text"]
    chunks = chunks_from_parsed(rel_path, text, result.parsed)
    return _module_in_parts(chunks, source_lines(text)), [result.warning] if result.warning else []


def _module_in_parts(chunks: list[Chunk], lines: list[str]) -> list[Chunk]:
    """A long <module> (a TypeScript test file's `describe` calls, a header's prototypes, what a
    grammar could not parse) in parts of about MODULE_PART_CHARS: `<module>`, `<module> (2)`...
    as long document pieces are, so each part is embedded whole. Python's is left as it is."""
    module = next((c for c in chunks if c.symbol == MODULE_SYMBOL), None)
    if module is None or len(module.code) <= MODULE_PART_CHARS * 3 // 2:
        return chunks
    spans = list(module.line_spans) or [(module.start_line, module.end_line)]
    pieces = [part for start, end in spans for part in split_to_budget(lines, start, end, MODULE_PART_CHARS)]
    groups: list[list[tuple[int, int]]] = [[]]
    size = 0
    for start, end in pieces:
        chars = sum(len(lines[n - 1]) + 1 for n in range(start, end + 1))
        if groups[-1] and size + chars > MODULE_PART_CHARS:
            groups.append([])
            size = 0
        groups[-1].append((start, end))
        size += chars
    parts = []
    for number, group in enumerate(groups, 1):
        symbol = MODULE_SYMBOL if number == 1 else f"{MODULE_SYMBOL} ({number})"
        parts.append(replace(
            module, chunk_id=f"{module.path}::{symbol}", symbol=symbol, start_line=group[0][0],
            end_line=group[-1][1], code="\n".join("\n".join(lines[s - 1 : e]) for s, e in group),
            line_spans=tuple(group) if len(group) > 1 else ()))
    position = chunks.index(module)
    return chunks[:position] + parts + chunks[position + 1 :]
