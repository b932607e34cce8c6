"""SQL files (schemas, migrations) by their statements: each `CREATE TABLE / VIEW / MATERIALIZED VIEW /
FUNCTION / PROCEDURE / TRIGGER / TYPE / INDEX / SEQUENCE` a piece named by what it creates
(`migrations/0001_init.sql::public.users`), with the comment lines directly above it; the statements
between them (`ALTER`, `INSERT`, `GRANT`...) one `<statements>` piece per run.

Read by the tree-sitter-sql grammar (its pinned wheel: PostgreSQL's `$$` bodies, MySQL and SQLite's
common forms). What it cannot parse stays in the `<statements>` pieces; without the grammar the file
is one `<file>` piece, as any text file. Pure: lines in, pieces out.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from codelens.ingest.pieces import Piece

# What a statement creates -> the node holding its name (the first of these among its children)
_CREATES = frozenset({"create_table", "create_view", "create_materialized_view", "create_function",
                      "create_procedure", "create_trigger", "create_type", "create_index", "create_sequence"})
_NAMES = ("object_reference", "identifier")
STATEMENTS_SYMBOL = "<statements>"


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
    other: tuple[int, int] | None = None  # the run of statements since the last definition
    for node in root.named_children:
        start, end = node.start_point[0] + 1, _end_line(node)
        named = _created_name(node, source)
        if named is None:
            if node.type != "comment":
                other = (other[0] if other else start, end)
            continue
        if other is not None:
            pieces.append(Piece(STATEMENTS_SYMBOL, *other))
            other = None
        pieces.append(Piece(named, _comment_start(lines, start), end))
    if other is not None:
        pieces.append(Piece(STATEMENTS_SYMBOL, *other))
    return pieces or [Piece("<file>", 1, len(lines))]


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
    """The first line of the `--` comment run directly above line start (start itself without one)."""
    while start > 1 and lines[start - 2].strip().startswith("--"):
        start -= 1
    return start


def _end_line(node) -> int:
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1
