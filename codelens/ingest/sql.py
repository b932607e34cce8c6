"""SQL files (schemas, migrations) by their statements: each `CREATE TABLE / VIEW / MATERIALIZED VIEW /
FUNCTION / PROCEDURE / TRIGGER / TYPE / INDEX / SEQUENCE` a piece named by what it creates
(`migrations/0001_init.sql::public.users`), with the comment lines directly above it and the statements
right after it that name it (`ALTER TABLE public.users OWNER TO`, `... ADD COLUMN`); every other run of
statements one `<statements>` piece.

Read by the tree-sitter-sql grammar (its pinned wheel: PostgreSQL's `$$` bodies, MySQL and SQLite's
common forms); where it gives up, a line opening `CREATE <kind> <name>` still starts a definition, and
the rest stays in `<statements>` pieces; without the grammar the file is one `<file>` piece, as any text
file. Pure: lines in, pieces out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from codelens.chunk import Chunk
from codelens.ingest.pieces import Piece

# What a statement creates -> the node holding its name (the first of these among its children)
_CREATES = frozenset({"create_table", "create_view", "create_materialized_view", "create_function",
                      "create_procedure", "create_trigger", "create_type", "create_index", "create_sequence"})
_NAMES = ("object_reference", "identifier")
STATEMENTS_SYMBOL = "<statements>"
_CREATE_LINE = re.compile(
    r"^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+|UNIQUE\s+|MATERIALIZED\s+)?"
    r"(?:TABLE|VIEW|FUNCTION|PROCEDURE|TRIGGER|TYPE|INDEX|SEQUENCE|AGGREGATE)\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"([\w.\"`]+)", re.IGNORECASE)


@cache
def _parser():
    """The SQL grammar's parser, or None when its wheel is missing (the file is then one piece)."""
    try:
        import tree_sitter_sql
        from tree_sitter import Language, Parser

        return Parser(Language(tree_sitter_sql.language()))
    except (ImportError, AttributeError, TypeError, ValueError, OSError):
        return None


def sql_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    """The file's definitions, and the runs of other statements between them, in order."""
    parser = _parser()
    if parser is None or not lines:
        return [Piece("<file>", 1, len(lines))]
    source = text.encode("utf-8", errors="replace")
    root = parser.parse(source).root_node
    pieces: list[Piece] = []
    for start, end, named in _statements(root, source, lines):
        if named is not None:
            first = max(_comment_start(lines, start), pieces[-1].end_line + 1 if pieces else 1)
            pieces.append(Piece(named, first, end))
        elif pieces and pieces[-1].symbol != STATEMENTS_SYMBOL and _mentions(lines, start, end, pieces[-1].symbol):
            # `ALTER TABLE public.actor OWNER TO`, `... ADD COLUMN`: a statement right after a definition about it
            pieces[-1] = Piece(pieces[-1].symbol, pieces[-1].start_line, end)
        elif pieces and pieces[-1].symbol == STATEMENTS_SYMBOL:
            pieces[-1] = Piece(STATEMENTS_SYMBOL, pieces[-1].start_line, end)
        else:
            pieces.append(Piece(STATEMENTS_SYMBOL, start, end))
    return pieces or [Piece("<file>", 1, len(lines))]


def _statements(root, source: bytes, lines: Sequence[str]) -> list[tuple[int, int, str | None]]:
    """(first line, last line, what it creates or None) of each top-level statement, comments left out;
    where the grammar gave up (an ERROR node, a dialect it does not know), a line opening `CREATE ...`
    at its first column (never one inside a body) starts a definition of its own."""
    found: list[tuple[int, int, str | None]] = []
    for node in root.named_children:
        if node.type == "comment":
            continue
        start, end = node.start_point[0] + 1, _end_line(node)
        if node.type == "statement" and not node.has_error:
            found.append((start, end, _created_name(node, source)))
            continue
        for first, last, name in _by_create_lines(lines, start, end):
            found.append((first, last, name))
    return found


def _by_create_lines(lines: Sequence[str], start: int, end: int) -> list[tuple[int, int, str | None]]:
    """Lines start..end cut where a line opens a `CREATE <kind> <name>`."""
    cuts = [(n, match.group(1).replace('"', "").replace("`", "")) for n in range(start, end + 1)
            if (match := _CREATE_LINE.match(lines[n - 1]))]
    if not cuts or cuts[0][0] != start:
        cuts.insert(0, (start, None))
    return [(first, (cuts[i + 1][0] - 1) if i + 1 < len(cuts) else end, name) for i, (first, name) in enumerate(cuts)]


def _mentions(lines: Sequence[str], start: int, end: int, name: str) -> bool:
    bare = name.rsplit(".", 1)[-1].lower()
    return any(bare in lines[n - 1].lower() for n in range(start, end + 1))


def is_sql_definition(chunk: Chunk) -> bool:
    """A piece of a `.sql` file that is a definition (a table, a view, a function...): code, for a
    repository that is its schema and its migrations alone."""
    return chunk.path.lower().endswith(".sql") and not chunk.symbol.startswith("<")


def is_sql_statements(chunk: Chunk) -> bool:
    """A run of statements of a `.sql` file that create nothing (`<statements>`, `<statements> (2)`)."""
    return chunk.path.lower().endswith(".sql") and chunk.symbol.startswith(STATEMENTS_SYMBOL)


def _created_name(statement, source: bytes) -> str | None:
    """`public.users` for `CREATE TABLE public.users (...)`; None for any other statement."""
    if statement.type != "statement" or not statement.named_children:
        return None
    created = statement.named_children[0]
    if created.type not in _CREATES:
        return None
    name = next((c for c in created.named_children if c.type in _NAMES), None)
    if name is None:
        return None
    return source[name.start_byte:name.end_byte].decode("utf-8", errors="replace").replace('"', "").replace("`", "")


def _comment_start(lines: Sequence[str], start: int) -> int:
    """The first line of the `--` comment run directly above line start, or one blank line above it
    (pg_dump's `-- Name: actor; Type: TABLE`); start itself without one."""
    above = start - 1
    if above > 1 and not lines[above - 1].strip() and lines[above - 2].strip().startswith("--"):
        above -= 1
    first = start
    while above >= 1 and lines[above - 1].strip().startswith("--"):
        first = above
        above -= 1
    return first


def _end_line(node) -> int:
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1
