"""ChromaDB server mode against a real `chroma run` on loopback, and named collections."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codelens.errors import DatabaseError
from codelens.evaluation import load_questions
from codelens.index.build import build_index
from codelens.index.folder import named_collections
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.store import open_client
from codelens.search.searcher import Searcher
from tests.conftest import DEMO_ZIP, PROJECT_ROOT, copy_session_cache, free_port, run_cli, settings_for


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory) -> Iterator[str]:
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.skip("the chroma command is not installed in this environment")
    port = free_port()
    log = tmp_path_factory.mktemp("chroma_log") / "chroma.log"
    with open(log, "w") as output:
        server = subprocess.Popen(
            [str(chroma), "run", "--path", str(tmp_path_factory.mktemp("chroma_server")),
             "--host", "127.0.0.1", "--port", str(port)], stdout=output, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                open_client(Path("."), url)
                break
            except DatabaseError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"chroma run did not start: {log.read_text()[-2000:]}")
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def server_collections(url: str) -> list[str]:
    return sorted(c if isinstance(c, str) else c.name for c in open_client(Path("."), url).list_collections())


def test_demo_in_server_mode_answers_like_the_embedded_index(chroma_url, demo_index, embedder, tmp_path) -> None:
    db = tmp_path / "team_index"
    # the embeddings of the embedded build are reused: the server build embeds nothing
    copy_session_cache()
    settings = settings_for(db).with_overrides(chroma_url=chroma_url)
    stats = build_index(DEMO_ZIP, settings, embedder=embedder)
    assert stats.run["embedded"] == 0 and stats.chroma_url == chroma_url
    assert not (db / "chroma.sqlite3").exists()  # the vectors are on the server
    assert not IndexLayout(db).dense.exists()  # and nowhere else
    server = Searcher(settings, embedder=embedder)
    embedded = Searcher(demo_index, embedder=embedder)
    assert server.store.count() == embedded.store.count() == stats.total_chunks
    for question in load_questions(PROJECT_ROOT / "eval_questions.json"):
        assert [h.chunk_id for h in server.search(question.query, 5)] == \
               [h.chunk_id for h in embedded.search(question.query, 5)], question.query


@pytest.mark.slow  # a `chroma run` server process
def test_server_rebuild_swaps_collections_and_drops_the_old_one(chroma_url, mini_project, embedder,
                                                                   tmp_path) -> None:
    settings = settings_for(tmp_path / "db").with_overrides(chroma_url=chroma_url)
    first = build_index(mini_project, settings, embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    second = build_index(mini_project, settings, embedder=embedder, full=True)
    assert first.collection != second.collection and first.index_uid == second.index_uid
    mine = [name for name in server_collections(chroma_url) if name.startswith(f"codelens-{first.index_uid}-")]
    assert mine == [second.collection]
    assert searcher.search("password hashing", 1)[0].chunk_id == "pkg/auth.py::hash_password"  # reopened


def test_cli_with_an_unreachable_server_is_a_clear_error(tmp_path, mini_project) -> None:
    result = run_cli("index.py", "--source", str(mini_project), "--db", str(tmp_path / "db"), "--quiet",
                     "--chroma-url", f"http://127.0.0.1:{free_port()}")
    assert result.returncode == 4
    assert "cannot reach the ChromaDB server" in result.stderr and "chroma run" in result.stderr
    assert "Traceback" not in result.stderr


def test_named_collections_live_side_by_side(two_codebases, mini_project, embedder) -> None:
    db = two_codebases
    assert named_collections(db) == ["billing"]
    build_index(mini_project, settings_for(db), embedder=embedder, full=True)  # the root swap keeps it
    assert named_collections(db) == ["billing"]
    billing = Searcher(settings_for(db).with_overrides(collection="billing"), embedder=embedder)
    assert [h.chunk_id for h in billing.search("invoice", 5)] == ["billing.py::send_invoice"]
    assert read_stats(db).files == 4
    with pytest.raises(Exception, match="collection name"):
        settings_for(db).with_overrides(collection="../escape")
