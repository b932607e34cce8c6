"""Incremental updates (index/update.py) on a real index: edit, add, delete, rename; ChromaDB's
files untouched; the delta folded by the next index run; stale files marked."""

from __future__ import annotations

from pathlib import Path

from codelens.index.build import build_index
from codelens.index.delta import load_delta
from codelens.index.freshness import FileCheck
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.update import refresh_deferred, update_index, vector_store_entries
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher

NEW_FILE = '''"""Shipping rates."""


def shipping_cost(weight_kg: float, distance_km: float) -> float:
    """The price of shipping a parcel: weight times distance times the courier's rate."""
    return weight_kg * distance_km * 0.07
'''


def _ids(settings, embedder) -> set[str]:
    return set(Searcher(settings, embedder=embedder).chunks)


def _chroma_inodes(db: Path) -> dict[str, int]:
    return {p.relative_to(db).as_posix(): p.stat().st_ino
            for name in vector_store_entries(db) for p in [db / name, *(db / name).rglob("*")] if p.is_file()}


def test_an_edit_is_searchable_and_chromadb_is_left_alone(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    before = _chroma_inodes(settings.index_dir)
    auth = project / "pkg" / "auth.py"
    auth.write_text(auth.read_text().replace("hashlib.sha256(password.encode()).hexdigest()",
                                             "hashlib.sha512(password.encode()).hexdigest()"))
    result = update_index(project, settings, ["pkg/auth.py"], embedder=embedder)
    assert (result.mode, result.files, result.upserted, result.embedded) == ("update", 1, 1, 1)
    assert _chroma_inodes(settings.index_dir) == before  # hard links: not one byte of ChromaDB copied
    assert load_delta(settings.index_dir).chunk_ids == ("pkg/auth.py::hash_password",)
    hit = Searcher(settings, embedder=embedder).search("hash a password", k=1)[0]
    assert hit.chunk_id == "pkg/auth.py::hash_password" and "sha512" in hit.chunk.code
    assert read_stats(settings.index_dir).run["mode"] == "update"
    graph_before = IndexLayout(settings.index_dir).graph.stat().st_ino
    assert refresh_deferred(project, settings)  # the code graph, in a second swap
    assert IndexLayout(settings.index_dir).graph.stat().st_ino != graph_before
    assert _chroma_inodes(settings.index_dir) == before
    assert not refresh_deferred(project, settings)  # nothing waits any more


def test_add_delete_and_rename(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    update_index(project, settings, [str(project / "pkg" / "shipping.py")], embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    assert searcher.search("shipping price of a parcel", k=1)[0].chunk_id == "pkg/shipping.py::shipping_cost"

    (project / "pkg" / "shipping.py").rename(project / "pkg" / "rates.py")
    update_index(project, settings, ["pkg/shipping.py", "pkg/rates.py"], embedder=embedder)
    ids = _ids(settings, embedder)
    assert "pkg/rates.py::shipping_cost" in ids and not any(i.startswith("pkg/shipping.py") for i in ids)
    hit = Searcher(settings, embedder=embedder).search("shipping price of a parcel", k=1)[0]
    assert hit.chunk_id == "pkg/rates.py::shipping_cost"

    (project / "pkg" / "storage.py").unlink()
    result = update_index(project, settings, ["pkg/storage.py"], embedder=embedder)
    assert result.deleted > 0 and result.embedded == 0
    assert not any(i.startswith("pkg/storage.py") for i in _ids(settings, embedder))
    hits = Searcher(settings, embedder=embedder).search("save the records to disk", k=10)
    assert all(h.chunk.path != "pkg/storage.py" for h in hits)
    assert read_stats(settings.index_dir).files == 4  # pkg/: __init__, auth, rates; tests/: one


def test_unchanged_and_ignored_paths_do_nothing(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    (project / "node_modules" / "lib" / "new.py").write_text("def skipped_too():\n    return 1\n")
    result = update_index(project, settings, ["pkg/auth.py", "node_modules/lib/new.py", "README.md"],
                          embedder=embedder)
    assert result.mode == "unchanged"


def test_an_unparsable_file_is_a_warning(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    (project / "pkg" / "broken.py").write_text("def broken(:\n    return\n\ndef fine():\n    return 2\n")
    result = update_index(project, settings, ["pkg/broken.py"], embedder=embedder)
    assert result.mode == "update"
    assert read_stats(settings.index_dir).total_chunks >= 10


def test_the_next_index_run_folds_the_delta_into_chromadb(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    (project / "pkg" / "storage.py").unlink()
    update_index(project, settings, None, embedder=embedder)  # None: compare every file
    assert load_delta(settings.index_dir).chunk_ids
    stats = build_index(project, settings, embedder=embedder)
    assert stats.run["embedded"] == 0  # the update embedded it already (the cache)
    assert not IndexLayout(settings.index_dir).delta.exists()
    searcher = Searcher(settings, embedder=embedder)
    assert searcher.store.count() == len(searcher.chunks) == stats.total_chunks
    assert searcher.search("shipping price of a parcel", k=1)[0].chunk_id == "pkg/shipping.py::shipping_cost"


def test_file_check_says_when_the_disk_changed(indexed_copy, embedder) -> None:
    project, settings = indexed_copy
    searcher = Searcher(settings, embedder=embedder)
    hit = searcher.search("hash a password", k=1)[0]
    check = FileCheck(project, searcher.file_hashes)
    assert check.state(hit.chunk.path, hit.file_hash) == "current"
    auth = project / "pkg" / "auth.py"
    auth.write_text(auth.read_text() + "\n# edited\n")
    assert check.state(hit.chunk.path, hit.file_hash) == "changed"
    auth.unlink()
    assert check.state(hit.chunk.path, hit.file_hash) == "deleted"


def test_every_vector_read_once_is_kept_across_an_update_not_across_an_index_run(indexed_copy, embedder,
                                                                                monkeypatch) -> None:
    """The exact fallback's matrix (every ChromaDB vector) stays valid while an update swaps in
    folders that hard-link ChromaDB's files; an index run writes new ones, and it is read again.
    (ChromaDB's path: the dense sidecar left unread, as when it lacks a chunk.)"""
    monkeypatch.setattr("codelens.search.searcher.load_dense_vectors", lambda folder: None)
    project, settings = indexed_copy
    searcher = Searcher(settings, embedder=embedder)
    ids, vectors = searcher._collection_vectors()
    assert len(ids) == searcher.store.count() and vectors.shape[0] == len(ids)
    (project / "pkg" / "shipping.py").write_text(NEW_FILE)
    update_index(project, settings, ["pkg/shipping.py"], embedder=embedder)
    assert searcher.refresh()
    assert searcher._collection_vectors()[1] is vectors  # not read again
    hits = searcher.search("shipping price of a parcel", k=1, filters=SearchFilters(path_prefix="pkg/shipping"))
    assert hits[0].chunk_id == "pkg/shipping.py::shipping_cost"  # the delta's vector, over the kept matrix
    build_index(project, settings, embedder=embedder)  # folds the delta into ChromaDB
    assert searcher.refresh()
    ids_after, vectors_after = searcher._collection_vectors()
    assert vectors_after is not vectors and "pkg/shipping.py::shipping_cost" in ids_after
