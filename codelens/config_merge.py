"""A server's entry written into a config file's text, keeping everything else in it: JSON (the
file rewritten from its data), TOML and YAML (the text edited, comments kept, since no writer of
either keeps them). Each merge is checked by parsing the result: it must equal the old file's data
with the entry set, or nothing is written and the error shows the entry to add by hand.
codelens/agents.py says which file, which format and which entry for each coding agent.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml  # PyYAML: a dependency of chromadb, so always installed with CodeLens

from codelens.errors import BadInput


@dataclass(frozen=True)
class Merge:
    """A config file's new text and what changed: "created", "added", "updated" or "unchanged"."""

    text: str
    status: str
    notes: tuple[str, ...] = ()  # what the user may want to change by hand in the entry


def merged_entry(old: Any, ours: dict[str, Any]) -> dict[str, Any]:
    """Ours over the old entry: the keys CodeLens writes win, keys the user added stay."""
    return {**old, **ours} if isinstance(old, dict) else dict(ours)


def _status(old_text: str | None, old_entry: Any) -> str:
    if old_text is None or not old_text.strip():
        return "created"
    return "added" if old_entry is None else "updated"


# ------------------------------------------------------------------------------------ JSON


def merge_json(old_text: str | None, key: str, name: str, entry: dict[str, Any], where: str) -> Merge:
    data = _parse(old_text, json.loads, "JSON", where, json.JSONDecodeError, name)
    servers = _mapping_at(data, key, where)
    new_entry = merged_entry(servers.get(name), entry)
    if servers.get(name) == new_entry:
        return Merge(old_text or "", "unchanged")
    status = _status(old_text, servers.get(name))
    data[key] = {**servers, name: new_entry}  # an existing entry keeps its place, a new one goes last
    return Merge(json.dumps(data, indent=2, ensure_ascii=False) + "\n", status)


# ------------------------------------------------------------------------------------ TOML
# The standard library reads TOML but does not write it (and no TOML writer is installed), so the
# writer edits the text: a new table goes at the end, an old one of ours is rewritten in place, and
# everything else, comments included, stays byte for byte.


def merge_toml(old_text: str | None, key: str, name: str, entry: dict[str, Any], where: str) -> Merge:
    data = _parse(old_text, tomllib.loads, "TOML", where, tomllib.TOMLDecodeError, name)
    servers = _mapping_at(data, key, where)
    old_entry = servers.get(name)
    new_entry = merged_entry(old_entry, entry)
    if old_entry == new_entry:
        return Merge(old_text or "", "unchanged")
    text = old_text or ""
    try:
        snippet = toml_table(key, name, new_entry, keep_subtables="")
        new_text = _append(text, snippet) if old_entry is None else _rewrite_toml_table(text, key, name, new_entry)
    except TypeError:  # a value of the user's that this writer cannot write (a date, say)
        snippet, new_text = toml_table(key, name, entry, keep_subtables=""), text
    expected = {**data, key: {**servers, name: new_entry}}
    _check(new_text, expected, tomllib.loads, where, snippet, name)
    return Merge(new_text, _status(old_text, old_entry))


def toml_table(key: str, name: str, entry: Mapping[str, Any], keep_subtables: str) -> str:
    """`[key.name]` and its values; values that are tables become inline tables unless the text
    `keep_subtables` already holds them as `[key.name.sub]` tables (those stay where they are)."""
    lines = [f"[{_toml_key(key)}.{_toml_key(name)}]"]
    for field, value in entry.items():
        if isinstance(value, dict) and _subtable_header(key, name, field).search(keep_subtables):
            continue
        lines.append(f"{_toml_key(field)} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML writer for {type(value).__name__}")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _table_header(key: str, name: str) -> re.Pattern[str]:
    quoted = rf"(?:{re.escape(name)}|\"{re.escape(name)}\"|'{re.escape(name)}')"
    return re.compile(rf"^[ \t]*\[[ \t]*{re.escape(key)}[ \t]*\.[ \t]*{quoted}[ \t]*\][ \t]*(?:#.*)?$", re.M)


def _subtable_header(key: str, name: str, field: str) -> re.Pattern[str]:
    return re.compile(rf"^[ \t]*\[[ \t]*{re.escape(key)}[ \t]*\.[ \t]*\"?{re.escape(name)}\"?[ \t]*\.[ \t]*"
                      rf"\"?{re.escape(field)}\"?[ \t]*\]", re.M)


def _rewrite_toml_table(text: str, key: str, name: str, entry: Mapping[str, Any]) -> str:
    """Our `[key.name]` table's body replaced (its own subtables stay); the text unchanged when the
    entry is not written as such a table (an inline table, dotted keys): the check then fails."""
    header = _table_header(key, name).search(text)
    if header is None:
        return text
    following = re.compile(r"^[ \t]*\[", re.M).search(text, header.end())
    end = following.start() if following else len(text)
    old_body = text[header.end():end].splitlines(keepends=True)
    kept = len(old_body)  # comments and blank lines at the end lead into the next table: they stay
    while kept and (not old_body[kept - 1].strip() or old_body[kept - 1].lstrip().startswith("#")):
        kept -= 1
    tail = "".join(old_body[kept:]) or ("\n" if following else "")
    return text[:header.start()] + toml_table(key, name, entry, keep_subtables=text) + tail + text[end:]


# ------------------------------------------------------------------------------------ YAML
# Continue's `mcpServers:` is a block list of mappings. PyYAML would drop the file's comments on a
# round trip, so the writer edits the text: our item (dumped by PyYAML) goes at the end of the list,
# or replaces our old item, at the list's own indentation.


def merge_yaml(old_text: str | None, key: str, entry: dict[str, Any], where: str, header: str) -> Merge:
    name = entry["name"]
    data = _parse(old_text, yaml.safe_load, "YAML", where, yaml.YAMLError, name)
    items = data.get(key) or []
    if not isinstance(items, list):
        raise BadInput(f"{where}: {key!r} is not a list - fix the file, then run this again")
    index = next((i for i, item in enumerate(items) if isinstance(item, dict) and item.get("name") == name), None)
    old_entry = None if index is None else items[index]
    new_entry = merged_entry(old_entry, entry)
    if old_entry == new_entry:
        return Merge(old_text or "", "unchanged")
    new_items = [*items, new_entry] if index is None else [*items[:index], new_entry, *items[index + 1:]]
    item_text = yaml.safe_dump([new_entry], sort_keys=False, default_flow_style=False, allow_unicode=True)
    text = old_text or ""
    if not text.strip():
        data = {**yaml.safe_load(header), **data}
        new_text = header + f"{key}:\n" + _indent(item_text, "  ")
    elif key not in data:
        new_text = _append(text, f"{key}:\n" + _indent(item_text, "  "))
    else:
        new_text = _put_yaml_item(text, key, index, item_text)
    snippet = f"{key}:\n" + _indent(item_text, "  ")
    _check(new_text, {**data, key: new_items}, yaml.safe_load, where, snippet, name)
    return Merge(new_text, _status(old_text, old_entry))


def _put_yaml_item(text: str, key: str, index: int | None, item_text: str) -> str:
    """The item appended to the block list under the top-level `key:` (index None), or put in
    place of the list's index-th item; the text unchanged when the list is not a block list."""
    lines = text.splitlines(keepends=True)
    key_line = re.compile(rf"^{re.escape(key)}:[ \t]*(?:#.*)?$")
    start = next((i for i, line in enumerate(lines) if key_line.match(line.rstrip("\r\n"))), None)
    if start is None:
        return text
    items, end, indent = _yaml_list_items(lines, start + 1)
    if not lines[start].endswith("\n"):
        lines[start] += "\n"
    new_item = _indent(item_text, indent).splitlines(keepends=True)
    if index is None:
        return "".join(lines[:end] + new_item + lines[end:])
    if index >= len(items):
        return text
    item_end = items[index + 1] if index + 1 < len(items) else end
    return "".join(lines[:items[index]] + new_item + lines[item_end:])


def _yaml_list_items(lines: list[str], first: int) -> tuple[list[int], int, str]:
    """Where each item of the block list starting at lines[first] begins, the line after its last
    item's last content line, and the items' indentation ("  " when the list is empty)."""
    starts: list[int] = []
    indent: str | None = None
    end = first
    for number in range(first, len(lines)):
        line = lines[number].rstrip("\r\n")
        content = line.strip()
        if not content or content.startswith("#"):
            continue
        width = len(line) - len(line.lstrip(" "))
        if indent is None:
            if not (content == "-" or content.startswith("- ")):
                break
            indent = line[:width]
        if width == len(indent) and (content == "-" or content.startswith("- ")):
            starts.append(number)
        elif width <= len(indent):
            break
        end = number + 1
    return starts, end, "  " if indent is None else indent


def _indent(text: str, prefix: str) -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(keepends=True))


# ------------------------------------------------------------------------------------ shared


def _parse(text: str | None, loads: Callable[[str], Any], kind: str, where: str,
           error: type[Exception], name: str) -> dict[str, Any]:
    """The file's data ({} for a missing or empty file); a file that does not parse, or whose top level
    is not a mapping, is an error that names it: nothing is written over a file CodeLens cannot read."""
    if text is None or not text.strip():
        return {}
    try:
        data = loads(text)
    except error as exc:
        raise BadInput(f"{where} is not valid {kind} ({_reason(exc)}) - fix it, or add the "
                       f"{name!r} server by hand (docs/mcp.md); nothing was written") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BadInput(f"{where}: the top level is not a {'table' if kind == 'TOML' else 'mapping'} - "
                       "fix the file, then run this again; nothing was written")
    return data


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"line {exc.lineno} column {exc.colno}: {exc.msg}"
    return " ".join(str(exc).split())


def _mapping_at(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    servers = data.get(key, {})
    if not isinstance(servers, dict):
        raise BadInput(f"{where}: {key!r} is not a {'table' if key == 'mcp_servers' else 'mapping'} - "
                       "fix the file, then run this again; nothing was written")
    return servers


def _append(text: str, block: str) -> str:
    return text.rstrip("\n") + "\n\n" + block if text.strip() else block


def _check(new_text: str, expected: dict[str, Any], loads: Callable[[str], Any], where: str, snippet: str,
           name: str) -> None:
    """The merged text must read back as the old data plus our entry, or nothing is written."""
    try:
        ok = loads(new_text) == expected
    except Exception:  # any parse failure of our own edit means the same: do not write it
        ok = False
    if not ok:
        raise BadInput(f"cannot add the {name!r} server to {where} without disturbing the rest of it - "
                       f"nothing was written; add this to the file by hand:\n{snippet.rstrip()}")
