"""Lines as every chunker counts them (the one rule the parsers and the chunk assembly share)."""

from __future__ import annotations

import re

from codelens.chunk import Definition

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """Lines as Python counts them: only \\n, \\r\\n and \\r end a line (str.splitlines also
    splits on form feeds and Unicode separators, which would shift every later chunk)."""
    return _LINE_BREAK.split(text)


def definition_within(definition: Definition, last: int) -> Definition:
    """A parser's lines clamped to the file's last line (tree-sitter may end a node a row past it)."""
    definition.start_line = min(definition.start_line, last)
    definition.end_line = min(definition.end_line, last)
    definition.children = [definition_within(child, last) for child in definition.children]
    return definition


def spans_within(spans: list[tuple[int, int]], last: int) -> list[tuple[int, int]]:
    return [(min(start, last), min(end, last)) for start, end in spans]
