"""Helpers shared by the benchmarks: tables, percentiles, subprocess runs with peak RSS, searches
from other processes, busy loops."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED = PROJECT_ROOT.parent / "shared"
sys.path.insert(0, str(PROJECT_ROOT))

import codelens.search.sidecars  # noqa: E402, F401  (registers the index's sidecars for every benchmark)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: the smallest value with at least q% of values at or below it."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[min(rank, len(ordered)) - 1]


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    text = "\n".join(lines)
    print(text)
    return text


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def cold_cache_env(folder: Path) -> dict[str, str]:
    """This environment with an empty user cache root in folder (no shared embedding cache, no
    index: a first run on a new machine) but the models' exported graphs kept where they are."""
    from codelens.locations import model_cache

    return {**os.environ, "CODELENS_CACHE_DIR": str(Path(folder) / "user_cache"),
            "CODELENS_MODEL_CACHE": str(model_cache())}


def run_measured(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run a command; return (wall seconds, peak RSS of the child in MB, stdout)."""
    started = time.perf_counter()
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, check=False, env=env)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr}")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kb / 1024.0, result.stdout


def read_metadata(db_path: Path) -> dict:
    return json.loads((db_path / "index_metadata.json").read_text(encoding="utf-8"))


def index_runs_in_a_loop(work: Path, source: Path | None = None) -> subprocess.Popen:
    """An index run of another codebase (gymhero_2026 by default) restarted whenever it ends, each
    into a fresh folder (nothing cached): CPU load of the kind a developer's machine has beside us.
    Stop it with os.killpg(process.pid, 9)."""
    source = source or SHARED / "corpora" / "gymhero_2026.zip"
    loop = (f"i=0; while true; do i=$((i+1)); {sys.executable} {PROJECT_ROOT / 'index.py'} --source {source} "
            f"--db {work}/beside_$i --full --quiet >/dev/null 2>&1; "
            f"rm -rf {work}/beside_$i {work}/.beside_$i* {work}/user_cache; done")
    return subprocess.Popen(["bash", "-c", loop], start_new_session=True, env=cold_cache_env(work))


def search_json(db: Path, query: str, env: dict[str, str], k: int = 5) -> list[dict] | None:
    """The hits of `python -m codelens search --json` in a process of its own (its start and model
    load included, as a person's first search), or None when it failed (no index there yet)."""
    result = subprocess.run([sys.executable, "-m", "codelens", "search", query, "--db", str(db), "--json",
                             "-k", str(k)], cwd=PROJECT_ROOT, env={**env, "PYTHONPATH": str(PROJECT_ROOT)},
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return None
    try:
        hits = json.loads(result.stdout)
    except ValueError:
        return None
    return hits if isinstance(hits, list) else None


# Checks its parent between rounds: once the benchmark is gone (killed, even by SIGKILL) it is
# adopted by another process and stops by itself.
BUSY_LOOP = ("import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n"
             "    for _ in range(1_000_000):\n        pass\n")


@contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """count CPU-bound processes (one per core: what else a developer's machine runs) for the
    block's duration, killed when it ends, however it ends."""
    loops: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            loops.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP], start_new_session=True))
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
