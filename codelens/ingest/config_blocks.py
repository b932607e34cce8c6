"""Java properties, Gradle, Protocol Buffers, GraphQL and HCL/Terraform: one piece per key group or block.

- `.properties` (Spring's `application-*.properties` too): keys grouped by their first dotted
  segments, `spring.datasource.url` under `spring.datasource` (`server.port` under `server`, a run of
  keys without a dot `<keys>`, one alone its key), the comment lines just above a group kept with it. Read by a line
  parser of our own: the format is logical lines (a trailing `\\` continues), `#`/`!` comments, and
  a key ended by `=`, `:` or a blank.
- `build.gradle` (Groovy) and `build.gradle.kts` (Kotlin DSL): one piece per top-level block, named by
  its head (`dependencies`, `plugins`, `tasks.named('test')`); one-line statements with no blank line
  between them one piece, named by their first identifiers (`group, version`).
- `.proto`: one piece per message, service or enum, named by the type (`HelloRequest`); the header
  (`syntax`, `package`, `import`, `option`) `<header>`.
- `.graphql` / `.gql`: one piece per definition (type, input, enum, interface, schema, operation,
  fragment), named by its name (`User`, `Query`; an `extend type Query` is `Query#2`), its description
  string kept with it.
- `.tf`, `.tfvars`, `.hcl`: one piece per block by tree-sitter-hcl, named by its type and labels
  (`resource "aws_db_instance" "main"` -> `resource.aws_db_instance.main`); attributes one piece per run.

Gradle, proto and GraphQL are read by one brace reader (strings and comments skipped, depth counted):
a broken file (an unclosed brace) still gives its pieces, the last one running to the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from codelens.ingest.pieces import Piece

MAX_NAME_CHARS = 160  # a name, not a line: long Terraform labels stay whole
RUN_NAMES = 3  # a run of one-line statements is named by its first identifiers, at most this many
_PROPERTY_KEY = re.compile(r"(?:\\.|[^=:\s\\])+")
_IDENTIFIER = re.compile(r"[A-Za-z_@][\w.-]*")
_GRAPHQL_KEYWORDS = frozenset({"type", "input", "enum", "interface", "union", "scalar", "schema", "directive",
                               "query", "mutation", "subscription", "fragment"})
_PROTO_KINDS = frozenset({"message", "service", "enum", "extend"})


# ---------------------------------------------------------------- .properties


def properties_pieces(lines: Sequence[str]) -> list[Piece]:
    """Runs of keys of one group (`spring.datasource`), each with the comments just above it."""
    runs: list[tuple[int, str, list[str]]] = []  # (first line, group, its keys)
    for number, key in _property_keys(lines):
        group = property_group(key)
        if runs and _nested_groups(runs[-1][1], group):  # `server.port` then `server.ssl.enabled`: `server`
            runs[-1] = (runs[-1][0], min(runs[-1][1], group, key=len), runs[-1][2])
        elif not runs or runs[-1][1] != group:
            runs.append((_comments_above(lines, number, ("#", "!")), group, []))
        runs[-1][2].append(key)
    if not runs:
        return [Piece("<document>", 1, len(lines))]
    pieces = []
    for index, (start, group, keys) in enumerate(runs):
        end = runs[index + 1][0] - 1 if index + 1 < len(runs) else len(lines)
        name = keys[0] if group == "<keys>" and len(keys) == 1 else group
        pieces.append(Piece(name, 1 if index == 0 else start, end))
    return pieces


def property_group(key: str) -> str:
    """`spring.datasource.url` -> `spring.datasource`, `server.port` -> `server`, `welcome` -> `<keys>`."""
    parts = key.split(".")
    if len(parts) == 1:
        return "<keys>"
    return ".".join(parts[:2]) if len(parts) > 2 else parts[0]


def _nested_groups(first: str, second: str) -> bool:
    return first != second and "<keys>" not in (first, second) and (
        second.startswith(f"{first}.") or first.startswith(f"{second}."))


def _property_keys(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(line, key) of each logical line that holds a key (continuation lines skipped)."""
    keys = []
    continued = False
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        starts = not continued and stripped and not stripped.startswith(("#", "!"))
        if starts and (match := _PROPERTY_KEY.match(stripped)):
            keys.append((number, match.group().replace("\\", "")))
        trailing = len(line) - len(line.rstrip("\\"))
        continued = (continued or starts) and trailing % 2 == 1
    return keys


def _comments_above(lines: Sequence[str], number: int, prefixes: tuple[str, ...]) -> int:
    """The first line of the comment lines directly above line `number` (no blank line between)."""
    while number > 1 and lines[number - 2].strip().startswith(prefixes):
        number -= 1
    return number


# ---------------------------------------------------------------- the brace reader


@dataclass(frozen=True)
class Statement:
    """A top-level statement: its lines, its head (the text before its first `{`, strings kept)
    and whether it holds a block."""

    start_line: int
    end_line: int
    head: str
    block: bool


@dataclass(frozen=True)
class Syntax:
    line_comments: tuple[str, ...]
    block_comments: bool  # /* ... */
    quotes: tuple[str, ...]  # longest first: triple quotes before single ones
    semicolon_ends: bool = False


GRADLE = Syntax(("//",), True, ('"""', "'''", '"', "'"))
PROTO = Syntax(("//",), True, ('"', "'"), semicolon_ends=True)
GRAPHQL = Syntax(("#",), False, ('"""', '"'))
HCL = Syntax(("#", "//"), True, ('"',))


def top_level_statements(text: str, syntax: Syntax) -> list[Statement]:
    """The statements at depth 0, in order: one ends at a newline (or `;`) outside every bracket."""
    reader = _Reader(text, syntax)
    reader.run()
    return reader.statements


class _Reader:
    def __init__(self, text: str, syntax: Syntax) -> None:
        self.text, self.syntax = text, syntax
        self.statements: list[Statement] = []
        self.line, self.depth = 1, 0
        self.start: int | None = None  # the statement's first line
        self.start_at = self.head_end = 0  # offsets: its first character, its first top-level `{`
        self.block = False

    def run(self) -> None:
        at = 0
        while at < len(self.text):
            at = self._step(at)
        self._close(self.line, len(self.text))

    def _step(self, at: int) -> int:
        text, syntax = self.text, self.syntax
        char = text[at]
        if char == "\n":
            if self.depth == 0:
                self._close(self.line, at)
            self.line += 1
            return at + 1
        if text.startswith(syntax.line_comments, at):
            end = text.find("\n", at)
            return len(text) if end < 0 else end
        if syntax.block_comments and text.startswith("/*", at):
            end = text.find("*/", at + 2)
            end = len(text) if end < 0 else end + 2
            self.line += text.count("\n", at, end)
            return end
        if char.isspace():
            return at + 1
        if self.start is None:
            self.start, self.start_at = self.line, at
        quote = next((q for q in syntax.quotes if text.startswith(q, at)), None)
        if quote is not None:
            return self._string(at, quote)
        if char in "{([":
            if char == "{" and self.depth == 0 and not self.block:
                self.block, self.head_end = True, at
            self.depth += 1
        elif char in "})]":
            self.depth = max(0, self.depth - 1)
        elif char == ";" and syntax.semicolon_ends and self.depth == 0:
            self._close(self.line, at)
        return at + 1

    def _string(self, at: int, quote: str) -> int:
        text = self.text
        end = at + len(quote)
        while end < len(text) and not text.startswith(quote, end):
            if len(quote) == 1 and text[end] == "\n":
                break  # an unclosed one-line string ends with its line
            end += 2 if text[end] == "\\" else 1
        end = min(len(text), end + (len(quote) if text.startswith(quote, end) else 0))
        self.line += text.count("\n", at, end)
        return end

    def _close(self, end_line: int, at: int) -> None:
        if self.start is not None:
            head = " ".join(self.text[self.start_at : self.head_end if self.block else at].split())
            self.statements.append(Statement(self.start, end_line, head, self.block))
        self.start, self.block = None, False


def _closed_line(statement: Statement, lines: Sequence[str]) -> int:
    return min(statement.end_line, len(lines))


def statement_pieces(lines: Sequence[str], statements: Sequence[Statement], comment_prefixes: tuple[str, ...],
                     block_name: Callable[[Statement], str], run_name: Callable[[Sequence[Statement]], str],
                     leading: Callable[[Statement], bool] = lambda statement: False,
                     runs_cross_blank_lines: bool = False) -> list[Piece]:
    """A piece per statement over one line (with the comments and leading statements just above
    it); one-line statements with no blank line between them (or any, runs_cross_blank_lines) one piece."""
    groups: list[list[Statement]] = []
    held: list[Statement] = []  # descriptions waiting for the statement they describe
    for statement in statements:
        if leading(statement):
            held.append(statement)
            continue
        alone = statement.end_line > statement.start_line
        after_blank = bool(groups) and _blank_between(lines, groups[-1][-1].end_line, statement.start_line)
        joins = (groups and not alone and not held and _one_line_run(groups[-1])
                 and (runs_cross_blank_lines or not after_blank))
        if joins:
            groups[-1].append(statement)
        else:
            groups.append([*held, statement])
        held = []
    pieces = []
    for group in groups:
        start = _comments_above(lines, group[0].start_line, comment_prefixes)
        end = _closed_line(group[-1], lines)
        named = [s for s in group if not leading(s)]
        single = len(named) == 1 and named[0].end_line > named[0].start_line
        name = block_name(named[0]) if single else run_name(named)
        pieces.append(Piece(name[:MAX_NAME_CHARS] or "<statements>", start, end))
    return pieces or [Piece("<document>", 1, len(lines))]


def _one_line_run(group: Sequence[Statement]) -> bool:
    return all(statement.end_line == statement.start_line for statement in group)


def _blank_between(lines: Sequence[str], after: int, before: int) -> bool:
    return any(not lines[n - 1].strip() for n in range(after + 1, min(before, len(lines) + 1)))


def joined_names(names: Sequence[str]) -> str:
    """`group, version`: the distinct names of a run, at most RUN_NAMES of them."""
    distinct = list(dict.fromkeys(name for name in names if name))
    more = ", …" if len(distinct) > RUN_NAMES else ""
    return ", ".join(distinct[:RUN_NAMES]) + more


def _first_identifier(head: str) -> str:
    match = _IDENTIFIER.match(head)
    return match.group().split(".")[0] if match else ""


# ---------------------------------------------------------------- Gradle, proto, GraphQL


def gradle_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    return statement_pieces(lines, top_level_statements(text, GRADLE), ("//", "/*", "*"),
                            lambda statement: statement.head.rstrip("{ ").strip(),
                            lambda run: joined_names([_first_identifier(s.head) for s in run]))


def proto_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    return statement_pieces(lines, top_level_statements(text, PROTO), ("//", "/*", "*"),
                            lambda statement: _proto_name(statement.head), _proto_run_name,
                            runs_cross_blank_lines=True)  # syntax, package, imports, options: one header


def _proto_name(head: str) -> str:
    words = head.split()
    if len(words) >= 2 and words[0] in _PROTO_KINDS:
        return words[1] if words[0] != "extend" else f"extend {words[1]}"
    return " ".join(words[:2])


def _proto_run_name(run: Sequence[Statement]) -> str:
    if all(s.head.split()[:1] and s.head.split()[0] in ("syntax", "edition", "package", "import", "option")
           for s in run):
        return "<header>"
    return joined_names([_proto_name(s.head) for s in run])


def graphql_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    return statement_pieces(lines, top_level_statements(text, GRAPHQL), ("#",),
                            lambda statement: graphql_name(statement.head),
                            lambda run: joined_names([graphql_name(s.head) for s in run]),
                            leading=lambda statement: statement.head.startswith('"') and not statement.block)


def graphql_name(head: str) -> str:
    """`extend type Query` -> Query, `directive @auth on FIELD` -> @auth, an anonymous `{ ... }` -> query."""
    words = [word for word in head.replace("(", " ").replace("{", " ").replace(":", " ").split() if word]
    if words and words[0] == "extend":
        words = words[1:]
    if not words:
        return "query"
    if words[0] in _GRAPHQL_KEYWORDS and len(words) > 1:
        return words[1].rstrip("=")
    return words[0]


# ---------------------------------------------------------------- HCL / Terraform


@lru_cache(maxsize=1)
def _hcl_parser():
    """The tree-sitter-hcl parser (the grammar is compiled into its pinned wheel)."""
    import tree_sitter_hcl
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_hcl.language()))


def hcl_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    """A piece per block (`resource.aws_db_instance.main`), a run of attributes one piece."""
    try:
        parser = _hcl_parser()
    except ImportError:  # tree-sitter-hcl not installed: the brace reader gives the same names
        return hcl_pieces_by_braces(text, lines)
    tree = parser.parse(text.encode("utf-8"))
    body = next((child for child in tree.root_node.children if child.type == "body"), None)
    nodes = [child for child in (body.children if body is not None else []) if child.type in ("block", "attribute")]
    statements = [Statement(node.start_point[0] + 1, node.end_point[0] + 1, _hcl_name(node), node.type == "block")
                  for node in nodes]
    return _hcl_statement_pieces(lines, statements)


def hcl_pieces_by_braces(text: str, lines: Sequence[str]) -> list[Piece]:
    statements = [Statement(s.start_line, s.end_line, _hcl_head_name(s.head), s.block)
                  for s in top_level_statements(text, HCL)]
    return _hcl_statement_pieces(lines, statements)


def _hcl_statement_pieces(lines: Sequence[str], statements: Sequence[Statement]) -> list[Piece]:
    return statement_pieces(lines, statements, ("#", "//", "/*", "*"),
                            lambda statement: statement.head, lambda run: joined_names([s.head for s in run]))


def _hcl_head_name(head: str) -> str:
    """`resource "aws_db_instance" "main"` -> resource.aws_db_instance.main; `region = ...` -> region."""
    head = head.split("=", 1)[0]
    return ".".join(word.strip("\"'") for word in head.split() if word.strip("\"'"))


def _hcl_name(node) -> str:
    parts = []
    for child in node.children:
        if child.type == "identifier":
            parts.append(child.text.decode("utf-8", "replace"))
        elif child.type == "string_lit":
            parts.append("".join(c.text.decode("utf-8", "replace") for c in child.children
                                 if c.type == "template_literal"))
        elif child.type in ("block_start", "="):
            break
    return ".".join(part for part in parts if part)
