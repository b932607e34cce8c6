"""Lines as every chunker counts them (the one rule the parsers and the chunk assembly share)."""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """Lines as Python counts them: only \\n, \\r\\n and \\r end a line (str.splitlines also
    splits on form feeds and Unicode separators, which would shift every later chunk)."""
    return _LINE_BREAK.split(text)
