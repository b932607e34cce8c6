"""One embedding cache per machine (codelens/index/embed_cache.py): shared by every index, capped
with least-recently-used eviction, safe with writers in several processes, and never the reason
a run fails."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from codelens.index.build import build_index
from codelens.index.embed_cache import EmbeddingCache, choose_cache, evict_to_cap, text_hash
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.locations import shared_embedding_cache
from tests.conftest import PROJECT_ROOT, copy_session_cache, run_cli, settings_for

DIM = 384


def vector(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


def written(path: Path) -> tuple[int, float]:
    """(vectors, the latest use time): a vector put, new or again, gets the time of its put,
    while a read today of a vector put today writes nothing; so an unchanged pair means that
    nothing was put."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*), coalesce(max(used), 0) FROM uses").fetchone()


def test_the_same_code_in_a_second_folder_embeds_nothing(mini_index, mini_project, tmp_path) -> None:
    """A second clone of an indexed repository, indexed into another --db: every vector (e5
    passages, the English model's, the bridge's words) comes from the machine's cache."""
    copy_session_cache()  # this machine indexed the mini project once (mini_index)
    before = written(shared_embedding_cache())
    clone = tmp_path / "second_clone"
    shutil.copytree(mini_project, clone)
    db = tmp_path / "second_db"
    done = run_cli("index.py", "--source", str(clone), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    stats = read_stats(db)
    assert stats.run["mode"] == "full" and stats.run["embedded"] == 0 and stats.total_chunks > 0
    assert written(shared_embedding_cache()) == before  # nor did a sidecar embed anything
    assert not IndexLayout(db).embedding_cache.exists()  # nothing beside the index


def test_least_recently_used_vectors_leave_first_under_a_tiny_cap(tmp_path) -> None:
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path, "test-model")
    keys = [text_hash(f"text {i}") for i in range(300)]
    for i in range(0, 300, 10):  # oldest first, a batch at a time
        cache.put_many((keys[j], vector(j)) for j in range(i, i + 10))
    cache.close()
    with sqlite3.connect(path) as db:  # all of them put two days ago, in the same order
        db.execute("UPDATE uses SET used = used - 2 * 86400")
    reader = EmbeddingCache(path, "test-model")
    assert len(reader.get_many(keys[:5])) == 5  # the five oldest are used again: newest now
    reader.close()
    with sqlite3.connect(path) as db:
        recent = db.execute("SELECT count(*) FROM uses WHERE used > ?", (time.time() - 60,)).fetchone()[0]
    assert recent == 5  # use times are written for what was read, when the cache closes
    cap = 200 * 1024
    assert path.stat().st_size > cap
    removed = evict_to_cap(path, cap)
    left = EmbeddingCache(path, "test-model")
    try:
        kept = left.get_many(keys)
        assert removed == 300 - len(kept) and 50 < len(kept) < 120
        assert set(keys[:5]) <= set(kept)  # used last
        assert set(keys[5 : 300 - len(kept) + 5]).isdisjoint(kept)  # the least recently used went
        np.testing.assert_array_equal(kept[keys[299]], vector(299))
    finally:
        left.close()
    assert path.stat().st_size <= cap  # freed pages went back to the disk
    assert evict_to_cap(path, cap) == 0  # under the cap: nothing to do


_WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from codelens.index.embed_cache import EmbeddingCache, text_hash
    path, first = sys.argv[1], int(sys.argv[2])
    cache = EmbeddingCache(path, "test-model")
    for start in range(first, first + 1500, 5):  # one commit per batch, as an index run does
        cache.put_many((text_hash(f"text {i}"), np.full(384, i, dtype=np.float32)) for i in range(start, start + 5))
        cache.get_many([text_hash(f"text {start - 100}")])
    cache.close()
""")


def test_two_processes_write_one_cache_at_once(tmp_path) -> None:
    path = tmp_path / "embeddings.sqlite"  # not there yet: both create it
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(first)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for first in (0, 1000)]  # 500 texts in common
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    cache = EmbeddingCache(path, "test-model")
    try:
        found = cache.get_many([text_hash(f"text {i}") for i in range(2500)])
        assert len(found) == 2500
        assert all(found[text_hash(f"text {i}")][0] == i for i in (0, 999, 1000, 1499, 2499))
    finally:
        cache.close()


def test_a_damaged_shared_cache_is_moved_aside_and_the_run_goes_on(mini_project, tmp_path, embedder) -> None:
    shared = shared_embedding_cache()
    shared.parent.mkdir(parents=True, exist_ok=True)
    shared.write_bytes(b"not a database at all " * 100)
    stats = build_index(mini_project, settings_for(tmp_path / "db"), embedder=embedder)
    assert stats.run["embedded"] == stats.total_chunks
    assert any("was damaged" in w and "started anew" in w for w in stats.warnings)
    assert shared.with_name("embeddings.sqlite.damaged").read_bytes().startswith(b"not a database")
    assert written(shared)[0] >= stats.total_chunks  # the new cache holds this run's vectors


def test_a_shared_cache_that_cannot_be_opened_falls_back_beside_the_index(mini_project, tmp_path,
                                                                          embedder) -> None:
    shared = shared_embedding_cache()
    shared.mkdir(parents=True)  # a folder where the file should be: SQLite cannot open it (as root too)
    db = tmp_path / "db"
    first = build_index(mini_project, settings_for(db), embedder=embedder)
    assert any("cannot open the shared embedding cache" in w for w in first.warnings)
    local = IndexLayout(db).embedding_cache
    assert choose_cache(IndexLayout(db)).path == local and written(local)[0] >= first.total_chunks
    again = build_index(mini_project, settings_for(db), embedder=embedder, full=True)
    assert again.run["embedded"] == 0  # the fallback cache is a cache: a full rebuild embeds nothing

    shared.rmdir()  # the shared cache works again: the fallback file is no longer needed
    healed = build_index(mini_project, settings_for(db), embedder=embedder, full=True)
    assert not any("embedding cache" in w for w in healed.warnings)
    assert healed.run["embedded"] == healed.total_chunks and not local.exists()


@pytest.mark.slow  # two real index runs in child processes, at once
def test_two_index_runs_at_once_share_the_cache(mini_project, tmp_path) -> None:
    env = {"PYTHONPATH": str(PROJECT_ROOT)}
    runs = []
    for name in ("one", "two"):
        shutil.copytree(mini_project, tmp_path / name)
        runs.append(subprocess.Popen(
            [sys.executable, "index.py", "--source", str(tmp_path / name), "--db", str(tmp_path / f"db_{name}"),
             "--quiet"], cwd=PROJECT_ROOT, env={**os.environ, **env},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err
    stats = [read_stats(tmp_path / f"db_{name}") for name in ("one", "two")]
    assert not [w for s in stats for w in s.warnings if "embedding cache" in w]  # neither fell back
    assert stats[0].total_chunks == stats[1].total_chunks
    third = build_index(tmp_path / "one", settings_for(tmp_path / "db_three"))
    assert third.run["embedded"] == 0, (third.run, [s.run for s in stats])


def test_a_workspace_holding_an_indexed_repository_embeds_nothing_for_it(mini_index, mini_project, tmp_path) -> None:
    """A repository's chunks are embedded with their path inside the repository: the mini project
    as one repository of a workspace (`alpha/pkg/auth.py`) is the same text as alone (`pkg/auth.py`),
    so only the other repository's text is embedded."""
    copy_session_cache()
    work = tmp_path / "work"
    shutil.copytree(mini_project, work / "alpha")
    (work / "alpha" / ".git").mkdir()
    (work / "beta" / ".git").mkdir(parents=True)
    (work / "beta" / "invoices.py").write_text('def send_invoice(customer):\n    """Email an invoice."""\n')
    db = tmp_path / "workspace_db"
    done = run_cli("index.py", "--source", str(work), "--db", str(db), "--quiet")
    assert done.returncode == 0, done.stderr
    stats = read_stats(db)
    assert [repo["name"] for repo in stats.repositories] == ["alpha", "beta"] and stats.total_chunks > 2
    assert 0 < stats.run["embedded"] <= 2, stats.run  # beta's function and module block at most
