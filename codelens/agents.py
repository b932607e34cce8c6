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
shows the entry to add by hand (the writers: codelens/config_merge.py).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # PyYAML: a dependency of chromadb, so always installed with CodeLens

from codelens.config_merge import Merge, merge_json, merge_toml, merge_yaml
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
