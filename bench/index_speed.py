"""Cold indexing speed: files, chunks, seconds, chunks/s and peak RSS per codebase.

Each codebase is indexed in a fresh subprocess with an empty embedding cache, so the
numbers are a first run on a new machine.
    python bench/index_speed.py [--source ZIP_OR_DIR ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import SHARED, cold_cache_env, print_table, read_metadata, run_measured

DEFAULT_SOURCES = [SHARED / "codebase_python.zip", SHARED / "corpora" / "gymhero_2026.zip"]


def measure(source: Path) -> list[object]:
    with tempfile.TemporaryDirectory(prefix="codelens-bench-") as tmp:
        db = Path(tmp) / "chroma_db"
        wall, peak_mb, _ = run_measured([sys.executable, "index.py", "--source", str(source),
                                         "--db", str(db), "--quiet", "--full"], env=cold_cache_env(Path(tmp)))
        meta = read_metadata(db)
    chunks = meta["total_chunks"]
    return [source.name, meta["files"], chunks, round(wall, 1), round(chunks / wall, 1), round(peak_mb)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--source", type=Path, action="append", help="codebase to measure (repeatable)")
    args = parser.parse_args(argv)
    sources = args.source or [s for s in DEFAULT_SOURCES if s.exists()]
    rows = []
    for source in sources:
        print(f"indexing {source} ...", file=sys.stderr)
        rows.append(measure(source))
    print_table(["codebase", "files", "chunks", "seconds", "chunks/s", "peak RSS MB"], rows)


if __name__ == "__main__":
    main()
