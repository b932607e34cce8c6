"""A tiny mixed repository (code, docs, configuration, build files) through the real index:
real zip, real ChromaDB, the real e5. Secrets planted in every format never reach the index,
the sidecars, the embedding cache or any output; config questions find config; kinds filter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from codelens.graph.codemap import code_map
from codelens.graph.store import load_graph
from codelens.index.build import build_index
from codelens.index.manifest import files_beside_code
from codelens.index.store import _HNSW_HEADER, VectorStore, clear_unused_hnsw
from codelens.ingest.codebase import chunk_codebase
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from tests.conftest import run_cli, settings_for, zip_folder

PEM_BODY = "MIIEowIBAAKCAQEAfakeFAKEfakeFAKEplantedKeyMaterial0001xyzXYZ"
# (file, text, the secrets it holds): every value here is invented
FILES: dict[str, tuple[str, tuple[str, ...]]] = {
    ".env.test": ("# Database\nPOSTGRES_USER=test\nPOSTGRES_PASSWORD=FakeEnvPass0101\nAPI_TOKEN=FakeEnvToken0102\n"
                  "DATABASE_URL=postgres://test:FakeUrlPass0103@test-db:5432/app\n",
                  ("FakeEnvPass0101", "FakeEnvToken0102", "FakeUrlPass0103")),
    "docker-compose.yaml": ("services:\n  app:\n    build: .\n    ports:\n      - '8000:8000'\n"
                            "    environment:\n      - SECRET_KEY=FakeComposeSecret0202\n"
                            "  test-db:\n    image: postgres:16-alpine\n    ports:\n      - '5433:5432'\n"
                            "    environment:\n      POSTGRES_PASSWORD: FakeComposePass0201\n",
                            ("FakeComposePass0201", "FakeComposeSecret0202")),
    "config/app.yaml": ("database:\n  password: \"FakeYamlPass0301\"\n  api_key: FakeYamlKey0302\n"
                        f"signing:\n  private_key: |\n    FakeBlockSecretLine0303\n    {PEM_BODY}\n",
                        ("FakeYamlPass0301", "FakeYamlKey0302", "FakeBlockSecretLine0303", PEM_BODY)),
    "settings.toml": ("[db]\nhost = 'db'\npassword = \"FakeTomlPass0401\"\n\n"
                      "[auth]\nsecret_key = 'FakeTomlSecret0402'\n",
                      ("FakeTomlPass0401", "FakeTomlSecret0402")),
    "setup.cfg": ("[server]\nhost = 0.0.0.0\npassword = FakeIniPass0501\n\n[upload]\ntoken=FakeIniToken0502 ; note\n",
                  ("FakeIniPass0501", "FakeIniToken0502")),
    "config/app.json": ('{\n  "name": "demo",\n  "client_secret": "FakeJsonSecret0601"\n}\n', ("FakeJsonSecret0601",)),
    "README.md": ("# Demo\n\n## Setup\n\n```bash\nexport GITHUB_TOKEN=FakeDocToken0701\n"
                  "mysql://root:FakeDocPass0702@localhost/db\n```\n\n## Keys\n\n"
                  f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\n",
                  ("FakeDocToken0701", "FakeDocPass0702", PEM_BODY)),
    "Dockerfile": ("FROM python:3.11-slim AS base\nENV DB_PASSWORD=FakeDockerPass0801 \\\n    PORT=8000\n",
                   ("FakeDockerPass0801",)),
    "Makefile": ("test-all:\n\tpytest tests/\n\ntoken:\n\tcurl -d 'username=a&password=FakeMakePass0901&scope='\n",
                 ("FakeMakePass0901",)),
    # a shell script is code (Bash) whose bare values are masked as a configuration file's
    "scripts/deploy.sh": ("#!/bin/sh\nexport SECRET_KEY=\"FakeShellSecret1001\"\nexport API_TOKEN=FakeShellToken1002\n"
                          "./deploy\n", ("FakeShellSecret1001", "FakeShellToken1002")),
    "app/main.py": ('"""The app."""\n\n\ndef create_app():\n'
                    '    """Build the web application."""\n    return object()\n',
                    ()),
}
PLANTED = [secret for _, secrets in FILES.values() for secret in secrets]


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repo") / "demo"
    for name, (text, _) in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def repo_index(repo, tmp_path_factory, embedder):
    source = zip_folder(repo, tmp_path_factory.mktemp("zip") / "demo.zip")
    settings = settings_for(tmp_path_factory.mktemp("db") / "chroma_db")
    stats = build_index(source, settings, embedder=embedder)
    return settings, stats


def test_every_format_is_masked_before_chunking(repo) -> None:
    chunked = chunk_codebase(repo, 1_000_000)
    for chunk in chunked.chunks:
        assert not [s for s in PLANTED if s in chunk.code or s in chunk.symbol], chunk.chunk_id
    assert not [s for s in PLANTED if s in "\n".join(chunked.sources.values())]
    paths = {c.path for c in chunked.chunks}
    assert {name for name in FILES} <= paths  # every format was read (and chunked)
    assert sum(chunked.secrets_masked.values()) >= len(PLANTED) - 1  # the PEM body is planted twice, masked twice


def test_no_planted_secret_on_disk(repo_index) -> None:
    settings, _ = repo_index
    db_path = settings.db_path
    files = [p for p in db_path.rglob("*") if p.is_file()] + [p for p in db_path.parent.glob(f".{db_path.name}*")
                                                             if p.is_file()]
    assert any(p.name == "chroma.sqlite3" for p in files)
    words = {w.lower() for s in PLANTED for w in re.split(r"[^A-Za-z0-9]+", s) if len(w) >= 8}
    leaks = []
    for path in files:
        data = path.read_bytes()
        leaks += [(path.name, s) for s in PLANTED if s.encode() in data]
        leaks += [(path.name, w) for w in words if w.encode() in data.lower()]  # lexical sidecars keep terms
    assert leaks == []


def _hnsw_tails(db_path: Path) -> dict[Path, bytes]:
    """Each HNSW file's bytes past its live vectors, by the segment's header."""
    tails = {}
    for header in db_path.glob("*/header.bin"):
        _, _, _, count, slot = _HNSW_HEADER.unpack(header.read_bytes()[:_HNSW_HEADER.size])
        for name, size in (("data_level0.bin", slot), ("length.bin", 4)):
            tails[header.parent / name] = (header.parent / name).read_bytes()[count * size:]
    return tails


def test_hnsw_files_hold_nothing_past_their_vectors(repo_index) -> None:
    """hnswlib writes its malloc'd capacity unzeroed when it creates an index (chroma-core/chroma#7688):
    whatever the process freed before, a file's unmasked text among it. An index run leaves zeros
    there, and clearing what a copy holds there changes no answer."""
    settings, stats = repo_index
    tails = _hnsw_tails(settings.db_path)
    assert tails and all(len(tail) for tail in tails.values())  # the index holds fewer vectors than its capacity
    assert {path.name: tail.count(0) for path, tail in tails.items()} == {path.name: len(tail)
                                                                          for path, tail in tails.items()}
    before = _nearest_of_every_vector(settings.index_dir, stats.collection)
    planted = PLANTED[0].encode()
    for path, tail in tails.items():  # as the heap left it when the index was made
        with path.open("r+b") as handle:
            handle.seek(-len(tail), 2)
            handle.write((planted * (len(tail) // len(planted) + 1))[: len(tail)])
    assert clear_unused_hnsw(settings.db_path) == sum(len(tail) for tail in tails.values())
    assert all(planted not in path.read_bytes() for path in tails)
    assert clear_unused_hnsw(settings.db_path) == 0
    assert _nearest_of_every_vector(settings.index_dir, stats.collection) == before


def _nearest_of_every_vector(index_dir: Path, collection: str) -> list[list[tuple[str, float]]]:
    store = VectorStore(index_dir, collection)
    try:
        _, vectors = store.all_vectors()
        return [store.nearest(vector, 5) for vector in vectors]
    finally:
        store.close()


def test_no_planted_secret_in_search_or_cli_output(repo_index, embedder) -> None:
    settings, _ = repo_index
    searcher = Searcher(settings, embedder=embedder)
    for query in ("database password", "secret key token", "private key", "как подключиться к базе"):
        for hit in searcher.search(query, k=10, filters=SearchFilters(include_tests=True)):
            assert not [s for s in PLANTED if s in hit.chunk.code], (query, hit.chunk.chunk_id)
    result = run_cli("-m", "codelens", "search", "database password", "-k", "10", "--json",
                     "--db", str(settings.db_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) and not [s for s in PLANTED if s in result.stdout + result.stderr]


def test_config_question_finds_config_and_kinds_filter(repo_index, embedder) -> None:
    settings, stats = repo_index
    assert stats.chunks_per_kind["config"] > 0 and stats.chunks_per_kind["doc"] > 0
    assert stats.chunks_per_kind["function"] == 1
    searcher = Searcher(settings, embedder=embedder)
    top = [h.chunk.chunk_id for h in searcher.search("which port does the test database listen on", k=3)]
    assert "docker-compose.yaml::services.test-db" in top
    only_config = searcher.search("database", k=10, filters=SearchFilters(kinds=("config",)))
    assert only_config and {h.chunk.kind for h in only_config} == {"config"}
    only_code = searcher.search("database port", k=10, filters=SearchFilters(kinds=("function",)))
    assert [h.chunk.chunk_id for h in only_code] == ["app/main.py::create_app"]
    result = run_cli("-m", "codelens", "search", "how to run all tests", "--kind", "text", "--json",
                     "--db", str(settings.db_path))
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits and {h["kind"] for h in hits} == {"text"} and "Makefile::test-all" in [h["chunk_id"] for h in hits]


def test_graph_holds_the_code_and_map_lists_other_files(repo_index) -> None:
    settings, _ = repo_index
    graph = load_graph(settings.index_dir)
    assert {node.path for node in graph.nodes.values() if node.path} == {"app/main.py", "scripts/deploy.sh"}
    files = files_beside_code(settings.index_dir)
    assert "README.md" in files and "docker-compose.yaml" in files and "app/main.py" not in files
    text = code_map(graph, 2000, files)
    assert "Docs and config:" in text and "config/: app.json, app.yaml" in text
