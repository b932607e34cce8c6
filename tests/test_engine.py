"""The core engine end to end: sources, indexing into real ChromaDB, search, errors."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from codelens.errors import EXIT_BAD_INPUT, DatabaseError, ModelMismatch, SourceError
from codelens.index.build import build_index
from codelens.index.metadata import read_stats
from codelens.index.store import SEARCH_EF, open_client
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.source import indexed_path_filter, list_python_files, open_codebase
from codelens.locations import IndexNotFound
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher, relevance_percent
from tests.conftest import DEMO_ZIP, GYMHERO_2026_ZIP, run_cli, settings_for, zip_folder

# ----------------------------------------------------------------- sources


def test_walk_skips_vendor_build_and_gitignored(mini_project: Path) -> None:
    paths = [f.rel_path for f in list_python_files(mini_project)]
    assert paths == ["pkg/__init__.py", "pkg/auth.py", "pkg/storage.py", "tests/test_auth.py"]


def test_a_virtual_environment_is_skipped_and_a_package_of_its_name_is_kept(tmp_path: Path) -> None:
    for venv in ("venv", "env"):
        (tmp_path / venv / "lib" / "python3.12" / "site-packages" / "dep").mkdir(parents=True)
        (tmp_path / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (tmp_path / venv / "lib" / "python3.12" / "site-packages" / "dep" / "core.py").write_text("x = 1\n")
        (tmp_path / venv / "bin").mkdir()
        (tmp_path / venv / "bin" / "activate_this.py").write_text("x = 1\n")
    conda = tmp_path / ".env"
    (conda / "conda-meta").mkdir(parents=True)
    (conda / "tool.py").write_text("x = 1\n")
    package = tmp_path / "providers" / "env"  # koanf's environment-variable provider
    package.mkdir(parents=True)
    (package / "env.py").write_text("def read_environment():\n    return {}\n")
    zipped = tmp_path / "venv_in_zip" / "env" / "lib" / "python3.12" / "site-packages"  # a zip's venv: no pyvenv.cfg
    zipped.mkdir(parents=True)
    (zipped / "six.py").write_text("x = 1\n")
    paths = [f.rel_path for f in list_python_files(tmp_path)]
    assert paths == ["providers/env/env.py"]
    accepts = indexed_path_filter(tmp_path)
    assert accepts(package / "env.py") and not accepts(tmp_path / "venv" / "bin" / "activate_this.py")


def test_zip_source_is_extracted_inside_work_dir(tmp_path: Path, mini_project: Path) -> None:
    archive = zip_folder(mini_project, tmp_path / "mini.zip")
    codebase = open_codebase(archive, tmp_path / "work")
    assert codebase.root.is_relative_to(tmp_path / "work")
    assert next(f.rel_path for f in list_python_files(codebase.root)) == "pkg/__init__.py"


def test_zip_slip_entries_are_never_written_outside(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("../escaped.py", "x = 1\n")
        z.writestr("/abs.py", "x = 1\n")
        z.writestr("ok/fine.py", "def fine():\n    return 1\n")
        link = zipfile.ZipInfo("ok/link.py")
        link.external_attr = (0o120777 << 16)
        z.writestr(link, "/etc/passwd")
    codebase = open_codebase(archive, tmp_path / "work")
    assert not (tmp_path / "escaped.py").exists()
    assert not Path("/abs.py").exists()
    assert [f.rel_path for f in list_python_files(codebase.root)] == ["fine.py"]
    assert len(codebase.warnings) == 3


def test_gymhero_2026_indexes_completely_through_tree_sitter(tmp_path: Path) -> None:
    if not GYMHERO_2026_ZIP.is_file():
        pytest.skip("gymhero_2026.zip not found")
    codebase = open_codebase(GYMHERO_2026_ZIP, tmp_path)
    result = chunk_codebase(codebase.root, 1_000_000)
    ids = {c.chunk_id for c in result.chunks}
    assert "gymhero/crud/base.py::CRUDRepository.count" in ids
    assert not [w for w in result.warnings if "no parser" in w]
    assert len(ids) == len(result.chunks)


# ------------------------------------------------------- index and search


def test_index_writes_metadata_and_cosine_collection(mini_index) -> None:
    stats = read_stats(mini_index.db_path)
    assert stats.files == 4
    # module 3: pkg/__init__.py only re-exports, and such a file is one module chunk of its imports
    assert stats.chunks_per_kind == {"function": 3, "method": 3, "class": 1, "module": 3}
    assert stats.total_chunks == 10
    assert stats.model == "multilingual-e5-small"
    raw = json.loads((mini_index.db_path / "index_metadata.json").read_text())
    for key in ("source", "files", "total_chunks", "chunks_per_kind", "model", "indexed_at",
                "duration_s", "warnings"):
        assert key in raw


def _search_breadth(db_path: Path) -> dict:
    # the store's own client: a second PersistentClient on an open path with other settings is refused
    collection = open_client(db_path).get_collection(read_stats(db_path).collection)
    return collection.configuration["hnsw"]


def test_collection_searches_wide_enough_to_be_exact(mini_index) -> None:
    hnsw = _search_breadth(mini_index.db_path)
    assert hnsw["space"] == "cosine"
    assert hnsw["ef_search"] == SEARCH_EF


def test_an_index_with_chromadb_default_breadth_is_widened_by_its_next_run(tmp_path: Path, embedder,
                                                                             mini_project: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(mini_project, project)
    settings = settings_for(tmp_path / "chroma_db")
    build_index(project, settings, embedder=embedder)
    collection = open_client(settings.db_path).get_collection(read_stats(settings.db_path).collection)
    collection.modify(configuration={"hnsw": {"ef_search": 100}})  # as indexes built before SEARCH_EF
    assert _search_breadth(settings.db_path)["ef_search"] == 100
    (project / "pkg" / "extra.py").write_text("def added():\n    return 1\n", encoding="utf-8")
    build_index(project, settings, embedder=embedder)
    assert _search_breadth(settings.db_path)["ef_search"] == SEARCH_EF


def test_search_returns_typed_hits_with_cosine_relevance(mini_searcher, embedder) -> None:
    searcher = mini_searcher
    hits = searcher.search("how are passwords hashed", k=3)
    assert hits[0].chunk_id == "pkg/auth.py::hash_password"
    assert [h.rank for h in hits] == [1, 2, 3]
    assert all(0 < h.relevance <= 100 for h in hits)
    # ranked by the fused score; the relevance shown is the cosine of the query and the chunk
    query_vector = embedder.embed_queries(["how are passwords hashed"])[0]
    cosine = dict(searcher.store.nearest(query_vector, 20))[hits[0].chunk_id]
    assert hits[0].relevance == relevance_percent(cosine)
    assert hits[0].chunk.code.startswith("def hash_password")
    assert hits[0].chunk.start_line == 7


def test_search_filters_kind_path_and_tests(mini_searcher) -> None:
    searcher = mini_searcher
    only_methods = searcher.search("store a record", k=5, filters=SearchFilters(kinds=("method",)))
    assert only_methods and {h.chunk.kind for h in only_methods} == {"method"}
    in_storage = searcher.search("password", k=5, filters=SearchFilters(path_prefix="pkg/storage"))
    assert in_storage and all(h.chunk.path == "pkg/storage.py" for h in in_storage)
    default = searcher.search("test hash password", k=10)
    assert all(not h.chunk.is_test for h in default)
    with_tests = searcher.search("test hash password", k=10, filters=SearchFilters(include_tests=True))
    assert any(h.chunk.is_test for h in with_tests)


def test_a_path_prefix_that_matches_nothing_says_which_exist(mini_index, capsys) -> None:
    """The CLI exits 6 with the prefixes the index has (pkg/ and tests/ in the mini project)."""
    from codelens.cli.main import main

    db = str(mini_index.db_path)
    assert main(["search", "password", "--path", "src/pkg/", "--db", db]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "no indexed path starts with 'src/pkg/' - indexed paths start with: pkg/, tests/" in err
    assert "did you mean 'pkg/'?" in err
    assert main(["search", "password", "--path", "pkg/", "--db", db]) == 0


def test_relevance_percent_is_never_flat() -> None:
    assert relevance_percent(0.87) == 87.0
    assert relevance_percent(-0.2) == 0.0
    assert relevance_percent(1.3) == 100.0


def test_model_mismatch_is_a_clear_error(mini_index) -> None:
    with pytest.raises(ModelMismatch, match="multilingual-e5-small"):
        Searcher(mini_index.with_overrides(model="st:all-MiniLM-L6-v2"))


@pytest.mark.slow  # imports torch and loads a sentence-transformers model
def test_sentence_transformers_backend_from_a_packaged_model(tmp_path: Path, mini_project: Path) -> None:
    from codelens.models import load_embedder

    embedder = load_embedder("st:all-MiniLM-L6-v2")
    settings = settings_for(tmp_path / "db").with_overrides(model="st:all-MiniLM-L6-v2")
    stats = build_index(mini_project, settings, embedder=embedder)
    assert stats.model == "st:all-MiniLM-L6-v2"
    hits = Searcher(settings, embedder=embedder).search("database connection url", k=3)
    assert any(h.chunk.path == "pkg/storage.py" for h in hits)


def test_rebuild_replaces_index_and_leaves_no_build_folders(tmp_path: Path, embedder, mini_project) -> None:
    settings = settings_for(tmp_path / "chroma_db")
    build_index(mini_project, settings, embedder=embedder)
    build_index(mini_project, settings, embedder=embedder)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["chroma_db"]
    assert not list(tmp_path.glob(".chroma_db.building-*")) and not list(tmp_path.glob(".chroma_db.old-*"))
    assert Searcher(settings, embedder=embedder).search("login", k=1)


def test_failed_rebuild_leaves_previous_index_untouched(tmp_path: Path, embedder, mini_project) -> None:
    settings = settings_for(tmp_path / "chroma_db")
    build_index(mini_project, settings, embedder=embedder)
    before = read_stats(settings.db_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no Python code"):
        build_index(empty, settings, embedder=embedder)
    assert read_stats(settings.db_path) == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["chroma_db", "empty"]


def test_foreign_db_folder_is_refused(tmp_path: Path, embedder, mini_project) -> None:
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_bytes(b"meow")
    with pytest.raises(DatabaseError, match="not a CodeLens index"):
        build_index(mini_project, settings_for(foreign), embedder=embedder)
    assert (foreign / "cat.jpg").read_bytes() == b"meow"


def test_searching_without_an_index_raises_index_not_found(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound, match=r"python index\.py"):
        Searcher(settings_for(tmp_path / "none"))


# ------------------------------------------------------------ CLI errors


def test_cli_search_without_index_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run_cli("-m", "codelens", "search", "x", "--db", str(tmp_path / "nothing"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: no index in {tmp_path / 'nothing'} - run: python index.py --db {tmp_path / 'nothing'}"]


def test_cli_index_bad_sources(tmp_path: Path) -> None:
    not_zip = tmp_path / "code.zip"
    not_zip.write_text("this is not a zip")
    for source, message in [(tmp_path / "missing.zip", "source not found"),
                            (not_zip, "neither a folder nor a zip")]:
        result = run_cli("index.py", "--source", str(source), "--db", str(tmp_path / "db"), "--quiet")
        assert result.returncode == 3, result.stderr
        assert message in result.stderr and "Traceback" not in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("index.py", "--source", str(empty), "--db", str(tmp_path / "db"), "--quiet")
    assert result.returncode == 3 and "no Python code" in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere; chmod does not stop it")
def test_cli_index_unwritable_db(tmp_path: Path, mini_project: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    result = run_cli("index.py", "--source", str(mini_project), "--db", str(locked / "db"), "--quiet")
    assert result.returncode == 4 and "not writable" in result.stderr


def test_cli_index_db_that_is_a_file(tmp_path: Path, mini_project: Path) -> None:
    db_file = tmp_path / "db"
    db_file.write_text("x")
    result = run_cli("index.py", "--source", str(mini_project), "--db", str(db_file), "--quiet")
    assert result.returncode == 4 and "is a file" in result.stderr


def test_cli_help_documents_every_command() -> None:
    result = run_cli("-m", "codelens", "--help")
    assert result.returncode == 0
    for command in ("index", "search", "eval", "stats"):
        assert command in result.stdout


def test_cli_index_and_search_json(tmp_path: Path, mini_project: Path) -> None:
    db = tmp_path / "db"
    result = run_cli("index.py", "--source", str(mini_project), "--db", str(db), "--quiet")
    assert result.returncode == 0, result.stderr
    assert "INDEXING COMPLETE" in result.stdout and "Total chunks indexed: 10" in result.stdout
    result = run_cli("-m", "codelens", "search", "user login check", "-k", "2", "--json", env={"CODELENS_DB": str(db)})
    hits = json.loads(result.stdout)
    assert len(hits) == 2
    assert set(hits[0]) == {"chunk_id", "path", "symbol", "kind", "start_line", "end_line", "score", "repo",
                            "language", "matched"}


# ------------------------------------------------------------ the demo


@pytest.mark.parametrize("query", ["how is the JWT access token created", "как создаётся токен доступа"])
def test_demo_finds_create_access_token(demo_searcher, query: str) -> None:
    hits = demo_searcher.search(query, k=5)
    assert "gymhero/security.py::create_access_token" in [h.chunk_id for h in hits]


def test_demo_chunk_counts_are_stable(demo_index) -> None:
    stats = read_stats(demo_index.db_path)
    assert stats.files == 95  # 77 Python files and 18 documents, configuration and build files (issue 25)
    # module 43, was 39: the demo's 4 import-only files (re-exports) are module chunks now; Python's
    # counts did not move when the other files came in
    assert stats.chunks_per_kind == {"function": 218, "method": 30, "class": 59, "module": 43,
                                     "doc": 19, "config": 63, "text": 33}
    assert Path(stats.source).resolve() == DEMO_ZIP.resolve()  # the run records the resolved path (../shared a link)


def test_gapped_module_chunks_keep_their_line_spans_in_the_store(mini_index) -> None:
    from codelens.index.store import VectorStore

    stored = {c.chunk_id: c for c in VectorStore(mini_index.db_path, read_stats(mini_index.db_path).collection)
              .all_chunks()}
    module = stored["pkg/storage.py::<module>"]
    assert module.line_spans == ((1, 1), (3, 4))
    assert module.code.splitlines() == ['"""Database connection settings and a tiny repository."""',
                                        'DATABASE_URL = "sqlite:///app.db"', "POOL_SIZE = 5"]
