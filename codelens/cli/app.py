"""`codelens app`: the Streamlit page on the current repository's index, as `make run` starts it.

Loopback unless --host says otherwise (then the same warning as the Makefile), headless, no usage
statistics, and the settings of the checkout's .streamlit/config.toml as flags: an installed
CodeLens runs in the user's repository, where that file is not. The index is the one every other
command uses here (codelens/locations.py); a repository that has none is indexed first.
"""

from __future__ import annotations

import argparse
import os
import site
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from codelens.cli.common import add_location_arguments, settings_of
from codelens.exposure import START_EXPOSED_WARNING, is_loopback
from codelens.locations import has_index

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8501
# .streamlit/config.toml's settings (tests/test_setup_and_app.py keeps the two in step).
CONFIG_FLAGS = ("--client.toolbarMode", "minimal", "--server.enableXsrfProtection", "true")


def add_app_command(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "app", help="open the search page (Streamlit) on this repository's index, on 127.0.0.1:8501",
        description="Starts the Streamlit page on the index of the repository around the working directory "
                    "(or --db), indexing it first when it has none. Ctrl-C stops it.")
    add_location_arguments(parser)
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens the "
                             "page, and every indexed file, to the network)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")


def streamlit_command(page: Path, host: str, port: int) -> list[str]:
    """The command `make run` runs, with this interpreter's streamlit."""
    return [sys.executable, "-m", "streamlit", "run", str(page), "--server.headless", "true",
            "--browser.gatherUsageStats", "false", "--server.address", host, "--server.port", str(port),
            *CONFIG_FLAGS]


def page_environment(settings_db: Path, collection: str, chroma_url: str) -> dict[str, str]:
    """The page reads its index from the environment (Settings.from_env), as under `make run`."""
    env = {**os.environ, "CODELENS_DB": str(settings_db.resolve())}
    if collection:
        env["CODELENS_COLLECTION"] = collection
    if chroma_url:
        env["CODELENS_CHROMA_URL"] = chroma_url
    package_root = str(Path(__file__).resolve().parents[2])
    if package_root not in site.getsitepackages():  # run from a checkout: the page must import this codelens
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (package_root, env.get("PYTHONPATH"))))
    return env


def cmd_app(args: argparse.Namespace, run_cli: Callable[[Sequence[str]], int]) -> int:
    """`codelens app`; `run_cli` runs a whole command line (`codelens index` first when the
    repository has no index yet)."""
    from codelens.app import page_file

    settings = settings_of(args)
    if settings.project is not None and not has_index(settings.index_dir):
        print(f"no index for {settings.project} yet: indexing it first (codelens index)", file=sys.stderr, flush=True)
        status = run_cli(["index"])
        if status != 0:
            return status
    if not is_loopback(args.host):
        print(f"warning: {START_EXPOSED_WARNING.format(address=args.host)}", file=sys.stderr)
    command = streamlit_command(page_file(), args.host, args.port)
    env = page_environment(settings.db_path, settings.collection, settings.chroma_url)
    sys.stdout.flush()
    sys.stderr.flush()
    # exec, as `make run` does: Ctrl-C and SIGTERM reach streamlit itself, no process in between
    os.execve(sys.executable, command, env)
    return 0  # not reached


def app_commands(run_cli: Callable[[Sequence[str]], int]) -> dict[str, Callable[[argparse.Namespace], int]]:
    """The `app` command, handed the full command line by cli/main.py (which lists the commands:
    this module does not import it back)."""
    return {"app": partial(cmd_app, run_cli=run_cli)}
