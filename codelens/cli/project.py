"""A search in a repository with no flags: the index is built on first use and fresh after.

`codelens search` run inside a repository (codelens/locations.py found the index from the
working directory) must answer as if the index were always there and always current:
- no index yet: it is built. A resident `codelens serve` is started in the background to build
  it (a progressive build swaps in a keyword index within seconds); this search waits for that
  first index and answers from it, the vectors follow in the background.
- an index: files that changed since are updated first (index/fresh.py: stat, then hash; the
  watcher's incremental update), so the answer is never stale.
- afterwards a background `serve` (loopback, token, watching the repository, gone after 15
  idle minutes) answers the next searches in a fraction of a second.
CODELENS_AUTOSERVE=0 keeps everything in the calling process (no background server): the first
search then builds the whole index in the foreground.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from codelens.errors import BadInput, CodeLensError
from codelens.index.layout import IndexLayout
from codelens.locations import cache_root, current_repository, has_index, is_too_broad
from codelens.settings import Settings

FIRST_INDEX_WAIT_S = 900.0  # the longest a first search waits for its index to appear
POLL_S = 0.2
PROGRESS_EVERY_S = 5.0
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")


def say(message: str) -> None:
    """Progress and notes go to stderr: stdout holds only the answer (`--json` stays parsable)."""
    print(message, file=sys.stderr, flush=True)


def prepare_search(settings: Settings, query: str = "") -> None:
    """Make the project's index exist and match the folder before a search reads it (a
    question with Cyrillic in it waits for the word bridge too: keywords alone cannot cross)."""
    project = settings.project
    assert project is not None, "only for an index found from the working directory"
    if not has_index(settings.index_dir):
        if is_too_broad(project):
            raise BadInput(f"{project} is not inside a repository - cd into one, or run: codelens index PATH")
        first_index(settings, needs_bridge=bool(_CYRILLIC.search(query)))
        return
    inside = current_repository(project)
    if inside:
        say(f"codelens: searching the workspace {project}; you are in its repository {inside} "
            f"(first on a tie; --repo {inside} searches it alone)")
    refresh_index(settings)


def first_index(settings: Settings, needs_bridge: bool = False) -> None:
    """Build the project's index: in a background server (the search answers as soon as the
    first, keyword-only index is in), or here when background servers are off."""
    project = settings.project
    if not settings.autoserve:  # CODELENS_AUTOSERVE=0
        from codelens.index.build import build_index

        say(f"codelens: no index of {project} yet - indexing it (once; later searches update only what changed)")
        build_index(project, settings)
        return
    say(f"codelens: no index of {project} yet - building it in the background "
        f"(keywords first, then the vectors; log: {server_log(settings)})")
    start_background_server(settings)
    wait_for_index(settings, needs_bridge)


def wait_for_index(settings: Settings, needs_bridge: bool = False) -> None:
    """Until the background build has swapped in an index this search can read (with the word
    bridge, for a Russian question)."""
    started = time.monotonic()
    next_note = started + PROGRESS_EVERY_S
    while not _readable(settings, needs_bridge):
        now = time.monotonic()
        if not server_starting_or_running(settings):
            raise CodeLensError(f"the background index build of {settings.project} stopped: "
                                f"{_log_tail(server_log(settings))} - see {server_log(settings)}, "
                                "or run: codelens index")
        if now - started > FIRST_INDEX_WAIT_S:
            raise CodeLensError(f"no index of {settings.project} after {FIRST_INDEX_WAIT_S:.0f} s - "
                                f"see {server_log(settings)}")
        if now >= next_note:
            step = "adding the Russian word bridge" if has_index(settings.index_dir) else "reading and chunking"
            say(f"codelens: {step} {settings.project}… {now - started:.0f} s")
            next_note = now + PROGRESS_EVERY_S
        time.sleep(POLL_S)
    coverage = _coverage(settings)
    if coverage < 1.0:
        say(f"codelens: answering from the first index (keywords; {coverage:.0%} of the vectors so far) - "
            "the rest is embedded in the background, later searches get better answers")


def refresh_index(settings: Settings, embedder=None) -> None:
    """Update the files that changed since the index (nothing to do while a build is running)."""
    from codelens.index.fresh import settle, stale_files
    from codelens.index.update import update_index

    if _coverage(settings) < 1.0:
        return  # a progressive build is under way: it reads the folder itself
    staleness = stale_files(settings.index_dir, settings.project)
    if staleness is None or not staleness.changed:
        return
    count = len(staleness.changed)
    say(f"codelens: {count} file{'s' if count != 1 else ''} changed since the index - updating")
    result = update_index(settings.project, settings.with_overrides(show_progress=False), list(staleness.changed),
                          embedder=embedder)
    settle(settings.index_dir, settings.project, staleness.changed)
    if result.warnings:
        say("".join(f"  warning: {w}\n" for w in result.warnings).rstrip())


def _readable(settings: Settings, needs_bridge: bool) -> bool:
    if not has_index(settings.index_dir):
        return False
    return not needs_bridge or IndexLayout(settings.index_dir).bridge.exists() or _coverage(settings) >= 1.0


def _coverage(settings: Settings) -> float:
    from codelens.index.metadata import read_stats

    try:
        return read_stats(settings.index_dir).dense_coverage
    except CodeLensError:
        return 0.0


# ----------------------------------------------------------------- the background server


def server_log(settings: Settings) -> Path:
    return cache_root() / "logs" / f"{Path(settings.index_dir).name}.serve.log"


def server_starting_or_running(settings: Settings) -> bool:
    from codelens.serve.lifetime import holder_pid

    return holder_pid(settings.index_dir, settings.chroma_url) is not None


def start_background_server(settings: Settings) -> None:
    """`codelens serve --background` for the project, detached from this process and its
    terminal (nothing when one is already starting or running)."""
    if server_starting_or_running(settings):
        return
    log = server_log(settings)
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if key != "CODELENS_DB"}
    package_parent = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "codelens", "serve", "--background", "--db", str(settings.index_dir),
               "--project", str(settings.project)]
    with open(log, "ab") as output:
        subprocess.Popen(command, cwd=settings.project if settings.project.is_dir() else settings.project.parent,
                         env=env, stdin=subprocess.DEVNULL, stdout=output,
                         stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
    # The child takes the serve lock within a moment: wait for it, so a second search does not
    # start a second server (which would see the lock and leave, but only after loading Python).
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and not server_starting_or_running(settings):
        time.sleep(0.05)


def _log_tail(log: Path, lines: int = 3) -> str:
    try:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return "no log"
    return " | ".join(tail) or "no output"
