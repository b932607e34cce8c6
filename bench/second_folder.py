"""The same code indexed from a second folder: what the machine's embedding cache saves.

Run 1 indexes a codebase (a zip or a folder) cold (an empty user cache root: no shared embedding
cache, no index); run 2 indexes the same files extracted into another folder, into another --db, with the same
user cache root (a second clone, a worktree, a repository that also sits in a workspace). The
models' exported graphs are kept (exported once, unmeasured, before run 1), so the difference
is the embedding cache alone. Prints a table: seconds, texts embedded, the load beside each run,
and run 2's own timings (what remains of its time).
    python bench/second_folder.py [--source ZIP] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, cold_cache_env, print_table, read_metadata, run_measured


def extract(source: Path, target: Path) -> Path:
    """A zip's files in a folder (the demo zip is ours: plain paths), or a folder copied."""
    if source.is_dir():
        shutil.copytree(source, target)
        return target
    with zipfile.ZipFile(source) as archive:
        archive.extractall(target)
    entries = list(target.iterdir())
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else target


def index(source: Path, db: Path, env: dict[str, str]) -> tuple[list[object], dict[str, float]]:
    load = os.getloadavg()[0]
    wall, _, _ = run_measured([sys.executable, "index.py", "--source", str(source), "--db", str(db), "--quiet"],
                              env=env)
    meta = read_metadata(db)
    return [source.name, meta["total_chunks"], meta["run"]["embedded"], round(wall, 1), round(load, 2)], \
        steps(meta.get("timings_s", {}), wall)


def steps(timings: dict[str, float], wall: float) -> dict[str, float]:
    """The run's own timings as parts of its wall time: `storing` counts from ChromaDB's first
    write to the manifest, the sidecars included; what no timing covers is the process start,
    the imports and the lock."""
    sidecars = sum(v for k, v in timings.items() if k.startswith("sidecar:"))
    parts = {k: v for k, v in timings.items() if k not in ("storing", "searchable")}  # searchable: a moment
    if "storing" in timings:
        parts["storing (ChromaDB, catalog, manifest)"] = round(timings["storing"] - sidecars, 2)
    parts["process start, imports, the rest"] = round(wall - sum(parts.values()), 2)
    return parts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, default=SHARED / "codebase_python.zip")
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="codelens-second-folder-"))
    shutil.rmtree(work / "user_cache", ignore_errors=True)
    env = cold_cache_env(work)
    warm_up = cold_cache_env(work / "warm_up")  # exports the models' graphs if they are not yet
    run_measured([sys.executable, "index.py", "--source", str(PROJECT_ROOT / "tests" / "fixtures" / "mini_project"),
                  "--db", str(work / "warm_up" / "db"), "--quiet"], env=warm_up)
    second = extract(args.source, work / "b" / "src")
    rows, timings = [], []
    runs = (("first, cold", args.source, work / "a" / "db"), ("second folder", second, work / "b" / "db"))
    for name, source, db in runs:
        print(f"indexing {source} ({name}) ...", file=sys.stderr)
        row, spent = index(source, db, env)
        rows.append([name, *row])
        timings.append(spent)
    print_table(["run", "source", "chunks", "embedded", "seconds", "load (1 min, at the start)"], rows)
    print(f"\nsecond / first: {rows[1][4] / rows[0][4]:.1%}\n")
    print_table(["step of the second run", "seconds"], sorted(timings[1].items(), key=lambda kv: -kv[1]))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
