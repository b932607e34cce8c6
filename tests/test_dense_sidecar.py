"""The dense leg's sidecar (search/dense_vectors.py): every e5 vector ChromaDB holds, as one matrix
beside it. A search over it needs no ChromaDB, finds what ChromaDB finds, and the searcher goes back
to ChromaDB whenever the matrix lacks a chunk ChromaDB should have."""

from __future__ import annotations

import json

import numpy as np

from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.update import update_index
from codelens.locations import shared_embedding_cache
from codelens.search.dense import ChromaDenseRetriever
from codelens.search.dense_vectors import load_dense_vectors, save_dense_vectors
from codelens.search.file_vectors import load_file_vectors
from codelens.search.filters import SearchFilters
from codelens.search.query import Query
from codelens.search.searcher import Searcher
from tests.conftest import run_cli
from tests.test_update import NEW_FILE

QUESTION = "where is the password hashed"


def test_an_index_run_writes_every_vector_chromadb_holds(mini_index, embedder) -> None:
    searcher = Searcher(mini_index, embedder=embedder)
    held = load_dense_vectors(mini_index.index_dir)
    assert held is not None and searcher.dense_vectors is not None
    ids, vectors = searcher.store.all_vectors()
    assert set(held.chunk_ids) == set(ids) == set(searcher.chunks)
    rows = {chunk_id: i for i, chunk_id in enumerate(ids)}
    for i, chunk_id in enumerate(held.chunk_ids):
        assert np.allclose(held.vectors[i], vectors[rows[chunk_id]], atol=1e-6)


def test_the_dense_leg_over_the_matrix_finds_what_chromadb_finds(mini_index, embedder) -> None:
    searcher = Searcher(mini_index, embedder=embedder)
    query = Query(QUESTION, embedder.embed_queries([QUESTION])[0])
    pipeline = searcher._pipeline(SearchFilters(), "")
    dense = next(leg for leg in pipeline.retrievers if leg.name == "dense")
    dense = getattr(dense, "primary", dense)  # e5's leg under the English model's (search/english.py)
    from_matrix = [(c.chunk_id, round(c.score, 5)) for c in dense.retrieve(query, 8).candidates]
    scope = searcher.scope(SearchFilters())
    from_chroma = [(c.chunk_id, round(c.score, 5))
                   for c in ChromaDenseRetriever(searcher.store, scope.accepts).retrieve(query, 8).candidates]
    assert from_matrix == from_chroma and len(from_matrix) == 8


def test_a_fresh_search_process_never_imports_chromadb(mini_index) -> None:
    script = ("import sys, json; from pathlib import Path; import codelens.search.sidecars; "
              "from codelens.search.searcher import Searcher; from codelens.settings import Settings; "
              f"s = Searcher(Settings(db_path=Path({str(mini_index.index_dir)!r}), show_progress=False)); "
              f"hits = s.search({QUESTION!r}, 3); "
              "print(json.dumps([[h.chunk_id for h in hits], 'chromadb' in sys.modules]))")
    done = run_cli("-c", script, fresh_process=True)
    assert done.returncode == 0, done.stderr
    hits, imported = json.loads(done.stdout.strip().splitlines()[-1])
    assert hits[0] == "pkg/auth.py::hash_password" and imported is False


def test_a_matrix_that_lacks_a_chunk_is_not_read(indexed_copy, embedder) -> None:
    _, settings = indexed_copy
    held = load_dense_vectors(settings.index_dir)
    save_dense_vectors(settings.index_dir, held.chunk_ids[1:], np.asarray(held.vectors[1:]))
    searcher = Searcher(settings, embedder=embedder)
    assert searcher.dense_vectors is None  # ChromaDB answers, as before the sidecar
    assert searcher.search(QUESTION, k=1)[0].chunk_id == "pkg/auth.py::hash_password"
    IndexLayout(settings.index_dir).dense_vectors.write_bytes(b"not a matrix")
    assert Searcher(settings, embedder=embedder).dense_vectors is None


def test_an_update_keeps_the_matrix_whole(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    update_index(project, settings, ["pkg/shipping.py"], embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    assert searcher.dense_vectors is not None and "pkg/shipping.py::shipping_cost" in searcher.delta.chunk_ids
    assert searcher.search("shipping price of a parcel", k=1)[0].chunk_id == "pkg/shipping.py::shipping_cost"


def _forget_cached_vectors() -> None:
    """The machine's embedding cache as after its least recently used vectors were evicted: empty."""
    for suffix in ("", "-wal", "-shm"):
        shared_embedding_cache().with_name(shared_embedding_cache().name + suffix).unlink(missing_ok=True)


def _whole(settings) -> tuple[bool, bool]:
    """(the dense matrix holds every chunk, the file vectors every file with chunks)."""
    catalog = Searcher(settings).chunks
    held, files = load_dense_vectors(settings.index_dir), load_file_vectors(settings.index_dir)
    return (held is not None and set(held.chunk_ids) == set(catalog),
            files is not None and set(files.paths) == {c.path for c in catalog.values()})


def test_a_run_after_the_cache_evicted_the_vectors_keeps_both_matrices_whole(indexed_copy, embedder) -> None:
    """An index run embeds only new text; the vectors of the rest the cache no longer has come from
    the index's ChromaDB (trpc's file means from 6 of 574 chunks once made its semble nDCG@10 0.864 -> 0.813)."""
    project, settings = indexed_copy
    _forget_cached_vectors()
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    build_index(project, settings, embedder=embedder)
    assert _whole(settings) == (True, True)


def test_an_update_after_the_cache_evicted_the_vectors_keeps_both_matrices_whole(indexed_copy, embedder) -> None:
    """The same for an update, which reads them from the index's own matrix, never from ChromaDB."""
    project, settings = indexed_copy
    _forget_cached_vectors()
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    update_index(project, settings, ["pkg/shipping.py"], embedder=embedder)
    assert _whole(settings) == (True, True) and Searcher(settings, embedder=embedder).dense_vectors is not None


def test_a_matrix_written_short_is_rebuilt_by_the_next_run_though_nothing_changed(indexed_copy, embedder) -> None:
    """An index an older run left with part of its vectors (the matrix and the file means whole files, as
    recorded): the next run, with nothing to index, rebuilds both from the index's ChromaDB."""
    from dataclasses import replace

    from codelens.index.health import sidecar_checksums
    from codelens.index.manifest import Manifest

    project, settings = indexed_copy
    held = load_dense_vectors(settings.index_dir)
    save_dense_vectors(settings.index_dir, held.chunk_ids[:2], np.asarray(held.vectors[:2]))
    manifest = Manifest.load(settings.index_dir)
    replace(manifest, sidecar_files=sidecar_checksums(settings.index_dir)).save(settings.index_dir)
    _forget_cached_vectors()
    stats = build_index(project, settings, embedder=embedder)
    assert stats.run["embedded"] == 0 and _whole(settings) == (True, True)
    assert "damaged or missing index parts rebuilt: files, dense" in stats.warnings
