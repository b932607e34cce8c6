"""Task context and change impact on SWE-bench Lite instances (issue 38): real issues, each indexed at
its base commit, the code its fix changed as the gold.

    python bench/swebench.py --repo GITDIR [--instances N] [--budgets 2000,8000,27000]
                             [--tokenizer o200k|cl100k|e5] [--line-numbers]
                             [--set instances.json] [--work DIR] [--only PREFIX ...] [--out results.json]
                             [--snapshots DIR]

GITDIR is a clone or bare mirror of the instances' repository (sympy/sympy for the dev set in
../shared/benchmarks/swebench_lite_dev/). Instances run in commit order; each base is exported with
`git archive` into one folder and one index is updated incrementally from one base to the next
(only what changed is chunked and embedded). `--only PREFIX` indexes only those folders (a smoke
run: a smaller search space, numbers not comparable with a whole tree's).

Per budget, counted in --tokenizer's tokens (o200k by default, what `codelens context` packs in) and
in UTF-8 bytes / 4 beside them, every method in both (each packs or reads anew in each unit):
- function recall: gold functions whose full code is in the context (a full piece of the function,
  or of the class or module block holding it); file recall: gold files with a piece in it; all:
  instances with every gold function in full; ceiling: gold functions whose own text as packed
  (the header and the code in full, as a seed's piece) fits the budget at all, found by any method
  or not (one absent from the index never fits): what no method can pass;
- for `context` (Stage A + B + the packer), for today's search read in rank order (100 hits, each
  whole as the packer writes a piece, skipping one that does not fit what is left), and for BM25
  over whole files (read whole in rank order the same way; a function counts when its file is read).
Pieces carry their start line in the header only; --line-numbers numbers every line (as before).
`impact` fed each instance's gold patch (depth 2): recall of the test files its test patch touches,
and how many test files it lists. Latency of `context` for a 2,300-character task: warm (p50/p95 over
--rounds on the open index) and from a fresh `python -m codelens context` process (--cold runs); the same
through a running `codelens serve` (POST /context warm, and a fresh CLI process the server answers).
Issue 45: task context with each of its parts on its own (`--variants all`: issue reading, files first,
dispatch edges, the packer's scoring; and none of them, issue 38's context), and of the ranked pieces
(the packer's order) func@5/func@10 (every gold function among the first k, itself or inside a
definition the packer shows whole at 8k) and file@1/file@5 (every gold file among the first k files).
State the load (`uptime`, printed) beside the numbers.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _common import PROJECT_ROOT, SHARED, percentile, print_table

from codelens.answer.impact import impact_of
from codelens.answer.pack import Candidate, PackRules, context_rules, pack, piece_text
from codelens.answer.task_context import ALL_PARTS, NO_PARTS, ContextParts, check_task, ranked
from codelens.answer.token_count import BYTE_ESTIMATE, DEFAULT_TOKENIZER, TOKENIZERS, TokenCounter, counter_for
from codelens.chunk import Chunk
from codelens.errors import CodeLensError
from codelens.index.build import build_index
from codelens.index.store import forget_open_indexes
from codelens.open_index import OpenIndex
from codelens.search.lexical import LexicalIndex
from codelens.search.terms import tokenize
from codelens.settings import Settings

DEV_SET = SHARED / "benchmarks" / "swebench_lite_dev" / "instances.json"
TASK_CHARS = 2300  # the latency task: a long issue's length
SEARCH_READ = 100  # hits today's search returns at most (search/limits.MAX_K)
BYTES = "bytes/4"
SEED_NOTE = "seed 1, found by the search"  # the shortest note a gold function's piece carries in a context
# Task context with each of its parts on its own (issue 45), beside all of them and none (issue 38's)
VARIANTS = {
    "context": ALL_PARTS,
    "context, no parts (issue 38)": NO_PARTS,
    "context, issue reading only": ContextParts(reading=True, files_first=False, dispatch=False, scoring=False),
    "context, files first only": ContextParts(reading=False, files_first=True, dispatch=False, scoring=False),
    "context, dispatch edges only": ContextParts(reading=False, files_first=False, dispatch=True, scoring=False),
    "context, packer scoring only": ContextParts(reading=False, files_first=False, dispatch=False, scoring=True),
}
RANKS = (5, 10)  # func@k: every gold function among the first k ranked pieces
FILE_RANKS = (1, 5)  # file@k: every gold file among the files of the first pieces, first k distinct


@dataclass
class Recall:
    """Per budget and method: gold functions in full, gold files touched, instances complete."""

    functions: list[float] = field(default_factory=list)
    files: list[float] = field(default_factory=list)
    complete: list[bool] = field(default_factory=list)
    ceiling: list[float] = field(default_factory=list)

    def add(self, gold_functions: Sequence[str], gold_files: Sequence[str], shown_full: set[str],
            shown_files: set[str], ceiling: float) -> None:
        found = [g in shown_full for g in gold_functions]
        self.functions.append(sum(found) / max(1, len(found)))
        self.files.append(sum(f in shown_files for f in gold_files) / max(1, len(gold_files)))
        self.complete.append(all(found))
        self.ceiling.append(ceiling)

    def row(self) -> tuple[float, float, float, float]:
        mean = lambda values: sum(values) / max(1, len(values))  # noqa: E731
        return mean(self.functions), mean(self.files), mean([float(c) for c in self.complete]), mean(self.ceiling)


# ------------------------------------------------------------------ the sources


def export_tree(git_dir: Path, commit: str, target: Path, only: Sequence[str]) -> None:
    """The tree at commit, alone in target (files of the previous base removed first)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "--format=tar", commit, *only,
                              *_package_inits(git_dir, commit, only)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")


def _package_inits(git_dir: Path, commit: str, only: Sequence[str]) -> list[str]:
    """The `__init__.py` of every package above the --only folders, so their modules keep their
    dotted names (`sympy/__init__.py` makes `sympy/printing/latex.py` `sympy.printing.latex`)."""
    wanted = {f"{'/'.join(p.strip('/').split('/')[:depth])}/__init__.py"
              for p in only for depth in range(1, len(p.strip("/").split("/")))}
    if not wanted:
        return []
    listed = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "--name-only", commit, *sorted(wanted)],
                            capture_output=True, text=True, check=True).stdout.split()
    return sorted(set(listed) & wanted)


def commit_time(git_dir: Path, commit: str) -> int:
    done = subprocess.run(["git", f"--git-dir={git_dir}", "show", "-s", "--format=%ct", commit],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


# ------------------------------------------------------------------ what each method shows


def full_cover(chunks: Sequence[Chunk], gold: Sequence[str], index: OpenIndex) -> set[str]:
    """The gold functions whose whole code is inside one of these chunks."""
    covered = set()
    for gold_id in gold:
        target = index.catalog.get(gold_id)
        for chunk in chunks:
            if chunk.chunk_id == gold_id or (target is not None and chunk.path == target.path
                                            and chunk.kind != "module"
                                            and chunk.start_line <= target.start_line
                                            and target.end_line <= chunk.end_line):
                covered.add(gold_id)
                break
    return covered


def gold_costs(gold: Sequence[str], counter: TokenCounter, index: OpenIndex, rules: PackRules) -> list[int | None]:
    """What each gold function's own piece costs (its header and its code in full, as the packer writes
    a seed), None for one the index does not hold."""
    chunks = [index.catalog.get(gold_id) for gold_id in gold]
    return [None if c is None else counter.count(piece_text(c, SEED_NOTE, "full", rules)) for c in chunks]


def ceiling(costs: Sequence[int | None], budget: int) -> float:
    """The attainable ceiling: the share of gold functions whose own piece fits the budget at all."""
    return sum(cost is not None and cost <= budget for cost in costs) / max(1, len(costs))


def context_shown(candidates: Sequence[Candidate], budget: int, counter: TokenCounter, rules: PackRules,
                  gold: Sequence[str], index: OpenIndex) -> tuple[set[str], set[str]]:
    """`codelens context` on the task: its candidates (Stage A + B, found once) packed in this unit."""
    packed = pack(candidates, budget, counter, rules)
    full = [p.chunk for p in packed.pieces if p.form == "full"]
    return full_cover(full, gold, index), {p.chunk.path for p in packed.pieces}


def at_ranks(chunks: Sequence[Chunk], gold: Sequence[str], gold_files: Sequence[str], index: OpenIndex,
             counter: TokenCounter) -> dict[str, bool]:
    """func@k (every gold function among the first k pieces: itself, or a definition holding it that
    the packer would show whole at 8k, not a class of thousands of lines) and file@k (every gold file
    among the first k distinct files of the pieces)."""
    whole = context_rules(False).big_class_share * 8000
    readable = [c for c in chunks if c.chunk_id in gold or counter.count(c.code) <= whole]
    row = {f"func@{k}": len(full_cover([c for c in chunks[:k] if c in readable], gold, index)) == len(gold)
           for k in RANKS}
    files = list(dict.fromkeys(c.path for c in chunks))
    row.update({f"file@{k}": all(f in files[:k] for f in gold_files) for k in FILE_RANKS})
    return row


def search_shown(hits: Sequence[Chunk], budget: int, counter: TokenCounter, gold: Sequence[str],
                 index: OpenIndex, rules: PackRules) -> tuple[set[str], set[str]]:
    """Hits read in rank order, each whole (a piece as the packer writes it), until the next does not fit."""
    read, spent = [], 0
    for chunk in hits:
        cost = counter.count(piece_text(chunk, "search hit", "full", rules))
        if spent + cost > budget:
            continue  # a reader skips what does not fit and reads on
        read.append(chunk)
        spent += cost
    return full_cover(read, gold, index), {c.path for c in read}


class FileBM25:
    """BM25 over whole .py files of one tree (the SWE-bench paper's retrieval), built per base."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
        texts = [(root / path).read_text(encoding="utf-8", errors="replace") for path in self.paths]
        self.index = LexicalIndex.build(self.paths, [tokenize(f"{path}\n{text}") for path, text in
                                                     zip(self.paths, texts, strict=True)])

    def ranked(self, task: str) -> list[str]:
        weights = Counter(tokenize(task))
        scores = self.index.scores({term: float(n) for term, n in weights.items()})
        order = scores.argsort()[::-1]
        return [self.paths[i] for i in order if scores[i] > 0]

    def shown(self, task: str, budget: int, counter: TokenCounter, gold: Sequence[str]) -> tuple[set[str], set[str]]:
        read, spent = set(), 0
        for path in self.ranked(task):
            text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            cost = counter.count(f"### {path}\n{text}")
            if spent + cost > budget:
                continue
            read.add(path)
            spent += cost
        return {g for g in gold if g.split("::", 1)[0] in read}, read


def shard(instances: list[dict], which: str) -> list[dict]:
    """The K-th of N contiguous parts of the instances ("K/N"): neighbouring bases stay together, so
    each part's index moves by small steps."""
    k, n = (int(part) for part in which.split("/"))
    if not 1 <= k <= n:
        raise SystemExit(f"--shard {which}: K must be 1 to N")
    size = -(-len(instances) // n)
    return instances[(k - 1) * size: k * size]


# ------------------------------------------------------------------ impact and latency


def impact_row(index: OpenIndex, patch: str, test_files: Sequence[str]) -> tuple[float, int, float]:
    """(recall of the test files, test files listed, ms) of impact fed the gold patch, warm: the graph,
    the catalog and the links loaded before the clock starts (a server's or an agent's second call)."""
    index.graph, index.catalog, index.links  # noqa: B018 - loaded once per opened index, not per call
    started = time.perf_counter()
    try:
        found = impact_of(patch, index.catalog, index.graph, index.links, 2)
    except CodeLensError as exc:
        print(f"  impact: {exc}", file=sys.stderr)
        return 0.0, 0, float("nan")
    elapsed_ms = (time.perf_counter() - started) * 1000
    listed = set(found.test_files)
    return sum(f in listed for f in test_files) / max(1, len(test_files)), len(listed), elapsed_ms


def latency_task(problem: str) -> str:
    """The issue's text cut or repeated to TASK_CHARS characters."""
    text = problem
    while len(text) < TASK_CHARS:
        text = f"{text}\n\n{problem}"
    return text[:TASK_CHARS]


def warm_latency(index: OpenIndex, task: str, rounds: int) -> list[float]:
    index.context(task, 8000)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        index.context(task, 8000)
        times.append((time.perf_counter() - started) * 1000)
    return times


def cold_latency(db: Path, task: str, runs: int, work: Path) -> list[float]:
    """Seconds of fresh `codelens context` processes with no server to answer them."""
    return fresh_context_runs(db, task, runs, work, {**os.environ, "CODELENS_AUTOSERVE": "0",
                                                     "PYTHONPATH": str(PROJECT_ROOT)})


def fresh_context_runs(db: Path, task: str, runs: int, work: Path, env: dict[str, str]) -> list[float]:
    """Seconds of each of `runs` fresh `codelens context @task --json` processes in `env`."""
    task_file = work / "latency_task.txt"
    task_file.write_text(task, encoding="utf-8")
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "codelens", "context", f"@{task_file}", "--db", str(db), "--json"],
                       cwd=PROJECT_ROOT, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return times


def serve_latency(db: Path, task: str, rounds: int, runs: int, work: Path) -> tuple[list[float], list[float]]:
    """Through a running `codelens serve` of the index: ms of POST /context warm, and seconds of a fresh
    `codelens context` process that the server answers (the CLI finds it)."""
    from codelens.serve.client import find_server, remote_context

    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    env.pop("CODELENS_AUTOSERVE", None)
    server = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db), "--no-watch"],
                              cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        address, deadline = None, time.perf_counter() + 900
        while address is None and server.poll() is None and time.perf_counter() < deadline:
            time.sleep(0.5)
            address = find_server(db)
        if address is None:
            return [], []
        request = {"task": task, "budget": 8000}
        remote_context(address, request)
        warm = []
        for _ in range(rounds):
            started = time.perf_counter()
            remote_context(address, request)
            warm.append((time.perf_counter() - started) * 1000)
        return warm, fresh_context_runs(db, task, runs, work, env)
    finally:
        server.terminate()
        server.wait(60)


# ------------------------------------------------------------------ the run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="git dir (a clone or a bare mirror)")
    parser.add_argument("--set", type=Path, default=DEV_SET, help="instances.json")
    parser.add_argument("--instances", type=int, default=0, help="the first N in commit order (0: all)")
    parser.add_argument("--budgets", default="2000,8000,27000")
    parser.add_argument("--tokenizer", default=DEFAULT_TOKENIZER, choices=TOKENIZERS,
                        help=f"the unit budgets are counted in (default {DEFAULT_TOKENIZER}); bytes/4 beside it")
    parser.add_argument("--line-numbers", action="store_true", help="number every line of a piece (as before)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/codelens_swebench"))
    parser.add_argument("--only", action="append", default=[], metavar="PREFIX",
                        help="index only these folders of each tree (a smoke run)")
    parser.add_argument("--rounds", type=int, default=20, help="warm latency rounds")
    parser.add_argument("--cold", type=int, default=3, help="fresh-process latency runs")
    parser.add_argument("--out", type=Path, default=None, help="write every number as JSON here")
    parser.add_argument("--no-serve", dest="serve", action="store_false",
                        help="skip the latency through a running `codelens serve`")
    parser.add_argument("--snapshots", type=Path, default=None, metavar="DIR",
                        help="keep each base's index in DIR/<instance>/db, and open one kept there instead of "
                             "indexing again (a later run of changed context code over the same bases)")
    parser.add_argument("--shard", default="1/1", metavar="K/N",
                        help="the K-th of N contiguous runs of the instances in commit order (N processes side by "
                             "side, each with its own --work and --out; `--report OUT...` merges their rows)")
    parser.add_argument("--merge", type=Path, nargs="+", default=None, metavar="ROWS",
                        help="print the report of finished runs from their <out>.rows.jsonl files (shards "
                             "side by side), indexing nothing")
    parser.add_argument("--variants", choices=("all", "context"), default="all",
                        help="all: task context with each part on its own too (issue 45); context: all parts only")
    args = parser.parse_args(argv)
    budgets = [int(b) for b in args.budgets.split(",")]
    if args.merge:
        return merged_report(args, budgets)
    git_dir = args.repo.resolve()
    instances = json.loads(args.set.read_text(encoding="utf-8"))
    if args.only:  # a smoke run: the instances whose fix and tests lie inside what is indexed
        inside = lambda path: any(path.startswith(prefix.rstrip("/") + "/") for prefix in args.only)  # noqa: E731
        instances = [i for i in instances if all(inside(f) for f in [*i["gold_files"], *i["test_files"]])]
    instances.sort(key=lambda i: commit_time(git_dir, i["base_commit"]))
    if args.instances:
        instances = instances[: args.instances]
    instances = shard(instances, args.shard)
    source, db = args.work / "source", args.work / "db"
    settings = Settings(db_path=db, show_progress=False)
    counters = {args.tokenizer: counter_for(args.tokenizer), BYTES: BYTE_ESTIMATE}
    rules = context_rules(args.line_numbers)
    variants = {name: VARIANTS[name] for name in VARIANTS if args.variants == "all" or name == "context"}
    methods = (*variants, "search", "bm25 files")
    recalls = {(unit, method, budget): Recall() for unit in counters for method in methods for budget in budgets}
    ranks: dict[str, list[dict[str, bool]]] = {method: [] for method in (*variants, "search")}
    impacts: list[tuple[float, int, float]] = []
    per_instance = []
    warm: list[float] = []
    cold: list[float] = []
    served: tuple[list[float], list[float]] = ([], [])
    for number, instance in enumerate(instances, start=1):
        started = time.perf_counter()
        export_tree(git_dir, instance["base_commit"], source, args.only)
        kept = args.snapshots / instance["instance_id"] / "db" if args.snapshots else None
        opened = Settings(db_path=kept, show_progress=False) if kept and kept.is_dir() else settings
        forget_open_indexes()  # one ChromaDB client at a time, not one per kept index
        stage_s = {}
        if opened is settings:
            stats = build_index(source, settings, finish_tests=False)  # search leaves tests out; the graph has them
            stage_s = {**stats.timings_s, "embedded": stats.run.get("embedded", 0)}
            if kept:
                shutil.copytree(db, kept)
        indexed_s = time.perf_counter() - started
        index = OpenIndex(opened)
        task = check_task(instance["problem_statement"])
        gold, gold_files = instance["gold_functions"], instance["gold_files"]
        hits = [h.chunk for h in index.search(task, k=SEARCH_READ)]
        files = FileBM25(source)
        row = {"instance_id": instance["instance_id"], "indexed_s": round(indexed_s, 1), "index_stages": stage_s}
        candidates = {name: index.context_candidates(task, parts=parts) for name, parts in variants.items()}
        for name, found in candidates.items():
            ranks[name].append(at_ranks([c.chunk for c in ranked(found)], gold, gold_files, index,
                                        counters[args.tokenizer]))
        ranks["search"].append(at_ranks(hits, gold, gold_files, index, counters[args.tokenizer]))
        row["ranks"] = {name: found[-1] for name, found in ranks.items()}
        for unit, counter in counters.items():
            costs = gold_costs(gold, counter, index, rules)
            row[unit] = {"gold_tokens": dict(zip(gold, costs, strict=True))}
            for budget in budgets:
                row[unit][f"ceiling@{budget}"] = ceiling(costs, budget)
                shown = [(name, context_shown(found, budget, counter, rules, gold, index))
                         for name, found in candidates.items()]
                for method, (full, shown_files) in (
                        *shown,
                        ("search", search_shown(hits, budget, counter, gold, index, rules)),
                        ("bm25 files", files.shown(task, budget, counter, gold))):
                    recalls[unit, method, budget].add(gold, gold_files, full, shown_files, ceiling(costs, budget))
                    row[unit][f"{method}@{budget}"] = sorted(full)
                    row[unit][f"{method}@{budget} files"] = sorted(f for f in gold_files if f in shown_files)
        recall, listed, impact_ms = impact_row(index, instance["patch"], instance["test_files"])
        impacts.append((recall, listed, impact_ms))
        row["impact"] = {"test_file_recall": recall, "listed": listed, "ms": round(impact_ms, 1)}
        if number == 1:
            long_task = latency_task(instance["problem_statement"])
            warm = warm_latency(index, long_task, args.rounds)
            cold = cold_latency(opened.db_path, long_task, args.cold, args.work) if args.cold else []
            served = (serve_latency(opened.db_path, long_task, args.rounds, args.cold, args.work)
                      if args.serve else ([], []))
        per_instance.append(row)
        if args.out:  # every instance's row as it comes, so a stopped run keeps what it measured
            with args.out.with_suffix(".rows.jsonl").open("a", encoding="utf-8") as rows:
                rows.write(json.dumps(row) + "\n")
        middle = budgets[len(budgets) // 2]
        print(f"[{number}/{len(instances)}] {instance['instance_id']}: indexed in {indexed_s:.0f} s, "
              f"context@{middle} {len(row[args.tokenizer][f'context@{middle}'])}/{len(gold)} "
              f"(ceiling {row[args.tokenizer][f'ceiling@{middle}']:.2f}), "
              f"impact {recall:.2f} of tests ({listed} files listed)", flush=True)
    report(recalls, budgets, list(counters), impacts, warm, cold, len(instances), args, methods, ranks, served)
    if args.out:
        args.out.write_text(json.dumps({"instances": per_instance, "warm_ms": warm, "cold_s": cold,
                                        "serve_warm_ms": served[0], "serve_fresh_s": served[1]}, indent=2))
    return 0


def merged_report(args: argparse.Namespace, budgets: Sequence[int]) -> int:
    """The report of runs already made, from their per-instance rows (the last row of an instance wins)."""
    gold_of = {i["instance_id"]: i for i in json.loads(args.set.read_text(encoding="utf-8"))}
    rows = {}
    for path in args.merge:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row["instance_id"]] = row
    units = [args.tokenizer, BYTES]
    first = next(iter(rows.values()))
    methods = [key.rsplit("@", 1)[0] for key in first[units[0]] if key.endswith(f"@{budgets[0]}")
               and not key.startswith("ceiling")]
    recalls = {(unit, method, budget): Recall() for unit in units for method in methods for budget in budgets}
    ranks: dict[str, list[dict[str, bool]]] = {name: [] for name in first["ranks"]}
    impacts = []
    for instance_id, row in rows.items():
        gold, gold_files = gold_of[instance_id]["gold_functions"], gold_of[instance_id]["gold_files"]
        for unit in units:
            for method in methods:
                for budget in budgets:
                    recalls[unit, method, budget].add(
                        gold, gold_files, set(row[unit][f"{method}@{budget}"]),
                        set(row[unit].get(f"{method}@{budget} files", [])), row[unit][f"ceiling@{budget}"])
        for name, found in row["ranks"].items():
            ranks.setdefault(name, []).append(found)
        impact = row["impact"]
        impacts.append((impact["test_file_recall"], impact["listed"], impact["ms"]))
    report(recalls, budgets, units, impacts, [], [], len(rows), args, methods, ranks)
    indexed = [row["indexed_s"] for row in rows.values()]
    print(f"indexing per base: median {percentile(indexed, 50):.0f} s, max {max(indexed):.0f} s, "
          f"sum {sum(indexed) / 60:.0f} min over {len(indexed)} bases")
    return 0


def recall_rows(recalls: dict, budgets: Sequence[int], units: Sequence[str],
                methods: Sequence[str]) -> tuple[list[str], list[tuple]]:
    """(headers, rows): a row per method and budget, for each unit its function recall, file recall,
    all-gold share and ceiling side by side."""
    headers = ["method", "budget", *(f"{unit} {column}" for unit in units
                                      for column in ("function recall", "file recall", "all gold", "ceiling"))]
    rows = [(method, budget, *(value for unit in units for value in recalls[unit, method, budget].row()))
            for method in methods for budget in budgets]
    return headers, rows


def report(recalls: dict, budgets: Sequence[int], units: Sequence[str], impacts: Sequence[tuple[float, int, float]],
           warm: Sequence[float], cold: Sequence[float], count: int, args: argparse.Namespace,
           methods: Sequence[str] = ("context", "search", "bm25 files"),
           ranks: dict[str, list[dict[str, bool]]] | None = None,
           served: tuple[Sequence[float], Sequence[float]] = ((), ())) -> None:
    print(f"\n{count} instances of {args.set.name}" + (f", only {', '.join(args.only)} indexed (smoke)"
                                                        if args.only else ""))
    print(f"budgets in {units[0]} tokens and in {units[1]}; pieces "
          + ("numbered on every line" if args.line_numbers else "with their start line in the header"))
    print_table(*recall_rows(recalls, budgets, units, methods))
    if ranks:
        columns = [*(f"func@{k}" for k in RANKS), *(f"file@{k}" for k in FILE_RANKS)]
        print_table(["ranked pieces", *columns],
                    [(method, *(sum(r[c] for r in rows_) / max(1, len(rows_)) for c in columns))
                     for method, rows_ in ranks.items()])
    if impacts:
        recall = sum(r for r, _, _ in impacts) / len(impacts)
        listed = sum(n for _, n, _ in impacts) / len(impacts)
        times = [ms for _, _, ms in impacts if ms == ms]
        print_table(["impact (gold patch, depth 2)", "test-file recall", "test files listed (mean)", "warm ms p95"],
                    [("", recall, listed, percentile(times, 95))])
    if warm:
        print_table(["context, 2,300-char task", "warm p50 ms", "warm p95 ms", "fresh process s (median)"],
                    [("", percentile(warm, 50), percentile(warm, 95),
                      percentile(cold, 50) if cold else float("nan"))])
    if served[0]:
        print_table(["context through `codelens serve`", "warm p50 ms", "warm p95 ms", "fresh CLI process s (median)"],
                    [("", percentile(served[0], 50), percentile(served[0], 95),
                      percentile(served[1], 50) if served[1] else float("nan"))])
    print("load:", os.getloadavg())


if __name__ == "__main__":
    raise SystemExit(main())
