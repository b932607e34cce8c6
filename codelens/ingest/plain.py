"""Build files, environment files, scripts, SQL, CSV and plain text, by their natural units.

- `.env*`: one piece per blank-line block, named by its leading comment (`.env.dev::Database`)
  or else its first variable.
- `Makefile`: one piece per target (`Makefile::test-all`), with the comment lines just above
  it; variables and settings before the first target are `<variables>`.
- `Dockerfile*`: one piece per build stage, named by its `AS` name or else its image.
- CSV: the header and the first rows only (`<sample>`), within the size budget.
- Shell scripts, SQL and other text: the file as `<file>`, which the size budget cuts at
  blank lines (`<file> (2)`, ...).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence

from codelens.ingest.pieces import MAX_PIECE_CHARS, Piece

CSV_SAMPLE_ROWS = 5
_ENV_KEY = re.compile(r"^\s*(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.]*)\s*=")
_MAKE_RULE = re.compile(r"^(?P<targets>[^\s:#=][^:#=]*?)\s*::?(?!=)")
_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(?P<image>\S+)(?:\s+AS\s+(?P<name>\S+))?", re.I)


def env_pieces(lines: Sequence[str]) -> list[Piece]:
    pieces = []
    for start, end in blank_line_blocks(lines):
        pieces.append(Piece(_env_block_name(lines[start - 1 : end]) or f"block {len(pieces) + 1}", start, end))
    return pieces


def _env_block_name(block: Sequence[str]) -> str:
    first = block[0].strip()
    if first.startswith("#"):
        comment = first.lstrip("#").strip()
        if comment and not _ENV_KEY.match(comment):
            return comment[:80]
    for line in block:
        if match := _ENV_KEY.match(line):
            return match["key"]
    return ""


def blank_line_blocks(lines: Sequence[str]) -> list[tuple[int, int]]:
    blocks: list[tuple[int, int]] = []
    start = None
    for number, line in enumerate(lines, 1):
        if line.strip() and start is None:
            start = number
        elif not line.strip() and start is not None:
            blocks.append((start, number - 1))
            start = None
    if start is not None:
        blocks.append((start, len(lines)))
    return blocks


def makefile_pieces(lines: Sequence[str]) -> list[Piece]:
    rules = []
    for number, line in enumerate(lines, 1):
        match = _MAKE_RULE.match(line)
        if match and not line.startswith("\t"):
            target = match["targets"].split()[0]
            if not (target.startswith(".") and target[1:].isupper()):  # .PHONY, .DEFAULT_GOAL: settings
                rules.append((_with_comments_above(lines, number), target))
    if not rules:
        return [Piece("<file>", 1, len(lines))]
    pieces = [Piece("<variables>", 1, rules[0][0] - 1)] if rules[0][0] > 1 else []
    for index, (start, target) in enumerate(rules):
        end = rules[index + 1][0] - 1 if index + 1 < len(rules) else len(lines)
        pieces.append(Piece(target, start, end))
    return pieces


def _with_comments_above(lines: Sequence[str], number: int) -> int:
    while number > 1 and lines[number - 2].startswith("#"):
        number -= 1
    return number


def dockerfile_pieces(lines: Sequence[str]) -> list[Piece]:
    stages = [(number, match["name"] or match["image"]) for number, line in enumerate(lines, 1)
              if (match := _FROM.match(line))]
    if not stages:
        return [Piece("<file>", 1, len(lines))]
    pieces = []
    for index, (start, name) in enumerate(stages):
        end = stages[index + 1][0] - 1 if index + 1 < len(stages) else len(lines)
        pieces.append(Piece(name, 1 if index == 0 else start, end))  # ARGs before the first FROM go with it
    return pieces


def csv_pieces(lines: Sequence[str]) -> list[Piece]:
    """The header and the first rows (a quoted field may span lines), within the budget."""
    reader = csv.reader(lines)
    end, size = 0, 0
    try:
        for rows, _ in enumerate(reader):
            line_end = reader.line_num
            size += sum(len(line) + 1 for line in lines[end:line_end])
            if rows > CSV_SAMPLE_ROWS or (rows > 1 and size > MAX_PIECE_CHARS):
                break
            end = line_end
    except csv.Error:
        end = max(end, 1)
    return [Piece("<sample>", 1, max(end, 1))]


def text_pieces(lines: Sequence[str]) -> list[Piece]:
    return [Piece("<file>", 1, len(lines))]
