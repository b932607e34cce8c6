"""Freshness: from a file write to the first search that returns the new content, with
`codelens serve` running in watch mode (the default), on the demo and on pydantic.

    python bench/freshness.py [--corpus demo pydantic] [--work DIR] [--edits 10] [--idle-s 60]
                              [--skip-profile]

Per corpus: the zip unzipped to a folder under --work (kept, with its index and embedding
cache, so a second run skips the cold index), made a git repository; then
- profile: one-function edit applied by an index run (`build_index`, what a user ran by hand
  before watch mode) and by an incremental update (`update_index`), each with its phases;
- with `serve` watching: a one-function edit (p50 and max of --edits edits, each in another
  function), a new file, a deleted file, a rename, a branch switch changing 20 files, measured
  from the write to the first search (through the server, as `codelens search` asks it) that
  returns the new content and no longer the old;
- idle CPU of the serve process (watcher included) over --idle-s seconds with no changes.
Every timing row carries the 1-minute load average (`uptime`) when it was taken: this is a
2-core machine shared with other work.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, print_table

from codelens.index.build import build_index
from codelens.index.metadata import is_codelens_index
from codelens.index.update import refresh_deferred, update_index
from codelens.serve.client import find_server, remote_search
from codelens.settings import Settings

CORPORA = {"demo": SHARED / "codebase_python.zip", "pydantic": SHARED / "benchmarks" / "semble_py_dev" / "pydantic.zip"}
POLL_S = 0.2  # a search every 0.2 s: often enough to time, not a load of its own
TIMEOUT_S = 300.0
BRANCH_FILES = 20
PREWARM_WAIT_S = 30.0


def load() -> float:
    return os.getloadavg()[0]


def unzip(zip_path: Path, target: Path) -> Path:
    if not target.exists():
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(target)
    entries = [p for p in target.iterdir() if p.name not in ("__MACOSX", ".git")]
    root = entries[0] if len(entries) == 1 and entries[0].is_dir() else target  # pydantic: the package folder
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "snapshot")
    return root


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", message)


def word(tag: str, n: int) -> str:
    """A made-up word no codebase contains (letters only: the tokenizer keeps it whole)."""
    letters = "".join(chr(ord("a") + int(d)) for d in f"{n:04d}")
    return f"zqx{tag}{letters}vuk"


def functions(root: Path, limit: int) -> list[tuple[Path, str]]:
    """(file, function name) of top-level functions in distinct non-test files."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "test" in path.as_posix() or ".git" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and len(n.body) > 0]
        if names:
            found.append((path, names[0]))
        if len(found) >= limit:
            break
    return found


def edit_function(path: Path, name: str, marker: str) -> int:
    """Add one statement at the end of function `name`'s body: `marker = 1`. Returns the
    function's new last line (the updated chunk's end_line)."""
    text = path.read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == name)
    last = node.body[-1]
    lines = text.splitlines(keepends=True)
    lines.insert(last.end_lineno, " " * last.col_offset + f"{marker} = 1\n")
    path.write_text("".join(lines), encoding="utf-8")
    return node.end_lineno + 1


def search(db: Path, query: str, k: int = 5) -> list[dict]:
    address = find_server(db)
    hits = remote_search(address, {"query": query, "k": k, "include_tests": True}) if address else None
    return hits or []


def until(db: Path, query: str, done, k: int = 5) -> float:
    """Seconds until `done(hits)` holds for the hits of query; started by the caller's write."""
    started = time.perf_counter()
    while time.perf_counter() - started < TIMEOUT_S:
        if done(search(db, query, k)):
            return time.perf_counter() - started
        time.sleep(POLL_S)
    raise SystemExit(f"timed out waiting for {query!r}")


def profile(root: Path, settings: Settings) -> list[list[object]]:
    """One-function edit applied by an index run, then by an update as a running watcher does it
    (its e5 engine and per-chunk memory warm): total and slowest phases; then the searcher's reopen."""
    from codelens.index.progressive import load_catalog
    from codelens.index.update import prewarm
    from codelens.models import load_embedder
    from codelens.search.searcher import Searcher

    embedder = load_embedder(settings.build_model)
    target, name = functions(root, 1)[0]
    rows = []
    edit_function(target, name, word("prof", 1))
    started, before = time.perf_counter(), load()
    stats = build_index(root, settings, embedder=embedder)
    rows.append(["index run (before)", round(time.perf_counter() - started, 2), before, _phases(stats.timings_s)])
    prewarm([e.chunk for e in load_catalog(settings.index_dir)])
    edit_function(target, name, word("prof", 2))
    update_index(root, settings, [str(target)], embedder=embedder)  # the watcher's engines load once
    edit_function(target, name, word("prof", 3))
    started, before = time.perf_counter(), load()
    result = update_index(root, settings, [str(target)], embedder=embedder)
    rows.append([f"update ({result.mode}, warm watcher)", round(time.perf_counter() - started, 2), before,
                 _phases(result.timings_s)])
    searcher = Searcher(settings, embedder=embedder)
    edit_function(target, name, word("prof", 4))
    update_index(root, settings, [str(target)], embedder=embedder)
    started, before = time.perf_counter(), load()
    searcher.refresh()
    rows.append(["searcher reopen after it", round(time.perf_counter() - started, 2), before, ""])
    started, before = time.perf_counter(), load()
    refresh_deferred(root, settings)
    rows.append(["code graph, second swap", round(time.perf_counter() - started, 2), before, ""])
    commit(root, "profile edits")
    return rows


def _phases(timings: dict) -> str:
    top = sorted(timings.items(), key=lambda kv: -kv[1])[:4]
    return ", ".join(f"{k.removeprefix('sidecar:build_')} {v:.2f}" for k, v in top)


def watched(root: Path, db: Path, edits: int, idle_s: float) -> list[list[object]]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db)], cwd=PROJECT_ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        while find_server(db) is None:
            if server.poll() is not None:
                raise SystemExit(server.stdout.read())
            time.sleep(0.2)
        from codelens.index.watch import read_watch_status

        while (status := read_watch_status(db)) is None or status.state != "up to date":
            time.sleep(0.5)
        time.sleep(PREWARM_WAIT_S)  # its per-chunk memory fills in the background meanwhile
        return _scenarios(root, db, edits, idle_s, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)


def _scenarios(root: Path, db: Path, edits: int, idle_s: float, pid: int) -> list[list[object]]:
    rows = []
    times, loads = [], []
    run = int(time.time()) % 1000 * 100  # new words in every run: an old run's are in the code already
    for i, (path, name) in enumerate(functions(root, edits)):
        marker = word("edit", run + i)
        chunk_id = f"{path.relative_to(root).as_posix()}::{name}"
        loads.append(load())
        end_line = edit_function(path, name, marker)  # the new version: found by its word, its new last line
        times.append(until(db, marker, lambda hits, c=chunk_id, e=end_line: any(
            h["chunk_id"] == c and h["end_line"] == e for h in hits)))
        time.sleep(0.5)
    rows.append([f"one-function edit, p50 of {len(times)}", round(statistics.median(times), 2),
                 f"max {max(times):.2f}", f"{min(loads):.1f}-{max(loads):.1f}"])
    rows += _file_scenarios(root, db)
    rows.append(_branch_switch(root, db))
    rows.append(_idle(pid, idle_s, db))
    return rows


def _file_scenarios(root: Path, db: Path) -> list[list[object]]:
    rows = []
    marker = word("new", int(time.time()) % 10_000)
    new = root / "freshness_probe.py"
    before = load()
    new.write_text(f'def {marker}(value):\n    """Double the value."""\n    return value * 2\n', encoding="utf-8")
    rows.append(["new file", round(until(db, marker, lambda hits: any(marker in h["chunk_id"] for h in hits)), 2),
                 "", f"{before:.1f}"])
    time.sleep(0.5)
    renamed = root / "freshness_renamed.py"
    before = load()
    new.rename(renamed)
    took = until(db, marker, lambda hits: any(h["path"] == "freshness_renamed.py" for h in hits)
                 and not any(h["path"] == "freshness_probe.py" for h in hits))
    rows.append(["rename", round(took, 2), "", f"{before:.1f}"])
    time.sleep(0.5)
    before = load()
    renamed.unlink()
    took = until(db, marker, lambda hits: not any(marker in h["chunk_id"] for h in hits))
    rows.append(["deleted file", round(took, 2), "", f"{before:.1f}"])
    return rows


def _branch_switch(root: Path, db: Path) -> list[object]:
    commit(root, "edits")
    marker = word("branch", int(time.time()) % 10_000)  # a new branch and new names in every run
    git(root, "checkout", "-q", "-b", f"other-{marker}")
    files = [p for p in sorted(root.rglob("*.py")) if ".git" not in p.parts][:BRANCH_FILES]
    for i, path in enumerate(files):
        path.write_text(path.read_text(encoding="utf-8") + f"\n\ndef {marker}_{i}():\n    return {i}\n",
                        encoding="utf-8")
    commit(root, "branch")
    git(root, "checkout", "-q", "main")
    time.sleep(6)  # the watcher settles on main
    before = load()
    started = time.perf_counter()
    git(root, "checkout", "-q", f"other-{marker}")
    until(db, marker, lambda hits: sum(marker in h["chunk_id"] for h in hits) >= BRANCH_FILES, k=40)
    took = time.perf_counter() - started
    git(root, "checkout", "-q", "main")
    return [f"branch switch, {len(files)} files", round(took, 2), "", f"{before:.1f}"]


def _idle(pid: int, seconds: float, db: Path) -> list[object]:
    """CPU of the serve process with nothing changing, once its watcher is done (the branch
    switch back to main, and the code graph after it)."""
    from codelens.index.metadata import read_stats
    from codelens.index.update import DEFERRED
    from codelens.index.watch import read_watch_status

    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        status = read_watch_status(db)
        if status and status.state == "up to date" and not read_stats(db).run.get(DEFERRED):
            break
        time.sleep(0.5)
    time.sleep(5)
    before, load_before = _cpu_s(pid), load()
    time.sleep(seconds)
    used = _cpu_s(pid) - before
    return [f"idle CPU over {seconds:.0f} s", f"{100 * used / seconds:.2f}% of a core", "", f"{load_before:.1f}"]


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", nargs="+", choices=sorted(CORPORA), default=["demo", "pydantic"])
    parser.add_argument("--work", type=Path, default=Path("/tmp/codelens-freshness"))
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--idle-s", type=float, default=60.0)
    parser.add_argument("--skip-profile", action="store_true")
    args = parser.parse_args(argv)
    for corpus in args.corpus:
        root = unzip(CORPORA[corpus], args.work / corpus / "src")
        db = args.work / corpus / "db"
        settings = Settings(db_path=db, show_progress=False)
        if not is_codelens_index(db):
            started = time.perf_counter()
            build_index(root, settings)
            print(f"{corpus}: cold index in {time.perf_counter() - started:.0f} s (load {load():.1f})")
        build_index(root, settings)  # in step with the folder (and the delta folded)
        print(f"\n## {corpus} ({root})")
        if not args.skip_profile:
            print_table(["one-function edit applied by", "s", "load", "slowest phases (s)"], profile(root, settings))
        print_table(["serve --watch: write -> first search with it", "s", "", "load"],
                    watched(root, db, args.edits, args.idle_s))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
