"""The bytes a grammar reads of a file: the file itself, with what its grammar cannot read blanked
to spaces. Same bytes, same line breaks: every node's lines and offsets are the file's own, so the
chunks' lines and text are read from the original.

- C and C++: a macro alone on its line, or opening a declaration (`FMT_EXPORT`, `UV_EXTERN`);
- 1C / OneScript: `#Использовать lib` (OneScript's imports), a directive the BSL grammar does not know;
- Delphi: `Customers in 'Customers.pas'` in a program's `uses` clause;
- Vue and Svelte: everything but their `<script>` blocks' contents (the markup is the `<template>`
  piece, `markup_runs`).

Pure functions of a row and bytes; the chunker (`syntax`) and the code graph both read the same bytes.
"""

from __future__ import annotations

import re

from codelens.languages import LanguageRow

_LONE_CR = re.compile(rb"\r(?!\n)")
_BARE_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]{2,}[ \t]*$", re.M)
# `FMT_EXPORT template <...>`, `UV_EXTERN int uv_run(...)`, `FMT_CONSTEXPR auto f()`: macros before a declaration
_IF_MACRO = re.compile(rb"(?<=\bif )[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*(?=[ \t]*\()")  # `if FMT_CONSTEXPR20 (...)`
_PREFIX_MACROS = re.compile(rb"^[ \t]*((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]+)+)(?=[A-Za-z_~])", re.M)
# OneScript's `#Использовать json` / `#Use json` (a bytes pattern: \b knows no Cyrillic, hence the lookahead)
_ONESCRIPT_USE = re.compile("^[ \t]*#(?:Использовать|использовать|Use|use)(?=[ \t])[^\r\n]*".encode(), re.M)
_PASCAL_USES = re.compile(rb"\buses\b[^;]*;", re.I)
_PASCAL_IN_FILE = re.compile(rb"[ \t\r\n]+in[ \t\r\n]+'[^'\r\n]*'", re.I)
_SCRIPT = re.compile(rb"<script\b[^>]*>(.*?)</script\s*>", re.S | re.I)
_SCRIPT_OR_STYLE = re.compile(rb"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)


def parser_bytes(row: LanguageRow, source: bytes) -> bytes:
    """What the row's grammar parses of source (a lone \\r read as \\n: tree-sitter ends rows at \\n only)."""
    if row.sfc:
        source = _only_scripts(source)
    elif row.name in ("c", "cpp"):
        source = _without_bare_macros(source)
    elif row.name == "bsl":
        source = _ONESCRIPT_USE.sub(_blank, source)
    elif row.name == "pascal":
        source = _PASCAL_USES.sub(lambda uses: _PASCAL_IN_FILE.sub(_blank, uses.group(0)), source)
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


def _only_scripts(source: bytes) -> bytes:
    kept = bytearray(re.sub(rb"[^\r\n]", b" ", source))
    for script in _SCRIPT.finditer(source):
        kept[script.start(1):script.end(1)] = script.group(1)
    return bytes(kept)


def _without_bare_macros(source: bytes) -> bytes:
    """C and C++: a line that is only a macro's name (`FMT_BEGIN_NAMESPACE`, `FMT_END_EXPORT`) reads
    to the grammar as the start of a declaration and swallows what follows; blanked, the definitions
    after it parse. So are macros that open a declaration's line."""
    source = _BARE_MACRO.sub(_blank, source)
    source = _IF_MACRO.sub(_blank, source)
    return _PREFIX_MACROS.sub(_blank, source)


def _blank(match: re.Match[bytes]) -> bytes:
    """The matched bytes as spaces, its line breaks kept."""
    return re.sub(rb"[^\r\n]", b" ", match.group(0))
