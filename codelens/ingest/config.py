"""YAML, TOML, INI/CFG and JSON: one piece per top-level key, table or section.

The format's own parser reads the file first (PyYAML's composer, `tomllib`, `configparser`,
`json`); only what it accepts is split by what it found, and a file it rejects is split by a
line-based reading of the same boundaries instead (broken files are still searchable). Symbols
are key paths: `docker-compose.yaml::services.test-db` (a compose file's `services` and a
workflow's `jobs` are split one level down, and so is any mapping over the size budget),
`pyproject.toml::tool.poetry.dependencies`, `.coveragerc::report`. Nothing is ever constructed
from the text: YAML is only composed into nodes (no tags run), TOML and JSON into plain data.
"""

from __future__ import annotations

import configparser
import json
import re
import tomllib
from collections.abc import Sequence
from pathlib import PurePosixPath

import yaml

from codelens.ingest.pieces import MAX_PIECE_CHARS, Piece

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YAML_TOP_KEY = re.compile(r"^(?P<key>[^\s#\-][^:#]*?|\"[^\"]+\"|'[^']+')[ \t]*:(?:[ \t]|$)")
_TABLE = re.compile(r"^[ \t]*\[(?P<array>\[)?[ \t]*(?P<name>[^\[\]]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\][ \t]*(?:[#;].*)?$")


def yaml_pieces(rel_path: str, text: str, lines: Sequence[str]) -> list[Piece]:
    try:
        documents = [node for node in yaml.compose_all(text, Loader=_Loader) if node is not None]
    except (yaml.YAMLError, RecursionError, ValueError):
        return line_pieces(lines, _yaml_key_lines(lines))
    split = _split_keys(rel_path)
    pieces: list[Piece] = []
    for document in documents:
        if isinstance(document, yaml.MappingNode):
            pieces.extend(_mapping_pieces(document, lines, "", split, _node_end(document, len(lines))))
        else:
            pieces.append(Piece("<document>", document.start_mark.line + 1, _node_end(document, len(lines))))
    if not pieces:
        return [Piece("<document>", 1, len(lines))]
    first = pieces[0]
    return [Piece(first.symbol, 1, first.end_line), *pieces[1:]]  # a leading comment belongs to the first key


def _split_keys(rel_path: str) -> frozenset[str]:
    """Keys whose children are the units a question is about."""
    path = PurePosixPath(rel_path.lower())
    if path.name.startswith(("docker-compose", "compose")):
        return frozenset({"services"})
    if ".github/workflows/" in f"/{path.as_posix()}" or path.parent.name == "workflows":
        return frozenset({"jobs"})
    return frozenset()


def _mapping_pieces(node: yaml.MappingNode, lines: Sequence[str], prefix: str, split: frozenset[str],
                    end_line: int, depth: int = 0) -> list[Piece]:
    pieces: list[Piece] = []
    entries = [(key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)]
    for number, (key, value) in enumerate(entries):
        start = key.start_mark.line + 1
        end = entries[number + 1][0].start_mark.line if number + 1 < len(entries) else end_line
        symbol = f"{prefix}{key.value}"
        wide = sum(len(lines[n - 1]) + 1 for n in range(start, min(end, len(lines)) + 1)) > MAX_PIECE_CHARS
        if isinstance(value, yaml.MappingNode) and value.value and depth < 2 and (key.value in split or wide):
            pieces.extend(_mapping_pieces(value, lines, f"{symbol}.", frozenset(), end, depth + 1))
        else:
            pieces.append(Piece(symbol, start, end))
    return pieces


def _node_end(node: yaml.Node, line_count: int) -> int:
    mark = node.end_mark
    return min(line_count, mark.line if mark.column == 0 else mark.line + 1)


def _yaml_key_lines(lines: Sequence[str]) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate(lines, 1):
        match = _YAML_TOP_KEY.match(line)
        if match and not line.startswith(("---", "...")):
            found.append((number, match["key"].strip("\"'")))
    return found


def toml_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    """One piece per `[table]` / `[[array of tables]]`; keys before the first table: `<root>`."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        data = None
    headers = []
    in_string = False
    for number, line in enumerate(lines, 1):
        if not in_string and (match := _TABLE.match(line)):
            name = ".".join(part.strip().strip("\"'") for part in match["name"].split("."))
            if data is None or _has_table(data, name):
                headers.append((number, name))
        if (line.count('"""') + line.count("'''")) % 2:
            in_string = not in_string
    return line_pieces(lines, headers)


def _has_table(data: dict, dotted: str) -> bool:
    value: object = data
    for part in dotted.split("."):
        if isinstance(value, list):
            value = value[-1] if value else None
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    return True


def ini_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    """One piece per `[section]` (configparser's sections when it reads the file)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, allow_no_value=True)
    try:
        parser.read_string(text)
        known: set[str] | None = set(parser.sections())
    except (configparser.Error, ValueError):
        known = None  # .editorconfig's root keys, duplicate options...: the header lines decide
    headers = [(number, match["name"].strip()) for number, line in enumerate(lines, 1)
               if (match := _SECTION.match(line)) and (known is None or match["name"] in known)]
    return line_pieces(lines, headers)


def json_pieces(text: str, lines: Sequence[str]) -> list[Piece]:
    """An object: one piece per top-level key, found in order on the lines; anything else: one."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or not data:
        return [Piece("<document>", 1, len(lines))]
    headers: list[tuple[int, str]] = []
    number = 1
    for key in data:
        pattern = re.compile(rf'^\s*"{re.escape(json.dumps(key)[1:-1])}"\s*:')
        while number <= len(lines) and not pattern.match(lines[number - 1]):
            number += 1
        if number > len(lines):
            return [Piece("<document>", 1, len(lines))]  # keys share lines (compact JSON): one piece
        headers.append((number, key))
        number += 1
    return line_pieces(lines, headers, first_from_top=True)


def line_pieces(lines: Sequence[str], headers: Sequence[tuple[int, str]],
                first_from_top: bool = False) -> list[Piece]:
    """Pieces from (line, name) boundaries; lines before the first boundary are `<root>`
    (or, with first_from_top, the first piece's)."""
    if not headers:
        return [Piece("<document>", 1, len(lines))]
    pieces = []
    first_line = headers[0][0]
    if first_line > 1 and not first_from_top and any(_is_content(line) for line in lines[: first_line - 1]):
        pieces.append(Piece("<root>", 1, first_line - 1))
    for number, (line, name) in enumerate(headers):
        start = 1 if number == 0 and first_from_top else line
        end = headers[number + 1][0] - 1 if number + 1 < len(headers) else len(lines)
        pieces.append(Piece(name, start, end))
    return pieces


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith(("#", ";"))
