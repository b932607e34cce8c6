"""How fast code is chunked, per language: the syntax-tree chunker against Python's ast chunker.

    python bench/chunk_speed.py                         # every zip of semble_langs_dev and semble_py_dev
    python bench/chunk_speed.py ZIP [ZIP ...]

Times `codebase.chunk_one_file` (read, mask secrets, parse, chunk) over every code file of each zip,
once extracted (extraction and the walk are not counted: they are the same for every language).
The chunk rate is what chunking costs an index run; embedding runs at tens of chunks per second.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import SHARED, print_table

from codelens.ingest.codebase import chunk_one_file
from codelens.ingest.tree import open_tree
from codelens.languages import language_of

DEFAULT_ZIPS = sorted((SHARED / "benchmarks" / "semble_langs_dev").glob("*.zip")) + sorted(
    (SHARED / "benchmarks" / "semble_py_dev").glob("*.zip"))


def measure(zip_path: Path) -> list[object]:
    """[repository, main language, code files, code chunks, seconds, chunks/s, files with a partial parse]."""
    with tempfile.TemporaryDirectory(prefix="chunk-speed-") as work_dir:
        files = [f for f in open_tree(zip_path, Path(work_dir)).files() if language_of(f.rel_path)]
        languages = Counter(language_of(f.rel_path) for f in files)
        chunks, partial = 0, 0
        start = time.perf_counter()
        for source_file in files:
            one = chunk_one_file(source_file.abs_path, source_file.rel_path, 1_000_000)
            chunks += sum(1 for chunk in one.chunks if chunk.is_code)
            partial += any("could not parse all" in warning for warning in one.warnings)
        seconds = time.perf_counter() - start
    main = languages.most_common(1)[0][0] if languages else "-"
    return [zip_path.stem, main, len(files), chunks, round(seconds, 2), round(chunks / max(seconds, 1e-9)), partial]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("zips", nargs="*", type=Path)
    args = parser.parse_args(argv)
    rows = [measure(path) for path in args.zips or DEFAULT_ZIPS]
    print_table(["repository", "language", "code files", "code chunks", "seconds", "chunks/s", "partial parses"], rows)


if __name__ == "__main__":
    main()
