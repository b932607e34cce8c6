"""The bytes a grammar reads of a file: the file itself, with what its grammar cannot read blanked
to spaces. Same bytes, same line breaks: every node's lines and offsets are the file's own, so the
chunks' lines and text are read from the original.

What each language blanks is its own module's (`LanguageRow.parser_bytes` in `codelens/languages/`):
C's, C++'s and Objective-C's bare macros and attribute macros after a declarator, OneScript's
`#Использовать`, a Delphi program's `uses X in 'X.pas'` (and its strings' doubled quotes), Kotlin's
`when` guards and annotated accessors, everything but a Vue or Svelte component's `<script>` blocks
(its markup is the `<template>` piece, `markup_runs`); a `;` where Kotlin's or TypeScript's grammar
needs one to end the statement above.

Pure functions of a row and bytes; the chunker (`syntax`) and the code graph both read the same bytes.
"""

from __future__ import annotations

import re

from codelens.languages import LanguageRow

_LONE_CR = re.compile(rb"\r(?!\n)")
_SCRIPT_OR_STYLE = re.compile(rb"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def parser_bytes(row: LanguageRow, source: bytes) -> bytes:
    """What the row's grammar parses of source (a lone \\r read as \\n: tree-sitter ends rows at \\n only)."""
    if row.parser_bytes is not None:  # the language's own blanking (its module in codelens/languages/)
        source = row.parser_bytes(source)
    return _LONE_CR.sub(b"\n", source)


def markup_runs(source: bytes) -> list[tuple[int, int]]:
    """A component's markup: the (first, last) 1-based lines of each run of lines outside its
    `<script>` and `<style>` blocks (Vue's `<template>`, Svelte's HTML), blank runs left out."""
    in_block: set[int] = set()
    for block in _SCRIPT_OR_STYLE.finditer(source):
        first = source.count(b"\n", 0, block.start()) + 1
        in_block.update(range(first, first + block.group(0).count(b"\n") + 1))
    runs: list[tuple[int, int]] = []
    in_run = False  # blank lines go on a run; a block ends it
    for number, line in enumerate(source.split(b"\n"), 1):
        if number in in_block:
            in_run = False
        elif line.strip():
            if in_run:
                runs[-1] = (runs[-1][0], number)
            else:
                runs.append((number, number))
            in_run = True
    return runs
