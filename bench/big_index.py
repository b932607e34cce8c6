"""Where a big index run spends its time (issue 43): one cold run of `index.py` per source, with
the first answers other processes get while it runs.

    python bench/big_index.py --source DIR_OR_ZIP [--source ...] [--busy] [--label NAME]
                              [--out FILE.json] [--first-answer-query "..."] [--keep DIR]

Each source is indexed once by `index.py --source S --db DB --quiet` in a child process under a
fresh user cache (`_common.cold_cache_env`: an empty embedding cache, the models' exported graphs
kept). Its peak RSS is that child's own `ru_maxrss` (os.wait4 on it: not the largest of every
child this benchmark ran). While it runs, `python -m codelens search --db DB --json` runs one
after another in processes of their own (the same cold environment) until one answers with a hit
found by meaning: "first answer" is the first search that returned any hit, "first answer by
meaning" the first with a hit whose `matched` is `meaning` or `meaning+keywords` (the dense leg
found it: codelens/search/matched.py). The searches share the machine with the run, as a person's do.
A thread reads index_metadata.json every 0.2 s for when the index became searchable, when its
dense coverage left 0 and when it was complete for searches (`complete` in its timings: the test
chunks' vectors follow); every time is counted from the child's start, on this benchmark's clock.

The table: every entry of the index's `timings_s` in the order the run wrote them (`searchable`
and `complete` are counted from the run's start inside index.py, a second or two after the
child's start; the others are each stage's own seconds), chunks per second where a stage embeds
chunks (dense_batches: e5 over the non-test chunks, or all when no tests are deferred; embedding
when no dense_batches ran; sidecar:build_english_sidecar: the English model over the same chunks;
test_vectors: the deferred test chunks, e5 and the English model), then the answers, the wall
times, the peak RSS and the load average at the start and the end. `--busy` runs two busy loops (one per core)
for the run's duration. `--keep DIR` keeps each index in DIR/<source name>; `--out` writes every
figure as JSON.

SymPy at the newest base commit of ../shared/benchmarks/swebench_lite_dev/instances.json
(sympy__sympy-24909, d3b4158dea271485e3daa11bf82e69b8dab348ce, committed 2023-03-11):

    mkdir -p /tmp/repos/sympy
    git -C /work/.mirror/sympy+sympy/repo archive d3b4158dea271485e3daa11bf82e69b8dab348ce | tar -x -C /tmp/repos/sympy
    python bench/big_index.py --source /tmp/repos/sympy --label sympy-24909 \\
        --first-answer-query "solve a system of linear equations" --out sympy.json

abseil-cpp (exported at /tmp/repos/abseil), quiet and beside two busy loops:

    python bench/big_index.py --source /tmp/repos/abseil --first-answer-query "parse a time zone" --out abseil.json
    python bench/big_index.py --source /tmp/repos/abseil --busy --first-answer-query "parse a time zone" \\
        --out abseil_busy.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, busy_loops, cold_cache_env, print_table, search_json
from progressive import SEARCH_QUERY

from codelens.search.english import ENGLISH_SIDECAR
from codelens.search.matched import BOTH, MEANING

BUSY_LOOPS = 2
DENSE_MATCHES = (MEANING, BOTH)  # the dense leg found the hit
ENGLISH_STAGE = f"sidecar:{ENGLISH_SIDECAR.name}"  # the English model over the chunks with vectors
FROM_RUN_START = ("searchable", "complete")  # timings_s entries counted from the run's start, not a stage's own
METADATA_POLL_S = 0.2


@dataclass(frozen=True)
class Answer:
    """One search from another process while the index ran: when it started and returned (seconds
    from the child's start), its hits' `matched`, and the dense coverage the metadata said before it."""

    started_s: float
    answered_s: float
    matched: tuple[str, ...] | None  # None: the search failed (no index yet)
    coverage: float | None


@dataclass(frozen=True)
class StageRow:
    name: str
    seconds: float
    counted: str  # "stage" (its own seconds) or "from start"
    chunks: int | None  # what it embedded, where it embeds chunks
    chunks_per_s: float | None


@dataclass
class Observed:
    """What the metadata watcher saw first, in seconds from the child's start."""

    searchable_s: float | None = None
    dense_s: float | None = None  # dense_coverage above 0
    complete_s: float | None = None  # `complete` in timings_s: tests deferred, the rest in


def stage_rows(timings: Mapping[str, float], total_chunks: int, test_chunks: int) -> list[StageRow]:
    """Every timings_s entry in its order, with chunks per second for the stages that embed chunks.
    A run that defers the test chunks (its timings hold `complete`) embeds the others first."""
    deferred = "complete" in timings or "test_vectors" in timings
    first = total_chunks - test_chunks if deferred else total_chunks
    embedded = {"dense_batches": first, ENGLISH_STAGE: first, "test_vectors": test_chunks if deferred else None,
                # after dense_batches every vector is in the cache: embedding only reads it
                "embedding": None if "dense_batches" in timings else first}
    rows = []
    for name, seconds in timings.items():
        chunks = embedded.get(name)
        rate = round(chunks / seconds, 1) if chunks and seconds > 0 else None
        rows.append(StageRow(name, seconds, "from start" if name in FROM_RUN_START else "stage", chunks, rate))
    return rows


def first_answers(answers: Sequence[Answer]) -> dict[str, Answer | None]:
    """The first answer with any hit, and the first with a hit the dense leg found."""
    with_hits = [a for a in answers if a.matched]
    return {"hits": next(iter(with_hits), None),
            "meaning": next((a for a in with_hits if set(a.matched) & set(DENSE_MATCHES)), None)}


def complete_for_searches(observed: Observed, wall_s: float, timings: Mapping[str, float]) -> float:
    """When default searches had the full index: the complete swap when tests were deferred, else the end."""
    if "complete" in timings and observed.complete_s is not None:
        return observed.complete_s
    return wall_s


class WatchedRun:
    """index.py in a child process, reaped by os.wait4 on a thread of its own: when it ended, and
    its own peak RSS. Nothing else may wait for the process."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str], log: Path) -> None:
        self.started = time.perf_counter()
        with log.open("wb") as out:
            self.process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=dict(env), stdout=out,
                                            stderr=subprocess.STDOUT)
        self.ended = threading.Event()
        self.wall_s, self.peak_rss_mb = 0.0, 0.0
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        _, status, usage = os.wait4(self.process.pid, 0)
        self.wall_s = time.perf_counter() - self.started
        self.peak_rss_mb = usage.ru_maxrss / 1024.0  # kilobytes on Linux
        self.process.returncode = os.waitstatus_to_exitcode(status)
        self.ended.set()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def stop(self) -> None:
        if not self.ended.is_set():
            self.process.terminate()
            self.ended.wait(30)


def live_metadata(db: Path) -> dict | None:
    """The index's metadata now, or None (not written yet, or caught mid-swap)."""
    try:
        return json.loads((db / "index_metadata.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def note(observed: Observed, meta: Mapping, now: float) -> None:
    """What this read of the metadata shows for the first time (the watcher's, or a search's)."""
    now = round(now, 2)
    observed.searchable_s = observed.searchable_s or now
    if observed.dense_s is None and meta.get("dense_coverage", 1.0) > 0:
        observed.dense_s = now
    if observed.complete_s is None and "complete" in meta.get("timings_s", {}):
        observed.complete_s = now


def watch_metadata(db: Path, run: WatchedRun, observed: Observed) -> None:
    while not run.ended.wait(METADATA_POLL_S):
        meta = live_metadata(db)
        if meta is not None:
            note(observed, meta, run.elapsed())


def poll_searches(db: Path, run: WatchedRun, query: str, env: Mapping[str, str], observed: Observed) -> list[Answer]:
    """Searches one after another until one finds a hit by meaning or the run ends."""
    answers: list[Answer] = []
    while not run.ended.is_set():
        meta = live_metadata(db)
        if meta is None:
            time.sleep(METADATA_POLL_S)
            continue
        started = run.elapsed()
        note(observed, meta, started)
        hits = search_json(db, query, dict(env))
        answers.append(Answer(round(started, 2), round(run.elapsed(), 2),
                              None if hits is None else tuple(h.get("matched", "") for h in hits),
                              meta.get("dense_coverage")))
        if first_answers(answers)["meaning"] is not None:
            break
    return answers


def test_chunk_count(db: Path) -> int:
    from codelens.index.progressive import load_catalog

    return sum(1 for entry in load_catalog(db) if entry.chunk.is_test)


def measure(source: Path, query: str, busy: bool, keep: Path | None, until_complete: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="codelens-big-index-") as tmp:
        if keep:
            keep.mkdir(parents=True, exist_ok=True)
        db = keep / source_name(source) if keep else Path(tmp) / "chroma_db"
        if db.exists() and any(db.iterdir()):
            raise SystemExit(f"{db} is not empty: a cold run needs a fresh index folder")
        env = cold_cache_env(Path(tmp))
        log = Path(tmp) / "index.log"
        load_start = os.getloadavg()
        observed = Observed()
        with busy_loops(BUSY_LOOPS if busy else 0):
            run = WatchedRun([sys.executable, "index.py", "--source", str(source), "--db", str(db), "--quiet"],
                             env, log)
            try:
                watcher = threading.Thread(target=watch_metadata, args=(db, run, observed), daemon=True)
                watcher.start()
                answers = poll_searches(db, run, query, env, observed)
                while not run.ended.wait(METADATA_POLL_S):
                    if until_complete and observed.complete_s is not None:
                        break  # the test chunks' vectors are left to a later run
                load_end = os.getloadavg()
            finally:
                run.stop()
        watcher.join()
        if run.process.returncode != 0 and not (until_complete and observed.complete_s is not None):
            raise SystemExit(f"index.py failed on {source} ({run.process.returncode}):\n"
                             f"{log.read_text(encoding='utf-8', errors='replace')[-3000:]}")
        meta = live_metadata(db) or {}
        tests = test_chunk_count(db)
    return figures(source, meta, tests, answers, observed, run.wall_s, run.peak_rss_mb, load_start, load_end,
                   busy, db if keep else None)


def figures(source: Path, meta: Mapping, test_chunks: int, answers: Sequence[Answer], observed: Observed,
            wall_s: float, peak_rss_mb: float, load_start: Sequence[float], load_end: Sequence[float], busy: bool,
            kept: Path | None) -> dict:
    """Every figure of one source's run, as --out writes it."""
    timings = meta.get("timings_s", {})
    first = first_answers(answers)
    return {
        "source": str(source), "name": source_name(source), "kept_db": str(kept) if kept else None,
        "busy_loops": BUSY_LOOPS if busy else 0, "files": meta.get("files"), "total_chunks": meta.get("total_chunks"),
        "chunks_per_kind": meta.get("chunks_per_kind", {}), "test_chunks": test_chunks, "run": meta.get("run", {}),
        "timings_s": timings,
        "stages": [asdict(row) for row in stage_rows(timings, meta.get("total_chunks", 0), test_chunks)],
        "answers": [asdict(a) for a in answers], "searches": len(answers),
        "first_answer": asdict(first["hits"]) if first["hits"] else None,
        "first_answer_by_meaning": asdict(first["meaning"]) if first["meaning"] else None,
        "observed": asdict(observed), "complete_s": round(complete_for_searches(observed, wall_s, timings), 2),
        "wall_s": round(wall_s, 2), "peak_rss_mb": round(peak_rss_mb, 1),
        "load_start": [round(x, 2) for x in load_start], "load_end": [round(x, 2) for x in load_end],
    }


def table_rows(result: Mapping) -> list[list[object]]:
    """One source's table: its stages, then the answers, the wall times, memory and load."""
    rows: list[list[object]] = [[f"stage {s['name']}", s["seconds"], s["counted"], _blank(s["chunks"]),
                                 _blank(s["chunks_per_s"])] for s in result["stages"]]
    observed = result["observed"]
    for label, answer in (("first answer (any hit)", result["first_answer"]),
                          ("first answer by meaning", result["first_answer_by_meaning"])):
        note = "none during the run" if answer is None else (
            f"dense coverage then {answer['coverage']:.0%}" if answer["coverage"] is not None else "")
        rows.append([label, _blank(answer and answer["answered_s"]), "from child start", "", "", note])
    rows += [["searchable (metadata seen)", _blank(observed["searchable_s"]), "from child start", "", ""],
             ["dense coverage > 0 (metadata seen)", _blank(observed["dense_s"]), "from child start", "", ""],
             ["complete for searches", result["complete_s"], "from child start", "", ""],
             ["run end (test vectors in)", result["wall_s"], "from child start", result["total_chunks"],
              round(result["total_chunks"] / result["wall_s"], 1) if result["wall_s"] else ""],
             ["peak RSS MB", result["peak_rss_mb"], "index.py", "", ""],
             ["load average 1/5/15 min", "/".join(f"{x:.2f}" for x in result["load_start"]), "start", "", "",
              "/".join(f"{x:.2f}" for x in result["load_end"]) + " at the end"],
             ["busy loops", result["busy_loops"], "", "", ""],
             ["searches run", result["searches"], "", "", ""]]
    return [row + [""] * (6 - len(row)) for row in rows]


def _blank(value: object) -> object:
    return "" if value is None else value


def source_name(source: Path) -> str:
    return source.stem if source.suffix == ".zip" else source.name


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, action="append", help="a zip or folder (repeatable; default: the demo)")
    parser.add_argument("--busy", action="store_true", help=f"{BUSY_LOOPS} busy loops beside each index run")
    parser.add_argument("--label", default="", help="a name for this run in the tables and the JSON")
    parser.add_argument("--out", type=Path, default=None, help="write every figure as JSON here")
    parser.add_argument("--first-answer-query", default=SEARCH_QUERY, help="the query the searches ask")
    parser.add_argument("--keep", type=Path, default=None, help="keep each index in DIR/<source name>")
    parser.add_argument("--until-complete", action="store_true",
                        help="stop each run once it is complete for searches (its test vectors not timed)")
    args = parser.parse_args(argv)
    results = []
    for source in args.source or [SHARED / "codebase_python.zip"]:
        print(f"indexing {source}{' beside busy loops' if args.busy else ''} ...", file=sys.stderr, flush=True)
        results.append(measure(source.resolve(), args.first_answer_query, args.busy, args.keep, args.until_complete))
        result = results[-1]
        print(f"\n{args.label + ': ' if args.label else ''}{result['name']}, {result['files']} files, "
              f"{result['total_chunks']} chunks ({result['test_chunks']} test; "
              f"{', '.join(f'{k} {v}' for k, v in result['chunks_per_kind'].items())}), "
              f"{'busy: ' + str(BUSY_LOOPS) + ' busy loops' if args.busy else 'quiet'}, "
              f"query {args.first_answer_query!r}")
        print_table(["figure", "s", "counted", "chunks", "chunks/s", "note"], table_rows(result))
    if args.out:
        report = {"label": args.label, "busy": args.busy, "query": args.first_answer_query,
                  "cpu_count": os.cpu_count(), "sources": results}
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
