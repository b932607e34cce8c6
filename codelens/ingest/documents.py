"""Markdown and reStructuredText: one piece per section, named by its heading path.

`README.md::How to run > You should have` is the section "You should have" under "How to run".
A document's one top-level title (`# GymHero` first, and no other heading of its level) names
its own opening section but is left out of the paths below it. Text before the first heading is
`<intro>`; a document without headings is `<document>`. Headings inside fenced code blocks
(```` ``` ````, `~~~`) are code, not headings: fenced code stays with its section.
Long sections are cut at paragraph boundaries by `pieces.pieces_to_chunks`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from codelens.ingest.pieces import Piece

MAX_HEADING_CHARS = 120
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_RST_ADORNMENT = re.compile(r"^([=\-~^\"'`*+#:.])\1{2,}[ \t]*$")
# emphasis and code marks, and links (their text stays); `_` inside a word (HTTP_PROXY) is not markup
_MARKUP = re.compile(r"[*`]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])|\[([^\]]*)\]\([^)]*\)")


class Heading(NamedTuple):
    line: int  # 1-based line of the heading's first line
    level: int
    title: str
    body_start: int  # first line after the heading (and its underline)


def markdown_pieces(lines: Sequence[str]) -> list[Piece]:
    return _section_pieces(lines, markdown_headings(lines))


def rst_pieces(lines: Sequence[str]) -> list[Piece]:
    return _section_pieces(lines, rst_headings(lines))


def markdown_headings(lines: Sequence[str]) -> list[Heading]:
    """ATX (`## Title`) and setext (`Title` over `===` / `---`) headings outside fenced code."""
    headings: list[Heading] = []
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.match(line)
        if atx and atx.group(2).strip():
            headings.append(Heading(index + 1, len(atx.group(1)), _clean(atx.group(2)), index + 2))
        elif (index > 0 and _SETEXT.match(line) and _is_paragraph_line(lines[index - 1])
              and (index == 1 or not lines[index - 2].strip())):
            level = 1 if line.strip().startswith("=") else 2
            headings.append(Heading(index, level, _clean(lines[index - 1]), index + 2))
    return headings


def _is_paragraph_line(line: str) -> bool:
    stripped = line.strip()
    starts_other = stripped.startswith(("#", "-", "*", ">", "|", "```", "~~~"))
    return bool(stripped) and not starts_other and not line[:1].isspace()


def rst_headings(lines: Sequence[str]) -> list[Heading]:
    """Titles underlined (optionally overlined too) by a run of one punctuation character;
    levels in the order the styles first appear, as docutils assigns them."""
    styles: list[tuple[str, bool]] = []
    headings: list[Heading] = []
    index = 0
    while index < len(lines) - 1:
        title, under = lines[index], lines[index + 1]
        overlined = index + 2 < len(lines) and bool(_RST_ADORNMENT.match(title)) and \
            _RST_ADORNMENT.match(lines[index + 2]) is not None and lines[index + 2].strip()[0] == title.strip()[0]
        if overlined:
            title, under = lines[index + 1], lines[index + 2]
        adornment = _RST_ADORNMENT.match(under)
        if (adornment and title.strip() and not title[:1].isspace() and not _RST_ADORNMENT.match(title)
                and len(under.strip()) >= min(len(title.strip()), 3)):
            style = (adornment.group(1), overlined)
            if style not in styles:
                styles.append(style)
            skip = 3 if overlined else 2
            headings.append(Heading(index + 1, styles.index(style) + 1, _clean(title), index + skip + 1))
            index += skip
            continue
        index += 1
    return headings


def _clean(title: str) -> str:
    title = _MARKUP.sub(lambda m: m.group(1) or "", title)
    return " ".join(title.replace("::", ":").split())[:MAX_HEADING_CHARS] or "untitled"


def _section_pieces(lines: Sequence[str], headings: Sequence[Heading]) -> list[Piece]:
    if not headings:
        return [Piece("<document>", 1, len(lines))]
    pieces = [Piece("<intro>", 1, headings[0].line - 1)] if headings[0].line > 1 else []
    title_level = _title_level(headings)
    path: list[tuple[int, str]] = []
    for number, heading in enumerate(headings):
        end = headings[number + 1].line - 1 if number + 1 < len(headings) else len(lines)
        while path and path[-1][0] >= heading.level:
            path.pop()
        if heading.level == title_level:
            symbol = heading.title
        else:
            path.append((heading.level, heading.title))
            symbol = " > ".join(title for _, title in path)
        if any(line.strip() for line in lines[heading.body_start - 1 : end]):  # a bare heading: its children say it
            pieces.append(Piece(symbol, heading.line, end))
    return pieces


def _title_level(headings: Sequence[Heading]) -> int | None:
    """The level of the document's title: the first heading, when no other has its level."""
    first = headings[0].level
    if first == min(h.level for h in headings) and sum(h.level == first for h in headings) == 1:
        return first
    return None
