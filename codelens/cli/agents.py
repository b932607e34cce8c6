"""`codelens install-agent NAME`: CodeLens's MCP server written into a coding agent's config
(wired into codelens.cli.main). The table of agents and the writers are codelens/agents.py;
this module finds the command and the files, and reads and writes them."""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys
from pathlib import Path

from codelens.agents import SCOPES, TARGETS, Target, config_path, merge_config, target_named
from codelens.config_merge import Merge
from codelens.errors import BadInput, CodeLensError
from codelens.locations import has_index, index_for, is_too_broad, project_root


def add_agent_command(commands: argparse._SubParsersAction) -> None:
    names = ", ".join(f"{target.name} ({target.title})" for target in TARGETS.values())
    parser = commands.add_parser(
        "install-agent", help="add CodeLens's MCP server to a coding agent's config (Claude Code, Cursor, ...)",
        description="Writes the MCP server entry that starts the installed `codelens mcp` into the agent's config "
                    "file, keeping the other servers in it; running it again changes nothing. The agent starts "
                    "the server in the project, and the server uses that repository's index.")
    parser.add_argument("name", metavar="NAME", help=f"the agent: {names}")
    parser.add_argument("--scope", choices=SCOPES, default="project",
                        help="project (default): the config file in the repository around the working directory, "
                             "to share with the team; user: the agent's config for every project")
    parser.add_argument("--dry-run", action="store_true", help="print the change as a diff and write nothing")


def cmd_install_agent(args: argparse.Namespace) -> int:
    target = target_named(args.name)
    project = project_root(Path.cwd())
    if args.scope == "project" and is_too_broad(project):
        raise BadInput(f"{project} is not inside a repository - cd into one, or pass --scope user")
    path = config_path(target, args.scope, project, Path.home(), os.environ, sys.platform)
    old_text = _read(path)
    merge = merge_config(target, args.scope, old_text, installed_command(), str(path))
    if args.dry_run:
        print(_diff(path, old_text, merge) or f"{path} already has this entry: nothing to change")
        return 0
    if merge.status != "unchanged":
        _write(path, merge.text)
    print(_report(target, args.scope, path, merge.status))
    for note in merge.notes:
        print(f"note: {note}")
    if args.scope == "project" and not has_index(index_for(project)):
        print(f"No index of {project} yet: run `codelens index` there (until then every tool says so).")
    return 0


def installed_command() -> str:
    """`codelens` when it is on PATH; else the console script beside this interpreter (an environment
    that is not activated), by its full path; else there is nothing for an agent to start."""
    if shutil.which("codelens"):
        return "codelens"
    folder = Path(sys.executable).parent
    for script in (folder / "codelens", folder / "codelens.exe"):
        if script.is_file() and os.access(script, os.X_OK):
            return str(script)
    raise CodeLensError("no `codelens` command on PATH - install CodeLens first (pip install CHECKOUT, pipx install "
                        "CHECKOUT or uv tool install CHECKOUT), then run this again; to run the server from a checkout "
                        "without installing it, see docs/mcp.md (\"From a checkout\")")


def _report(target: Target, scope: str, path: Path, status: str) -> str:
    done = {"created": f"created {path} with", "added": f"added to {path}:",
            "updated": f"updated in {path}:", "unchanged": f"{path} already has"}[status]
    restart = "" if status == "unchanged" else f" Restart {target.title} (or reload its MCP servers) to pick it up."
    return (f"{target.title} ({scope} scope): {done} the codelens MCP server (`codelens mcp`).\n"
            f"{target.starts_in}, and the server uses the index of the repository around that folder.{restart}")


def _diff(path: Path, old_text: str | None, merge: Merge) -> str:
    if merge.status == "unchanged":
        return ""
    old_name = str(path) if old_text is not None else "/dev/null"
    return "".join(difflib.unified_diff((old_text or "").splitlines(keepends=True),
                                        merge.text.splitlines(keepends=True), old_name, str(path)))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8-sig")  # an editor's byte-order mark is not part of the JSON
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path} ({exc}) - fix it, or add the codelens server by hand; "
                       "nothing was written") from exc


def _write(path: Path, text: str) -> None:
    """Beside the file, then renamed over it: an agent reading the file never sees half of it,
    and it keeps its permissions (~/.claude.json is private)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.codelens-tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        if path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


AGENT_COMMANDS = {"install-agent": cmd_install_agent}
