"""`codelens install-agent NAME`: every agent's config written into an empty repository and into
one that already holds another server (kept, comments and all), a second run that changes
nothing, an older CodeLens entry brought up to date, --dry-run, and files it must not touch."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from codelens.agents import TARGETS, config_path, merge_config, user_config_path
from codelens.cli.main import main
from codelens.errors import EXIT_BAD_INPUT, EXIT_ERROR

LOADERS = {"json": json.loads, "toml": tomllib.loads, "yaml": yaml.safe_load}

# Each agent's file holding one other server, other settings, and (where the format has them) a comment.
OTHER_SERVER = {
    "json": '{\n  "theme": "dark",\n  "%(key)s": {\n'
            '    "other": {"command": "npx", "args": ["-y", "other-mcp"]}\n  }\n}\n',
    "toml": '# my Codex settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"  # keep me\n'
            'args = ["-y", "other-mcp"]\n\n[profiles.fast]\nmodel = "o4-mini"\n',
    "yaml": "name: Local Config\nversion: 1.0.0\nschema: v1\n# my servers\n%(key)s:\n  - name: other\n"
            "    command: npx  # keep me\n    args: [\"-y\", \"other-mcp\"]\nmodels: []\n",
}


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    """A git repository as the working directory, a home folder of its own, and a `codelens`
    command on PATH (the installed console script, as an agent would find it; never run here)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "pkg").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    script = bin_folder / "codelens"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA", "CODELENS_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(root)
    return root


def install(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["install-agent", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def file_of(name: str, scope: str, repo: Path) -> Path:
    return config_path(TARGETS[name], scope, repo, Path.home(), os.environ, sys.platform)


def servers_in(name: str, text: str) -> dict:
    """The servers in the agent's file, by name, whatever the format keeps them in."""
    target = TARGETS[name]
    servers = LOADERS[target.file_format](text)[target.servers_key]
    if target.file_format == "yaml":
        names = [item["name"] for item in servers]
        assert len(names) == len(set(names)), f"a server twice: {names}"
        return {item["name"]: item for item in servers}
    return servers


EVERY_TARGET = [(name, scope) for name in TARGETS for scope in ("project", "user")]


@pytest.mark.parametrize(("name", "scope"), EVERY_TARGET)
def test_writes_the_installed_command_with_no_flags_into_an_empty_folder(repo, capsys, name, scope) -> None:
    path = file_of(name, scope, repo)
    assert not path.exists()
    status, out, _ = install(capsys, name, "--scope", scope)
    assert status == 0
    entry = servers_in(name, path.read_text())["codelens"]
    assert (entry["command"], entry["args"]) == ("codelens", ["mcp"])
    assert "env" not in entry  # no PYTHONPATH, no --db, no interpreter path: the command finds the index itself
    assert f"created {path}" in out and TARGETS[name].title in out
    if scope == "project":
        assert path.is_relative_to(repo)
    else:
        assert path.is_relative_to(Path.home())
    if name == "continue":  # a file Continue reads must be a whole config
        assert {"name", "version", "schema"} <= set(yaml.safe_load(path.read_text()))
    if name == "vscode" and scope == "user":  # a user-profile server has no folder of its own
        assert entry["cwd"] == "${workspaceFolder}"


def test_project_scope_from_a_subfolder_writes_at_the_repository_root(repo, capsys, monkeypatch) -> None:
    monkeypatch.chdir(repo / "pkg")
    assert install(capsys, "claude")[0] == 0
    assert (repo / ".mcp.json").is_file() and not (repo / "pkg" / ".mcp.json").exists()


@pytest.mark.parametrize(("name", "scope"), EVERY_TARGET)
def test_keeps_the_other_servers_and_settings_and_a_second_run_changes_nothing(repo, capsys, name, scope) -> None:
    target = TARGETS[name]
    path = file_of(name, scope, repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    before = OTHER_SERVER[target.file_format] % {"key": target.servers_key}
    path.write_text(before)
    assert install(capsys, name, "--scope", scope)[0] == 0
    after = path.read_text()
    servers = servers_in(name, after)
    assert set(servers) == {"other", "codelens"}
    assert servers["other"] == servers_in(name, before)["other"]
    old_data, new_data = LOADERS[target.file_format](before), LOADERS[target.file_format](after)
    assert {k: v for k, v in new_data.items() if k != target.servers_key} == \
           {k: v for k, v in old_data.items() if k != target.servers_key}
    if target.file_format != "json":  # the text is edited, not rewritten: comments stay
        assert after.startswith(before.split("\n")[0]) and "# keep me" in after

    status, out, _ = install(capsys, name, "--scope", scope)
    assert status == 0 and "already has" in out
    assert path.read_text() == after


@pytest.mark.parametrize("name", list(TARGETS))
def test_an_older_codelens_entry_is_brought_up_to_date_keeping_what_the_user_added(repo, capsys, name) -> None:
    """What docs/mcp.md used to say: the venv's python, PYTHONPATH and an absolute --db."""
    target = TARGETS[name]
    path = file_of(name, "project", repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    old = {"command": "/src/codelens/.venv/bin/python", "args": ["-m", "codelens", "mcp", "--db", "/src/index"],
           "env": {"PYTHONPATH": "/src/codelens", "CODELENS_LLM_URL": "http://127.0.0.1:8080/v1"}}
    if target.file_format == "json":
        path.write_text(json.dumps({target.servers_key: {"codelens": old, "other": {"command": "x"}}}))
    elif target.file_format == "toml":
        path.write_text('[mcp_servers.codelens]\ncommand = "/src/codelens/.venv/bin/python"\n'
                        'args = ["-m", "codelens", "mcp", "--db", "/src/index"]\n# the LLM for ask\n\n'
                        '[mcp_servers.codelens.env]\nPYTHONPATH = "/src/codelens"\n'
                        'CODELENS_LLM_URL = "http://127.0.0.1:8080/v1"\n\n[mcp_servers.other]\ncommand = "x"\n')
    else:
        path.write_text(yaml.safe_dump({"name": "CodeLens", "version": "0.0.1", "schema": "v1",
                                        "mcpServers": [{"name": "codelens", **old}, {"name": "other", "command": "x"}]},
                                       sort_keys=False))
    status, out, _ = install(capsys, name)
    assert status == 0 and f"updated in {path}" in out
    servers = servers_in(name, path.read_text())
    entry = servers["codelens"]
    assert (entry["command"], entry["args"]) == ("codelens", ["mcp"])
    assert entry["env"] == old["env"]  # the user's additions stay, and a PYTHONPATH among them is pointed out
    assert "note: its env still sets PYTHONPATH=/src/codelens" in out
    assert servers["other"]["command"] == "x"
    if name == "codex":
        assert "# the LLM for ask" in path.read_text()


@pytest.mark.parametrize("name", list(TARGETS))
def test_dry_run_prints_the_change_and_writes_nothing(repo, capsys, name) -> None:
    target = TARGETS[name]
    path = file_of(name, "project", repo)
    status, out, _ = install(capsys, name, "--dry-run")
    assert status == 0 and sorted(p.name for p in repo.iterdir()) == [".git", "pkg"]
    assert f"+++ {path}" in out and "codelens" in out

    path.parent.mkdir(parents=True, exist_ok=True)
    before = OTHER_SERVER[target.file_format] % {"key": target.servers_key}
    path.write_text(before)
    status, out, _ = install(capsys, name, "--dry-run")
    assert status == 0 and path.read_text() == before
    assert any(line.startswith("+") and "codelens" in line for line in out.splitlines())


@pytest.mark.parametrize(("name", "broken"), [
    ("claude", '{"mcpServers": {"other": {"command": "x",}}}'),  # a trailing comma
    ("vscode", '// my servers\n{"servers": {}}'),  # comments: JSONC, which this writer does not keep
    ("codex", '[mcp_servers.other]\ncommand = x\n'),
    ("continue", "mcpServers:\n  - name: other\n   command: x\n"),
])
def test_a_file_that_does_not_parse_is_an_error_naming_it_and_nothing_is_written(repo, capsys, name, broken) -> None:
    path = file_of(name, "project", repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(broken)
    status, _, err = install(capsys, name)
    assert status == EXIT_BAD_INPUT
    assert str(path) in err and "not valid" in err and "nothing was written" in err
    assert path.read_text() == broken
    assert not list(path.parent.glob(".*codelens-tmp"))


@pytest.mark.parametrize(("name", "text"), [
    ("codex", 'mcp_servers = { other = { command = "x" } }\n'),  # an inline table cannot grow a [table]
    ("continue", 'mcpServers: [{name: other, command: x}]\n'),  # a flow list
])
def test_a_layout_the_writer_cannot_extend_safely_shows_the_entry_to_add_by_hand(repo, capsys, name, text) -> None:
    path = file_of(name, "project", repo)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    status, _, err = install(capsys, name)
    assert status == EXIT_BAD_INPUT and path.read_text() == text
    assert str(path) in err and "by hand" in err and "codelens" in err.split("by hand", 1)[1]


def test_a_servers_key_of_the_wrong_type_is_an_error(repo, capsys) -> None:
    (repo / ".mcp.json").write_text('{"mcpServers": ["codelens"]}')
    status, _, err = install(capsys, "claude")
    assert status == EXIT_BAD_INPUT and "'mcpServers' is not a mapping" in err


def test_an_unknown_agent_lists_the_names(repo, capsys) -> None:
    status, out, err = install(capsys, "windsurf")
    assert status == EXIT_BAD_INPUT and not out
    assert "unknown agent 'windsurf'" in err
    assert all(name in err for name in TARGETS)


def test_no_codelens_command_says_to_install_it(repo, capsys, monkeypatch, tmp_path) -> None:
    beside = Path(sys.executable).parent
    if (beside / "codelens").exists() or (beside / "codelens.exe").exists():
        pytest.skip("this interpreter's environment has the codelens console script installed")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    status, _, err = install(capsys, "cursor")
    assert status == EXIT_ERROR and "pip install" in err and "From a checkout" in err
    assert not (repo / ".cursor").exists()


def test_outside_a_repository_project_scope_is_refused(repo, capsys, monkeypatch) -> None:
    monkeypatch.chdir(Path.home())
    status, _, err = install(capsys, "claude")
    assert status == EXIT_BAD_INPUT and "--scope user" in err
    assert not (Path.home() / ".mcp.json").exists()


def test_user_files_per_platform(tmp_path) -> None:
    home = tmp_path
    vscode, codex = TARGETS["vscode"], TARGETS["codex"]
    assert user_config_path(vscode, home, {}, "linux") == home / ".config/Code/User/mcp.json"
    assert user_config_path(vscode, home, {"XDG_CONFIG_HOME": "/x"}, "linux") == Path("/x/Code/User/mcp.json")
    assert user_config_path(vscode, home, {}, "darwin") == home / "Library/Application Support/Code/User/mcp.json"
    assert user_config_path(vscode, home, {"APPDATA": "/a"}, "win32") == Path("/a/Code/User/mcp.json")
    assert user_config_path(codex, home, {}, "linux") == home / ".codex/config.toml"
    assert user_config_path(codex, home, {"CODEX_HOME": "/c"}, "linux") == Path("/c/config.toml")
    assert user_config_path(TARGETS["claude"], home, {}, "linux") == home / ".claude.json"


def test_the_toml_writer_escapes_what_it_writes() -> None:
    """A command path with quotes, backslashes and non-ASCII must read back as itself."""
    command = 'C:\\Program Files\\"code lens"\\codelens.exe ё'
    merge = merge_config(TARGETS["codex"], "user", 'title = "x"\n', command, "config.toml")
    assert tomllib.loads(merge.text)["mcp_servers"]["codelens"]["command"] == command


def test_a_byte_order_mark_from_an_editor_is_read_past(repo, capsys) -> None:
    path = repo / ".vscode" / "mcp.json"
    path.parent.mkdir()
    path.write_text('\ufeff{"servers": {"other": {"type": "stdio", "command": "x"}}}', encoding="utf-8")
    assert install(capsys, "vscode")[0] == 0
    assert set(servers_in("vscode", path.read_text(encoding="utf-8"))) == {"other", "codelens"}
    assert sorted(p.name for p in path.parent.iterdir()) == ["mcp.json"]  # no temporary file left
