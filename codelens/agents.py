"""Coding agents' MCP configs: where each agent reads its servers from, what CodeLens's entry
looks like there, and pure writers (the file's text now -> its text with CodeLens in it) that
keep everything else in the file. The CLI edge (cli/agents.py) reads and writes the files.

The entry starts the installed command, `codelens mcp`, with no flags: the server finds the
index of the repository around its working directory (codelens/locations.py), so the one thing
that matters is which folder each agent starts it in. What each agent reads, and where it
starts a stdio server, as looked up on 2026-12-02 (sources beside each target below):

| agent       | project file                       | user file                    | servers live in      |
|-------------|------------------------------------|------------------------------|----------------------|
| Claude Code | .mcp.json                          | ~/.claude.json               | "mcpServers" {name}  |
| Cursor      | .cursor/mcp.json                   | ~/.cursor/mcp.json           | "mcpServers" {name}  |
| Continue    | .continue/mcpServers/codelens.yaml | ~/.continue/config.yaml      | mcpServers: [- name] |
| Codex CLI   | .codex/config.toml                 | $CODEX_HOME/config.toml      | [mcp_servers.name]   |
| VS Code     | .vscode/mcp.json                   | the profile's User/mcp.json  | "servers" {name}     |

A second run changes nothing; a run over an older CodeLens entry (say one that started the
venv's python with --db) replaces the keys CodeLens writes and keeps any the user added to it
(an `env` with CODELENS_LLM_URL, say). Every merge is checked by parsing the result: it must
equal the old file's data with CodeLens's entry set, or nothing is written and the error
shows the entry to add by hand.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # PyYAML: a dependency of chromadb, so always installed with CodeLens

from codelens.errors import BadInput

SERVER_NAME = "codelens"
SCOPES = ("project", "user")
SERVER_ARGS = ("mcp",)


@dataclass(frozen=True)
class Target:
    """One agent: its config files, their format, and how a stdio server's entry looks there."""

    name: str  # what `codelens install-agent NAME` takes
    title: str
    project_file: str  # relative to the repository's root
    user_file: str  # "~/..." or "{CODEX_HOME}/..." / "{VSCODE_USER}/..." (user_config_path)
    file_format: str  # "json", "toml" or "yaml"
    servers_key: str  # the top-level key that holds the servers
    typed: bool = False  # the entry says "type": "stdio"
    user_cwd: str | None = None  # a cwd for the user-scope entry, in the agent's own variables
    starts_in: str = ""  # where the agent starts the server: why no --db is needed


TARGETS: dict[str, Target] = {target.name: target for target in (
    # code.claude.com/docs/en/mcp: `--scope project` writes .mcp.json at the project root, `--scope user`
    # the top-level "mcpServers" of ~/.claude.json (which also holds Claude Code's own state: keep it all).
    # Claude Code starts stdio servers in the folder it was started in and ignores a "cwd" key
    # (github.com/anthropics/claude-code/issues/17565).
    Target("claude", "Claude Code", ".mcp.json", "~/.claude.json", "json", "mcpServers", typed=True,
           starts_in="Claude Code starts the server in the folder you run `claude` in"),
    # cursor.com/docs/mcp: .cursor/mcp.json in the project, ~/.cursor/mcp.json for every project, the same
    # "mcpServers" object. No "cwd" key; servers start in the open workspace's folder
    # (forum.cursor.com/t/what-are-the-capabilities-of-mcp-json/63130).
    Target("cursor", "Cursor", ".cursor/mcp.json", "~/.cursor/mcp.json", "json", "mcpServers",
           starts_in="Cursor starts the server in the open workspace's folder"),
    # docs.continue.dev (config.yaml reference; customize/deep-dives/mcp): `mcpServers:` is a list of
    # {name, command, args, env, cwd} in ~/.continue/config.yaml, and a workspace's
    # .continue/mcpServers/ folder holds block files (name, version, schema, mcpServers). With no cwd
    # Continue starts the server in the workspace root (core/context/mcp/MCPConnection.ts, resolveCwd).
    Target("continue", "Continue", f".continue/mcpServers/{SERVER_NAME}.yaml", "~/.continue/config.yaml",
           "yaml", "mcpServers", starts_in="Continue starts the server in the workspace's root folder"),
    # developers.openai.com/codex/mcp: [mcp_servers.NAME] tables (command, args, env, cwd) in
    # ~/.codex/config.toml ($CODEX_HOME), and in a project's .codex/config.toml once that project is
    # trusted. Without cwd the server inherits the folder Codex runs in.
    Target("codex", "Codex CLI", ".codex/config.toml", "{CODEX_HOME}/config.toml", "toml", "mcp_servers",
           starts_in="Codex starts the server in the folder you run `codex` in (a project's .codex/config.toml "
                     "is read once you trust the project)"),
    # code.visualstudio.com/docs/copilot/reference/mcp-configuration: "servers" in .vscode/mcp.json or the
    # profile's mcp.json, {"type": "stdio", "command", "args"}, ${workspaceFolder} allowed. A workspace
    # server starts in its workspace folder (github.com/microsoft/vscode/pull/330253: defaultCwd); a
    # user-profile one has no folder of its own, so it gets "cwd": "${workspaceFolder}".
    Target("vscode", "VS Code", ".vscode/mcp.json", "{VSCODE_USER}/mcp.json", "json", "servers", typed=True,
           user_cwd="${workspaceFolder}", starts_in="VS Code starts the server in the workspace folder"),
)}

# A Continue file CodeLens creates must be a whole config: name, version and schema are required.
CONTINUE_HEADER = {"project": "name: CodeLens\nversion: 0.0.1\nschema: v1\n",
                   "user": "name: Local Config\nversion: 1.0.0\nschema: v1\n"}


@dataclass(frozen=True)
class Merge:
    """A config file's new text and what changed: "created", "added", "updated" or "unchanged"."""

    text: str
    status: str
    notes: tuple[str, ...] = ()  # what the user may want to change by hand in the entry


def target_named(name: str) -> Target:
    if name in TARGETS:
        return TARGETS[name]
    names = ", ".join(f"{target.name} ({target.title})" for target in TARGETS.values())
    raise BadInput(f"unknown agent {name!r} - choose one of: {names}")


def user_config_path(target: Target, home: Path, environ: Mapping[str, str], platform: str) -> Path:
    """The user-scope file on this machine (VS Code's profile folder depends on the platform)."""
    if target.user_file.startswith("~/"):
        return home / target.user_file[2:]
    folder, _, rest = target.user_file.partition("/")
    if folder == "{CODEX_HOME}":
        return Path(environ["CODEX_HOME"]).expanduser() / rest if environ.get("CODEX_HOME") else home / ".codex" / rest
    if platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User" / rest
    if platform == "win32" and environ.get("APPDATA"):
        return Path(environ["APPDATA"]) / "Code" / "User" / rest
    config = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else home / ".config"
    return config / "Code" / "User" / rest


def config_path(target: Target, scope: str, project: Path, home: Path, environ: Mapping[str, str],
                platform: str) -> Path:
    if scope == "project":
        return project / target.project_file
    return user_config_path(target, home, environ, platform)


def server_entry(target: Target, scope: str, command: str) -> dict[str, Any]:
    """CodeLens's entry in the target's file: the installed command, `mcp`, no flags."""
    entry: dict[str, Any] = {"name": SERVER_NAME} if target.file_format == "yaml" else {}
    if target.typed:
        entry["type"] = "stdio"
    entry.update(command=command, args=list(SERVER_ARGS))
    if scope == "user" and target.user_cwd:
        entry["cwd"] = target.user_cwd
    return entry


def merge_config(target: Target, scope: str, old_text: str | None, command: str, where: str) -> Merge:
    """The target's config file with CodeLens's server in it; `where` names the file in errors."""
    entry = server_entry(target, scope, command)
    if target.file_format == "json":
        merge = merge_json(old_text, target.servers_key, SERVER_NAME, entry, where)
    elif target.file_format == "toml":
        merge = merge_toml(old_text, target.servers_key, SERVER_NAME, entry, where)
    else:
        merge = merge_yaml(old_text, target.servers_key, entry, where, header=CONTINUE_HEADER[scope])
    notes = leftover_notes(our_entry(target, merge.text))
    return Merge(merge.text, merge.status, notes) if notes else merge


def our_entry(target: Target, text: str) -> dict[str, Any]:
    """CodeLens's entry as the agent will read it from the file's text."""
    data = {"json": json.loads, "toml": tomllib.loads, "yaml": yaml.safe_load}[target.file_format](text) or {}
    servers = data.get(target.servers_key) or {}
    if isinstance(servers, list):
        return next((item for item in servers if isinstance(item, dict) and item.get("name") == SERVER_NAME), {})
    return servers.get(SERVER_NAME) or {}


def leftover_notes(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """An older entry's PYTHONPATH (from running a checkout) would put that checkout's code ahead of the
    installed package: it stays, since the user may mean it, but they hear about it."""
    env = entry.get("env")
    if isinstance(env, dict) and "PYTHONPATH" in env:
        return (f"its env still sets PYTHONPATH={env['PYTHONPATH']} (for running a checkout): remove it to run "
                "the installed codelens",)
    return ()


def merged_entry(old: Any, ours: dict[str, Any]) -> dict[str, Any]:
    """Ours over the old entry: the keys CodeLens writes win, keys the user added stay."""
    return {**old, **ours} if isinstance(old, dict) else dict(ours)


def _status(old_text: str | None, old_entry: Any) -> str:
    if old_text is None or not old_text.strip():
        return "created"
    return "added" if old_entry is None else "updated"


# ------------------------------------------------------------------------------------ JSON


def merge_json(old_text: str | None, key: str, name: str, entry: dict[str, Any], where: str) -> Merge:
    data = _parse(old_text, json.loads, "JSON", where, json.JSONDecodeError)
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
    data = _parse(old_text, tomllib.loads, "TOML", where, tomllib.TOMLDecodeError)
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
    _check(new_text, expected, tomllib.loads, where, snippet)
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
    data = _parse(old_text, yaml.safe_load, "YAML", where, yaml.YAMLError)
    items = data.get(key) or []
    if not isinstance(items, list):
        raise BadInput(f"{where}: {key!r} is not a list - fix the file, then run this again")
    name = entry["name"]
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
    _check(new_text, {**data, key: new_items}, yaml.safe_load, where, snippet)
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
           error: type[Exception]) -> dict[str, Any]:
    """The file's data ({} for a missing or empty file); a file that does not parse, or whose top level
    is not a mapping, is an error that names it: nothing is written over a file CodeLens cannot read."""
    if text is None or not text.strip():
        return {}
    try:
        data = loads(text)
    except error as exc:
        raise BadInput(f"{where} is not valid {kind} ({_reason(exc)}) - fix it, or add the "
                       f"{SERVER_NAME!r} server by hand (docs/mcp.md); nothing was written") from exc
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


def _check(new_text: str, expected: dict[str, Any], loads: Callable[[str], Any], where: str, snippet: str) -> None:
    """The merged text must read back as the old data plus our entry, or nothing is written."""
    try:
        ok = loads(new_text) == expected
    except Exception:  # any parse failure of our own edit means the same: do not write it
        ok = False
    if not ok:
        raise BadInput(f"cannot add the {SERVER_NAME!r} server to {where} without disturbing the rest of it - "
                       f"nothing was written; add this to the file by hand:\n{snippet.rstrip()}")
